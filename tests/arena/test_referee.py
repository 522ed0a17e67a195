"""arena.referee: every way a move can go wrong becomes the same AgentFault, and every place that
asks an agent for a move (a tournament with its stand-ins, `arena play`, `arena serve`'s games,
check-agent, the experiments, the Gymnasium environment) asks through it."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

import engines
from arena import agent_list, edge, referee
from arena.sandbox import AgentFault, RemoteAgent, make_policy, stage
from arena.seeds import view_base, view_seed
from arena.tournament import schedule
from paths import FIXTURES, ROOT

BOTS = os.path.join(FIXTURES, "bots.py")
HOSTILE = os.path.join(FIXTURES, "hostile_bots.py")


class Answer:
    """An in-process agent that answers `value` (a callable of the view: its answer)."""

    def __init__(self, value):
        self.value, self.seen = value, []

    def act(self, view):
        self.seen.append(view)
        return self.value(view)


def _fault(player, trusted=False, state=None):
    state = state or engines.make("insert", seed=3)
    before = state.snapshot()
    with pytest.raises(AgentFault) as err:
        referee.play_move(state, player, 7, 0, trusted=trusted)
    assert state.snapshot() == before, "a fault leaves the state as it was"
    return err.value


def test_the_mover_gets_its_view_seeded_from_the_match_and_the_move_is_applied():
    state = engines.make("wizard", seed=4, players=3, hands=(3,))
    base = view_base(99, 5)
    player = Answer(lambda view: view.legal_actions()[0])
    for move in range(4):
        seat = state.current_player()
        expected = state.determinize(seat, view_seed(base, move)).snapshot()
        legal = state.legal_actions()
        action = referee.play_move(state, player, base, move)
        assert player.seen[-1] is not state and player.seen[-1].snapshot() == expected
        assert action == legal[0] and state.history()[-1] == action
    assert view_seed(base, 1) != view_seed(base, 2) and view_base(99, 5) != view_base(99, 6)


def test_a_numpy_integer_is_taken_as_a_plain_int():
    state = engines.make("insert", seed=3)
    legal = state.legal_actions()
    action = referee.play_move(state, Answer(lambda view: np.int64(legal[-1])), 7, 0)
    assert action == legal[-1] and type(action) is int and state.history() == [legal[-1]]
    assert type(referee.checked_action(np.int16(legal[0]), legal)) is int


@pytest.mark.parametrize("answer", [True, False, 1.0, "1", None, -1, 10 ** 6, [0]])
def test_a_bool_or_anything_but_a_legal_int_is_illegal(answer):
    state = engines.make("insert", seed=3)
    assert 0 in state.legal_actions() and 1 in state.legal_actions()   # True and False would be legal as ints
    f = _fault(Answer(lambda view: answer))
    assert f.kind == "illegal" and f"returned {answer!r}, not a legal action" in f.message
    # a trusted player (a stand-in, the person at the terminal) is checked all the same
    assert _fault(Answer(lambda view: answer), trusted=True).kind == "illegal"


def test_an_exception_is_a_fault_unless_the_player_is_trusted():
    def boom(view):
        raise RuntimeError("bot bug")

    f = _fault(Answer(boom))
    assert f.kind == "exception" and "RuntimeError: bot bug" in f.message
    with pytest.raises(RuntimeError, match="bot bug"):   # a trusted player's error is the caller's
        referee.play_move(engines.make("insert", seed=3), Answer(boom), 7, 0, trusted=True)
    # a built-in agent made by make_player is trusted code but its errors are faults too
    local = referee.make_player(agent_list.parse_agent("random"), 0.0)
    assert isinstance(local, referee.LocalAgent)
    local.agent.act = boom
    assert _fault(local).kind == "exception"


def _remote(name, time_limit, path=BOTS):
    spec = stage(agent_list.parse_agent(f"{path}:{name}", run_code=True))
    agent = RemoteAgent(spec, time_limit, make_policy("none"))
    agent.reset("insert", dict(engines.make("insert").params), 0, 1)
    return agent


@pytest.mark.parametrize("name,kind,words", [
    ("HangingBot", "timeout", "no answer within 0.5 s"),
    ("RaisingBot", "exception", "bot bug on move 3"),
    ("IllegalBot", "illegal", "not a legal action"),
    ("CrashingBot", "crash", ""),
])
def test_a_submitted_bot_faults_through_the_referee(name, kind, words):
    """The deadline is the RemoteAgent's (a submitted bot's own process); the referee passes its
    faults on as they are, and the state is never touched."""
    agent = _remote(name, 0.5)
    state = engines.make("insert", seed=3)
    try:
        with pytest.raises(AgentFault) as err:
            for move in range(200):
                before = state.snapshot()
                referee.play_move(state, agent, 7, move)
        assert state.snapshot() == before
        assert err.value.kind == kind and words in err.value.message, err.value
    finally:
        agent.kill()


def test_a_slow_move_is_a_timeout_and_a_prompt_one_is_not():
    agent = _remote("SlowBot", 1.0)
    state = engines.make("insert", seed=3)
    try:
        referee.play_move(state, agent, 7, 0)   # SlowBot's first move is prompt
        with pytest.raises(AgentFault) as err:
            referee.play_move(state, agent, 7, 1)
        assert err.value.kind == "timeout" and len(state.history()) == 1
    finally:
        agent.kill()


@pytest.mark.parametrize("name", ["StringAction", "FloatAction", "PickleReply"])
def test_a_malformed_reply_from_a_sandboxed_bot_is_illegal(name):
    agent = _remote(name, 5.0, HOSTILE)
    try:
        f = _fault(agent)
        assert f.kind == "illegal" and ("not a legal action" in f.message or "malformed" in f.message)
    finally:
        agent.kill()


# ---- every caller asks through the referee ----

@pytest.fixture
def counted(monkeypatch):
    """How many actions arena.referee.checked_action has checked since the fixture started."""
    calls = []
    real = referee.checked_action

    def counting(action, legal):
        calls.append(action)
        return real(action, legal)

    monkeypatch.setattr(referee, "checked_action", counting)
    return calls


def test_a_tournament_match_and_its_stand_in_go_through_the_referee(counted, monkeypatch):
    import agents.simple

    # random and greedy alone are played by the C loop (tests/agents/test_playloop.py: the same moves);
    # every other match, and any match the C loop declines, is refereed like this one
    from arena.tournament.runner import play_refereed as play_match
    params = dict(engines.registry.resolve("insert"))
    specs = [agent_list.parse_agent("random"), agent_list.parse_agent("greedy")]
    match = schedule.game_schedule("t", "insert", params, specs, 1, 3, 5.0, deal_key="")[0]
    result = play_match(match)
    assert not result.faults and len(counted) == len(result.actions) > 0
    # greedy raises after its first move: a fault, and its stand-in's moves are the referee's too
    real, calls = agents.simple.GreedyAgent.act, []

    def once(self, view):
        calls.append(view)
        if len(calls) > 1:
            raise RuntimeError("after the first move")
        return real(self, view)

    monkeypatch.setattr(agents.simple.GreedyAgent, "act", once)
    counted.clear()
    result = play_match(match)
    assert [(f.kind, f.label) for f in result.faults] == [("exception", "greedy")]
    assert len(counted) == len(result.actions) > 3


def test_arena_play_goes_through_the_referee(counted):
    from arena.cli import main
    result = CliRunner().invoke(main, ["play", "insert", "--vs", "random", "--seed", "5", "--seat", "0"],
                                input="1\n" * 200)
    assert result.exit_code == 0, result.output
    stored = engines.make("insert", seed=5)
    assert "final scores:" in result.output and len(counted) > 2   # the person's moves and the bot's
    assert counted[0] == stored.legal_actions()[0]   # the person's first answer, "1", is the first move


def test_a_game_in_the_browser_goes_through_the_referee(counted):
    from arena.serve.sessions import PlaySession
    session = PlaySession("insert", {}, edge.web_agents("random"), seat=0, seed=5).start()
    session.human_move(session.state.legal_actions()[0])
    assert counted == []   # the person's move comes from the page, checked there
    session.bot_move()
    assert len(counted) == 1 and len(session.state.history()) == 2
    session.close()


def test_the_gymnasium_opponents_go_through_the_referee(counted):
    from arena.interop.gymnasium import TabletopEnv
    env = TabletopEnv("insert", opponents="random", seat=1)
    _, info = env.reset(seed=3)
    assert info["opponent_moves"] == len(counted) == 1


def test_the_head_to_head_experiment_goes_through_the_referee(counted):
    from experiments.openspiel_h2h import play
    params = dict(engines.registry.resolve("insert"))
    _, _, returns, _, clock = play(("insert", params, "random", "greedy", 0, 11, "AB"))
    assert len(counted) > 2 and clock["A"][1] + clock["B"][1] <= len(counted)


def test_the_openspiel_strength_experiment_goes_through_the_referee(counted):
    pytest.importorskip("pyspiel")
    from experiments.ismcts_strength import versus_openspiel
    out = versus_openspiel("insert", deals=1, iterations=5)
    assert out["matches"] == 2 and len(counted) > 4


def test_check_agent_goes_through_the_referee(counted):
    from arena.tournament.checks import check_agent
    spec = agent_list.parse_agent(f"{BOTS}:GoodBot", run_code=True)
    params = dict(engines.registry.resolve("insert"))
    results = check_agent(spec, "insert", params, games=1, time_limit=5.0, policy=make_policy("none"))
    assert all(r["ok"] for r in results) and len(results) == 6
    moves = int(next(r["detail"] for r in results if r["check"] == "returns legal actions").split()[0])
    assert len(counted) == moves > 0
    # an illegal answer is the referee's refusal, reported as check-agent's "legal" check
    bad = check_agent(agent_list.parse_agent(f"{BOTS}:IllegalBot", run_code=True), "insert", params, games=1,
                      time_limit=5.0, policy=make_policy("none"))
    failed = [r for r in bad if not r["ok"]]
    assert [r["check"] for r in failed] == ["returns legal actions"]
    assert "illegal: returned" in failed[0]["detail"] and "not a legal action" in failed[0]["detail"]



def _servers():
    """The pids of this Python's bot servers (of the fork server and of its match processes)."""
    found = set()
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[0] == sys.executable.encode() and any(b"arena.sandbox.fork_server" in a for a in argv):
            found.add(int(entry))
    return found


