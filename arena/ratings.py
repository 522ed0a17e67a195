"""TrueSkill ratings and leaderboard rows, recomputed from stored matches in match-id order.

How matches are rated (quoted in the README):

* One TrueSkill player per agent label, per game and rule variant (mu 25, sigma 25/3, the trueskill
  package's defaults). Ratings are replayed over the stored matches in match-id order, so a parallel,
  distributed or resumed run gives exactly the leaderboard of a serial one.
* Each match is a free-for-all between the agents at the table. An agent holding several seats
  (fewer agents than seats) is ranked by the mean of its seats' placements; agents with equal means
  tie. A win is first place alone, a draw is a shared first place, anything else a loss.
* A faulty agent's seats are all placed last (see arena.runner), so a fault costs rating like a loss.
* `conservative` is mu - 3 sigma; leaderboards are sorted by it.
* In card games (and every game: each deal is replayed in every seat rotation), `duplicate_score`
  compares each agent with its table on the same deals, so the luck of the deal cancels out
  (see `duplicate_scores`); the leaderboard shows it for card games.
* Game metrics recorded per seat (for example Wizard's `bid_accuracy`) are averaged per agent over
  its seats and matches and shown beside the ratings.

`leaderboard(matches)` is the stable entry point for other reports: it takes the match dicts of
`Store.matches(run_id)` and returns one row per (game, parameters, agent).
"""
import json
from collections import OrderedDict, defaultdict

import trueskill


def group_key(match):
    """(game_id, canonical JSON of its parameters): one leaderboard per key."""
    return match["game_id"], json.dumps(match["game_params"], sort_keys=True)


def groups(matches):
    """[(game_id, game_params, matches)] per game and parameter set, in order of first appearance."""
    out = {}
    for m in matches:
        out.setdefault(group_key(m), (m["game_id"], m["game_params"], []))[2].append(m)
    return list(out.values())


def agent_ranks(match):
    """[(label, rank)] for the agents of a match, in first-seat order; rank 1 = best, ties share."""
    seats = defaultdict(list)
    for seat, placement in zip(match["seats"], match["placements"]):
        seats[seat["label"]].append(placement)
    mean = OrderedDict((label, sum(p) / len(p)) for label, p in seats.items())
    return [(label, 1 + sum(1 for other in mean.values() if other < m)) for label, m in mean.items()]


def environment():
    """The TrueSkill environment every leaderboard uses (the package's defaults, draws 10%)."""
    return trueskill.TrueSkill(draw_probability=0.10)


def replay(matches):
    """Rates one group's matches in the order given: yields (match, agent_ranks(match), ratings),
    ratings being {label: trueskill.Rating} after that match (one dict, updated as the replay goes)."""
    env = environment()
    current = {}
    for m in matches:
        ranked = agent_ranks(m)
        for label, _ in ranked:
            current.setdefault(label, env.create_rating())
        if len(ranked) > 1:
            new = env.rate([(current[label],) for label, _ in ranked], ranks=[r for _, r in ranked])
            for (label, _), (rating,) in zip(ranked, new):
                current[label] = rating
        yield m, ranked, current


def seat_metrics(match):
    """(seat, name, value) for every number a match's metrics give per seat."""
    seats = len(match["seats"])
    for name, values in (match.get("metrics") or {}).items():
        if isinstance(values, list) and len(values) == seats:
            for seat, v in enumerate(values):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    yield seat, name, v


def leaderboard(matches):
    """Leaderboard rows for stored matches, grouped by (game_id, params), best first in each group.

    Each row: game_id, params (dict), rank, label, mu, sigma, conservative (mu - 3 sigma), games,
    wins, draws, losses, faults (matches this agent lost to its own fault), mean_placement,
    mean_return, metrics ({name: mean per seat}), duplicate_score (see `duplicate_scores`; None
    without a complete, fault-free duplicate group).
    """
    rows = []
    for game_id, params, group in groups(sorted(matches, key=lambda m: (m.get("run_id", ""), m["match_id"]))):
        rows += _group_rows(game_id, params, group)
    return rows


