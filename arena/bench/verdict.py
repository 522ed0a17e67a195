"""`arena bench --verdict`: how many deals and CPU seconds `arena compare` needs to reach a decision,
with independent seeds and with coupled seeds (arena.seeds), on fixed pairs, in the same run.

Per game (GAMES: Wizard 4 players one hand of 5 cards, Belladone Bluff 4 players, Belle of the Ball
3 players, Royal Ball and Insert on their defaults), per pair (PAIRS: an agent against itself, `ismcts`
against `ismcts` at half its iterations, `ismcts` against `minimax`), per seeding and per seed of the
deals, one comparison is played through `arena.compare` (its SPRT, its deal seeds, on a temporary
store, one worker) until it decides or reaches `max_deals`; its row gives the decision, the deals it
used and the CPU seconds they cost (this process and its workers). Then the comparison's first
`sd_deals` deals are completed (when it stopped earlier) and their per-deal observation gives `sd`:
the standard deviation over deals of the candidate's score share minus the baseline's (for two
players, the pair score x as 2x - 1, on the same scale), the figure coupling is meant to cut, and
`identical`, how many of those deals the two matches played alike. A last row per game and pair
compares the seedings: sd coupled / sd independent, and median deals to a decision, each seeding's
(a comparison with no decision counts as its `max_deals`, a lower bound).

With `replays`, a third arm, `corrected`: the coupled comparison again (the same deals and matches),
its SPRT counting each deal's corrected observation (arena.compare.correction: the mean over the
stored continuation and `replays` replays from the move after the divergence), its CPU seconds
including the replays; its `sd` is that of the corrected observations of the first `sd_deals`
deals, `raw_sd` the coupled one of the same deals. The last row then gives `variance_cut` (the
coupled variance per deal over the corrected one) and `variance_cut_per_cpu_s` (the same, each per
CPU second: above 1, the correction reaches a verdict in less CPU than more coupled deals would).

Where comparisons stop undecided at their cap (pairs of close strength need hundreds of deals), each
arm of the last row also gives `resampled`: the median deals (and CPU seconds) its test would take to
decide on deals like those it played, by resampling its observations of the `sd_deals` deals, the
same deals for every arm (`resampled()`); `deals_ratio` and `cpu_ratio` against independent seeds.

CPU seconds, not wall seconds: the machine may be shared. The SPRT is `--sprt`'s default unless
`sprt` is given.
"""
import math
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from typing import Any

from arena.bench.measure import Row

GAMES: dict[str, dict[str, Any]] = {
    "wizard": {"players": 4, "hands": (5,)}, "belladone_bluff": {"players": 4},
    "belle_of_the_ball": {"players": 3}, "royal_ball": {}, "insert": {},
}
SEEDINGS = ("independent", "coupled")


def pairs(iterations: int) -> list[tuple[str, str, str]]:
    """(name, candidate, baseline) of the benchmark at `iterations` ismcts iterations."""
    agent = f"ismcts[iterations={iterations}]"
    return [("identical", agent, f"{agent} as twin"),
            ("halved", agent, f"ismcts[iterations={max(1, iterations // 2)}]"),
            ("minimax", agent, "minimax[determinizations=8,depth=2]")]


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished workers."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def deal_values(plan: Any, matches: Sequence[dict], deals: int) -> list[float]:
    """The per-deal observation of the first `deals` deals, as a difference of score shares in [-1, 1]."""
    from arena.compare import compare
    by_id = {m["match_id"]: m for m in matches}
    return [difference(plan, plan.values[compare.observation(plan, d, by_id[2 * d], by_id[2 * d + 1])[0]])
            for d in range(deals)]


def difference(plan: Any, y: float) -> float:
    """An observation y (arena.compare.sprt: the pair score, or 1/2 + the share difference) as a
    difference of score shares in [-1, 1]."""
    return 2 * y - 1 if plan.players == 2 else y - 0.5


