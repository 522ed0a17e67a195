"""How large an edge the leaderboard's ratings can separate, as JSON rows.

The leaderboard rates with TrueSkill (`arena.results.ratings.environment()`, the package's defaults and its
dynamic factor tau) and sorts by mu - 3 sigma. Two agents' ratings are "separated" when the lower
one's mu + 3 sigma lies below the higher one's mu - 3 sigma. This bench plays TrueSkill's own model
of a four-agent free-for-all line-up: each match, each agent's performance is its true skill plus
N(0, beta^2) noise, and the placements follow the performances. Agent A is `gap` points of true
skill above agent B (29), and two weaker agents stand at 20, near the Wizard line-up's minimax and
greedy. After `matches` matches it checks whether A's and B's ratings are separated.

`separation_rows(gaps, matches, runs, seed)` yields one row per (matches, gap):
{"case": "rating_separation/<matches>/<gap>", "true_gap", "p_above" (the chance A places above B
in a match: Phi(gap / (sqrt(2) beta))), "separated" (the share of `runs` seeded runs that end separated),
"sigma" (A's mean final sigma), "mu_gap" (the mean final mu of A minus B), "runs"}.

With tau > 0, sigma settles near 0.7-0.8 however many matches are played. Separation then needs a
true gap of about 4 points, which means placing above the other agent in about 3 matches of 4.

Run alone: `python -m experiments.rating_separation [--matches 120,280] [--gaps 0.5,1,2,3,4,5]
[--runs 40] [--seed 0]`.
"""
import argparse
import json
import random
import statistics
import sys
from math import erf

from arena.results.ratings import environment

BASE, WEAK = 29.0, 20.0


def _run(env, gap, matches, rng):
    """(separated, A's sigma, A's mu minus B's) after `matches` seeded matches of the model."""
    skill = [BASE + gap, BASE, WEAK, WEAK]
    ratings = [env.create_rating() for _ in skill]
    for _ in range(matches):
        perf = [s + rng.gauss(0.0, env.beta) for s in skill]
        order = sorted(range(len(skill)), key=lambda i: -perf[i])
        ranks = [order.index(i) for i in range(len(skill))]
        ratings = [group[0] for group in env.rate([(r,) for r in ratings], ranks=ranks)]
    a, b = ratings[0], ratings[1]
    return a.mu - 3 * a.sigma > b.mu + 3 * b.sigma, a.sigma, a.mu - b.mu


def separation_rows(gaps=(0.5, 1, 2, 3, 4, 5), matches=(120, 280), runs=40, seed=0):
    env = environment()
    for n in matches:
        for gap in gaps:
            rng = random.Random(f"{seed}/{n}/{gap}")
            results = [_run(env, gap, n, rng) for _ in range(runs)]
            yield {"case": f"rating_separation/{n}/{gap}", "true_gap": gap,
                   "p_above": round(0.5 * (1 + erf(gap / (2 * env.beta))), 3),
                   "separated": round(sum(r[0] for r in results) / runs, 3),
                   "sigma": round(statistics.mean(r[1] for r in results), 3),
                   "mu_gap": round(statistics.mean(r[2] for r in results), 3), "runs": runs}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", default="120,280", help="line-up matches per run, comma-separated")
    ap.add_argument("--gaps", default="0.5,1,2,3,4,5", help="true skill gaps, comma-separated")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        matches = [int(x) for x in args.matches.split(",")]
        gaps = [float(x) for x in args.gaps.split(",")]
    except ValueError:
        sys.exit("error: --matches takes whole numbers and --gaps numbers, comma-separated")
    if args.runs < 1 or min(matches) < 1 or min(gaps) < 0:
        sys.exit("error: --runs and --matches must be at least 1, --gaps at least 0")
    for r in separation_rows(gaps, matches, args.runs, args.seed):
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
