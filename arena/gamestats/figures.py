"""What the games themselves are like (`arena analyze`): seat advantage, length and tempo, drama, how
much skill matters and the balance of the components (arena.gamestats.balance), from the stored
matches of a run, each figure with a 95% interval.

    from arena import edge
    from arena.gamestats import figures, variants
    from arena.store import Store
    store = Store("results/analyze.sqlite")
    runs = variants.play_variants(store, edge.game_variants("wizard", ["hands=2", "plus_minus_one=true,false"]),
                                  edge.self_play("greedy,random"), deals=20, jobs=1)
    result = figures.analyze_runs(store, runs)          # plain JSON-able data

The games are played by arena.gamestats.variants, the stored matches replayed by
arena.gamestats.replay, and the HTML page made by arena.gamestats.page.

The unit of observation is the deal, as in arena.results.standings: a figure is measured on every match, the
matches of one deal (its seat rotations and line-ups) are averaged into one observation, and the
interval is over deals; "games" counts the matches behind it. Matches ended by a fault are left out
(their result is the fault's, not the game's) and counted. Per-ply figures (leads, rounds, legal
moves) come from replaying the stored actions on `engines.make(game_id, seed=stored seed, **params)`.

Decisions the figures rest on, shown with every result (`NOTES`):
- Seat roles: seat number, the seat that makes the game's first decision, and the last to move: the
  seat whose first decision comes last (the second player; in Wizard the dealer, who bids last).
  The contract has no dealer, so there is no dealer row of its own.
- Win share: 1 for first place alone, 1/k for first place shared by k seats (so the seats' shares
  add up to 1); score share: the seat's pairwise score against every other seat (1 above, 1/2 level).
  A seat advantage is significant when the seat's 95% interval excludes the fair share 1/players.
- The lead is read from `scores()` (points so far) after every ply: the leader is the seat alone at
  the top. The eventual winner (first place alone; none in a draw) "leads for good" from the first
  position after which it is always alone at the top, the final position counting as led by it;
  the figure is that position as a share of the game's plies (1.0: only the last move settled it).
  Games whose scores move only at the end (Insert, Belladone Bluff) give 1.0 by construction.
- Lead changes: the number of times the seat alone at the top differs from the previous one
  (positions with a shared top are skipped). Decided in the last round: the winner leads for good
  only after the last round's first decision; games of one round give no value.
- Draw: first place shared. Tie: the top final score shared, whether or not a tie-break then
  separated the seats.
- Branching: legal moves per decision, averaged per game; phases are the thirds of a game's plies
  (opening, middle, end). Forced: decisions with one legal move.
- Skill: agents are compared in the order they are listed (list the strong one first): the score
  gap is the mean return of the first agent's seats minus the second's in the matches where both
  sit; the score share is the first's pairwise score against the second's seats.
- Variants: several values of a --param (`name=a,b`, or the parameter repeated) play one run per
  combination; every figure is compared with the first variant's (Welch t interval of the
  difference of the means over deals).
- Deals are a keyed hash of the seed: with only built-in agents the key derives from --seed, so the
  same command gives the same games in any store; with a submitted agent the key is a new secret.
"""
import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena.gamestats import balance, components
from arena.gamestats.replay import Trace, bids_made, trace
from arena.results.intervals import Interval, interval, t975, t_interval
from arena.results.standings import pair_score
from arena.text import game_title

if TYPE_CHECKING:
    from arena.store import Store

PHASES = ("opening", "middle", "end")
TOP_BID_ROW = 5    # Wizard bids of 5 and more share one row
BID_VALUE_TITLE = "bids met by the bid, and rounds missed over and under it (share of rounds, 95%)"

