"""`arena check-agent`: a submitted agent checked before a tournament, in its sandbox."""
import random
import time

import engines
from arena.sandbox import DEFAULT_POLICY, AgentFault, RemoteAgent, check_available, stage
from arena.seeds import derive_seed
from arena.text import printable

# key -> what it checks, in the order they are reported
CHECKS = {"loads": "loads and resets", "runs": "plays without raising or crashing",
          "legal": "returns legal actions", "unmodified": "does not modify the state it is given",
          "budget": "keeps to its time budget", "deterministic": "deterministic under a seed"}
# the check a fault during a move fails: everything else the bot does wrong on a move is "illegal"
MOVE_FAULTS = {"timeout": "budget", "exception": "runs", "crash": "runs"}


class _Failed(Exception):
    """A check failed: the checks stop there."""


def check_agent(spec, game_id, game_params, games=2, seed=0, time_limit=10.0, policy=None):
    """Checks an agent before a tournament; returns [{"check", "ok", "detail"}] for the checks that
    ran, in the order of CHECKS.

    The agent plays `games` matches against random agents, taking each seat in turn, in its own
    sandboxed process; each match is then replayed with the same seeds. Checked: it loads, it returns
    legal actions, it leaves the state it is given unmodified, it keeps to the per-move time limit
    (and neither raises nor crashes), and it plays the same actions under the same seeds.

    The checks stop at the first failure. A check that nothing tested (every check after a failed
    load; "deterministic" when no match was played and replayed to its end; the move checks when no
    move was answered) is left out of the list, never reported as passed: `not_run` names them.
    """
    builtin = not spec.submitted
    if builtin:
        import agents.registry
        spec = type(spec)(spec.label, spec.source, spec.params, "module", agents.registry.BUILTIN[spec.source])
    check_available(policy or DEFAULT_POLICY)
    spec = spec if builtin else stage(spec)
    problems = {k: [] for k in CHECKS}
    times, moves, loaded, replayed = [], 0, 0, 0

    def fail(key, text):
        problems[key].append(text)
        raise _Failed

    def play(g):
        """The agent's actions in match `g`; _Failed at the first problem."""
        nonlocal moves, loaded
        match_seed = derive_seed(seed, "check", g)
        state = engines.make(game_id, seed=match_seed, **game_params)
        me = g % state.num_players
        others = random.Random(match_seed)
        try:
            agent = RemoteAgent(spec, time_limit, policy, staged=not builtin)
        except AgentFault as f:
            fail("loads", f"match {g}: {f.kind}: {f.message}")
        actions = []
        try:
            try:
                agent.reset(game_id, dict(game_params), me, derive_seed(match_seed, "agent"))
            except AgentFault as f:
                fail("loads", f"match {g}: {f.kind}: {f.message}")
            loaded += 1
            while not state.is_terminal():
                legal = state.legal_actions()
                if state.current_player() != me:
                    state.apply_action(others.choice(legal))
                    continue
                view = state.determinize(me, derive_seed(match_seed, len(state.history())))
                where = f"match {g}, move {len(actions)}"
                started = time.perf_counter()
                try:
                    action, modified = agent.act(view, check=True)
                except AgentFault as f:
                    fail(MOVE_FAULTS.get(f.kind, "legal"), f"{where}: {f.kind}: {f.message}")
                times.append(time.perf_counter() - started)
                moves += 1
                if modified:
                    problems["unmodified"].append(f"{where}: the state was modified")
                if action not in legal:
                    problems["legal"].append(f"{where}: illegal: returned {printable(action, 40)}, "
                                             f"not a legal action")
                if modified or action not in legal:
                    raise _Failed
                actions.append(action)
                state.apply_action(action)
        finally:
            agent.kill()
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
              f"(limit {time_limit:g} s)") if times else ""
    detail = {"loads": f"{spec.target}", "runs": f"no exception, no crash in {moves} moves",
              "legal": f"{moves} moves checked", "unmodified": f"{moves} moves checked", "budget": timing,
              "deterministic": f"{replayed} matches replayed with the same seeds"}
    ran = {"loads": loaded > 0, "runs": moves > 0, "legal": moves > 0, "unmodified": moves > 0,
           "budget": moves > 0, "deterministic": replayed > 0}
    return [{"check": CHECKS[k], "ok": not problems[k], "detail": problems[k][0] if problems[k] else detail[k]}
            for k in CHECKS if problems[k] or ran[k]]


def not_run(results):
    """The names of the checks missing from `check_agent`'s results, which nothing tested."""
    done = {r["check"] for r in results}
    return [name for name in CHECKS.values() if name not in done]
