"""`arena check-agent`: a submitted agent checked before a tournament, in its sandbox."""
import random
import time
from typing import Any

import engines
from arena import referee
from arena.match import AgentSpec, SandboxPolicy, TimeControl
from arena.sandbox import DEFAULT_POLICY, AgentFault, RemoteAgent, check_available, stage
from arena.sandbox.wire import OUTPUT_LIMIT
from arena.seeds import derive_seed, view_base
from arena.text import plural
from engines.core import GameState

# key -> what it checks, in the order they are reported
CHECKS = {"loads": "loads and resets", "runs": "plays without raising or crashing",
          "legal": "returns legal actions", "unmodified": "does not modify the state it is given",
          "budget": "keeps to its time budget", "deterministic": "deterministic under a seed"}
# the check a fault during a move fails: everything else the bot does wrong on a move is "illegal"
MOVE_FAULTS = {"timeout": "budget", "exception": "runs", "crash": "runs"}
# an exec bot's checks of the protocol (docs/protocol.md), each after the generic check it refines
EXEC_CHECKS = {"handshake": ("loads", "hello: says hello in protocol version 1"),
               "reply": ("runs", "action: each reply one JSON line, an action by id or text"),
               "phases": ("legal", "a legal move in every phase of the game"),
               "stderr": ("budget", "stderr: prints at most what a match keeps")}
PHASE_PLAYOUTS = 40   # random playouts that find a game's phases, and deals that reach each
PHASE_TRIES = 3       # deals tried for each phase an exec bot has not met


def check_names(exec_agent: bool) -> dict[str, str]:
    """key -> the check's name, in the order they are reported, for an exec agent or another."""
    names = {}
    for key, name in CHECKS.items():
        names[key] = name
        names.update({k: n for k, (after, n) in EXEC_CHECKS.items() if exec_agent and after == key})
    return names


def phase(state: GameState, seat: int) -> str:
    """The phase of the game `seat` moves in: its observation's "phase", "play" in a game of one phase."""
    return str(state.observation(seat).get("phase", "play"))


