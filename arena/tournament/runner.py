"""Plays one match: `play_match(MatchSpec) -> MatchResult`, the function every backend runs.

Every move is asked for and applied by the referee (arena.referee), as everywhere else:

* Each agent sees only its seat's view: before every move the acting agent receives
  `state.determinize(seat, seed)`, a copy with everything that seat cannot see resampled, never the
  true state (in perfect-information games the copy differs only in its future chance); the seeds
  of a match's views derive from its deal's seed and the move, and its agents' seeds from its
  deal's seed and their seats (with the match id too under independent seeding: arena.seeds).
* A match between cheap built-in agents only (`random`, `greedy`, default parameters, no clock) is
  played whole in C (agents.playloop), with exactly the moves the referee's loop gives them, views
  and seeds included; every other match goes through the referee move by move.
* Built-in agents are trusted and run inside the worker, untimed by the arena. Submitted agents
  (files, modules, entry points) run in a sandboxed process of their own with the per-move time
  limit enforced (see arena.sandbox).
* Under a time control (`--time-control BASE+INC`) every seat's agent, built in or submitted, has
  a clock of its own (arena.referee.Clock): it runs only on that agent's moves, and running out is
  a "timeout" fault like any other.
* Results are a pure function of the tournament seed, whatever the backend and the number of
  workers, as long as every agent's budget is counted in iterations, depths or determinizations:
  an agent given seconds (`alphabeta[time=0.5]`, `minimax[time=1]`, `ismcts[time=...]`) plays
  differently on a busy machine, and so can a submitted agent near its time limit.
* An agent that raises, returns an illegal action, exceeds its time, hangs or kills its process
  (or fails to start) faults: the fault is recorded with the match, and the match is played out to
  its end with the built-in `random` agent in every seat the agent holds, seeded from the match;
  the other seats keep their own agents. A second agent that faults during the play-out is
  replaced the same way. The stored returns and placements are the played-out game's; the result
  of each agent is then read from them by the fault rule (arena.results.outcome): the faulter is
  last for its own score, and every other seat's result is the played-out game's, the faulter's
  seats staying where that game put them. The tournament goes on.
* What a submitted agent prints in the match (see arena.sandbox.wire.Output) is kept with the
  match's result, per seat.

Why the match is played out, and why the faulter's place is not handed on: a fault rule that
cannot be gamed. An older rule ended the match at the fault and gave every other seat a shared
first place: kingmaking on demand with three or more seats (a bot that faulted on purpose
whenever its accomplice was behind gained it +0.047 [+0.018, +0.075] of score share over 100
paired deals). The next one played the match out but placed the faulter last for everyone, so
every seat it had been above moved up one place: a bot that faulted on its last, forced card
only when it was above its accomplice and not above the rival still raised the accomplice's
score share, by +0.087 [+0.068, +0.107] over 100 paired 3-player Wizard deals. Now a fault gives
no other seat anything the played-out game did not: the same faulter leaves its accomplice's
share where playing on would, +0.000 [+0.000, +0.000]
(tests/arena/tournament/test_fault_rule_in_process.py; test_fault_rule.py plays a faulter that
faults earlier, so that its stand-in plays on).
What remains is that a stand-in playing random moves from the fault on may play differently
from the faulter's own moves, which could help or hurt anyone, as any bad play may: over 100
paired Belladone Bluff deals, a greedy faulter that faults once the deck is empty and its
accomplice is behind changed the accomplice's score against the honest opponent by +0.002
[-0.021, +0.024] and its score share by +0.020 [+0.001, +0.039] (the random stand-in is easier to
place above than the greedy faulter). A faulty match keeps no per-game metrics (a stand-in played part of it); the leaderboard's
duplicate scores and `arena analyze` leave faulty matches out.
"""
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import agents as agent_registry
import engines
from agents import playloop
from agents.base import Agent
from arena import referee
from arena.match import Fault, MatchResult, MatchSpec
from arena.referee import make_player
from arena.sandbox import AgentFault, RemoteAgent, describe
from arena.seeds import derive_seed, match_parts, view_base
from arena.text import jsonable
from engines.core import GameState


def agent_seed(spec: MatchSpec, seat: int) -> int:
    """The seed the agent in `seat` is reset with (arena.seeds: coupled, from the deal and the seat)."""
    return derive_seed(spec.seed, *match_parts(spec.seeding, spec.match_id), "agent", seat)


def match_view_base(spec: MatchSpec) -> int:
    """The base of the match's view seeds (arena.seeds: coupled, from the deal alone)."""
    return view_base(spec.seed, *match_parts(spec.seeding, spec.match_id))


def stand_in(spec: MatchSpec, seat: int) -> Agent:
    """The built-in random agent that plays a faulty seat to the end, seeded from the deal and the
    seat (and the match, when independent)."""
    agent = agent_registry.make("random")
    agent.reset(spec.game_id, spec.params_dict(), seat,
                derive_seed(spec.seed, *match_parts(spec.seeding, spec.match_id), "stand-in", seat))
    return agent


