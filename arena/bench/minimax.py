"""Throughput of the `alphabeta` and `minimax` agents (agents/minimax.pyx), as JSON rows for `arena bench`.

`cases(game_ids)` yields one dict per case:

    {"case": "<agent>/<game>/<point>", "unit": ..., "rates": [...], "median_per_s": ..., ...}

When "insert" is among the game ids, for each point (`opening`: 2 rings placed, `midgame`: 10,
from seeded greedy-vs-random play, default parameters):
- `alphabeta/insert/<point>`: nodes/s of the agent's own search (iterative deepening, transposition
  table, move ordering) to a fixed `depth`, time budget off; extra keys `depth`, `nodes` (per search).
- baseline `alphabeta_plain/insert/<point>`: nodes/s of the same negamax with alpha-beta but no
  table, no ordering and no deepening, to the same depth (its `nodes` show what the table and the
  ordering save).
- baseline `greedy/insert/<point>`: evaluations/s of the `greedy` agent (one per legal move).
For every game id (default players and parameters, seed 0), at two points, `first_decision` (the
first decision with a choice) and `move_20` (the first decision with a choice after 20 random moves;
left out if the game is over by then):
- `minimax/<game>/<point>`: determinizations/s of a default `minimax` move (24
  determinizations, depth 4, no time budget), each one resampled and searched; extra keys
  `determinizations`, `depth`, `nodes_per_s`.
- baseline `determinize/<game>/<point>`: determinizations/s without search (copy +
  c_determinize only), so the search cost per sample is the ratio of the two rows.
- baseline `greedy/<game>/<point>`: evaluations/s of the `greedy` agent.

Each rate is the work of one whole search (or loop) divided by the CPU time it took (the process's
CPU time, so other processes on a shared machine do not deflate it; it is also one core's rate, as
every search is single-threaded); `repeats` of them per row. Run alone:
`python -m arena.bench.minimax [game ...]` (default: every registered game).
"""
import random
import statistics
import time
from collections.abc import Iterable, Iterator

from agents.minimax import AlphaBetaAgent, MinimaxAgent, Searcher, run_determinizations

import agents
import engines
from arena.bench.measure import Row, row, run_alone

GAME = "insert"   # the game whose positions these cases measure


def _row(case, unit, rates, **extra):
    return row(case, unit, rates, digits=None, **extra)


def _insert_points():
    out = {}
    for name, plies in (("opening", 2), ("midgame", 10)):
        r = random.Random(plies)
        s = engines.make(GAME, seed=plies)
        g = agents.make("greedy")
        g.reset(GAME, s.params, 0, plies)
        while len(s.history()) < plies or len(s.legal_actions()) < 3:
            s.apply_action(g.act(s) if r.random() < 0.5 else r.choice(s.legal_actions()))
        out[name] = s
    return out


def _decision_points(game_id):
    """The first decision with a choice, and the first one after 20 random moves."""
    s = engines.make(game_id, seed=0)
    r = random.Random(0)
    out = {}
    for name, plies in (("first_decision", 0), ("move_20", 20)):
        while not s.is_terminal() and (len(s.history()) < plies or len(s.legal_actions()) < 2):
            s.apply_action(r.choice(s.legal_actions()))
        if not s.is_terminal():
            out[name] = s.clone()
    return out


def _greedy_rate(state, repeats):
    """The greedy agent's evaluations per second on `state` (each act evaluates every legal move)."""
    g = agents.make("greedy")
    g.reset(state.game_id, state.params, state.current_player(), 0)
    n = len(state.legal_actions())
    rates = []
    for _ in range(repeats):
        k, t0 = 0, time.process_time()
        while time.process_time() - t0 < 0.05:
            g.act(state)
            k += n
        rates.append(k / (time.process_time() - t0))
    return rates


def _alphabeta_rows(state, point, depth, repeats):
    rates, nodes = [], 0
    for _ in range(repeats):
        a = AlphaBetaAgent(depth=depth, time=0.0)
        a.reset(GAME, state.params, state.current_player(), 0)
        t0 = time.process_time()
        info = a.analyse(state)
        nodes = info["nodes"]
        rates.append(nodes / (time.process_time() - t0))
    yield _row(f"alphabeta/insert/{point}", "nodes/s", rates, depth=depth, nodes=nodes,
               baseline=f"alphabeta_plain/insert/{point}")
    rates = []
    for _ in range(repeats):
        plain = Searcher(0, False, False)
        t0 = time.process_time()
        nodes = plain.search_nodes(state, depth)
        rates.append(nodes / (time.process_time() - t0))
    yield _row(f"alphabeta_plain/insert/{point}", "nodes/s", rates, depth=depth, nodes=nodes)
    yield _row(f"greedy/insert/{point}", "evaluations/s", _greedy_rate(state, repeats))


def cases(game_ids: Iterable[str], repeats: int = 5) -> Iterator[Row]:
    """Yields the benchmark rows described in the module docstring for the given game ids."""
    if GAME in game_ids:
        for point, state in _insert_points().items():
            yield from _alphabeta_rows(state, point, 10 if point == "opening" else 14, repeats)
    for game_id in game_ids:
        for point, state in _decision_points(game_id).items():
            yield from _minimax_rows(game_id, point, state, repeats)


def _minimax_rows(game_id, point, state, repeats):
    case = f"{game_id}/{point}"
    mm = MinimaxAgent(determinizations=24, depth=4, time=0.0)
    mm.reset(game_id, state.params, state.current_player(), 0)
    rates, node_rates = [], []
    for _ in range(repeats):
        t0 = time.process_time()
        mm.act(state)
        dt = time.process_time() - t0
        rates.append(mm.last["determinizations"] / dt)
        node_rates.append(mm.last["nodes"] / dt)
    yield _row(f"minimax/{case}", "determinizations/s", rates, determinizations=24, depth=4,
               nodes_per_s=round(statistics.median(node_rates)), baseline=f"determinize/{case}")
    rates = []
    for i in range(repeats):
        n = 20000
        t0 = time.process_time()
        run_determinizations(state, n, i)
        rates.append(n / (time.process_time() - t0))
    yield _row(f"determinize/{case}", "determinizations/s", rates)
    yield _row(f"greedy/{case}", "evaluations/s", _greedy_rate(state, repeats))

if __name__ == "__main__":
    run_alone("arena.bench.minimax", cases)
