"""Submitted bots cannot cheat: hostile bots in real tournaments, the wire protocol, keyed deals, the store.

The hostile bots are in tests/fixtures/hostile_bots.py: a bot whose attack works raises
"ATTACK SUCCEEDED", so a tournament with none of those faults is one where every route failed.
"""
import json
import os
import shutil
import socket
import sqlite3

import pytest
from click.testing import CliRunner

from arena import agent_list
from arena.cli import main
from arena.match import Fault, MatchResult
from arena.sandbox import POOL, AgentFault, RemoteAgent, make_policy, stage
from arena.store import Store, StoreError
from arena.tournament import runner, schedule
from configs import a_config
from paths import ROOT

HOSTILE = os.path.join(ROOT, "tests", "fixtures", "hostile_bots.py")
BOTS = os.path.join(ROOT, "tests", "fixtures", "bots.py")
SECRET = "arena-test-secret-4f2a"

# Starts real processes and boxes: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    yield server.getsockname()[1]
    server.close()


def _hostile_tournament(tmp_path, jobs, port):
    other = tmp_path / "other_bot.py"
    shutil.copy(BOTS, other)
    original = other.read_bytes()
    marker = tmp_path / "payload-ran"
    store = tmp_path / "s.sqlite"
    bots = {
        "DealFromSeeds": "", "ReadReferee": "", "PickleReply": f"marker={marker}",
        "PickleFrame": f"marker={marker}", "WriteStore": f"path={store}", "RewriteFiles": f"path={other}",
        "KillParent": "", "ReadSecrets": f"secret={SECRET}", "Network": f"port={port}",
        "MemoryBomb": "megabytes=1024", "ForkBomb": "tries=200", "HalfHeader": "", "HugeFrame": "",
        "FloatAction": "", "StringAction": "", "ChattyStdout": "",
    }
    agents = ", ".join([f"{other}:GoodBot as honest_file", "random"] +
                       [f"{HOSTILE}:{name}[{params}] as {name}" if params else f"{HOSTILE}:{name}"
                        for name, params in bots.items()])
    os.environ["ARENA_TEST_ENV_SECRET"] = SECRET
    try:
        result = invoke("run", "--game", "belladone_bluff", "--agents", agents, "--games", 1, "--jobs", jobs,
                        "--time-limit", 0.5, "--bot-limit", "memory=512", "--bot-limit", "processes=16",
                        "--store", store, "--json")
    finally:
        del os.environ["ARENA_TEST_ENV_SECRET"]
    assert result.exit_code == 0, result.output
    return json.loads(result.output), store, other.read_bytes() == original, marker


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_hostile_route_fails_and_the_tournament_finishes(tmp_path, jobs, listener):
    out, store, other_intact, marker = _hostile_tournament(tmp_path, jobs, listener)
    assert out["status"] == "finished" and out["matches"] == out["total"] == 18 * 17
    succeeded = [f for f in out["faults"] if "ATTACK SUCCEEDED" in f["message"]]
    assert succeeded == []
    assert other_intact and not marker.exists()
    assert not os.path.exists(os.path.join(ROOT, "agents", "planted.py"))
    kinds = {}
    for f in out["faults"]:
        kinds.setdefault(f["label"], set()).add(f["kind"])
    # The attacks that fail quietly leave no fault; the bombs and the protocol breakers are faults.
    for quiet in ("honest_file", "random", "DealFromSeeds", "ReadReferee", "WriteStore", "RewriteFiles",
                  "KillParent", "ReadSecrets", "Network", "ChattyStdout"):
        assert quiet not in kinds, (quiet, kinds.get(quiet))
    assert kinds["MemoryBomb"] == {"exception"} and kinds["ForkBomb"] == {"exception"}
    assert kinds["HalfHeader"] == {"timeout"}
    for illegal in ("PickleReply", "PickleFrame", "HugeFrame", "FloatAction", "StringAction"):
        assert kinds[illegal] == {"illegal"}, (illegal, kinds[illegal])
    messages = {f["label"]: f["message"] for f in out["faults"]}
    assert "MemoryError" in messages["MemoryBomb"]
    assert "returned 'Payload" not in messages["PickleReply"] and "not a legal action" in messages["PickleReply"]
    assert "204857600" in messages["HugeFrame"] or "209715200" in messages["HugeFrame"]
    # Every match is stored once, by the arena, and complete.
    db = sqlite3.connect(str(store))
    ids = [r[0] for r in db.execute("SELECT match_id FROM matches ORDER BY match_id")]
    db.close()
    assert ids == list(range(out["total"]))
    rows = {r["label"]: r for r in out["leaderboards"][0]["rows"]}
    assert rows["honest_file"]["games"] == rows["random"]["games"] == 34