def seen_by(state: GameState, watchers: Sequence[RemoteAgent], mover: int) -> Callable[[int], None] | None:
    """Applies an action of `mover` to the true `state`, after every player in `watchers` (those
    that keep the public actions: submitted agents) has seen it as its seat sees it; None, the
    referee's plain apply, when there are none."""
    if not watchers:
        return None

    def apply(action):
        for p in watchers:
            p.saw(state, mover, action)
        state.apply_action(action)
    return apply


def loop_kinds(spec: MatchSpec) -> list[int] | None:
    """The agents of `spec` as `agents.playloop` plays them (one kind per seat) when every seat is a
    cheap built-in agent with its default parameters and no clock runs; None otherwise."""
    if spec.time_control is not None:
        return None
    kinds = []
    for a in spec.seats:
        if a.kind != "builtin" or a.params or a.source not in playloop.KINDS:
            return None
        kinds.append(playloop.KINDS[a.source])
    return kinds


def play_match(spec: MatchSpec) -> MatchResult:
    """Plays `spec` to the end and returns its MatchResult: in C (agents.playloop) when only cheap
    built-in agents play, with the very moves the referee's loop gives; through the referee
    (`play_refereed`) otherwise, or when the C loop declines."""
    started = time.perf_counter()
    kinds = loop_kinds(spec)
    if kinds is not None:
        state = engines.make(spec.game_id, seed=spec.seed, **spec.params_dict())
        actions = playloop.play(state, kinds, [agent_seed(spec, s) for s in range(len(kinds))],
                                match_view_base(spec))
        if actions is not None:
            return MatchResult(spec.match_id, [float(x) for x in state.returns()],
                               [int(p) for p in state.placements()], actions, [], jsonable(state.metrics()),
                               time.perf_counter() - started)
    return play_refereed(spec, started)


def play_refereed(spec: MatchSpec, started: float | None = None) -> MatchResult:
    """Plays `spec` to the end through the referee, a faulty agent's seats played by a stand-in
    from its fault on (see the module docstring), and returns its MatchResult."""
    started = time.perf_counter() if started is None else started
    params = spec.params_dict()
    state = engines.make(spec.game_id, seed=spec.seed, **params)
    n = state.num_players
    players: list[Any] = [None] * n   # per seat: its LocalAgent or RemoteAgent, or the stand-in after a fault
    faults = []
    faulted = {}   # seat -> the move at which the agent holding it faulted; a stand-in plays it
    output = {}    # seat -> what its submitted agent printed, once it is closed

    def keep_output(seat, printed):
        if printed:
            output[seat] = {"seat": seat, "label": spec.seats[seat].label, **printed}

    def close(seat, p):
        p.close()
        if hasattr(p, "captured"):
            keep_output(seat, p.captured())

    def fault(seat, f, move):
        label = spec.seats[seat].label
        faults.append(Fault(seat, label, f.kind, f.message, move))
        keep_output(seat, f.output)   # an agent that did not load prints before it faults
        for s in range(n):
            if spec.seats[s].label == label:
                faulted[s] = move
                p, players[s] = players[s], stand_in(spec, s)
                if p is not None:
                    if s == seat and hasattr(p, "broken"):
                        p.broken = True   # discarded, also when the runner saw the fault (illegal)
                    close(s, p)

    try:
        for seat, a in enumerate(spec.seats):
            if seat in faulted:
                continue
            try:
                players[seat] = make_player(a, spec.time_limit, spec.sandbox)
                players[seat].reset(spec.game_id, dict(params), seat, agent_seed(spec, seat))
            except AgentFault as f:
                fault(seat, f, -1)
        clocks = [referee.Clock(spec.time_control) if spec.time_control else None for _ in range(n)]
        views = match_view_base(spec)
        watchers = [p for p in players if hasattr(p, "saw")]   # stand-ins, built in, keep nothing
        move = 0
        while not state.is_terminal():
            seat = state.current_player()
            # a stand-in is built in and trusted: an error of its own is the arena's, not a fault
            try:
                referee.play_move(state, players[seat], views, move, trusted=seat in faulted,
                                  apply=seen_by(state, watchers, seat), clock=clocks[seat])
            except AgentFault as f:
                if seat in faulted:
                    raise
                fault(seat, f, move)
                continue   # the stand-in plays this move, from the same view
            move += 1
        for s, p in enumerate(players):
            if p is not None and s not in faulted and hasattr(p, "end"):
                p.end(state.returns())   # an exec agent is told the returns
    finally:
        for s, p in enumerate(players):
            if p is not None and s not in faulted:
                close(s, p)
    places = [int(p) for p in state.placements()]   # the played-out game's: the fault rule reads them
    returns = [float(x) for x in state.returns()]
    metrics = {} if faults else jsonable(state.metrics())
    return MatchResult(spec.match_id, returns, places, state.history(), faults, metrics,
                       time.perf_counter() - started, [output[s] for s in sorted(output)])


def play_matches(specs: Iterable[MatchSpec]) -> tuple[list[MatchResult], tuple[int, str] | None]:
    """Plays matches in order, as one task: (results, None), or (results so far, (match_id, error))
    at the first match that raises (a bug in an engine or the arena, not an agent's fault)."""
    results = []
    for spec in specs:
        try:
            results.append(play_match(spec))
        except Exception as e:
            return results, (spec.match_id, describe(e))
    return results, None