NOTES = [
    "Intervals are 95% and over deals (the matches of one deal, its seat rotations, are one observation); "
    "'games' counts the matches behind a figure. Matches ended by a fault are left out.",
    "Win share: 1 for first place alone, 1/k for a k-way shared first place; score share: pairwise score "
    "against the other seats (1 above, 1/2 level). A seat advantage is significant when its interval "
    "excludes the fair share 1/players. Roles: the first to move, and the last to move (the seat whose first decision comes last: the "
    "second player; in Wizard the dealer, who bids last).",
    "The lead is read from scores() after every ply (the seat alone at the top). 'Winner leads for good' is "
    "the share of the game played before the eventual winner is alone at the top for good (1.0: settled by "
    "the last move; games that score only at the end always give 1.0).",
    "Draw: first place shared; tie: the top final score shared (before any tie-break). Branching phases are "
    "the thirds of a game's plies.",
    "Variants: each figure against the first variant's (Welch 95% interval of the difference); with dozens of "
    "figures compared, about one in twenty looks significant by chance.",
    "Skill: agents in the order listed, the first against each other: score gap (mean return of the first "
    "minus the other's, same matches) and pairwise score share.",
]


# ---- per-match figures --------------------------------------------------------------------------

def _leader(scores):
    top = max(scores)
    at_top = [s for s, v in enumerate(scores) if v == top]
    return at_top[0] if len(at_top) == 1 else None


def drama(match: dict[str, Any], tr: Trace) -> tuple[float | None, int, bool | None]:
    """(leads for good as a share of the plies or None, lead changes, decided in the last round or None)."""
    places = match["placements"]
    firsts = [s for s, p in enumerate(places) if p == 1]
    winner = firsts[0] if len(firsts) == 1 else None
    leaders = [_leader(sc) for sc in tr.scores]
    if tr.plies:
        leaders[-1] = winner   # the final position is led by the winner (tie-breaks included)
    changes, last = 0, None
    for who in leaders:
        if who is None:
            continue
        if last is not None and who != last:
            changes += 1
        last = who
    if winner is None or tr.plies == 0:
        return None, changes, None
    settled = tr.plies
    while settled > 0 and leaders[settled - 1] == winner:
        settled -= 1
    last_round = None
    if tr.rounds and tr.rounds[-1] != tr.rounds[0]:
        start = tr.rounds.index(tr.rounds[-1])   # positions before the last round's first decision
        last_round = settled > start
    return settled / tr.plies, changes, last_round


