"""Ladder benchmarks, as JSON rows (`python -m arena.bench.ladder simulate|synthetic`).

`simulate`: how many matches a newly added entry takes to reach a settled place, with the ladder's
matchmaking (arena.ladder.matchmaking.choose) beside a plain round robin, under TrueSkill's own
model: every entry has a hidden true skill, and each deal's outcome is drawn from the model
(performance = skill + N(0, beta^2) per entry; two performances within the draw margin tie). Per
seed, `entries` entries of skills spread evenly over `spread` are rated by `warm` deals of
matchmaking; then a newcomer of skill `newcomer` above the best joins, and from the same warmed-up
ladder each policy plays batch after batch (BATCH line-ups from the state at the batch's start, as
`arena ladder run` plays) until the newcomer's place is settled (arena.ladder.standing.settled),
at most `cap` deals. Outcomes come from a random stream per seed and policy, the same for both
policies. A row per seed gives both policies' matches (deals x seat rotations) and whether the
settled place was the newcomer's true place; a last row gives the medians.

`synthetic`: fills a store with a ladder of `entries` entries and `matches` matches quickly
(direct SQL inserts of synthetic matches, standings, history and pair counts; the matches are
random-agent-like rows, not replayable games), then measures what `arena ladder show` costs on it:
the standings read through the store API, and the whole command as a process beside `arena --help`
(the interpreter's start and the command line's imports, which the command pays too). The entries are
built-in agents, so `arena ladder run` can play on such a store (to measure its memory beside a
store of a few matches).
"""
import argparse
import copy
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import trueskill

from arena import edge
from arena.extras import require
from arena.ladder import matchmaking, standing
from arena.ladder import store as ladders
from arena.ladder.standing import Entry
from arena.store import Store
from arena.tournament.schedule import rotations

# ---------------------------------------------------------------- simulation

def _outcome(skills: list[float], env: trueskill.TrueSkill, rng: random.Random) -> list[int]:
    """Ranks (1 = best) of one deal under TrueSkill's model."""
    perf = [s + rng.gauss(0, env.beta) for s in skills]
    margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    return [1 + sum(q - p > margin for q in perf) for p in perf]


class SimLadder:
    """A ladder in memory: entries, their hidden skills, pair counts; played deal by deal."""

    def __init__(self, skills: list[float], players: int, seed: int) -> None:
        self.env = standing.environment()
        self.entries = [Entry(i + 1, f"e{i + 1}", 1, None, "") for i in range(len(skills))]  # type: ignore[arg-type]
        self.skill = {e.entry: s for e, s in zip(self.entries, skills)}
        self.players, self.seed = players, seed
        self.met: dict[tuple[int, int], int] = {}
        self.batches = self.played = self.deals = 0

    def add(self, skill: float) -> Entry:
        e = Entry(len(self.entries) + 1, f"e{len(self.entries) + 1}", 1, None, "")  # type: ignore[arg-type]
        self.entries.append(e)
        self.skill[e.entry] = skill
        return e

    def batch(self, policy: str) -> list[tuple[int, ...]]:
        if policy == "matchmaking":
            ups = matchmaking.choose(self.entries, self.met, self.players, matchmaking.BATCH, self.seed, self.batches,
                                     self.env)
        else:
            ups = matchmaking.round_robin(self.entries, self.players, matchmaking.BATCH,
                                          self.batches * matchmaking.BATCH)
        self.batches += 1
        return ups

    def play(self, lineup: tuple[int, ...], rng: random.Random) -> None:
        by_number = {e.entry: e for e in self.entries}
        playing = [by_number[n] for n in dict.fromkeys(lineup)]
        standing.rate(playing, _outcome([self.skill[e.entry] for e in playing], self.env, rng), self.env)
        for a, b in itertools.combinations(sorted(e.entry for e in playing), 2):
            self.met[a, b] = self.met.get((a, b), 0) + 1
        self.played += len(rotations(tuple(lineup)))
        self.deals += 1


