"""ISMCTS throughput benchmarks, as JSON rows for `arena bench`.

`cases(game_ids)` yields one row per case, each a dict:

    {"case": "ismcts/<game>/<point>", "unit": "iterations/s", "rates": [...], "median_per_s": ...,
     "iterations": per search, "nodes": tree size of the last search, "bytes_per_node": the tree
     memory of the last search over its nodes (24-byte edges, 12-byte node records, block slack), ...}

- `ismcts/<game>/first_decision` for every game id given: one search at a time, from a fresh state
  of the game (default parameters and players, seed 0) at its first decision, with the search's
  core settings (c=0.7, horizon=round) and as many iterations as take about `seconds`.
- `ismcts/<game>/default_move` for every game id given: the move `arena run --agents ismcts`
  plays there, timed whole: the agent with all its default parameters (its iterations, and the
  options it turns on per game), through `act` on the mover's view, as the referee asks it. Its
  rate is the agent's iterations over the wall time of one move, and `seconds_per_move` the
  median move, so a timed default move and the bench agree.
- When "wizard" is among the game ids: `ismcts/wizard_4p_hand10/first_bid` and `.../first_card`,
  on one 4-player hand of 10 cards (`engines.make("wizard", players=4, hands=(10,))`), the first
  card after everyone bid 2. When OpenSpiel's `pyspiel` is importable (an optional extra), each of
  these rows is preceded by `openspiel_ismcts/oh_hell_4p_10tricks/<point>`: OpenSpiel's C++
  `ISMCTSBot` (one random rollout per simulation, uct_c=2, max visit count) on `oh_hell` with 4
  players and `num_tricks_fixed=10` at the same points, and the ismcts row carries
  `"baseline"` (that row's case) and `"speedup"` (ismcts median / OpenSpiel median). Without pyspiel
  the ismcts row says `"baseline": null` and why in `"note"`.

Each rate is iterations (OpenSpiel: simulations) divided by the wall time of one whole search;
`repeats` searches per case. Run it alone with `python -m arena.bench.ismcts [game ...]`.

`openspiel_rounds(rounds)` measures the OpenSpiel ratio on a shared machine, where one run's seconds
move with the load: in each round, at each point, OpenSpiel's row then ours (A B A B ...), one
pair of rows per round (each with its "round", ours with its "speedup"), then per point a row
`ismcts/wizard_4p_hand10/<point>/rounds` with every round's speedup and their median
(`median_speedup`). Run it with `python -m arena.bench.ismcts --rounds N`.
"""
import random
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

from agents.ismcts import Search

import agents
import engines
from arena.bench.measure import Row, row, run_alone, timed, versus

GAME = "wizard"   # the game whose positions these cases measure

WIZARD_HAND: dict[str, Any] = {"players": 4, "hands": (10,)}
OH_HELL = {"players": 4, "num_tricks_fixed": 10}
BID = 2


def _calibrate(run, seconds):
    """Iterations that take about `seconds` per search (at least 1000)."""
    n = 500
    t0 = time.perf_counter()
    run(n)
    dt = max(time.perf_counter() - t0, 1e-6)
    return max(1000, int(n * seconds / dt))


def _ismcts_row(case, state, repeats, seconds, iterations=None, **extra):
    search = Search()

    def run(n):
        search.seed(len(case))
        search.search(state, n, 0.0, 0.7, "round", 0.5)

    n = iterations or _calibrate(run, seconds)
    rates = timed(run, n, repeats)
    stats = search.stats()
    return row(case, "iterations/s", rates, digits=None, iterations=n, bytes_per_node=stats["bytes_per_node"],
               nodes=stats["nodes"], players=state.num_players, **extra)


def _default_move_row(case, game_id, state, repeats):
    agent = agents.make("ismcts")
    seat = state.current_player()
    agent.reset(game_id, engines.registry.resolve(game_id), seat, 0)
    iterations = agent.params["iterations"]

    def move(n):
        for i in range(n):
            agent.act(state.determinize(seat, i))

    out = row(case, "iterations/s", [r * iterations for r in timed(move, 1, repeats)], digits=None,
              iterations=iterations, players=state.num_players)
    out["seconds_per_move"] = round(iterations / out["median_per_s"], 4)
    return out