def match_figures(match: dict[str, Any], tr: Trace | None = None) -> dict[tuple, float]:
    """{figure key: value} for one match. Keys are tuples: ("seat", s, name), ("role", role, name),
    ("length", name), ("branching", phase), ("drama", name), ("skill", a, b, name),
    ("metric", name, s). Without a trace, only the figures of the result (seat, skill, draws)."""
    places, returns = match["placements"], match["returns"]
    n = len(places)
    firsts = [s for s in range(n) if places[s] == 1]
    win = [1.0 / len(firsts) if s in firsts else 0.0 for s in range(n)]
    share = balance.score_shares(places)
    out: dict[tuple, float] = {}
    for s in range(n):
        out["seat", s, "win_share"] = win[s]
        out["seat", s, "score_share"] = share[s]
        out["seat", s, "mean_return"] = float(returns[s])
    top = max(returns)
    out["drama", "draw_rate"] = float(len(firsts) > 1)
    out["drama", "tie_rate"] = float(sum(1 for r in returns if r == top) > 1)
    labels = [seat["label"] for seat in match["seats"]]
    for a, b in itertools.permutations(sorted(set(labels)), 2):
        sa = [s for s in range(n) if labels[s] == a]
        sb = [s for s in range(n) if labels[s] == b]
        out["skill", a, b, "score_gap"] = (sum(returns[s] for s in sa) / len(sa)
                                           - sum(returns[s] for s in sb) / len(sb))
        out["skill", a, b, "score_share"] = sum(pair_score(places[i], places[j]) for i in sa for j in sb) / (len(sa) * len(sb))
    for name, values in (match.get("metrics") or {}).items():
        if isinstance(values, list) and len(values) == n:
            numbers = [(s, float(v)) for s, v in enumerate(values)
                       if isinstance(v, (int, float)) and not isinstance(v, bool)]
            for s, v in numbers:
                out["metric", name, s] = v
            if numbers:
                out["metric", name, "all"] = sum(v for _, v in numbers) / len(numbers)
    if tr is None:
        return out
    if tr.plies:
        # Roles fixed by the rules, not by the play: the seat to move first, and the seat whose first
        # decision comes last (the second player; in Wizard the dealer, who bids last).
        order = list(dict.fromkeys(tr.players))
        for role, seat in (("first_mover", order[0]), ("last_mover", order[-1])):
            out["role", role, "win_share"] = win[seat]
            out["role", role, "score_share"] = share[seat]
    if tr.hand_sizes:
        per = defaultdict(list)
        for cards, met in bids_made(tr):
            for s in range(n):
                per[labels[s], cards].append(float(met[s]))
        for (label, cards), values in per.items():
            out["bids", label, cards] = sum(values) / len(values)
    if tr.bid_outcomes:
        by_bid, misses = defaultdict(list), defaultdict(list)
        for bids, tricks in tr.bid_outcomes:
            for s in range(n):
                by_bid[labels[s], min(bids[s], TOP_BID_ROW)].append(float(tricks[s] == bids[s]))
                misses[labels[s]].append(tricks[s] - bids[s])
        for (label, bid), values in by_bid.items():
            out["bid_value", label, bid] = sum(values) / len(values)
        out["bid_total", "equals_tricks"] = (sum(sum(bids) == sum(tricks) for bids, tricks in tr.bid_outcomes)
                                             / len(tr.bid_outcomes))
        for label, offs in misses.items():
            out["bid_miss", label, "over"] = sum(1 for x in offs if x > 0) / len(offs)
            out["bid_miss", label, "under"] = sum(1 for x in offs if x < 0) / len(offs)
    out["length", "plies"] = float(tr.plies)
    out["length", "rounds"] = float(tr.rounds[-1] + 1 if tr.rounds else 0)
    out["length", "decisions_per_player"] = tr.plies / n
    if tr.plies:
        out["branching", "all"] = sum(tr.legal) / tr.plies
        out["branching", "forced_share"] = sum(1 for k in tr.legal if k == 1) / tr.plies
        by_phase = defaultdict(list)
        for i, k in enumerate(tr.legal):
            by_phase[PHASES[min(2, 3 * i // tr.plies)]].append(k)
        for phase, ks in by_phase.items():
            out["branching", phase] = sum(ks) / len(ks)
    lead, changes, last_round = drama(match, tr)
    if lead is not None:
        out["drama", "winner_leads_for_good"] = lead
    out["drama", "lead_changes"] = float(changes)
    if last_round is not None:
        out["drama", "decided_last_round"] = float(last_round)
    return out


# ---- aggregation --------------------------------------------------------------------------------

BOUNDED = {"win_share", "score_share", "forced_share", "winner_leads_for_good", "decided_last_round",
           "draw_rate", "tie_rate"}


def _bounded(key):
    return key[-1] in BOUNDED or (key[0] == "skill" and key[-1] == "score_share") or \
        key[0] in ("bids", "bid_value", "bid_miss", "bid_total")


def per_deal(matches: list[dict[str, Any]], traces: dict[int, Trace] | None = None
             ) -> dict[tuple, tuple[list[float], int]]:
    """{figure key: (per-deal means, games)} over the matches (traces: {match_id: Trace})."""
    acc: defaultdict[tuple, defaultdict[tuple, list[float]]] = defaultdict(lambda: defaultdict(list))
    for m in matches:
        tr = traces.get(m["match_id"]) if traces is not None else None
        for key, v in match_figures(m, tr).items():
            acc[key][m["deal"], m["seed"]].append(v)
    return {key: ([sum(v) / len(v) for v in deals.values()], sum(len(v) for v in deals.values()))
            for key, deals in acc.items()}


def figure_interval(key: tuple, values: list[float], games: int) -> Interval | None:
    return interval(values, games) if _bounded(key) else t_interval(values, games)


def difference(a: list[float], b: list[float]) -> dict[str, Any]:
    """{"mean", "low", "high", "significant"}: mean of b minus mean of a, Welch t 95% interval (None
    bounds with fewer than two deals on a side)."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    out: dict[str, Any] = {"mean": mb - ma, "low": None, "high": None, "significant": False}
    if len(a) >= 2 and len(b) >= 2:
        va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
        vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
        half = t975(min(len(a), len(b)) - 1) * math.sqrt(va / len(a) + vb / len(b))
        out.update(low=mb - ma - half, high=mb - ma + half)
        out["significant"] = half < abs(mb - ma)
    return out


def _iv(figs, key):
    if key not in figs:
        return None
    values, games = figs[key]
    iv = figure_interval(key, values, games)
    return iv.as_dict() if iv else None


def summarize(matches: list[dict[str, Any]], traces: dict[int, Trace] | None = None,
              agent_order: list[str] | None = None, run_id: str | None = None) -> dict[str, Any]:
    """Every figure of one group (one game with one set of parameters) as plain data. `traces`
    ({match_id: Trace}) defaults to replaying every match; `agent_order` (labels) to their order of
    first appearance."""
    played = [m for m in matches if not m["faults"]]
    if traces is None:
        traces = {m["match_id"]: trace(m) for m in played}
    game_id, params = (matches[0]["game_id"], matches[0]["game_params"]) if matches else ("", {})
    n = params.get("players") or (len(matches[0]["placements"]) if matches else 0)
    figs = per_deal(played, traces)
    labels = []
    for m in played:
        for s in m["seats"]:
            if s["label"] not in labels:
                labels.append(s["label"])
    order = [a for a in (agent_order or []) if a in labels] + [a for a in labels if a not in (agent_order or [])]
    fair = 1.0 / n if n else None

    def verdict(iv):
        if iv is None or fair is None:
            return ""
        return "above" if iv["low"] > fair else "below" if iv["high"] < fair else ""

    seats = []
    for s in range(n):
        row = {"seat": s, **{k: _iv(figs, ("seat", s, k)) for k in ("win_share", "score_share", "mean_return")}}
        row["advantage"] = verdict(row["win_share"])
        seats.append(row)
    roles = {}
    for role in ("first_mover", "last_mover"):
        row = {k: _iv(figs, ("role", role, k)) for k in ("win_share", "score_share")}
        row["advantage"] = verdict(row["win_share"])
        roles[role] = row
    branching_hist: defaultdict[int, int] = defaultdict(int)
    for tr in traces.values():
        for k in tr.legal:
            branching_hist[k] += 1
    skill = []
    for a, b in itertools.combinations(order, 2):
        if ("skill", a, b, "score_gap") in figs:
            skill.append({"first": a, "second": b, "score_gap": _iv(figs, ("skill", a, b, "score_gap")),
                          "score_share": _iv(figs, ("skill", a, b, "score_share"))})
    metrics = defaultdict(list)
    for key in sorted((k for k in figs if k[0] == "metric"), key=lambda k: (k[1], str(k[2]))):
        metrics[key[1]].append({"seat": key[2], **_iv(figs, key)})
    bids: defaultdict[str, dict] = defaultdict(dict)
    by_bid: defaultdict[str, dict] = defaultdict(dict)
    misses: defaultdict[str, dict] = defaultdict(dict)
    for kind, per in (("bids", bids), ("bid_value", by_bid), ("bid_miss", misses)):
        for key in sorted((k for k in figs if k[0] == kind), key=lambda k: (k[1], k[2])):
            per[key[1]][key[2]] = _iv(figs, key)
    deals = {(m["deal"], m["seed"]) for m in played}
    return {
        "run_id": run_id,
        "game_id": game_id,
        "game_params": params,
        "title": game_title(game_id, params),
        "agents": order,
        "matches": len(played),
        "deals": len(deals),
        "faulted_matches": len(matches) - len(played),
        "players": n,
        "seat": {"fair_share": fair, "seats": seats, "roles": roles,
                 "significant": any(r["advantage"] for r in seats) or any(r["advantage"] for r in roles.values())},
        "length": {k: _iv(figs, ("length", k)) for k in ("plies", "rounds", "decisions_per_player")},
        "branching": {"mean": _iv(figs, ("branching", "all")),
                      "by_phase": {p: _iv(figs, ("branching", p)) for p in PHASES},
                      "forced_share": _iv(figs, ("branching", "forced_share")),
                      "distribution": _distribution(branching_hist)},
        "drama": {k: _iv(figs, ("drama", k)) for k in ("winner_leads_for_good", "lead_changes",
                                                         "decided_last_round", "draw_rate", "tie_rate")},
        "scores_only_at_end": _scores_only_at_end(traces),
        "skill": skill,
        "metrics": dict(metrics),
        "bid_accuracy_by_hand": {a: bids[a] for a in order if a in bids},
        "bid_accuracy_by_bid": {a: by_bid[a] for a in order if a in by_bid},
        "bid_misses": {a: misses[a] for a in order if a in misses},
        "components": {**balance.section(played, {mid: tr.components for mid, tr in traces.items()
                                                  if tr.components is not None},
                                         components.expected(game_id, params)),
                       "bid_total_equals_tricks": _iv(figs, ("bid_total", "equals_tricks"))},
        "_figures": figs,
    }


def _scores_only_at_end(traces):
    """True when no replayed game's scores moved before its last ply."""
    return bool(traces) and all(all(sc == tr.scores[0] for sc in tr.scores[:-1]) for tr in traces.values())


def _distribution(hist):
    """Legal moves per decision over every decision: counts, quantiles, maximum."""
    total = sum(hist.values())
    if not total:
        return {"decisions": 0, "counts": {}, "median": None, "p10": None, "p90": None, "max": None}

    def quantile(q):
        seen = 0
        for k in sorted(hist):
            seen += hist[k]
            if seen >= q * total:
                return k
        return max(hist)
    return {"decisions": total, "counts": {str(k): hist[k] for k in sorted(hist)}, "median": quantile(0.5),
            "p10": quantile(0.1), "p90": quantile(0.9), "max": max(hist)}


FIGURE_NAMES = {
    "win_share": "win share", "score_share": "score share", "mean_return": "mean return",
    "plies": "plies", "rounds": "rounds", "decisions_per_player": "decisions per player",
    "all": "legal moves per decision", "forced_share": "forced decisions",
    "winner_leads_for_good": "winner leads for good from", "lead_changes": "lead changes",
    "decided_last_round": "decided in the last round", "draw_rate": "draws", "tie_rate": "ties at the top",
    "score_gap": "score gap", "equals_tricks": "rounds whose bids add up to the tricks",
}


def figure_name(key: tuple) -> str:
    """A figure key as text: ("seat", 0, "win_share") -> "seat 0 win share"."""
    kind, *rest = key
    last = FIGURE_NAMES.get(rest[-1], str(rest[-1]).replace("_", " "))
    if kind == "seat":
        return f"seat {rest[0]} {last}"
    if kind == "role":
        return f"{rest[0].replace('_', ' ')} {last}"
    if kind == "branching" and rest[0] in PHASES:
        return f"legal moves ({rest[0]})"
    if kind == "skill":
        return f"{last}, {rest[0]} vs {rest[1]}"
    if kind == "metric":
        return f"{rest[0].replace('_', ' ')}, " + ("all seats" if rest[1] == "all" else f"seat {rest[1]}")
    if kind == "bids":
        return f"bid accuracy with {rest[1]} cards, {rest[0]}"
    if kind == "bid_value":
        return f"bids of {_bid_name(rest[1])} met, {rest[0]}"
    if kind == "bid_total":
        return last
    if kind == "bid_miss":
        return f"rounds {rest[1]} the bid, {rest[0]}"
    return last


def differences(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For every group after the first of its game: each figure against the first group's."""
    out: list[dict[str, Any]] = []
    first: dict[str, dict[str, Any]] = {}
    for g in groups:
        base = first.setdefault(g["game_id"], g)
        if base is g:
            continue
        rows = []
        for key in sorted(set(base["_figures"]) & set(g["_figures"]), key=str):
            a, b = base["_figures"][key][0], g["_figures"][key][0]
            rows.append({"figure": figure_name(key), "key": [str(k) for k in key],
                         "base": sum(a) / len(a), "variant": sum(b) / len(b), "deals": [len(a), len(b)],
                         **difference(a, b)})
        changed = sorted(k for k in set(base["game_params"]) | set(g["game_params"])
                         if base["game_params"].get(k) != g["game_params"].get(k))
        out.append({"game_id": g["game_id"], "base": game_title(g["game_id"], {k: base["game_params"].get(k) for k in changed}),
                    "variant": game_title(g["game_id"], {k: g["game_params"].get(k) for k in changed}),
                    "base_run": base["run_id"], "variant_run": g["run_id"], "figures": rows})
    return out


def public(group: dict[str, Any]) -> dict[str, Any]:
    """The group's figures without the raw per-deal values."""
    return {k: v for k, v in group.items() if not k.startswith("_")}


def analyze_runs(store: "Store", run_ids: Sequence[str], game_id: str | None = None) -> dict[str, Any]:
    """The analysis of the stored runs: {"runs", "notes", "groups", "differences"} as plain data.
    Every game and parameter set of every run is one group; `game_id` keeps only that game."""
    from arena.results.standings import groups as split
    out = []
    for run_id in run_ids:
        run = store.run(run_id)
        order = list(run.labels)
        matches = store.matches(run.run_id, game_id)
        for _, _, ms in split(matches):
            out.append(summarize(ms, agent_order=order, run_id=run.run_id))
    if not out:
        raise ValueError(f"no finished match{' of ' + game_id if game_id else ''} in run "
                         f"{', '.join(run_ids)}: nothing to analyze")
    return {"runs": list(run_ids), "notes": NOTES + balance.NOTES, "groups": [public(g) for g in out],
            "differences": differences(out), "_groups": out}


def fmt(iv: dict | None, pct: bool = False) -> str:
    """An interval as text: "0.52 [0.47, 0.57]" (or percentages)."""
    if iv is None:
        return "-"
    if iv["low"] is None:
        return (f"{iv['mean']:.1%}" if pct else f"{iv['mean']:.2f}") + " [one deal: no interval]"
    if pct:
        return f"{iv['mean']:.1%} [{iv['low']:.1%}, {iv['high']:.1%}]"
    return f"{iv['mean']:.2f} [{iv['low']:.2f}, {iv['high']:.2f}]"


def bid_rows(group: dict[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    """The Wizard bid accuracy table of a group: (header, rows), a row per hand size and a column per
    agent, each cell `fmt(iv, True)`; None when the group has no Wizard bids."""
    bids = group.get("bid_accuracy_by_hand") or {}
    if not bids:
        return None
    sizes = sorted({h for per in bids.values() for h in per})
    return (["cards", *bids], [[str(h), *(fmt(per.get(h), True) for per in bids.values())] for h in sizes])


def _bid_name(bid):
    return f"{bid}+" if bid >= TOP_BID_ROW else str(bid)


def bid_value_rows(group: dict[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    """The Wizard table of bids met by the bid (TOP_BID_ROW and more in one row), then the shares of
    rounds over and under the bid: (header, rows), a column per agent; None without Wizard bids."""
    by_bid, misses = group.get("bid_accuracy_by_bid") or {}, group.get("bid_misses") or {}
    if not by_bid:
        return None
    values = sorted({b for per in by_bid.values() for b in per})
    rows = [[f"bid {_bid_name(b)} met", *(fmt(per.get(b), True) for per in by_bid.values())] for b in values]
    rows += [[f"{side}: {'more' if side == 'over' else 'fewer'} tricks than the bid",
              *(fmt(misses.get(a, {}).get(side), True) for a in by_bid)] for side in ("over", "under")]
    return ["", *by_bid], rows


