"""`arena check-agent` on exec bots: the protocol's checks (docs/protocol.md, "check-agent"), each
failure naming the protocol message that failed; a bot that floods stderr in a tournament (the other
misbehaving bots' faults in a tournament are test_exec_bots.py's ATTACKS); and the protocol's cost
per move through `arena bench --arena`.

The hostile bots are tests/fixtures/exec/hostile.py's attacks; the honest one is the Python kit."""
import json
import os
import shutil

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.sandbox.wire import OUTPUT_LIMIT
from arena.store import Store
from paths import FIXTURES, ROOT

# Starts real processes and boxes: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")]

HOSTILE = os.path.join(FIXTURES, "exec", "hostile.py")
PYTHON_KIT = os.path.join(ROOT, "examples", "bots", "python")
PROTOCOL_CHECKS = ["hello: says hello in protocol version 1",
                   "action: each reply one JSON line, an action by id or text",
                   "a legal move in every phase of the game", "stderr: prints at most what a match keeps"]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def check(agent, game="insert", *extra):
    result = invoke("check-agent", agent, "--game", game, "--games", 1, "--time-limit", 0.5, "--json", *extra)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


@pytest.mark.parametrize("game", ["insert", "wizard"])
def test_the_python_kit_passes_every_protocol_check(game):
    out = check(f"exec:{PYTHON_KIT}", game)
    assert out["ok"] and out["not_run"] == [], out
    names = [r["check"] for r in out["checks"]]
    assert all(name in names for name in PROTOCOL_CHECKS + ["deterministic under a seed"])
    phases = next(r["detail"] for r in out["checks"] if r["check"] == "a legal move in every phase of the game")
    # Wizard: the dealer's trump choice when a Wizard is turned up, bids and cards
    assert phases.endswith("bid, play, trump" if game == "wizard" else "play"), phases


# attack -> (the failing check, its detail starts with (the protocol message that failed), words in it)
FAILING = {
    "wrong_version": ("hello: says hello in protocol version 1", "hello: ", "protocol version 2, expected 1"),
    "stall": ("keeps to its time budget", "action: ", "timeout: no answer within 0.5 s"),
    "stderr_flood": ("stderr: prints at most what a match keeps", "stderr: ", f"beyond the {OUTPUT_LIMIT:,} kept"),
    "garbage": ("action: each reply one JSON line, an action by id or text", "action: ", "not JSON"),
    "mute": ("loads and resets", "hello: ", "timeout"),
}


@pytest.mark.parametrize("attack", sorted(FAILING))
def test_check_agent_names_the_protocol_message_a_hostile_bot_failed(attack):
    out = check(f"exec:{HOSTILE}[attack={attack}]")
    failed = [r for r in out["checks"] if not r["ok"]]
    name, message, words = FAILING[attack]
    assert not out["ok"] and [r["check"] for r in failed][:1] == [name], out
    assert failed[0]["detail"].startswith(message) and words in failed[0]["detail"], failed[0]
    assert "\n" not in failed[0]["detail"]
    # the checks after it did not run, and none is shown as passed
    assert set(out["not_run"]) & set(PROTOCOL_CHECKS + ["deterministic under a seed"])


def test_determinism_is_checked_only_when_the_manifest_says_so(tmp_path):
    folder = tmp_path / "kit"
    shutil.copytree(PYTHON_KIT, folder)
    manifest = (folder / "bot.toml").read_text().replace("deterministic = true\n", "")
    (folder / "bot.toml").write_text(manifest)
    out = check(f"exec:{folder}")
    assert out["not_run"] == ["deterministic under a seed"] and out["ok"]   # not required, never shown as passed
    shown = invoke("check-agent", f"exec:{folder}", "--game", "insert", "--games", 1)
    assert shown.exit_code == 0 and "its bot.toml does not say deterministic = true" in shown.output


def test_a_bot_that_floods_stderr_finishes_its_run_with_its_output_cut(tmp_path):
    store = tmp_path / "s.sqlite"
    result = invoke("run", "--game", "insert", "--agents", f"random, exec:{HOSTILE}[attack=stderr_flood] as flood",
                    "--games", 1, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["status"] == "finished" and out["matches"] == 2 and out["faults"] == []
    db = Store(str(store), readonly=True)
    kept = [o for o in db.outputs(out["run_id"]) if o["label"] == "flood"]
    db.close()
    assert len(kept) == 2 and all(len(o["text"].encode()) <= OUTPUT_LIMIT and o["cut"] > 0 for o in kept)


def test_bench_arena_gives_an_exec_bots_moves_per_second_beside_a_python_file_bot():
    result = invoke("bench", "--arena", "--game", "insert", "--arena-agents", f"exec:{PYTHON_KIT}, random",
                    "--no-search", "--repeats", 1, "--json")
    assert result.exit_code == 0, result.output
    rows = {r["case"]: r for r in map(json.loads, result.output.splitlines())}
    base, kit = rows["arena/insert/python_file_random"], rows["arena/insert/python-kit"]
    assert base["unit"] == kit["unit"] == "moves/s" and base["median_per_s"] > 0 and kit["median_per_s"] > 0
    assert kit["baseline"] == base["case"]
    assert kit["speedup"] == round(kit["median_per_s"] / base["median_per_s"], 2)
    assert "arena/insert/bare_loop" not in rows   # a bare loop plays no sandboxed bot


def test_a_bot_past_its_clock_fails_the_budget_check_on_its_action():
    out = check(f"exec:{HOSTILE}[attack=silent]", "insert", "--time-control", "0.3+0")
    failed = [r for r in out["checks"] if not r["ok"]]
    assert [r["check"] for r in failed] == ["keeps to its time budget"], out
    assert failed[0]["detail"].startswith("action: ") and "ran out of its clock" in failed[0]["detail"]


def test_a_hello_said_is_ok_and_the_checks_after_a_failure_are_not_run():
    """The bot says hello, then its first reply is garbage: its hello passed; every check after the
    failed one is "not run", never ok."""
    out = check(f"exec:{HOSTILE}[attack=garbage]")
    results = {r["check"]: r["ok"] for r in out["checks"]}
    assert results["loads and resets"] is True and results[PROTOCOL_CHECKS[0]] is True, out
    order = [r["check"] for r in out["checks"]]
    assert [results[name] for name in order] == [True] * (len(order) - 1) + [False], out
