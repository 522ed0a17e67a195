"""`arena check-agent` and `arena run` against bots that attack the protocol with their own pipes
(tests/fixtures/protocol_bots.py), in the real sandbox: every attack is the bot's fault, booked with
its kind, never the referee's crash, hang or pass; and check-agent never reports a check that did
not run as passed."""
import json
import os
import re
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.reports.faults import BAR
from paths import FIXTURES

PROTOCOL = os.path.join(FIXTURES, "protocol_bots.py")
BOTS = os.path.join(FIXTURES, "bots.py")
CHECKS_FAILED = 1   # check-agent's verdict on an agent that fails (a user error is 2)
CHECKS = ["loads and resets", "plays without raising or crashing", "returns legal actions",
          "does not modify the state it is given", "keeps to its time budget", "deterministic under a seed"]
# what the arena's own failure would look like: a traceback, "internal error: ...", an exception
# the referee would raise on these attacks, or one of its modules
REFEREE_FAILURE = re.compile(r"Traceback|internal error|RecursionError|BlockingIOError|BrokenPipeError|"
                             r"TimeoutError|WireError|AgentFault|arena[./](sandbox|wire|checks|cli|runner)")

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="the attacks are on the bubblewrap sandbox, and bwrap is not installed"),
              pytest.mark.timeout(180)]   # a referee that hangs fails here, instead of after the suite's 600 s


def check_agent(bot, *options, sandbox="bwrap"):
    args = ["check-agent", bot, "--game", "insert", "--games", "1", "--time-limit", "1", "--sandbox", sandbox,
            *options]
    result = CliRunner().invoke(main, args)
    assert REFEREE_FAILURE.search(arenas_own(result.output)) is None, result.output
    assert result.exit_code == CHECKS_FAILED, result.output
    return result.output


def arenas_own(output):
    """check-agent's output without what the bot printed (which may hold its own traceback)."""
    if output.startswith("{"):
        data = json.loads(output)
        for check in data["checks"]:
            check.pop("output", None)
        return json.dumps(data)
    return "\n".join(line for line in output.splitlines() if not line.startswith(BAR))


def report(bot, sandbox="bwrap"):
    """check-agent --json on `bot`: {check name: (ok, detail)} for the checks that ran, and the rest."""
    out = json.loads(check_agent(bot, "--json", sandbox=sandbox))
    assert out["ok"] is False
    ran, not_run = {c["check"]: (c["ok"], c["detail"]) for c in out["checks"]}, out.get("not_run", [])
    assert set(ran).isdisjoint(not_run) and set(ran) | set(not_run) == set(CHECKS), out
    return ran, not_run


def table_rows(bot):
    """check-agent's table on `bot`: {check name: its result column}."""
    rows = {}
    for line in check_agent(bot).splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 3 and cells[0] in CHECKS:
            rows[cells[0]] = cells[1]
    assert list(rows) == CHECKS
    return rows


def test_json_nested_20000_deep_is_the_bots_illegal_reply():
    ran, not_run = report(f"{PROTOCOL}:DeepJson")
    ok, detail = ran["returns legal actions"]
    assert not ok and "illegal" in detail and "protocol" in detail, detail
    assert [name for name, (ok, _) in ran.items() if not ok] == ["returns legal actions"]
    # its only move was the crafted frame: nothing else about its moves was tested
    assert "deterministic under a seed" in not_run and "keeps to its time budget" in not_run


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_bot_that_fills_its_request_pipe_times_out(sandbox):
    """Where the bot cannot reopen its request pipe for writing (a sandbox with a uid of its own)
    it only stops reading it, and the reply times out; where it can (--sandbox none here, and a
    sandbox run by a user other than root), the arena's write of the next request must time out."""
    ran, not_run = report(f"{PROTOCOL}:PipeHang", sandbox)
    ok, detail = ran["keeps to its time budget"]
    assert not ok and "move 1: timeout" in detail, detail
    if sandbox == "none":
        assert "did not take its request" in detail, detail
    assert [name for name, (ok, _) in ran.items() if not ok] == ["keeps to its time budget"]
    assert ran["returns legal actions"] == (True, "1 move checked")
    assert not_run == ["deterministic under a seed"]


@pytest.mark.parametrize("bot, failed", [
    (f"{BOTS}:BrokenInit", "loads and resets"),
    (f"{BOTS}:IllegalBot", "returns legal actions"),
    (f"{PROTOCOL}:DeepJson", "returns legal actions"),
])
def test_a_check_that_never_ran_is_not_shown_ok(bot, failed):
    """A bot that fails at its load or at its first move: each check is FAILED, ok for what it
    tested, or "not run"; nothing that was not tested is ok."""
    rows = table_rows(bot)
    assert rows[failed] == "FAILED"
    assert rows["deterministic under a seed"] == "not run"
    if failed == "loads and resets":
        assert set(rows.values()) == {"FAILED", "not run"}
    ran, not_run = report(bot)
    for name, result in rows.items():
        assert result == ("not run" if name in not_run else "ok" if ran[name][0] else "FAILED")
    assert not any(ok and detail.startswith("0 ") for ok, detail in ran.values()), ran


@pytest.mark.parametrize("bot", [f"{BOTS}:IllegalBot", f"{BOTS}:MutatingBot", f"{BOTS}:RaisingBot"])
def test_the_checks_after_a_failure_are_not_run(bot):
    """The checks stop at the first failure: each check after it is "not run", never ok (the moves
    played before the failure are no pass of theirs)."""
    results = list(table_rows(bot).values())
    failed = results.index("FAILED")
    assert "ok" not in results[failed:], results
    ran, not_run = report(bot)
    assert not_run == CHECKS[failed + 1:], (ran, not_run)


def test_counts_of_one_are_singular():
    ran, _ = report(f"{BOTS}:IllegalBot")
    assert ran["plays without raising or crashing"] == (True, "no exception, no crash in 1 move")


@pytest.mark.slow
def test_a_run_books_each_attack_to_its_bot(tmp_path):
    store = tmp_path / "s.sqlite"
    agents = f"random, {PROTOCOL}:DeepJson, {PROTOCOL}:PipeHang"
    result = CliRunner().invoke(main, ["run", "--game", "insert", "--agents", agents, "--games", "1",
                                       "--time-limit", "1", "--json", "--store", str(store), "--sandbox", "bwrap"])
    assert result.exit_code == 0, result.output
    assert REFEREE_FAILURE.search(result.output) is None, result.output
    out = json.loads(result.output)
    assert out["status"] == "finished" and out["matches"] == out["total"] == 6
    with sqlite3.connect(store) as db:
        stored = db.execute("SELECT match_id, seats, faults FROM matches").fetchall()
    assert sorted(m for m, _, _ in stored) == list(range(6))   # each match once
    kinds = {"DeepJson": "illegal", "PipeHang": "timeout"}
    for match_id, seats, faults in stored:
        labels = [s["label"] for s in json.loads(seats)]
        booked = {(f["label"], f["kind"]) for f in json.loads(faults)}
        # every attacker in the match faults, with its attack's kind, and nobody else does
        assert booked == {(label, kinds[label]) for label in labels if label in kinds}, (match_id, labels, faults)
    assert {(f["label"], f["kind"]) for f in out["faults"]} == set(kinds.items())
