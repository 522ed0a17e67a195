"""Component balance (the "components" section of `arena analyze`): for each card, tile, animal or
rule of a game, how much better the seat that plays it (or holds it at the end) does than the same
seat on the same deal when it does not.

    from arena.gamestats import balance
    records = [balance.Record(match_id, deal, shares, [set of Component per seat]), ...]
    table = balance.effects(records, expected=[...])      # one row per component, Holm-flagged

The outcome is the seat's **score share**: its pairwise score against every other seat of the match
(1 for placing above it, 1/2 level, 0 below, averaged over the others), as the seat advantage of
`arena analyze` uses. It is read from the placements, so it is the same scale in every game (points
differ wildly: Wizard scores hundreds, Insert only wins and losses, Belladone Bluff goes negative,
which rules out a share of the match's points), ties count half, and a fair seat scores 1/2.

Pairing (duplicate deals). The arena plays each deal once in every seat rotation, so one seat sees
the same cards in several matches, played by different agents (or by the same agent drawing other
random numbers). For a component and a deal, every seat that has it in some of those matches and
not in others gives one paired difference: its mean share with the component minus its mean share
without. A deal's value is the mean of its seats' differences; the estimate is the mean over deals,
with a Student t 95% interval over deals. When no deal pairs a seat with and without the component
(a run that is not duplicate, or a component fixed by the deal, such as Insert's first player), the
figure falls back to an **unpaired** difference within each deal: the mean share of the seats with
the component minus that of the seats without, again over deals; such rows say `paired: false`.

Flags. A component is "over" or "under" powered when its effect lies beyond a margin of 0.05 score
share (`MARGIN`: one placement in twenty comparisons) with 95% confidence after Holm's correction
over every component of the group: the p-value is the t test of |effect| <= MARGIN (it is below
5% exactly when the 95% interval lies wholly beyond the margin), Holm-adjusted. Holm controls the
family-wise error: the chance that even one flag in a game is false stays at 5%. Each flag sends a
designer to rework a card and test again, so a flag must be trustworthy one by one, and a family of
a few dozen components costs Holm little power; Benjamini-Hochberg (a share of false flags) suits
screening hundreds of hypotheses, not this.

The effects are observational: agents choose when to play a card, so "played" measures the card
as these agents use it (playing it when it helps), not what forcing it into a hand would do.
"""
import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena.results.intervals import t_interval
from arena.results.standings import pair_score

MARGIN = 0.05   # score share beyond which an effect matters to a designer
ALPHA = 0.05    # family-wise error of the flags (Holm)

NOTES = [
    "Components: the effect is on the score share (pairwise placement against the other seats: 1 above, "
    "1/2 level) of the seat that plays (or holds at the end) the component, minus the same seat on the same "
    "deal in the seat rotations where it does not (paired); a mean over deals with a Student t 95% interval "
    "over deals. Rows marked unpaired compare the seats with and without it within each deal (the component "
    "never varied for one seat on one deal, e.g. a property of the deal).",
    f"Flags: over/under powered when the effect lies beyond +/-{MARGIN} score share with 95% confidence after "
    "Holm's correction over every component of the game (family-wise error 5%). Effects are observational: "
    "agents choose when to play a card.",
]


class Component(NamedTuple):
    """One thing a seat can play or hold: ("Belle", "Earl Grey, Hot", "played")."""
    family: str
    item: str
    how: str


@dataclass
class Record:
    """One match as the balance sees it: its deal (any hashable: the matches of a deal share it),
    each seat's score share, and each seat's components."""
    match_id: int
    deal: Hashable
    shares: list[float]
    components: list[set[Component]]


def score_shares(placements: Sequence[float]) -> list[float]:
    """Each seat's pairwise score against the other seats from the placements (1 = first)."""
    n = len(placements)
    return [sum(pair_score(placements[s], placements[o]) for o in range(n) if o != s) / max(n - 1, 1)
            for s in range(n)]


def _mean(xs):
    return sum(xs) / len(xs)


@dataclass
class _Cell:
    """The score shares of seats with and without a component, and the matches behind them."""
    with_: list[float] = field(default_factory=list)
    without: list[float] = field(default_factory=list)
    ids: set[int] = field(default_factory=set)

    def compares(self) -> bool:
        return bool(self.with_ and self.without)

    def difference(self) -> float:
        return _mean(self.with_) - _mean(self.without)