def settle_newcomer(ladder: SimLadder, newcomer: Entry, policy: str, rng: random.Random, cap: int) -> dict[str, Any]:
    """Plays `policy` batches until the newcomer's place is settled (checked after every deal), or
    `cap` deals; its matches and place."""
    start_matches, start_deals = ladder.played, ladder.deals
    true_order = sorted(ladder.skill, key=lambda n: -ladder.skill[n])
    while ladder.deals - start_deals < cap:
        for lineup in ladder.batch(policy):
            ladder.play(lineup, rng)
            order = standing.ordered(ladder.entries)
            if standing.settled(order, newcomer):
                place = [e.entry for e in order].index(newcomer.entry) + 1
                return {"matches": ladder.played - start_matches, "deals": ladder.deals - start_deals,
                        "place": place, "true_place": true_order.index(newcomer.entry) + 1,
                        "correct": place == true_order.index(newcomer.entry) + 1}
    return {"matches": None, "deals": cap, "place": None, "true_place": true_order.index(newcomer.entry) + 1,
            "correct": False}


def simulate(seeds: int = 10, entries: int = 6, players: int = 2, warm: int = 200, spread: float = 12.0,
             newcomer: float = 4.0, cap: int = 2000) -> Iterator[dict[str, Any]]:
    """One row per seed (both policies from the same warmed-up ladder), then a row of medians."""
    rows = []
    for seed in range(seeds):
        skills = [25 - spread / 2 + spread * i / max(1, entries - 1) for i in range(entries)]
        base = SimLadder(skills, players, seed)
        warm_rng = random.Random(seed)
        while base.deals < warm:
            for lineup in base.batch("matchmaking"):
                base.play(lineup, warm_rng)
        base.add(max(skills) + newcomer)
        row: dict[str, Any] = {"seed": seed, "entries": entries + 1, "players": players,
                               "newcomer_skill": max(skills) + newcomer}
        for policy in ("matchmaking", "round_robin"):
            ladder = copy.deepcopy(base)
            result = settle_newcomer(ladder, ladder.entries[-1], policy, random.Random(f"{seed} outcomes"), cap)
            row.update({f"{policy}_{k}": v for k, v in result.items()})
        rows.append(row)
        yield row

    def median(key):
        values = [r[key] for r in rows if r[key] is not None]
        return statistics.median(values) if values else None
    yield {"summary": True, "seeds": seeds,
           **{f"{p}_{k}": median(f"{p}_matches") if k == "median_matches" else
              sum(r[f"{p}_correct"] for r in rows) / len(rows)
              for p in ("matchmaking", "round_robin") for k in ("median_matches", "correct_share")},
           "matchmaking_unsettled": sum(r["matchmaking_matches"] is None for r in rows),
           "round_robin_unsettled": sum(r["round_robin_matches"] is None for r in rows)}


# ---------------------------------------------------------------- a synthetic ladder

