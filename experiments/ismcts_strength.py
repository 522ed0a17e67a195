"""Root-parallel ISMCTS throughput: iterations per second at 1 and N threads, as JSON rows.

`thread_rows(game_ids, threads=(1, 2))` yields, for every game id (default parameters and players,
seed 0, the first decision of the deal, and one decision a third of the way into a random game), one
row per thread count: {"case": "ismcts_threads/<game>/<point>/<n>", "unit": "iterations/s",
"rates": [...], "median_per_s": ..., "seconds": wall time per search, "speedup": median / the
1-thread median, "cpu_per_s": median iterations per CPU second of the process, "cpu_speedup": that
over the 1-thread figure, "cores": median CPU seconds per wall second the process got}. Each search
runs `seconds` of wall time per tree (`ismcts[time=..., threads=n]`), and the rate is all trees'
iterations over the wall time of the whole move. The machine's other load counts: on a shared
machine `cores` shows how much of it the search got; iterations per CPU second do not depend on it,
so `cpu_speedup` near 1 says the threads do not slow each other down (the wall-clock speed-up is
then `cores` times the 1-thread rate).

Strength at equal time per move is measured with `arena run`, e.g.
    arena run --game belladone_bluff --games 50 --jobs 1 \\
        --agents "ismcts[time=0.05] as t1, ismcts[time=0.05,threads=2] as t2"

Two settings measured against one baseline on the same deals (`arena compare A X --deal-key K` and
`arena compare B X --deal-key K`, each in its own store) are compared deal by deal with
`--paired A.sqlite B.sqlite`, which is tighter than comparing their two intervals.

Run alone: `python -m experiments.ismcts_strength [--seconds 0.5] [--threads 1,2] [game ...]`.
Against OpenSpiel's bots at equal iterations (`versus_openspiel`): `python -m
experiments.ismcts_strength --openspiel DEALS GAME [--param players=4 --param hands=5]
[--first-deal K] [--ours "pom=1"] [--agent pimc] [--log FILE]`; the figures of such logs again,
each after the first also paired deal by deal with it: `--logs BASE.log OTHER.log ...`.
"""
import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from agents.ismcts import ISMCTSAgent

import engines
from arena import referee
from arena.agent_list import parse_params
from engines.registry import resolve


def _points(game_id):
    state = engines.make(game_id, seed=0)
    rng = random.Random(0)
    probe = state.clone()
    length = 0
    while not probe.is_terminal():
        probe.apply_action(rng.choice(probe.legal_actions()))
        length += 1
    later = state.clone()
    rng = random.Random(0)
    while len(later.history()) < length // 3 or len(later.legal_actions()) < 2:
        later.apply_action(rng.choice(later.legal_actions()))
    first = state.clone()
    while len(first.legal_actions()) < 2:
        first.apply_action(first.legal_actions()[0])
    return {"first_decision": first, "third": later}


def thread_rows(game_ids, threads=(1, 2), seconds=0.5, repeats=3):
    for game_id in game_ids:
        for point, state in _points(game_id).items():
            base = None
            for n in threads:
                a = ISMCTSAgent(time=seconds, threads=n, solver=False)
                a.reset(game_id, state.params, state.current_player(), 1)
                rates, cpu_rates, cores = [], [], []
                for _ in range(repeats):
                    t0, c0 = time.perf_counter(), time.process_time()
                    a.act(state)
                    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                    rates.append(a.last_stats()["iterations"] / wall)
                    cpu_rates.append(a.last_stats()["iterations"] / cpu)
                    cores.append(cpu / wall)
                median, cpu_median = statistics.median(rates), statistics.median(cpu_rates)
                base = base or (median, cpu_median)
                yield {"case": f"ismcts_threads/{game_id}/{point}/{n}", "unit": "iterations/s",
                       "rates": [round(r) for r in rates], "median_per_s": round(median),
                       "seconds": seconds, "threads": n, "speedup": round(median / base[0], 2),
                       "cpu_per_s": round(cpu_median), "cpu_speedup": round(cpu_median / base[1], 2),
                       "cores": round(statistics.median(cores), 2)}


# ---- head-to-heads against OpenSpiel's Python bots (optional extra: pip install open_spiel) ----

