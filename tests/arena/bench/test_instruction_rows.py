"""The rows of `arena bench --instructions` without valgrind: a row's ratio is the ratio of the
counts it prints, so a reader dividing the printed figures gets the printed ratio."""
from arena.bench import instructions


def test_a_ratio_is_that_of_the_printed_counts(monkeypatch):
    counts = {"rollouts_python": 763613.0, "rollouts": 17208.4, "arena": 1234567.6}
    monkeypatch.setattr(instructions, "per_unit", lambda case, game_id, n=None: (counts[case], n or 1))
    python = instructions._row("rollouts_python", "g/rollouts_python", "g")
    c = instructions._row("rollouts", "g/rollouts", "g", python)
    arena = instructions._row("arena", "arena/g/matches", "g", c)
    assert (python["instructions"], c["instructions"], arena["instructions"]) == (763613, 17208, 1234568)
    assert c["ratio"] == round(763613 / 17208, 2) == 44.38
    assert arena["playout_pct"] == round(100 * 17208 / 1234568, 2)