def synthetic(path: str, name: str = "synthetic", entries: int = 50, matches: int = 1_000_000,
              seed: int = 0) -> dict[str, Any]:
    """Fills the store at `path` with a ladder of `entries` entries and `matches` matches (two
    players, one deal = 2 matches) by direct inserts; returns what it made and how long it took."""
    started = time.perf_counter()
    rng = random.Random(seed)
    store = Store(path)
    made = ladders.create(store, name, game=edge.game("insert", None), seed=seed, sandbox=edge.sandbox_policy("none"))
    env = standing.environment()
    for i in range(entries):
        ladders.add(store, name, edge.agent(f"{('random', 'greedy')[i % 2]} as e{i:02d}"))
    numbers = list(range(1, entries + 1))
    skill = {n: rng.gauss(25, 4) for n in numbers}
    deals = matches // 2
    params = json.dumps(made.params, sort_keys=True)
    labels = {e.entry: e.name for e in ladders.entries(store, name)}
    specs = {e.entry: e.spec.as_dict() for e in ladders.entries(store, name)}
    met: dict[tuple[int, int], int] = {}
    meetings: dict[tuple[int, int], list[int]] = {}   # (entry, opponent): [games, wins, draws, losses]
    counts = {n: {"deals": 0, "games": 0, "wins": 0, "losses": 0} for n in numbers}

    def rows() -> Iterator[tuple]:
        now = time.time()
        for deal in range(deals):
            a, b = rng.sample(numbers, 2)
            first = skill[a] + rng.gauss(0, env.beta) > skill[b] + rng.gauss(0, env.beta)
            pair = (min(a, b), max(a, b))
            met[pair] = met.get(pair, 0) + 1
            for x, y, won in ((a, b, first), (b, a, not first)):
                m = meetings.setdefault((x, y), [0, 0, 0, 0])
                m[0] += 2
                m[1 if won else 3] += 2
            for k, (x, y) in enumerate(((a, b), (b, a))):
                wins_x = first if x == a else not first
                places = [1, 2] if wins_x else [2, 1]
                yield (made.run_id, 2 * deal + k, "insert", params, deal, deal,
                       json.dumps([specs[x], specs[y]]), json.dumps([1 if wins_x else -1, -1 if wins_x else 1]),
                       json.dumps(places), "[]", "[]", "{}", 0.01, now)
            for n, won in ((a, first), (b, not first)):
                c = counts[n]
                c["deals"] += 1
                c["games"] += 2
                c["wins" if won else "losses"] += 2

    with store.db:
        store.db.executemany("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows())
    # Standings as a long ladder ends up: mu near the hidden skill, sigma small; a sampled history.
    with store.db:
        for n in numbers:
            c = counts[n]
            mu, sigma = skill[n] + rng.gauss(0, 0.5), 0.8 + rng.random() * 0.4
            r = env.create_rating(mu, sigma)
            share = [c["deals"], c["wins"] / max(1, c["games"]), c["deals"] * 0.2]
            store.db.execute(
                "UPDATE ladder_entries SET pi = ?, tau = ?, mu = ?, sigma = ?, deals = ?, games = ?, wins = ?, "
                "losses = ?, share = ?, form = ? WHERE ladder = ? AND entry = ?",
                (r.pi, r.tau, mu, sigma, c["deals"], c["games"], c["wins"], c["losses"], json.dumps(share),
                 "".join(rng.choice("WL") for _ in range(standing.FORM)), name, n))
            store.db.executemany("INSERT INTO ladder_history VALUES (?, ?, ?, ?, ?, ?)",
                                 [(name, n, k * deals // c["deals"] if c["deals"] else k, k, mu, sigma)
                                  for k in range(1, c["deals"] + 1)])
        store.db.executemany("INSERT INTO ladder_pairs VALUES (?, ?, ?, ?)",
                             [(name, a, b, d) for (a, b), d in sorted(met.items())])
        store.db.executemany("INSERT INTO ladder_meetings VALUES (?, ?, ?, ?, ?, ?, ?)",
                             [(name, x, y, *c) for (x, y), c in sorted(meetings.items())])
        store.db.execute("UPDATE ladders SET next_deal = ?, next_match = ? WHERE name = ?", (deals, 2 * deals, name))
        store.db.execute("UPDATE runs SET total = ? WHERE run_id = ?", (2 * deals, made.run_id))
    store.close()
    return {"case": "ladder/synthetic", "entries": entries, "matches": 2 * deals, "labels": len(labels),
            "seconds_to_fill": round(time.perf_counter() - started, 1),
            "store_mib": round(os.path.getsize(path) / 2 ** 20, 1)}


def measure_show(path: str, name: str = "synthetic", repeats: int = 5) -> dict[str, Any]:
    """The standings through the store API (best of `repeats`), and `arena ladder show` as a whole
    process beside `arena --help` (wall times, best of `repeats`)."""
    api = []
    for _ in range(repeats):
        t = time.perf_counter()
        store = Store(path, readonly=True)
        ladders.standings(store, name)
        ladders.folded(store, ladders.get(store, name))
        store.close()
        api.append(time.perf_counter() - t)

    def best(*args):
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "arena", *args], check=True, capture_output=True)
            times.append(time.perf_counter() - t)
        return round(min(times), 3)
    return {"case": "ladder/show", "store": path, "api_seconds": round(min(api), 4),
            "command_seconds": best("ladder", "show", name, "--store", path),
            "help_command_seconds": best("--help")}


