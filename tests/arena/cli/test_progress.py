"""The progress line of a run in a log: its time left comes from the rate of the last minute (the
games of a run differ in speed: a mean since the start promises too little time once slow matches
come), and a run played until settled says the time is to its next look."""
import re

from arena.cli.run import _PlainMeter


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def lines_of(meter, clock, capsys, steps):
    """Advances the meter one match per (seconds) in `steps`; the progress lines it printed."""
    for seconds in steps:
        clock.now += seconds
        meter.advance(None)
    return capsys.readouterr().err.splitlines()


def left(line):
    m = re.search(r"(?:(\d+)m)?(\d+)s left", line)
    return int(m[1] or 0) * 60 + int(m[2])


def test_the_time_left_follows_the_last_minute_not_the_mean_since_the_start(capsys):
    clock = Clock()
    meter = _PlainMeter(100, 0, clock=clock)
    # 50 quick matches (0.2 s each), then slow ones (10 s each): 40 more are slow
    lines = lines_of(meter, clock, capsys, [0.2] * 50 + [10.0] * 10)
    last = lines[-1]
    assert last.startswith("matches 60/100 (60%)"), last
    # 40 matches left at the last minute's rate (6 in 60 s): about 400 s, where the mean since the
    # start (60 matches in 110 s) would say 73 s
    assert 350 <= left(last) <= 450, last


def test_a_run_played_until_settled_says_the_time_is_to_its_next_look(capsys):
    clock = Clock()
    meter = _PlainMeter(10, 0, clock=clock, until=" to the next look")
    lines = lines_of(meter, clock, capsys, [5.0] * 4)   # a line every 10 s
    assert lines == ["matches 2/10 (20%), 0.2/s after 10s, 40s left to the next look",
                     "matches 4/10 (40%), 0.2/s after 20s, 30s left to the next look"], lines
    assert lines_of(meter, clock, capsys, [5.0] * 6)[-1] == "matches 10/10 (100%), 0.2/s after 50s, done"