def test_the_detectors_do_detect_when_nothing_confines_the_bot(tmp_path, listener, monkeypatch):
    """The same attacks, unsandboxed and on unkeyed deals, succeed: the tournament test can fail."""
    monkeypatch.setenv("ARENA_TEST_ENV_SECRET", SECRET)
    params = json.loads(json.dumps(__import__("engines").registry.resolve("belladone_bluff")))
    unconfined = make_policy("none")
    for name, bot_params in [("DealFromSeeds", ()), ("ReadReferee", ()), ("ReadSecrets", (("secret", SECRET),)),
                             ("Network", (("port", str(listener)),))]:
        specs = [agent_list.parse_agent("random"), agent_list.parse_agent(f"{HOSTILE}:{name}")]
        specs[1] = type(specs[1])(specs[1].label, specs[1].source, bot_params, specs[1].kind, specs[1].target)
        match = schedule.game_schedule("t", "belladone_bluff", params, specs, 1, 3, 5.0, deal_key="",
                                       sandbox=unconfined)[0]
        result = runner.play_match(match)
        assert [f.kind for f in result.faults] == ["exception"], (name, result.faults)
        assert "ATTACK SUCCEEDED" in result.faults[0].message, (name, result.faults)
    POOL.close()


def test_an_honest_bot_plays_the_same_matches_with_and_without_the_sandbox(tmp_path):
    args = ("--game", "belladone_bluff", "--agents", f"greedy, {BOTS}:GoodBot", "--games", 3, "--json")
    runs = []
    for mode in ("bwrap", "none"):
        result = invoke("run", *args, "--sandbox", mode, "--store", tmp_path / f"{mode}.sqlite")
        assert result.exit_code == 0, result.output
        runs.append(json.loads(result.output))
        store = Store(str(tmp_path / f"{mode}.sqlite"))
        runs[-1]["stored"] = [(m["match_id"], m["seed"], m["actions"], m["returns"], m["placements"])
                              for m in store.matches(runs[-1]["run_id"])]
        store.close()
    assert runs[0]["stored"] == runs[1]["stored"] and len(runs[0]["stored"]) == 6
    assert runs[0]["faults"] == runs[1]["faults"] == []
    strip = [[{k: r[k] for k in ("label", "mu", "sigma", "wins", "losses")} for r in run["leaderboards"][0]["rows"]]
             for run in runs]
    assert strip[0] == strip[1]


def test_a_bot_loads_the_code_staged_when_the_run_started(tmp_path, monkeypatch):
    import engines
    from arena.sandbox import staging
    bot = tmp_path / "mybot.py"
    shutil.copy(BOTS, bot)
    spec = stage(agent_list.parse_agent(f"{bot}:GoodBot"))
    bot.write_text("raise SystemExit('edited after the start')\n")
    state = engines.make("insert", seed=1)
    agent = RemoteAgent(spec, 5.0)
    try:
        agent.reset("insert", state.params, 0, 1)
        assert agent.act(state.clone()) in state.legal_actions()
    finally:
        agent.kill()
    # The copy gone and the original changed: the run cannot go on with other code.
    shutil.rmtree(staging.code_dir(spec.code))
    monkeypatch.setattr(staging, "_verified", set())
    with pytest.raises(ValueError, match="its code changed since the run started"):
        stage(spec)