def measure_pages(path: str, name: str = "synthetic", repeats: int = 7) -> Iterator[dict[str, Any]]:
    """The answer times of the JSON the ladder page and an entry's page read (Starlette's
    TestClient on `arena serve`'s app, the first answer warming the cache; median of `repeats`),
    and `arena ladder show` as a whole process (median of `repeats`)."""
    from starlette.testclient import TestClient

    from arena.serve.app import create_app
    store = Store(path, readonly=True)
    first = ladders.entries(store, name)[0].name
    store.close()
    client = TestClient(create_app(path, sandbox="none"))
    for page, url in (("ladder", f"/api/ladders/{name}"), ("entry", f"/api/ladders/{name}/entries/{first}")):
        client.get(url).raise_for_status()
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            client.get(url).raise_for_status()
            times.append(time.perf_counter() - t)
        yield {"case": f"ladder/{page}-api", "url": url, "median_seconds": round(statistics.median(times), 4),
               "repeats": repeats}
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "arena", "ladder", "show", name, "--store", path], check=True,
                       capture_output=True)
        times.append(time.perf_counter() - t)
    yield {"case": "ladder/show-command", "median_seconds": round(statistics.median(times), 3), "repeats": repeats}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    sim = sub.add_parser("simulate", help="matches until a newcomer's place is settled, matchmaking vs round robin")
    sim.add_argument("--seeds", type=int, default=10)
    sim.add_argument("--entries", type=int, default=6, help="entries before the newcomer")
    sim.add_argument("--players", type=int, default=2)
    sim.add_argument("--warm", type=int, default=200, help="deals played before the newcomer joins")
    sim.add_argument("--spread", type=float, default=12.0, help="true skills spread evenly over this range")
    sim.add_argument("--newcomer", type=float, default=4.0, help="the newcomer's skill above the best entry's")
    sim.add_argument("--cap", type=int, default=2000, help="deals at most per policy")
    syn = sub.add_parser("synthetic", help="fill a store with a big ladder and time `arena ladder show` on it")
    syn.add_argument("store")
    syn.add_argument("--entries", type=int, default=50)
    syn.add_argument("--matches", type=int, default=1_000_000)
    pages = sub.add_parser("pages", help="time the ladder pages' JSON and `arena ladder show` on a synthetic store")
    pages.add_argument("store")
    args = ap.parse_args(argv)
    if args.what != "simulate":   # the pages are timed on the web app
        try:
            require(f"python -m arena.bench.ladder {args.what}", "starlette")
        except ValueError as e:
            ap.error(str(e))
    if args.what == "simulate":
        for row in simulate(args.seeds, args.entries, args.players, args.warm, args.spread, args.newcomer, args.cap):
            print(json.dumps(row), flush=True)
    elif args.what == "pages":
        for row in measure_pages(args.store):
            print(json.dumps(row), flush=True)
    else:
        if os.path.exists(args.store):
            ap.error(f"{args.store} exists: give a new file")
        print(json.dumps(synthetic(args.store, entries=args.entries, matches=args.matches)), flush=True)
        print(json.dumps(measure_show(args.store)), flush=True)
        for row in measure_pages(args.store):
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
