"""Plays one match: `play_match(MatchSpec) -> MatchResult`, the function every backend runs.

Rules the runner enforces (quoted in the README):

* Each agent sees only its seat's view: before every move the acting agent receives
  `state.determinize(seat, seed)`, a copy with everything that seat cannot see resampled, never the
  true state (in perfect-information games the copy differs only in its future chance).
* Built-in agents are trusted and run inside the worker, untimed by the arena. Submitted agents
  (files, modules, entry points) run in a sandboxed process of their own with the per-move time
  limit enforced (see arena.sandbox).
* Results are a pure function of the tournament seed, whatever the backend and the number of
  workers, as long as every agent's budget is counted in iterations, depths or determinizations:
  an agent given seconds (`alphabeta[time=0.5]`, `minimax[time=1]`, `ismcts[time=...]`) plays
  differently on a busy machine, and so can a submitted agent near its time limit.
* An agent that raises, returns an illegal action, exceeds its time, hangs or kills its process
  ends the match at once: every seat it holds is placed last, the other seats share first place,
  and the fault is recorded with the match. The tournament goes on.
"""
import operator
import time

import agents as agent_registry
import engines
from arena.match import Fault, MatchResult
from arena.bot_server import describe
from arena.sandbox import POOL, AgentFault
from arena.seeds import derive_seed, step
from arena.text import jsonable


def agent_seed(spec, seat):
    return derive_seed(spec.seed, spec.match_id, "agent", seat)


class LocalAgent:
    """A trusted built-in agent, run in this process; its exceptions become faults."""

    def __init__(self, spec):
        self.agent = agent_registry.make(spec.source, **dict(spec.params))

    def reset(self, game_id, game_params, seat, seed):
        try:
            self.agent.reset(game_id, game_params, seat, seed)
        except Exception as e:
            raise AgentFault("exception", describe(e)) from None

    def act(self, state):
        try:
            return self.agent.act(state)
        except Exception as e:
            raise AgentFault("exception", describe(e)) from None

    def close(self):
        pass


def make_player(spec, time_limit, policy=None):
    return POOL.get(spec, time_limit, policy) if spec.submitted else LocalAgent(spec)


def play_match(spec):
    """Plays `spec` to the end (or to the first fault) and returns its MatchResult."""
    started = time.perf_counter()
    params = spec.params_dict()
    state = engines.make(spec.game_id, seed=spec.seed, **params)
    n = state.num_players
    players = [None] * n
    faults = []
    move = 0
    try:
        for seat, a in enumerate(spec.seats):
            try:
                players[seat] = make_player(a, spec.time_limit, spec.sandbox)
                players[seat].reset(spec.game_id, dict(params), seat, agent_seed(spec, seat))
            except AgentFault as f:
                faults.append(Fault(seat, a.label, f.kind, f.message, -1))
                break
        view_base = derive_seed(spec.seed, spec.match_id, "view")
        while not faults and not state.is_terminal():
            seat = state.current_player()
            view = state.determinize(seat, step(view_base, move))
            legal = state.legal_actions()
            try:
                action = players[seat].act(view)
                try:   # a built-in agent may answer with a numpy integer
                    action = operator.index(action) if not isinstance(action, bool) else action
                except TypeError:
                    pass
                if isinstance(action, bool) or action not in legal:
                    raise AgentFault("illegal", f"returned {action!r}, not a legal action")
            except AgentFault as f:
                faults.append(Fault(seat, spec.seats[seat].label, f.kind, f.message, move))
                break
            state.apply_action(action)
            move += 1
    finally:
        for p in players:
            if p is not None:
                p.close()
    if faults:
        bad = {f.label for f in faults}
        bad_seats = [s for s in range(n) if spec.seats[s].label in bad]
        placements = [n - len(bad_seats) + 1 if s in bad_seats else 1 for s in range(n)]
        returns = [float(x) for x in state.scores()]
        metrics = {}
    else:
        placements = [int(p) for p in state.placements()]
        returns = [float(x) for x in state.returns()]
        metrics = jsonable(state.metrics())
    return MatchResult(spec.match_id, returns, placements, state.history(), faults, metrics,
                       time.perf_counter() - started)


def play_matches(specs):
    """Plays matches in order, as one task: (results, None), or (results so far, (match_id, error))
    at the first match that raises (a bug in an engine or the arena, not an agent's fault)."""
    results = []
    for spec in specs:
        try:
            results.append(play_match(spec))
        except Exception as e:
            return results, (spec.match_id, describe(e))
    return results, None
