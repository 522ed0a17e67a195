"""Head-to-head of two agents on duplicate deals with each side's time per move: our `ismcts` against
OpenSpiel's ISMCTS (`openspiel_ismcts`) at equal iterations.

    python -m experiments.openspiel_h2h --game insert --deals 30 -j 2 \\
        --a "ismcts[iterations=1000]" --b "openspiel_ismcts[iterations=1000,c=1.4,rollout=engine]"
    python -m experiments.openspiel_h2h --game wizard --players 4 --deals 4 -j 2 ...

How a deal is played: with two seats, twice with the same seed, A in seat 0 then B in seat 0 (seats
swapped). With four seats, twice with the same seed: A B A B, then B A B A, so each side holds every
seat once and the cards are the same (duplicate deals). Each move is played as `arena run` plays it, by
the referee (arena.referee): the agent to move gets `state.determinize(seat, seed)` of the true
state, never the state itself, and an illegal action is an AgentFault.

Figures (one JSON object printed at the end, a line per finished deal on stderr while it runs):
- `share_a`: A's score share, from the placements as on the leaderboard (each of A's seats against
  each of B's seats: 1 placed above, 1/2 level, 0 below), one value per deal (its matches averaged),
  with the leaderboard's 95% interval over deals (arena.results.intervals.interval).
- `points_a`, `points_b`: mean return per seat; `diff_a`: A's mean return minus B's per deal, with a
  t interval.
- `seconds_per_move_a`, `_b`: each side's wall time a move (its view, `act`, the check and the
  apply; the search is nearly all of it), over its decisions with at least two
  legal actions (a forced move costs no search); `decisions_a`, `_b` count them.
The machine's other load counts in the times, not in the results: budgets are in iterations.
"""
import argparse
import json
import multiprocessing
import sys
import time

import agents
import engines
from arena import referee
from arena.agent_list import parse_agent
from arena.results.intervals import interval, t_interval
from arena.results.standings import pair_score
from arena.seeds import derive_seed, view_base
from arena.text import jsonable


def _make(item):
    spec = parse_agent(item, run_code=True)   # a benchmark of your own bots, in this process
    return agents.make(spec.source, **dict(spec.params))


def seatings(players):
    """The seatings of one deal as strings of 'A' and 'B' per seat (see the module docstring)."""
    if players == 2:
        return ["AB", "BA"]
    if players % 2:
        raise ValueError(f"a duplicate head-to-head needs an even number of seats, not {players}")
    return ["AB" * (players // 2), "BA" * (players // 2)]


def play(task):
    """One match: (deal, seating, returns, placements, {side: [seconds, decisions]})."""
    game_id, params, a_item, b_item, deal, seed, seating = task
    state = engines.make(game_id, seed=seed, **params)
    sides = {"A": a_item, "B": b_item}
    players = []
    for seat, side in enumerate(seating):
        agent = _make(sides[side])
        agent.reset(game_id, dict(params), seat, derive_seed(seed, "agent", seat))
        players.append(agent)
    clock = {"A": [0.0, 0], "B": [0.0, 0]}
    views = view_base(seed)
    move = 0
    while not state.is_terminal():
        seat = state.current_player()
        legal = len(state.legal_actions())
        started = time.perf_counter()
        referee.play_move(state, players[seat], views, move, trusted=True)   # our own bots, in this process
        if legal > 1:
            clock[seating[seat]][0] += time.perf_counter() - started
            clock[seating[seat]][1] += 1
        move += 1
    return deal, seating, [float(x) for x in state.returns()], [int(p) for p in state.placements()], clock


def _share(seating, places):
    a = [i for i, s in enumerate(seating) if s == "A"]
    b = [i for i, s in enumerate(seating) if s == "B"]
    return sum(pair_score(places[i], places[j]) for i in a for j in b) / (len(a) * len(b))


def run(game_id, a_item, b_item, deals, seed=0, jobs=1, players=None, **params):
    """Plays `deals` duplicate deals and returns the figures (see the module docstring)."""
    _make(a_item), _make(b_item)      # bad items fail here, in one line
    full = engines.make(game_id, players=players, seed=0, **params).params
    full = dict(full)
    n = full["players"]
    tasks = [(game_id, full, a_item, b_item, d, derive_seed(seed, "openspiel_h2h", game_id, d), s)
             for d in range(deals) for s in seatings(n)]
    per_deal: dict = {}
    clock = {"A": [0.0, 0], "B": [0.0, 0]}
    points: dict[str, list[float]] = {"A": [], "B": []}
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for deal, seating, returns, places, c in pool.imap_unordered(play, tasks):
            d = per_deal.setdefault(deal, {"share": [], "diff": []})
            d["share"].append(_share(seating, places))
            mean = {s: sum(r for r, x in zip(returns, seating) if x == s) / seating.count(s) for s in "AB"}
            d["diff"].append(mean["A"] - mean["B"])
            for s in "AB":
                clock[s][0] += c[s][0]
                clock[s][1] += c[s][1]
                points[s].extend(r for r, x in zip(returns, seating) if x == s)
            if len(d["share"]) == len(seatings(n)):
                print(f"deal {deal}: share A {sum(d['share']) / len(d['share']):.3f}, "
                      f"diff A-B {sum(d['diff']) / len(d['diff']):+.1f} "
                      f"({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    shares = [sum(v["share"]) / len(v["share"]) for _, v in sorted(per_deal.items())]
    diffs = [sum(v["diff"]) / len(v["diff"]) for _, v in sorted(per_deal.items())]
    share, diff = interval(shares, len(tasks)), t_interval(diffs, len(tasks))
    return {"game": game_id, "params": {k: list(v) if isinstance(v, tuple) else v for k, v in full.items()},
            "a": a_item, "b": b_item, "deals": deals, "games": len(tasks), "seed": seed,
            "share_a": jsonable(share), "diff_a": jsonable(diff),
            "points_a": sum(points["A"]) / len(points["A"]), "points_b": sum(points["B"]) / len(points["B"]),
            "seconds_per_move_a": clock["A"][0] / max(1, clock["A"][1]), "decisions_a": clock["A"][1],
            "seconds_per_move_b": clock["B"][0] / max(1, clock["B"][1]), "decisions_b": clock["B"][1],
            "wall_seconds": time.perf_counter() - started}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", required=True)
    p.add_argument("--players", type=int)
    p.add_argument("--param", action="append", default=[], help="NAME=VALUE, a game parameter")
    p.add_argument("--a", default="ismcts[iterations=1000]")
    p.add_argument("--b", default="openspiel_ismcts[iterations=1000,rollout=engine]")
    p.add_argument("--deals", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-j", "--jobs", type=int, default=1)
    args = p.parse_args(argv)
    params = dict(x.split("=", 1) for x in args.param)
    try:
        out = run(args.game, args.a, args.b, args.deals, args.seed, args.jobs, args.players, **params)
    except ValueError as e:
        sys.exit(f"error: {str(e).splitlines()[0]}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