def _group_rows(game_id, params, matches):
    ratings = {}
    stats = defaultdict(lambda: {"games": 0, "wins": 0, "draws": 0, "losses": 0, "faults": 0,
                                 "placements": [], "returns": [], "metrics": defaultdict(list)})
    for m, ranked, ratings in replay(matches):
        firsts = sum(1 for _, r in ranked if r == 1)
        faulty = {f["label"] for f in m["faults"]}
        for label, r in ranked:
            s = stats[label]
            s["games"] += 1
            if r == 1 and firsts == 1:
                s["wins"] += 1
            elif r == 1:
                s["draws"] += 1
            else:
                s["losses"] += 1
            s["faults"] += label in faulty
        for agent, placement, ret in zip(m["seats"], m["placements"], m["returns"]):
            stats[agent["label"]]["placements"].append(placement)
            stats[agent["label"]]["returns"].append(ret)
        for seat, name, v in seat_metrics(m):
            stats[m["seats"][seat]["label"]]["metrics"][name].append(v)
    duplicate = duplicate_scores(matches)
    order = sorted(ratings, key=lambda label: (-(ratings[label].mu - 3 * ratings[label].sigma), label))
    rows = []
    for rank, label in enumerate(order, 1):
        r, s = ratings[label], stats[label]
        rows.append({
            "game_id": game_id, "params": params, "rank": rank, "label": label,
            "mu": r.mu, "sigma": r.sigma, "conservative": r.mu - 3 * r.sigma,
            "games": s["games"], "wins": s["wins"], "draws": s["draws"], "losses": s["losses"],
            "faults": s["faults"],
            "mean_placement": sum(s["placements"]) / len(s["placements"]),
            "mean_return": sum(s["returns"]) / len(s["returns"]),
            "metrics": {k: sum(v) / len(v) for k, v in sorted(s["metrics"].items()) if v},
            "duplicate_score": duplicate.get(label),
        })
    return rows


def _rotation_count(labels):
    return len({tuple(labels[r:] + labels[:r]) for r in range(len(labels))})


def duplicate_scores(matches):
    """{label: duplicate score}: how much more an agent scores than its table on the same deals.

    Matches that share a deal (seed) and a line-up form a duplicate group, one match per seat
    rotation. In each complete group without faults, an agent's score is the mean of its seats'
    returns over the group minus the mean of every seat's returns; the luck of the deal (and of
    the seat) cancels out. An agent's duplicate score is the mean over its groups (None without any).
    """
    groups = defaultdict(list)
    for m in matches:
        labels = [seat["label"] for seat in m["seats"]]
        groups[(m.get("seed"), m.get("deal"), tuple(sorted(labels)))].append(m)
    per_agent = defaultdict(list)
    for group in groups.values():
        labels = [seat["label"] for seat in group[0]["seats"]]
        seatings = {tuple(seat["label"] for seat in m["seats"]) for m in group}
        if len(seatings) != _rotation_count(labels) or any(m["faults"] for m in group):
            continue
        sums, counts, total, n = defaultdict(float), defaultdict(int), 0.0, 0
        for m in group:
            for seat, ret in zip(m["seats"], m["returns"]):
                sums[seat["label"]] += ret
                counts[seat["label"]] += 1
                total += ret
                n += 1
        for label in sums:
            per_agent[label].append(sums[label] / counts[label] - total / n)
    return {label: sum(v) / len(v) for label, v in per_agent.items()}


def faults(matches):
    """Every recorded fault: [{match_id, game_id, seat, label, kind, message, move}] in match order."""
    out = []
    for m in sorted(matches, key=lambda m: m["match_id"]):
        for f in m["faults"]:
            out.append({"match_id": m["match_id"], "game_id": m["game_id"], **f})
    return out
