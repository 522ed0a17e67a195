"""`arena check-agent`: a submitted agent checked before a tournament, in its sandbox."""
import random
import time
from typing import Any, Optional

import engines
from arena import referee
from arena.match import AgentSpec, SandboxPolicy, TimeControl
from arena.sandbox import DEFAULT_POLICY, AgentFault, RemoteAgent, check_available, stage
from arena.seeds import derive_seed, view_base

# key -> what it checks, in the order they are reported
CHECKS = {"loads": "loads and resets", "runs": "plays without raising or crashing",
          "legal": "returns legal actions", "unmodified": "does not modify the state it is given",
          "budget": "keeps to its time budget", "deterministic": "deterministic under a seed"}
# the check a fault during a move fails: everything else the bot does wrong on a move is "illegal"
MOVE_FAULTS = {"timeout": "budget", "exception": "runs", "crash": "runs"}


class _Failed(Exception):
    """A check failed: the checks stop there."""


class _Checked:
    """The agent under check as the referee's player: of its last answer, whether it came
    (`answered`), how long it took (`seconds`) and whether it modified the view (`modified`)."""

    clock = None   # the referee's reading of the agent's clock, passed on to it

    def __init__(self, agent):
        self.agent, self.answered, self.seconds, self.modified = agent, None, 0.0, False

    def act(self, view):
        self.agent.clock = self.clock
        started = time.perf_counter()
        action, self.modified = self.agent.act(view, check=True)
        self.seconds, self.answered = time.perf_counter() - started, True
        return action


def check_agent(spec: AgentSpec, game_id: str, game_params: dict[str, Any], games: int = 2, seed: int = 0,
                time_limit: float = 10.0, policy: Optional[SandboxPolicy] = None,
                time_control: Optional[TimeControl] = None) -> list[dict[str, Any]]:
    """Checks an agent before a tournament; returns [{"check", "ok", "detail"}] for the checks that
    ran, in the order of CHECKS.

    The agent plays `games` matches against random agents, taking each seat in turn, in its own
    sandboxed process, each of its moves asked for by the referee (arena.referee) as in a
    tournament; each match is then replayed with the same seeds. Checked: it loads, it returns
    legal actions, it leaves the state it is given unmodified, it keeps to the per-move time limit
    and, under a `time_control`, to its clock (and neither raises nor crashes), and it plays the
    same actions under the same seeds.

    The checks stop at the first failure; the failed check's row also has the `output` the agent
    printed in that match (as `RemoteAgent.captured` gives it; None if nothing). A check that nothing tested (every check after a failed
    load; "deterministic" when no match was played and replayed to its end; the move checks when no
    move was answered) is left out of the list, never reported as passed: `not_run` names them.
    """
    builtin = not spec.submitted
    if builtin:
        import agents.registry
        spec = type(spec)(spec.label, spec.source, spec.params, "module", agents.registry.BUILTIN[spec.source])
    check_available(policy or DEFAULT_POLICY)
    spec = spec if builtin else stage(spec)
    problems: dict[str, list[str]] = {k: [] for k in CHECKS}
    times, moves, loaded, replayed = [], 0, 0, 0
    printed = None   # what the agent printed in the last match it played

    def fail(key, text):
        problems[key].append(text)
        raise _Failed

    def play(g):
        """The agent's actions in match `g`; _Failed at the first problem."""
        nonlocal moves, loaded, printed
        match_seed = derive_seed(seed, "check", g)
        state = engines.make(game_id, seed=match_seed, **game_params)
        me = g % state.num_players
        others = random.Random(match_seed)
        try:
            agent = RemoteAgent(spec, time_limit, policy, staged=not builtin)
        except AgentFault as f:
            printed = f.output
            fail("loads", f"match {g}: {f.kind}: {f.message}")
        player = _Checked(agent)
        actions: list[int] = []
        try:
            try:
                agent.reset(game_id, dict(game_params), me, derive_seed(match_seed, "agent"))
            except AgentFault as f:
                fail("loads", f"match {g}: {f.kind}: {f.message}")
            loaded += 1
            views = view_base(match_seed)
            clock = referee.Clock(time_control) if time_control else None
            while not state.is_terminal():
                if state.current_player() != me:
                    state.apply_action(others.choice(state.legal_actions()))
                    continue
                where = f"match {g}, move {len(actions)}"
                player.answered = illegal = None
                try:
                    action = referee.play_move(state, player, views, len(state.history()), clock=clock)
                except AgentFault as f:
                    # its own fault: a timeout (also past its clock), an exception, a crash, a bad reply
                    if not player.answered or f.kind == "timeout":
                        fail(MOVE_FAULTS.get(f.kind, "legal"), f"{where}: {f.kind}: {f.message}")
                    illegal = f"{where}: {f.kind}: {f.message}"   # an answer the referee refused
                times.append(player.seconds)
                moves += 1
                if player.modified:
                    problems["unmodified"].append(f"{where}: the state was modified")
                if illegal:
                    problems["legal"].append(illegal)
                if player.modified or illegal:
                    raise _Failed
                actions.append(action)
        finally:
            agent.kill()
            printed = agent.captured()
        return actions

    try:
        for g in range(games):
            first = play(g)
            if play(g) != first:
                fail("deterministic", f"match {g}: different actions under the same seeds")
            replayed += 1
    except _Failed:
        pass
    timing = (f"{moves} moves, longest {max(times):.3f} s, mean {sum(times) / len(times):.3f} s "
              f"(limit {time_limit:g} s" + (f", time control {time_control})" if time_control else ")")) if times else ""
    detail = {"loads": f"{spec.target}", "runs": f"no exception, no crash in {moves} moves",
              "legal": f"{moves} moves checked", "unmodified": f"{moves} moves checked", "budget": timing,
              "deterministic": f"{replayed} matches replayed with the same seeds"}
    ran = {"loads": loaded > 0, "runs": moves > 0, "legal": moves > 0, "unmodified": moves > 0,
           "budget": moves > 0, "deterministic": replayed > 0}
    return [{"check": CHECKS[k], "ok": not problems[k], "detail": problems[k][0] if problems[k] else detail[k]}
            | ({"output": printed} if problems[k] else {}) for k in CHECKS if problems[k] or ran[k]]


def not_run(results: list[dict[str, Any]]) -> list[str]:
    """The names of the checks missing from `check_agent`'s results, which nothing tested."""
    done = {r["check"] for r in results}
    return [name for name in CHECKS.values() if name not in done]
