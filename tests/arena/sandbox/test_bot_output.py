"""What a submitted bot prints (stdout and stderr) is kept with its match, at most 64 KiB per seat,
and shown by `arena faults`, the HTML report and `arena check-agent`: escaped, each line behind a
bar, so that no bot can clear a terminal or pass its text off as the arena's or another seat's."""
import os
import shutil
import threading

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.sandbox.wire import OUTPUT_LIMIT, Output
from arena.store import Store
from paths import FIXTURES

# Starts real processes, boxes, browsers or compilers: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = pytest.mark.slow

BOTS = os.path.join(FIXTURES, "printing_bots.py")
sandboxed = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(store, run id, {label: [match ids]}) of one run of the printing bots against random."""
    store = tmp_path_factory.mktemp("output") / "s.sqlite"
    agents = ", ".join(f"{BOTS}:{name}" for name in ("PrintingBot", "PrintThenRaise", "FloodingBot"))
    result = invoke("run", "--game", "insert", "--agents", agents, "--games", 1, "--jobs", 1, "--store", store)
    assert result.exit_code == 0, result.output
    db = Store(str(store), readonly=True)
    run_id = db.run().run_id
    played = {}
    for m in db.matches(run_id):
        for seat in m["seats"]:
            played.setdefault(seat["label"], []).append(m["match_id"])
    db.close()
    return store, run_id, played


def faults(run, *args):
    store, run_id, _ = run
    result = invoke("faults", run_id, *args, "--store", store)
    assert result.exit_code == 0, result.output
    return result.output


def seat_output(text, label):
    """The lines shown as `label`'s output in `arena faults` text (behind the bar)."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("  printed by seat"):
            inside = f"({label})" in line
        elif inside and line.startswith("  | "):
            lines.append(line[4:])
        else:
            inside = False
    return lines


@sandboxed
@pytest.mark.slow
def test_what_a_bot_prints_on_stdout_and_stderr_is_shown_for_its_match(run):
    match = run[2]["PrintingBot"][0]
    printed = [line for line in seat_output(faults(run, match), "PrintingBot") if " says: " in line]
    assert printed[:4] == ["stdout says: move 1", "stderr says: move 1", "stdout says: move 2", "stderr says: move 2"]


@sandboxed
@pytest.mark.slow
def test_a_bot_that_prints_then_raises_is_listed_with_its_fault_and_output(run):
    listing = faults(run)
    assert "exception at move" in listing and "RuntimeError: printed, then raised" in listing
    printed = seat_output(listing, "PrintThenRaise")
    assert "about to raise" in printed
    assert "RuntimeError: printed, then raised" in printed   # the traceback's last line
    assert any("printing_bots.py" in line and "in act" in line for line in printed)


@sandboxed
@pytest.mark.slow
def test_a_flood_is_cut_at_the_limit_and_the_cut_is_said(run):
    store, run_id, played = run
    db = Store(str(store), readonly=True)
    floods = [o for o in db.outputs(run_id) if o["label"] == "FloodingBot"]
    db.close()
    assert len(floods) == len(played["FloodingBot"])
    for o in floods:
        assert len(o["text"].encode()) == OUTPUT_LIMIT
        assert o["cut"] >= 2 * 3 * (1 << 20) - OUTPUT_LIMIT
    shown = faults(run, played["FloodingBot"][0])
    assert "too late to be kept" not in shown
    assert f"[output cut here: {floods[0]['cut']} more bytes were printed and not kept]" in shown


@sandboxed
@pytest.mark.slow
def test_a_bot_cannot_forge_the_arenas_lines_nor_reach_the_terminal(run):
    store, run_id, played = run
    match = played["PrintingBot"][0]
    shown = faults(run, match)
    assert "\x1b" not in shown and "\r" not in shown
    printed = seat_output(shown, "PrintingBot")
    assert "\\x1b[2J\\x1b[31mred\\rover" in printed
    assert "  printed by seat 1 (FloodingBot):" in printed   # shown behind the bar, as its own text
    db = Store(str(store), readonly=True)
    seats = db.match(run_id, match)["seats"]
    db.close()
    headings = [line for line in shown.splitlines() if line.startswith("  printed by seat")]
    assert headings == [f"  printed by seat {i} ({s['label']}):" for i, s in enumerate(seats)]


@sandboxed
@pytest.mark.slow
def test_the_report_shows_what_the_faulty_matches_bots_printed(run, tmp_path):
    store, run_id, _ = run
    out = tmp_path / "report.html"
    result = invoke("report", run_id, "--store", store, "--out", out)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "What the bots printed" in page
    assert "about to raise\nTraceback" in page


@sandboxed
def test_check_agent_shows_what_a_failing_bot_printed():
    result = invoke("check-agent", f"{BOTS}:PrintThenRaise", "--game", "insert", "--games", 1)
    assert result.exit_code == 1, result.output
    assert "what PrintThenRaise printed in that match:" in result.output
    assert "| about to raise" in result.output and "| RuntimeError: printed, then raised" in result.output


def test_the_arenas_side_keeps_the_limit_and_counts_the_rest():
    """A writer that prints far more than the limit is read to its end without blocking, and the
    arena keeps only the limit in memory."""
    r, w = os.pipe()
    output = Output(r)
    total = 5 * (1 << 20)

    def flood():
        with os.fdopen(w, "wb") as f:
            f.write(b"z" * total)
    writer = threading.Thread(target=flood)
    writer.start()
    while not output.ended:
        output.read()
    writer.join()
    output.close()
    assert len(output.kept) == OUTPUT_LIMIT and output.cut == total - OUTPUT_LIMIT


@sandboxed
@pytest.mark.slow
def test_an_exec_bots_stderr_is_kept_and_its_stdout_stays_the_protocol(tmp_path):
    store = tmp_path / "s.sqlite"
    result = invoke("run", "--game", "insert", "--agents", f"random, exec:{os.path.join(FIXTURES, 'exec', 'chatty.py')}",
                    "--games", 1, "--jobs", 1, "--store", store)
    assert result.exit_code == 0, result.output
    run_id = Store(str(store), readonly=True).run().run_id
    shown = invoke("faults", run_id, 0, "--store", store).output
    printed = seat_output(shown, "chatty.py")
    assert printed[:3] == ["chatty on stderr: request 1", '{"type": "action", "id": -1}', "chatty on stderr: request 2"]
    assert "no fault" in shown   # the line on stderr was never read as its action