def test_deals_are_keyed_per_store_unless_the_key_is_given(tmp_path, monkeypatch):
    monkeypatch.delenv("ARENA_DEAL_KEY")
    args = ("--game", "insert", "--agents", "random, greedy", "--games", 2, "--jobs", 1, "--json")

    def seeds(store, *extra):
        result = invoke("run", *args, "--store", store, *extra)
        assert result.exit_code == 0, result.output
        s = Store(str(store))
        out = [m["seed"] for m in s.matches(json.loads(result.output)["run_id"])]
        key = s.deal_key(json.loads(result.output)["run_id"])
        s.close()
        return out, key

    a, key_a = seeds(tmp_path / "a.sqlite")
    b, key_b = seeds(tmp_path / "b.sqlite")
    assert a != b and key_a != key_b and len(key_a) == 32
    assert seeds(tmp_path / "a.sqlite") == (a, key_a)             # the same command resumes, same deals
    assert seeds(tmp_path / "c.sqlite", "--deal-key", key_a) == (a, key_a)   # the key reproduces them
    result = invoke("run", *args, "--store", tmp_path / "a.sqlite", "--deal-key", "ab" * 16)
    assert result.exit_code == 2 and "other deals" in result.output
    result = invoke("run", *args, "--store", tmp_path / "d.sqlite", "--deal-key", "xyz")
    assert result.exit_code == 2 and "32 hexadecimal digits" in result.output


def test_a_row_written_by_someone_else_is_never_silently_kept(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    params = json.loads(json.dumps(__import__("engines").registry.resolve("insert")))
    match = schedule.game_schedule("r", "insert", params, agent_list.parse_agents("random, greedy"), 1, 0, 1.0)[0]
    store.create_run("r", a_config(), 2, "")
    planted = schedule.game_schedule("planted", "insert", params, agent_list.parse_agents("random, greedy"), 1, 0, 1.0)[0]
    store.record(planted, runner.play_match(planted))
    forged = MatchResult(match.match_id, [9999.0, 0.0], [1, 2], [], [Fault(1, "greedy", "crash", "forged")])
    store.record(match, forged)
    with pytest.raises(StoreError, match="something else writes this store"):
        store.record(match, runner.play_match(match))
    # Rows planted before a run exists are not taken as its results either.
    with pytest.raises(StoreError, match="never started"):
        store.create_run("planted", a_config(), 2, "")
    store.close()


def test_replies_are_validated_plain_data(tmp_path):
    import engines
    state = engines.make("insert", seed=1)
    for name, kind in [("FloatAction", "illegal"), ("StringAction", "illegal"), ("HugeFrame", "illegal"),
                       ("HalfHeader", "timeout")]:
        agent = RemoteAgent(agent_list.parse_agent(f"{HOSTILE}:{name}"), 0.5)
        try:
            agent.reset("insert", state.params, 0, 1)
            with pytest.raises(AgentFault) as fault:
                agent.act(state.clone())
            assert fault.value.kind == kind, (name, fault.value)
        finally:
            agent.kill()


def test_without_bwrap_a_submitted_bot_is_refused_in_one_line_unless_opted_out(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))   # no bwrap on this PATH
    args = ("run", "--game", "insert", "--agents", f"random, {BOTS}:GoodBot", "--games", 1, "--jobs", 1)
    result = invoke(*args, "--store", tmp_path / "a.sqlite")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "bubblewrap" in result.output and "--sandbox none" in result.output
    result = invoke(*args, "--store", tmp_path / "b.sqlite", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    assert "sandbox: none" in invoke("leaderboard", "--store", tmp_path / "b.sqlite").output