def phase_deals(game_id: str, game_params: dict[str, Any], seed: int) -> dict[str, list[tuple[int, int]]]:
    """Each phase the game has (found in PHASE_PLAYOUTS random playouts) -> up to PHASE_TRIES
    (match seed, seat) whose deal brought that seat to that phase when every seat played at random."""
    found: dict[str, list[tuple[int, int]]] = {}
    for i in range(PHASE_PLAYOUTS):
        match_seed = derive_seed(seed, "phase", i)
        state, rng = engines.make(game_id, seed=match_seed, **game_params), random.Random(match_seed)
        while not state.is_terminal():
            deals = found.setdefault(phase(state, state.current_player()), [])
            if len(deals) < PHASE_TRIES and (match_seed, state.current_player()) not in deals:
                deals.append((match_seed, state.current_player()))
            state.apply_action(rng.choice(state.legal_actions()))
    return found


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
                time_limit: float = 10.0, policy: SandboxPolicy | None = None,
                time_control: TimeControl | None = None, max_moves: int | None = None) -> list[dict[str, Any]]:
    """Checks an agent before a tournament; returns [{"check", "ok", "detail"}] for the checks that
    ran, in the order of CHECKS.

    The agent plays `games` matches against random agents, taking each seat in turn, in its own
    sandboxed process, each of its moves asked for by the referee (arena.referee) as in a
    tournament; each match is then replayed with the same seeds. Checked: it loads, it returns
    legal actions, it leaves the state it is given unmodified, it keeps to the per-move time limit
    and, under a `time_control`, to its clock (and neither raises nor crashes), and it plays the
    same actions under the same seeds. With `max_moves`, each match stops after the agent's
    `max_moves`th move (its replay too), which bounds the check's time by the per-move limit: a
    phase of the game no match then reaches is not checked (`not_run` names it).

    An exec agent (docs/protocol.md) also has EXEC_CHECKS: its hello, the format of its replies
    (a failure names the protocol message that was due, hello or action), and a legal move in every
    phase of the game (after its matches, one more match for each phase it did not meet, on a deal
    that reaches that phase); it is checked for determinism only when its bot.toml says
    `deterministic = true`.

    The checks stop at the first failure; the failed check's row also has the `output` the agent
    printed in that match (as `RemoteAgent.captured` gives it; None if nothing). A check after the
    first failed one (in the order of `check_names`), and a check that nothing tested
    ("deterministic" when no match was played and replayed to its end; the move checks when no move
    was answered), is left out of the list, never reported as passed: `not_run` names them.
    """
    exec_agent = spec.kind == "exec"
    replays = CHECKS["deterministic"] not in not_required(spec)
    builtin = not spec.submitted
    if builtin:
        import agents.registry
        spec = type(spec)(spec.label, spec.source, spec.params, "module", agents.registry.BUILTIN[spec.source])
    check_available(policy or DEFAULT_POLICY)
    spec = spec if builtin else stage(spec)
    names = check_names(exec_agent)
    problems: dict[str, list[str]] = {k: [] for k in names}
    times, moves, loaded, replayed, met, quiet = [], 0, 0, 0, set(), 0   # quiet: matches within the stderr cap
    greeted = False   # an exec bot's hello was taken (the adapter reports a bad hello at its first move)
    printed = None   # what the agent printed in the last match it played

    def fail(key, text):
        problems[key].append(text)
        raise _Failed

    def play(g, match_seed, me=None):
        """The agent's actions in match `g` (in seat `me`, else the match's in turn); _Failed at the
        first problem."""
        nonlocal moves, loaded, printed, quiet, greeted
        state = engines.make(game_id, seed=match_seed, **game_params)
        me = g % state.num_players if me is None else me
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
            except AgentFault as f:   # an exec bot's reset is its start message and its hello
                fail("loads", ("hello: " if exec_agent else "") + f"match {g}: {f.kind}: {f.message}")
            loaded += 1
            views = view_base(match_seed)
            clock = referee.Clock(time_control) if time_control else None
            while not state.is_terminal() and (max_moves is None or len(actions) < max_moves):
                if state.current_player() != me:
                    state.apply_action(others.choice(state.legal_actions()))
                    continue
                where = f"match {g}, move {len(actions)}"
                now = phase(state, me)
                if exec_agent:
                    where += f" ({now})"
                player.answered = illegal = None
                try:
                    action = referee.play_move(state, player, views, len(state.history()), clock=clock)
                except AgentFault as f:
                    # its own fault: a timeout (also past its clock), an exception, a crash, a bad reply
                    # an exec bot's fault names the protocol message that was due: the adapter's
                    # faults say it first, the referee's (an illegal action, a late one) are of the action
                    due, _, said = f.message.partition(": ")
                    protocol = exec_agent and due in ("hello", "action")
                    if exec_agent and not protocol:
                        due, said = "action", f.message
                    greeted = greeted or due != "hello"
                    text = f"{due}: {where}: {f.kind}: {said}" if exec_agent else f"{where}: {f.kind}: {f.message}"
                    if protocol and f.kind != "timeout":
                        fail("handshake" if due == "hello" else "reply", text)
                    if not player.answered or f.kind == "timeout":
                        fail(MOVE_FAULTS.get(f.kind, "legal"), text)
                    illegal = text   # an answer the referee refused
                    if exec_agent:
                        problems["phases"].append(text)
                greeted = True
                times.append(player.seconds)
                moves += 1
                if player.modified:
                    problems["unmodified"].append(f"{where}: the state was modified")
                if illegal:
                    problems["legal"].append(illegal)
                if player.modified or illegal:
                    raise _Failed
                actions.append(action)
                met.add(now)
        finally:
            agent.kill()
            printed = agent.captured()
        if exec_agent and printed and printed["cut"]:
            fail("stderr", f"stderr: match {g}: {printed['cut']:,} bytes printed beyond the "
                           f"{OUTPUT_LIMIT:,} kept")
        quiet += 1
        return actions

    phases = phase_deals(game_id, game_params, seed) if exec_agent else {}
    try:
        for g in range(games):
            match_seed = derive_seed(seed, "check", g)
            first = play(g, match_seed)
            if replays:
                if play(g, match_seed) != first:
                    fail("deterministic", f"match {g}: different actions under the same seeds")
                replayed += 1
        g = games
        for name in sorted(phases):
            for deal in phases[name]:
                if name in met:
                    break
                play(g, *deal)
                g += 1
    except _Failed:
        pass
    timing = (f"{plural(moves, 'move')}, longest {max(times):.3f} s, mean {sum(times) / len(times):.3f} s "
              f"(limit {time_limit:g} s" + (f", time control {time_control})" if time_control else ")")) if times else ""
    detail = {"loads": f"{spec.target}", "runs": f"no exception, no crash in {plural(moves, 'move')}",
              "legal": f"{plural(moves, 'move')} checked", "unmodified": f"{plural(moves, 'move')} checked",
              "budget": timing, "deterministic": f"{plural(replayed, 'match', 'matches')} replayed with the same seeds",
              "handshake": "hello in protocol version 1",
              "reply": f"{plural(moves, 'reply', 'replies')}, each an action on one line",
              "phases": f"a legal move in each of {', '.join(sorted(met))}",
              "stderr": f"at most {OUTPUT_LIMIT:,} bytes a match"}
    if exec_agent and moves:
        detail["budget"] = f"action: {detail['budget']}"
    ran = {"loads": loaded > 0, "runs": moves > 0, "legal": moves > 0, "unmodified": moves > 0,
           "budget": moves > 0, "deterministic": replayed > 0, "handshake": greeted, "reply": moves > 0,
           "stderr": quiet > 0,
           "phases": bool(phases) and met >= set(phases)}
    # The checks stopped at the first failure: a check after it passed no more than the moves before it.
    first_failed = next((i for i, k in enumerate(names) if problems[k]), len(names))
    return [{"check": names[k], "ok": not problems[k], "detail": problems[k][0] if problems[k] else detail[k]}
            | ({"output": printed} if problems[k] else {})
            for i, k in enumerate(names) if problems[k] or (ran[k] and i < first_failed)]


def not_run(results: list[dict[str, Any]], exec_agent: bool = False) -> list[str]:
    """The names of the checks missing from `check_agent`'s results, which nothing tested."""
    done = {r["check"] for r in results}
    return [name for name in check_names(exec_agent).values() if name not in done]


def not_required(spec: AgentSpec) -> list[str]:
    """The checks an agent passes check-agent without: determinism, for an exec bot whose bot.toml
    does not say `deterministic = true` (it is then not run)."""
    from arena.sandbox.exec_host import declares_deterministic
    return [CHECKS["deterministic"]] if spec.kind == "exec" and not declares_deterministic(spec) else []