def _reward(state, margin=0.5):
    """The ismcts reward of each player at the end of `state` (rank and margin on the game's span)."""
    from agents.ismcts import score_span
    r = state.returns()
    n = len(r)
    span = score_span(state, "game") or 1.0
    out = []
    for p in range(n):
        rank = sum(1.0 if r[q] < r[p] else 0.5 if r[q] == r[p] else 0.0 for q in range(n) if q != p) / (n - 1)
        lead = r[p] - (sum(r) - r[p]) / (n - 1)
        out.append((1 - margin) * rank + margin * min(1.0, max(0.0, 0.5 + lead / (2 * span))))
    return out


def _openspiel_wrappers(pyspiel, margin=0.5):
    """Our states behind the few methods OpenSpiel's Python MCTSBot and ISMCTSBot call, rewarded as
    ismcts is with that `margin`."""
    from types import SimpleNamespace

    class Game:
        def __init__(self, perfect):
            GT = pyspiel.GameType
            self._type = SimpleNamespace(
                dynamics=GT.Dynamics.SEQUENTIAL, reward_model=GT.RewardModel.TERMINAL,
                information=GT.Information.PERFECT_INFORMATION if perfect else GT.Information.IMPERFECT_INFORMATION)

        def get_type(self):
            return self._type

        def max_utility(self):
            return 1.0

    class State:
        def __init__(self, game, s, rng):
            self.game, self.s, self.rng = game, s, rng

        def get_game(self):
            return self.game

        def clone(self):
            return State(self.game, self.s.clone(), self.rng)

        def is_terminal(self):
            return self.s.is_terminal()

        def is_chance_node(self):
            return False

        def is_simultaneous_node(self):
            return False

        def current_player(self):
            return pyspiel.PlayerId.TERMINAL if self.s.is_terminal() else self.s.current_player()

        def legal_actions(self, player=None):
            return self.s.legal_actions()

        def apply_action(self, a):
            self.s.apply_action(int(a))

        def returns(self):
            return _reward(self.s, margin)

        def information_state_string(self, player=None):
            return str(self.s.information_state_key(self.s.current_player() if player is None else player))

        def resample_from_infostate(self, player, sampler):
            return State(self.game, self.s.determinize(player, seed=self.rng.getrandbits(64)), self.rng)

        def action_to_string(self, player, action):
            return self.s.action_to_string(action)

    return Game, State


class _Stepper:
    """An OpenSpiel bot as an agent: `act(view)` is its `step` on the view behind the wrappers."""

    def __init__(self, bot, wrap):
        self.bot, self.wrap = bot, wrap

    def act(self, view):
        return self.bot.step(self.wrap(view))