def _ends(pid, within=10.0):
    """Whether process `pid` ends (or is a zombie) within `within` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


DIES_DURING_A_MOVE = f"""
import os, signal, sys, threading, time
sys.path[:0] = [{ROOT!r}]
import engines
from arena import agent_list, referee
from arena.sandbox import RemoteAgent, make_policy, stage
agent = RemoteAgent(stage(agent_list.parse_agent({BOTS!r} + ":HangingBot", run_code=True)), 60, make_policy("none"))
agent.reset("insert", dict(engines.make("insert").params), 0, 1)
threading.Thread(target=referee.play_move, args=(engines.make("insert", seed=3), agent, 7, 0), daemon=True).start()
time.sleep(2)
os.kill(os.getpid(), signal.SIGKILL)   # the arena dies while its bot thinks, closing nothing
"""


@pytest.mark.parametrize("how", ["its move times out", "the arena is killed"])
def test_a_hanging_bot_without_the_sandbox_ends_with_its_box(how):
    """Without the sandbox a match process runs in a session of its own, so killing its server's
    group missed it: a hanging bot outlived its match and its arena. It now ends with its server."""
    before = _servers()
    if how == "its move times out":
        agent = _remote("HangingBot", 0.5)
        with pytest.raises(AgentFault):
            referee.play_move(engines.make("insert", seed=3), agent, 7, 0)
        agent.kill()
    else:
        arena = subprocess.run([sys.executable, "-c", DIES_DURING_A_MOVE], timeout=120)
        assert arena.returncode == -signal.SIGKILL
    started = _servers() - before
    assert all(_ends(p) for p in started), [p for p in started if not _ends(p, 0)]