def _wizard_points():
    """The Wizard hand at its first bid, and at its first card after every bid is 2."""
    state = engines.make(GAME, seed=0, **WIZARD_HAND)
    while any(a >= 75 for a in state.legal_actions()):    # a turned-up Wizard: the dealer picks trump
        state.apply_action(state.legal_actions()[0])
    first_bid = state.clone()
    while any(a >= 54 for a in state.legal_actions()):
        legal = state.legal_actions()
        state.apply_action(54 + BID if 54 + BID in legal else legal[0])
    return {"first_bid": first_bid, "first_card": state}


def _oh_hell_points(pyspiel):
    game = pyspiel.load_game("oh_hell", OH_HELL)
    state = game.new_initial_state()
    rng = random.Random(0)
    while state.is_chance_node():
        outcomes = [a for a, _ in state.chance_outcomes()]
        state.apply_action(rng.choice(outcomes))
    first_bid = state.clone()
    params = game.get_parameters()
    deck = params["num_suits"] * params["num_cards_per_suit"]     # bid b is action deck + b
    while state.legal_actions()[0] >= deck:
        legal = state.legal_actions()
        state.apply_action(deck + BID if deck + BID in legal else legal[0])
    return game, {"first_bid": first_bid, "first_card": state}


def _openspiel_row(pyspiel, case, state, repeats, iterations):
    def run(n):
        bot = pyspiel.ISMCTSBot(1, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, n, -1,
                                pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        bot.step(state)

    return row(case, "iterations/s", timed(run, iterations, repeats), digits=None, iterations=iterations,
               players=OH_HELL["players"])


def cases(game_ids: Iterable[str], repeats: int = 5, seconds: float = 0.15,
          baseline_iterations: int = 10000) -> Iterator[Row]:
    """Yields the benchmark rows described in the module docstring for the given game ids:
    `repeats` searches per case, ismcts searches sized to take about `seconds` each, OpenSpiel's
    of `baseline_iterations` simulations."""
    for game_id in game_ids:
        state = engines.make(game_id, seed=0)
        yield _ismcts_row(f"ismcts/{game_id}/first_decision", state, repeats, seconds)
        yield _default_move_row(f"ismcts/{game_id}/default_move", game_id, state, repeats)
    if GAME not in game_ids:
        return
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    wizard = _wizard_points()
    oh_hell = _oh_hell_points(pyspiel)[1] if pyspiel else {}
    for point, state in wizard.items():
        if pyspiel is None:
            yield _ismcts_row(f"ismcts/wizard_4p_hand10/{point}", state, repeats, seconds, baseline=None,
                              note="pyspiel (OpenSpiel) is not installed: no baseline")
            continue
        yield from _against_openspiel(pyspiel, point, state, oh_hell[point], repeats, seconds, baseline_iterations)


def _against_openspiel(pyspiel, point, state, oh_hell_state, repeats, seconds, baseline_iterations, **extra):
    """OpenSpiel's row at `point`, then ours measured against it."""
    base = _openspiel_row(pyspiel, f"openspiel_ismcts/oh_hell_4p_10tricks/{point}", oh_hell_state, repeats,
                          baseline_iterations)
    return versus(base, _ismcts_row(f"ismcts/wizard_4p_hand10/{point}", state, repeats, seconds, **extra), digits=2)


def openspiel_rounds(rounds: int = 6, repeats: int = 3, seconds: float = 0.15,
                     baseline_iterations: int = 10000) -> Iterator[Row]:
    """The OpenSpiel ratio in interleaved rounds (module docstring); needs pyspiel."""
    import pyspiel
    wizard = _wizard_points()
    oh_hell = _oh_hell_points(pyspiel)[1]
    speedups: dict[str, list[float]] = {point: [] for point in wizard}
    for r in range(rounds):
        for point, state in wizard.items():
            base, ours = _against_openspiel(pyspiel, point, state, oh_hell[point], repeats, seconds,
                                            baseline_iterations, round=r)
            base["round"] = r
            speedups[point].append(ours["speedup"])
            yield base
            yield ours
    for point, values in speedups.items():
        yield {"case": f"ismcts/wizard_4p_hand10/{point}/rounds", "unit": "x OpenSpiel", "speedups": values,
               "median_speedup": round(statistics.median(values), 2)}


def _rounds_alone(rounds: int) -> Iterator[Row]:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        sys.exit("python -m arena.bench.ismcts: error: --rounds needs OpenSpiel: pip install -e '.[openspiel]'")
    return openspiel_rounds(rounds)


if __name__ == "__main__":
    run_alone("arena.bench.ismcts", cases,
              rounds=("OpenSpiel's ratio on the Wizard hand in N interleaved rounds (needs pyspiel)", _rounds_alone))