def comparison(game_id: str, candidate: str, baseline: str, seeding: str, seed: int, max_deals: int,
               sd_deals: int, sprt: str | None, replays: int = 0) -> Row:
    """One comparison to its decision, then completed to `sd_deals` deals (see the module docstring);
    seeding "corrected": coupled, its SPRT on the corrected observations (arena.compare.correction)."""
    from arena import edge
    from arena.compare import compare, correction
    from arena.results.divergence import divergence
    from arena.store import Store
    from arena.tournament import coordinator
    params = dict(GAMES[game_id])
    players = params.pop("players", None)
    texts = [f"{k}={','.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in params.items()]
    policy = edge.sandbox_policy("none")
    with tempfile.TemporaryDirectory() as folder:
        store = Store(os.path.join(folder, "verdict.sqlite"))
        plan = compare.plan(store, edge.agent(candidate, policy), edge.agent(baseline, policy),
                            edge.game(game_id, players, texts), test=edge.sprt(sprt), max_deals=max_deals, seed=seed,
                            sandbox=policy,
                            seeding=edge.seeding("coupled" if seeding == "corrected" else seeding),
                            deal_key="0" * 32)
        started, wall = cpu_seconds(), time.perf_counter()
        if seeding == "corrected":
            status, outcome = "finished", correction.play(store, plan, replays)
        else:
            status, outcome = compare.play(store, plan, jobs=1)
        cpu, elapsed = cpu_seconds() - started, time.perf_counter() - wall
        done = store.finished_ids(plan.run_id)
        todo = [s for d in range(sd_deals) for s in plan.deal_specs(d) if s.match_id not in done]
        if status == "interrupted" or coordinator.play_specs(store, todo, jobs=1) == "interrupted":
            raise KeyboardInterrupt   # Ctrl-C or SIGTERM: the benchmark stops, not just this comparison
        matches = store.matches(plan.run_id)
        values = deal_values(plan, matches, sd_deals)
        extra = {}
        if seeding == "corrected":   # the same deals corrected (those the test used are already); raw_sd: coupled
            used = outcome.corrected
            rest = correction.correct(plan, matches, sd_deals, replays, start=min(len(used.values), sd_deals))
            corrected = (used.values + rest.values)[:sd_deals]
            extra = {"replays": replays, "raw_sd": round(statistics.stdev(values), 4) if sd_deals > 1 else None,
                     "replayed": sum(used.replayed_at[:sd_deals]) + sum(rest.replayed_at)}
            values = [difference(plan, v) for v in corrected]
        grid = correction.grid(plan.values, replays) if seeding == "corrected" else plan.values
        test = plan.test
        by_id = {m["match_id"]: m for m in matches}
        alike = sum(divergence(by_id[2 * d]["actions"], by_id[2 * d + 1]["actions"]).identical
                    for d in range(sd_deals))
        store.close()
    return {"case": f"verdict/{game_id}/{candidate} vs {baseline}/{seeding}/seed {seed}", "unit": "deals",
            "game": game_id, "candidate": candidate, "baseline": baseline, "seeding": seeding, "seed": seed,
            "decision": outcome.decision, "deals": outcome.deals, "max_deals": max_deals,
            "cpu_s": round(cpu, 2), "wall_s": round(elapsed, 2),
            "sd_deals": sd_deals, "sd": round(statistics.stdev(values), 4) if len(values) > 1 else None,
            "mean": round(statistics.fmean(values), 4) if values else None, "identical": alike, **extra,
            # for the summary's resampled stopping times (popped there, not printed)
            "_observations": [observation(plan, v) for v in values], "_grid": grid, "_test": test}


def observation(plan: Any, d: float) -> float:
    """The inverse of `difference`: a difference of score shares as the test's observation y."""
    return (d + 1) / 2 if plan.players == 2 else d + 0.5


def rows(games: Sequence[str], iterations: int = 100, max_deals: int = 30, sd_deals: int = 20, seeds: int = 1,
         sprt: str | None = None, which: Sequence[str] | None = None, replays: int = 0) -> Iterator[Row]:
    """The benchmark's rows (see the module docstring); `which` names the pairs to play (default: all);
    with `replays`, the corrected arm too."""
    arms = SEEDINGS + (("corrected",) if replays else ())
    for game_id in games:
        for name, candidate, baseline in pairs(iterations):
            if which and name not in which:
                continue
            played = {s: [comparison(game_id, candidate, baseline, s, seed, max_deals, sd_deals, sprt, replays)
                          for seed in range(seeds)] for s in arms}
            last = summary(game_id, name, candidate, baseline, played)   # first: it takes the rows' private keys
            for seeding in arms:
                yield from played[seeding]
            yield last


def summary(game_id: str, name: str, candidate: str, baseline: str, played: dict[str, list[Row]]) -> Row:
    """The arms side by side: sd pooled over the seeds' deals, median deals and CPU seconds to a
    decision; with the corrected arm, what it gains over the coupled one per deal and per CPU second."""
    def pooled(rs):   # the seeds' sds pooled (equal deals each)
        sds = [r["sd"] for r in rs if r["sd"] is not None]
        return round(math.sqrt(statistics.fmean(s * s for s in sds)), 4) if sds else None

    out: Row = {"case": f"verdict/{game_id}/{name}", "unit": "deals", "game": game_id, "pair": name,
                "candidate": candidate, "baseline": baseline}
    for seeding, rs in played.items():
        out[seeding] = {"sd": pooled(rs), "median_deals": statistics.median(r["deals"] for r in rs),
                        "decided": sum(r["decision"] is not None for r in rs), "comparisons": len(rs),
                        "median_cpu_s": round(statistics.median(r["cpu_s"] for r in rs), 2),
                        "cpu_s_per_deal": round(sum(r["cpu_s"] for r in rs) / sum(r["deals"] for r in rs), 4),
                        "identical": sum(r["identical"] for r in rs), "sd_deals": sum(r["sd_deals"] for r in rs)}
    resampled(out, played)
    a, b = out["independent"], out["coupled"]
    out["sd_ratio"] = round(b["sd"] / a["sd"], 3) if a["sd"] and b["sd"] is not None else None
    out["deals_ratio"] = round(b["median_deals"] / a["median_deals"], 3) if a["median_deals"] else None
    if "corrected" in out:
        c = out["corrected"]
        # variance per deal coupled / corrected, and the same per CPU second (a deal of each costs its own)
        cut = (b["sd"] / c["sd"]) ** 2 if c["sd"] else None
        out["variance_cut"] = round(cut, 3) if cut else None
        out["variance_cut_per_cpu_s"] = round(cut * b["cpu_s_per_deal"] / c["cpu_s_per_deal"], 3) \
            if cut and c["cpu_s_per_deal"] else None
    return out


def resampled(out: Row, played: dict[str, list[Row]], sequences: int = 200, cap: int = 4000) -> None:
    """Adds to each arm of `out` the deals (and CPU seconds) its test would take to decide on deals
    like those it played: the median over `sequences` sequences drawn from its observations of the
    `sd_deals` deals (arena.compare.sprt.resampled_stops), each arm's moved to one mean, `at_mean`,
    so that the arms differ by their spread and not by the chance in their means (every arm
    estimates the same mean; `at_mean` weighs theirs by the inverse of their variances). `undecided`:
    the share still undecided at `cap`, counted as `cap` (the median is then a lower bound). An
    estimate, for comparisons that stop undecided at their cap, as those of close agents do."""
    from arena.compare import sprt
    observed = {}
    for seeding, rs in played.items():
        ys = [y for r in rs for y in r.pop("_observations")]
        grid, test = rs[0]["_grid"], rs[0]["_test"]
        for r in rs:
            r.pop("_grid"), r.pop("_test")
        observed[seeding] = (ys, grid, test)
    spread = {k: (statistics.fmean(o), statistics.variance(o) / len(o)) for k, (o, _, _) in observed.items()
              if len(set(o)) > 1}
    for seeding in played:
        out[seeding]["resampled"] = None   # every deal alike: the comparison stops on "identical play"
    if not spread:
        return
    at_mean = sum(m / v for m, v in spread.values()) / sum(1 / v for _, v in spread.values())
    out["at_mean"] = round(at_mean, 4)
    for seeding, (observations, grid, test) in observed.items():
        if seeding not in spread:
            continue
        stops = sprt.resampled_stops(observations, grid, test, mean=at_mean, sequences=sequences, cap=cap)
        deals = float(statistics.median(stops))
        out[seeding]["resampled"] = {"median_deals": deals, "undecided": round(float((stops == cap).mean()), 3),
                                     "cpu_s": round(deals * out[seeding]["cpu_s_per_deal"], 1),
                                     "mean": round(spread[seeding][0], 4)}
    base = out["independent"]["resampled"]
    for seeding in played:
        arm = out[seeding]["resampled"]
        if arm is not None and base is not None and seeding != "independent":
            arm["deals_ratio"] = round(arm["median_deals"] / base["median_deals"], 3)
            arm["cpu_ratio"] = round(arm["cpu_s"] / base["cpu_s"], 3) if base["cpu_s"] else None