def versus_openspiel(game_id, deals=40, iterations=1000, c=0.7, first_deal=0, ours="", log=None, params=None,
                     agent="ismcts"):
    """Duplicate head-to-head, `deals` deals each played in two seatings (two players: A B then
    B A; four: A B A B then B A B A, so each side holds every seat once on the same cards):
    ismcts[iterations, c, ours] (A) against OpenSpiel's MCTSBot (solver on) on a perfect-information
    game or its ISMCTSBot otherwise (B), both at `iterations` simulations, UCT constant `c`, one
    uniformly random rollout per simulation and the same reward in [0, 1] (ismcts's, with the `margin`
    that `ours` gives ismcts, so that both search for the same objective). `params`: game
    parameters (e.g. {"players": 4, "hands": (5,)}). `agent`: another built-in agent as A, with
    `ours` its parameters alone (no iterations or c; OpenSpiel's reward then has ismcts's default
    margin unless `ours` gives one), to see how another algorithm fares on the same deals. Each
    match scores A's seats against B's seats (1 placed above, 1/2 level, 0 below). Returns `summary`
    of the matches: {"share", "ci95" (over deals, each the mean of its seatings, so that the luck of
    the cards cancels as in the pairs), "points" (A's mean return minus B's, a match), "matches",
    "deals"}."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts as os_ismcts
    from open_spiel.python.algorithms import mcts as os_mcts

    import agents
    from arena.results.standings import pair_score
    from engines.registry import GAMES
    ours_params = dict(parse_params(ours, "ours"))
    if agent == "ismcts":
        ours_params = {"iterations": iterations, "c": c, **ours_params}
    checked = agents.make(agent, **ours_params).params     # typed and validated before any match
    Game, State = _openspiel_wrappers(pyspiel, checked.get("margin", ISMCTSAgent.PARAMS["margin"]))
    perfect = GAMES[game_id].perfect_information
    game = Game(perfect)
    players = engines.make(game_id, **(params or {})).num_players
    seatings = ["AB" * (players // 2) + "A" * (players % 2), "BA" * (players // 2) + "B" * (players % 2)]
    rows = []
    for d in range(first_deal, first_deal + deals):
        for k, seating in enumerate(seatings):
            rng = random.Random(1000 * d + k)
            state = engines.make(game_id, seed=d, **(params or {}))
            bots = {}
            for seat, side in enumerate(seating):
                if side == "A":
                    bots[seat] = agents.make(agent, **ours_params)
                    bots[seat].reset(game_id, state.params, seat, d)
                    continue
                # two players: the seeds of the first two-seat version of this bench
                nrs = np.random.RandomState(1000 * d + k + 10 * seating[:seat].count("B"))
                evaluator = os_mcts.RandomRolloutEvaluator(1, nrs)
                if perfect:
                    bots[seat] = os_mcts.MCTSBot(game, c, iterations, evaluator, solve=True, random_state=nrs)
                else:
                    bots[seat] = os_ismcts.ISMCTSBot(game, evaluator, c, iterations, random_state=nrs,
                                                     allow_inconsistent_action_sets=True)
            while not state.is_terminal():
                p = state.current_player()
                # The views' seeds of the recorded measurements: this match's generator, which
                # OpenSpiel's resampling shares (so their figures reproduce).
                view = state.determinize(p, seed=rng.getrandbits(64))
                if len(view.legal_actions()) == 1:   # a forced move: nobody is asked
                    state.apply_action(view.legal_actions()[0])
                    continue
                player = bots[p] if seating[p] == "A" else _Stepper(bots[p], lambda v, rng=rng: State(game, v, rng))
                state.apply_action(referee.decide(player, view, state.legal_actions(), trusted=True))
            r, places = state.returns(), state.placements()
            mine = [i for i in range(players) if seating[i] == "A"]
            theirs = [i for i in range(players) if seating[i] == "B"]
            rows.append({"deal": d, "seating": seating,
                         "score": sum(pair_score(places[i], places[j]) for i in mine for j in theirs)
                         / (len(mine) * len(theirs)),
                         "margin": sum(r[i] for i in mine) / len(mine) - sum(r[j] for j in theirs) / len(theirs),
                         "returns": list(r)})
            if log:
                print(json.dumps(rows[-1]), file=log, flush=True)
    return {"game": game_id, "params": params or {},
            "opponent": "openspiel_mcts_solver" if perfect else "openspiel_ismcts",
            "agent": agent, "iterations": iterations, "c": c, "ours": ours, **summary(rows)}


def _interval(values):
    """(mean, [low, high]) with a 95% normal interval, rounded to 3 places."""
    m = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return round(m, 3), [round(m - half, 3), round(m + half, 3)]


def summary(rows, baseline=None):
    """The head-to-head figures of `versus_openspiel`'s match rows (its --log lines): the score
    share with its interval over deals (a deal's score is the mean over its seatings), the mean
    points a match, and the counts. With `baseline` (another run's rows), also the per-deal
    difference from it over the deals both complete ("paired"; only a count when fewer than two)."""
    def per_deal(rows):
        out: dict[int, dict[Any, float]] = {}
        for row in rows:
            out.setdefault(row["deal"], {})[row["seating"]] = row["score"]
        complete = max(len(v) for v in out.values())
        return {d: statistics.mean(v.values()) for d, v in out.items() if len(v) == complete}

    if not rows:
        raise ValueError("no matches to summarise")
    deals = per_deal(rows)
    share, ci = _interval(list(deals.values()))
    out = {"matches": len(rows), "deals": len(deals), "share": share, "ci95": ci,
           "points": round(statistics.mean(row["margin"] for row in rows), 2)}
    if baseline is not None:
        base = per_deal(baseline)
        common = sorted(set(deals) & set(base))
        out["paired"] = {"deals": len(common)}
        if len(common) >= 2:
            out["paired"]["difference"] = _interval([deals[d] - base[d] for d in common])
    return out


def paired(store_a, store_b, label="ismcts"):
    """Two `arena compare` stores whose candidates (labels starting with `label`) played the same
    deals (the same --deal-key and --seed) against the same baseline: the per-deal difference of
    their pair scores (0 to 1, the mean of the two seat-swapped matches) and of their points over
    the pair, with 95% intervals. The largest run of each store is read."""
    import sqlite3

    def per_deal(path):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        run = db.execute("SELECT run_id FROM matches GROUP BY run_id ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
        out: dict[int, list[tuple[float, float]]] = {}
        for seed, seats, returns in db.execute("SELECT seed, seats, returns FROM matches WHERE run_id = ?", (run,)):
            seats, r = json.loads(seats), json.loads(returns)
            me = next(i for i, seat in enumerate(seats) if seat["label"].startswith(label))
            out.setdefault(seed, []).append((1.0 if r[me] > r[1 - me] else 0.5 if r[me] == r[1 - me] else 0.0,
                                             r[me] - r[1 - me]))
        return {seed: v for seed, v in out.items() if len(v) == 2}

    a, b = per_deal(store_a), per_deal(store_b)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise ValueError("the stores share fewer than two complete deals")
    share = [sum(x for x, _ in a[d]) / 2 - sum(x for x, _ in b[d]) / 2 for d in common]
    points = [sum(y for _, y in a[d]) - sum(y for _, y in b[d]) for d in common]
    return {"deals": len(common),
            "share_a": round(statistics.mean(sum(x for x, _ in a[d]) / 2 for d in common), 3),
            "share_b": round(statistics.mean(sum(x for x, _ in b[d]) / 2 for d in common), 3),
            "share_difference": _interval(share), "points_difference": _interval(points)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", default=["belladone_bluff", "insert", "wizard"])
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--openspiel", type=int, metavar="DEALS", default=0,
                    help="instead: duplicate head-to-heads against OpenSpiel's bots on DEALS deals per game")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="a game parameter for --openspiel, e.g. players=4 or hands=5 (repeatable)")
    ap.add_argument("--agent", default="ismcts", help="for --openspiel: the built-in agent on our side")
    ap.add_argument("--ours", default="", help="extra parameters of our agent, e.g. margin=1,c=0.5")
    ap.add_argument("--log", type=argparse.FileType("a"), help="for --openspiel: one JSON row per match")
    ap.add_argument("--paired", nargs=2, metavar=("STORE_A", "STORE_B"),
                    help="instead: per-deal difference of two arena compare stores on the same deals")
    ap.add_argument("--logs", nargs="+", metavar="LOG",
                    help="instead: the figures of --openspiel match logs, each but the first also paired "
                         "deal by deal with the first")
    args = ap.parse_args(argv)
    if args.logs:
        first = None
        for path in args.logs:
            try:
                with open(path) as f:
                    rows = [json.loads(line) for line in f if line.strip()]
                print(json.dumps({"log": path, **summary(rows, first)}))
            except (OSError, ValueError, KeyError, TypeError) as e:
                sys.exit(f"error: {path} is not a readable --openspiel match log ({e})")
            first = rows if first is None else first
        return
    if args.paired:
        print(json.dumps(paired(*args.paired)))
        return
    if args.openspiel:
        for game_id in args.games:
            try:
                params = resolve(game_id, **dict(x.split("=", 1) for x in args.param)) if args.param else None
                result = versus_openspiel(game_id, args.openspiel, args.iterations, first_deal=args.first_deal,
                                          ours=args.ours, params=params, log=args.log, agent=args.agent)
            except ValueError as e:     # unknown game or agent, malformed parameter
                sys.exit(f"error: {e}")
            print(json.dumps(result), flush=True)
        return
    threads = tuple(int(t) for t in args.threads.split(","))
    for r in thread_rows(args.games, threads, args.seconds, args.repeats):
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