def effect(records: Iterable[Record], component: Component) -> dict[str, Any]:
    """The effect of one component: {"mean", "low", "high", "deals", "games", "paired", "seat_games",
    "p"} (low/high None below two deals; mean None when no deal compares; p: `margin_p`).
    `seat_games`: the seat-matches that have the component."""
    cells: dict[tuple, _Cell] = defaultdict(_Cell)     # (deal, seat) -> its shares
    seat_games = 0
    for r in records:
        for s, share in enumerate(r.shares):
            has = component in r.components[s]
            seat_games += has
            cell = cells[r.deal, s]
            (cell.with_ if has else cell.without).append(share)
            cell.ids.add(r.match_id)
    paired: dict[Hashable, list[float]] = defaultdict(list)
    paired_games: set[int] = set()
    for (deal, _), cell in cells.items():
        if cell.compares():
            paired[deal].append(cell.difference())
            paired_games |= cell.ids
    if paired:
        values, games, is_paired = [_mean(v) for v in paired.values()], len(paired_games), True
    else:   # no seat varied on a deal: the seats with it against those without, within each deal
        per_deal: dict[Hashable, _Cell] = defaultdict(_Cell)
        for (deal, _), cell in cells.items():
            merged = per_deal[deal]
            merged.with_ += cell.with_
            merged.without += cell.without
            merged.ids |= cell.ids
        both = [c for c in per_deal.values() if c.compares()]
        values, is_paired = [c.difference() for c in both], False
        games = len(set().union(*(c.ids for c in both)))
    out: dict[str, Any] = {"mean": None, "low": None, "high": None, "deals": len(values), "games": games,
                           "paired": is_paired, "seat_games": seat_games}
    iv = t_interval(values, games)
    if iv is not None:   # a difference of shares lies in [-1, 1]
        out.update(mean=iv.mean, low=None if iv.low is None else max(-1.0, iv.low),
                   high=None if iv.high is None else min(1.0, iv.high))
    out["p"] = margin_p(values)
    return out


def margin_p(values: Sequence[float], margin: float = MARGIN) -> float | None:
    """Two-sided p-value of the t test that the mean of `values` lies within [-margin, margin]: below
    alpha exactly when the (1 - alpha) t interval lies wholly outside it. None below two values;
    values with no spread give 0 beyond the margin and 1 within it."""
    n = len(values)
    if n < 2:
        return None
    m = _mean(values)
    sd = math.sqrt(sum((x - m) ** 2 for x in values) / (n - 1))
    if sd == 0:
        return 0.0 if abs(m) > margin else 1.0
    from scipy.stats import t
    se = sd / math.sqrt(n)
    one_sided = min(float(t.sf((m - margin) / se, n - 1)), float(t.cdf((m + margin) / se, n - 1)))
    return min(1.0, 2 * one_sided)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (None stays None and does not count in the family): the
    i-th smallest of k is multiplied by k - i + 1, then made non-decreasing, capped at 1."""
    ranked = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    k = len(ranked)
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(ranked):
        running = max(running, min(1.0, (k - rank) * p))
        out[i] = running
    return out


def effects(records: Sequence[Record], expected: Iterable[Component] = ()) -> list[dict[str, Any]]:
    """One row per component (every `expected` one, and every one a record has): the component, its
    `effect`, the Holm-adjusted p-value and the flag ("over", "under" or ""); by family and kind,
    then from the largest effect down (no estimate last)."""
    seen = set(expected) | {c for r in records for comps in r.components for c in comps}
    rows = [{"family": c.family, "item": c.item, "how": c.how, **effect(records, c)} for c in seen]
    rows.sort(key=lambda r: (r["family"], r["how"], r["mean"] is None, -(r["mean"] or 0.0), r["item"]))
    for row, adjusted in zip(rows, holm([row["p"] for row in rows])):
        row["p_adjusted"] = adjusted
        flagged = adjusted is not None and adjusted < ALPHA and row["mean"] is not None
        row["flag"] = ("over" if row["mean"] > 0 else "under") if flagged else ""
    return rows


def effect_text(row: dict[str, Any]) -> str:
    """A row's effect as every view writes it: "+0.120 [+0.050, +0.190]", "-" without an estimate."""
    if row["mean"] is None:
        return "-"
    if row["low"] is None:
        return f"{row['mean']:+.3f} [one deal: no interval]"
    return f"{row['mean']:+.3f} [{row['low']:+.3f}, {row['high']:+.3f}]"


def section(matches: Sequence[dict[str, Any]], components: dict[int, list[set[Component]]],
            expected: Iterable[Component] = ()) -> dict[str, Any]:
    """The components section of one analyze group: the finished `matches`, each match's components
    per seat ({match_id: [set per seat]}, from its replay), and the components the game always
    lists (every Belle, every animal), seen or not."""
    records = [Record(m["match_id"], (m["deal"], m["seed"]), score_shares(m["placements"]), components[m["match_id"]])
               for m in matches if m["match_id"] in components]
    duplicate = max(Counter(r.deal for r in records).values(), default=0) > 1
    return {"outcome": "score share", "margin": MARGIN, "alpha": ALPHA, "correction": "Holm",
            "duplicate": duplicate, "rows": effects(records, expected)}

