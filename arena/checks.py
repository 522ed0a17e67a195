"""`arena check-agent`: a submitted agent checked before a tournament, in its sandbox."""
import random
import time

import engines
from arena.sandbox import DEFAULT_POLICY, AgentFault, RemoteAgent, check_available, stage
from arena.seeds import derive_seed


def check_agent(spec, game_id, game_params, games=2, seed=0, time_limit=10.0, policy=None):
    """Checks an agent before a tournament; returns [{"check", "ok", "detail"}].

    The agent plays `games` matches against random agents, taking each seat in turn, in its own
    sandboxed process; each match is then replayed with the same seeds. Checked: it loads, it returns
    legal actions, it leaves the state it is given unmodified, it keeps to the per-move time limit
    (and neither raises nor crashes), and it plays the same actions under the same seeds.
    """
    builtin = not spec.submitted
    if builtin:
        import agents.registry
        spec = type(spec)(spec.label, spec.source, spec.params, "module", agents.registry.BUILTIN[spec.source])
    check_available(policy or DEFAULT_POLICY)
    spec = spec if builtin else stage(spec)
    problems = {"loads": [], "runs": [], "legal": [], "unmodified": [], "budget": [], "deterministic": []}
    times, moves, phase = [], 0, ["loads"]

    def play(g):
        nonlocal moves
        match_seed = derive_seed(seed, "check", g)
        state = engines.make(game_id, seed=match_seed, **game_params)
        me = g % state.num_players
        others = random.Random(match_seed)
        phase[0] = "loads"
        agent = RemoteAgent(spec, time_limit, policy, staged=not builtin)
        actions = []
        try:
            agent.reset(game_id, dict(game_params), me, derive_seed(match_seed, "agent"))
            phase[0] = "runs"
            while not state.is_terminal():
                legal = state.legal_actions()
                if state.current_player() != me:
                    state.apply_action(others.choice(legal))
                    continue
                view = state.determinize(me, derive_seed(match_seed, len(state.history())))
                started = time.perf_counter()
                try:
                    action, modified = agent.act(view, check=True)
                except AgentFault as f:
                    if f.kind != "illegal":
                        raise
                    problems["legal"].append(f"match {g}, move {len(actions)}: {f.message}")
                    break
                times.append(time.perf_counter() - started)
                moves += 1
                if modified:
                    problems["unmodified"].append(f"match {g}, move {len(actions)}: the state was modified")
                if action not in legal:
                    problems["legal"].append(f"match {g}, move {len(actions)}: returned {action!r}")
                    break
                actions.append(action)
                state.apply_action(action)
        finally:
            agent.kill()
        return actions

    for g in range(games):
        try:
            first = play(g)
            if play(g) != first:
                problems["deterministic"].append(f"match {g}: different actions under the same seeds")
        except AgentFault as f:
            key = "budget" if f.kind == "timeout" and phase[0] == "runs" else phase[0]
            problems[key].append(f"match {g}: {f.kind}: {f.message}")
            break
    timing = (f"{moves} moves, longest {max(times):.3f} s, mean {sum(times) / len(times):.3f} s "
              f"(limit {time_limit:g} s)") if times else "no move played"
    detail = {"loads": f"{spec.target}", "runs": "no exception, no crash", "legal": f"{moves} moves checked", "unmodified": f"{moves} moves checked",
              "budget": timing, "deterministic": f"{games} matches replayed with the same seeds"}
    names = {"loads": "loads and resets", "runs": "plays without raising or crashing", "legal": "returns legal actions",
             "unmodified": "does not modify the state it is given", "budget": "keeps to its time budget",
             "deterministic": "deterministic under a seed"}
    return [{"check": names[k], "ok": not problems[k], "detail": problems[k][0] if problems[k] else detail[k]}
            for k in names]
