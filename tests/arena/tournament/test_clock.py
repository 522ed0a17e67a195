"""Clocks for every bot: `--time-control BASE+INC` gives each seat's agent a clock that runs only
on its own moves; running out is a "timeout" fault under the usual fault rule."""
import dataclasses
import json
import os
import shutil

import jsonschema
import pytest
from click.testing import CliRunner

from arena import edge
from arena.cli import main
from arena.results.outcome import placements_seen_by
from arena.store import Store
from arena.tournament import coordinator as tournament
from paths import FIXTURES, ROOT

BOTS = os.path.join(FIXTURES, "clock_bots.py")
RECORDER = os.path.join(FIXTURES, "exec", "recorder.py")
KEY = "5eed" * 8


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def run(tmp_path, game, agents, control, *more):
    """Plays one deal of `game` under `control`; returns the stored matches."""
    store = tmp_path / "s.sqlite"
    result = invoke("run", "--game", game, "--agents", agents, "--games", 1, "--time-control", control,
                    "--store", store, "--json", *more)
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run_id"]
    db = Store(str(store))
    matches = db.matches(run_id)
    db.close()
    return matches


def played_out(match):
    """Whether the match's actions play its deal to the end."""
    import engines
    state = engines.make(match["game_id"], seed=match["seed"], **match["game_params"])
    for a in match["actions"]:
        state.apply_action(a)
    return state.is_terminal()


def faults_of(match, label):
    return [f for f in match["faults"] if f["label"] == label]


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed"))])
def test_a_bot_that_takes_more_than_its_clock_is_faulted_once_and_the_match_goes_on(tmp_path, sandbox):
    matches = run(tmp_path, "insert", f"random, {BOTS}:Overrun as overrun", "0.5+0", "--sandbox", sandbox)
    assert len(matches) == 2
    for m in matches:
        assert [(f["kind"], f["move"] >= 4) for f in m["faults"]] == [("timeout", True)], m["faults"]
        assert "clock" in faults_of(m, "overrun")[0]["message"]
        overrun = faults_of(m, "overrun")[0]["seat"]
        assert placements_seen_by(m, "overrun")[overrun] == 2   # the fault rule: last for itself
        assert played_out(m)   # to the end, by the stand-in


@pytest.mark.slow
def test_the_opponents_thinking_does_not_run_a_bots_clock(tmp_path):
    # Two slow bots each spend more than half a bank, within their own clocks; together more than
    # the quick bot's whole bank.
    agents = f"{BOTS}:Thinker as slow1, {BOTS}:Thinker as slow2, {BOTS}:Quick as quick"
    matches = run(tmp_path, "belladone_bluff", agents, "0.5+0", "--players", 3, "--sandbox", "none")
    assert len(matches) == 3
    assert [m["faults"] for m in matches] == [[], [], []]


def test_a_built_in_agent_has_a_clock_too(tmp_path):
    matches = run(tmp_path, "insert", "greedy, random", "0.000001+0")
    for m in matches:
        assert sorted((f["label"], f["kind"]) for f in m["faults"]) == [("greedy", "timeout"), ("random", "timeout")]


@pytest.mark.parametrize("control, increasing", [("4+0", False), ("4+1", True)])
def test_an_exec_bot_is_sent_its_clock(tmp_path, control, increasing):
    log = tmp_path / "requests.jsonl"
    folder = tmp_path / "recorder"
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "recorder"\ncommand = {json.dumps(["python3", RECORDER, str(log), "0.02"])}\n')
    matches = run(tmp_path, "insert", f"random, exec:{folder}", control, "--sandbox", "none", "--time-limit", 4.5, "--jobs", 1)
    assert [m["faults"] for m in matches] == [[], []]
    with open(os.path.join(ROOT, "docs", "protocol", "request.schema.json")) as f:
        schema = jsonschema.Draft202012Validator(json.load(f))
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    matches_sent = [[]]
    for message in messages:
        if message["type"] == "start" and matches_sent[-1]:
            matches_sent.append([])
        if message["type"] == "request":
            schema.validate(message)
            matches_sent[-1].append(message["clock"])
    base, increment = (float(x) for x in control.split("+"))
    assert len(matches_sent) == 2
    for clocks in matches_sent:
        assert len(clocks) > 5
        assert all(c["increment"] == increment for c in clocks)
        assert 0 < clocks[0]["remaining"] <= base
        # this reply's time is the smaller of the per-move limit and the clock: the clock, at first
        assert clocks[0]["left"] == clocks[0]["remaining"]
        assert all(c["left"] <= min(4.5, c["remaining"]) for c in clocks)
        remaining = [c["remaining"] for c in clocks]
        steps = [b > a for a, b in zip(remaining, remaining[1:])]
        assert steps == [increasing] * len(steps), remaining


def test_a_run_without_a_time_control_keeps_its_run_id(tmp_path):
    from arena.match import TimeControl
    store = Store(str(tmp_path / "s.sqlite"))
    plan = tournament.plan(store, games=edge.games("insert", None), agents=edge.agents("greedy, random"), deals=2, time_limit=3.0,
                           deal_key=KEY,
                           seeding="independent")
    assert "time_control" not in store.run(plan.run_id).config.to_json()
    # computed before the time control (and coupled seeds) existed, with the code digest fixed
    assert dataclasses.replace(plan.config, code="0123456789abcdef").run_id == "insert-4ab32db983"
    clocked = tournament.plan(store, games=edge.games("insert", None), agents=edge.agents("greedy, random"), deals=2,
                              time_limit=3.0, deal_key=KEY, time_control=edge.time_control("60+0.5"))
    assert clocked.run_id != plan.run_id
    assert clocked.config.time_control == TimeControl(60.0, 0.5)
    assert store.run(clocked.run_id).config == clocked.config
    assert all(m.time_control == TimeControl(60.0, 0.5) for m in clocked.schedule)
    store.close()


@pytest.mark.parametrize("command", ["run", "compare"])
@pytest.mark.parametrize("text", ["abc", "-1+0", "5+x", "0+1", "5+-1", "nan+0"])
def test_a_malformed_time_control_is_a_one_line_error(tmp_path, command, text):
    args = ["--game", "insert", "--store", tmp_path / "s.sqlite", "--time-control", text]
    result = invoke(command, *(["greedy", "random"] if command == "compare" else ["--agents", "greedy,random"]), *args)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and "--time-control must be BASE+INC" in result.output
    assert "Traceback" not in result.output
    assert not os.path.exists(tmp_path / "s.sqlite") or not Store(str(tmp_path / "s.sqlite")).runs()


@pytest.mark.slow
def test_check_agent_checks_a_bot_against_its_clock():
    def check(bot, control):
        return invoke("check-agent", f"{BOTS}:{bot}", "--game", "insert", "--games", 1, "--sandbox", "none",
                      "--json", "--time-control", control)
    result = check("Overrun", "0.5+0")
    assert result.exit_code == 1, result.output
    checks = {c["check"]: c for c in json.loads(result.stdout)["checks"]}
    budget = checks["keeps to its time budget"]
    assert not budget["ok"] and "move 2: timeout: ran out of its clock" in budget["detail"], budget
    result = check("Quick", "5+0.1")   # it asserts that it is told its clock
    assert result.exit_code == 0, result.output
    assert "time control 5+0.1" in result.output
    result = check("Quick", "abc")
    assert result.exit_code == 2 and "--time-control must be BASE+INC" in result.output
