"""An entry's standing in a ladder, kept incrementally: its TrueSkill rating, counts and score
share, updated once per duplicate deal (all rotations of one line-up on one deal).

* **Rating.** One TrueSkill update per deal (arena.results.ratings' environment): the entries of
  the line-up are ranked by their mean placement over every seat of every rotation of the deal,
  so the luck of the deal and the seat cancel out before the rating moves. The 95% interval shown
  is mu +- 1.96 sigma, TrueSkill's own belief about the entry's skill.
* **Score.** The entry's score share per deal (1 per opponent seat placed below it, 1/2 per tie,
  averaged over the deal), with a Student t 95% interval over deals (arena.results.intervals).
* **Provisional** while sigma is above PROVISIONAL_SIGMA (a new entry starts at 25/3).
* **Settled place.** In the standings (by mu), an entry's place is settled when it is not
  provisional and, against each neighbour, the difference of their mus is either *separated*
  (its 95% interval excludes 0) or *level* (its 95% interval lies within +- LEVEL_MU, where the
  model gives either side at most about a 70% chance to win).

Everything here works on plain values in memory, so `arena ladder run` (through the store) and the
simulation (arena.bench.ladder) fold and judge with the same code.
"""
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trueskill

from arena.match import AgentSpec
from arena.results import ratings
from arena.results.intervals import Interval, Moments, moments_interval
from arena.results.outcome import faulty_labels, placements_seen_by
from arena.results.standings import pair_score

PROVISIONAL_SIGMA = 2.5
FORM = 10            # recent deals kept in an entry's form ("W", "D" or "L" each, latest last)
Z95 = 1.959963984540054


def environment() -> trueskill.TrueSkill:
    return ratings.environment()


LEVEL_MU = environment().beta   # one performance deviation: the better side wins at most ~70%


@dataclass
class Entry:
    """One version of one bot in a ladder (a row of ladder_entries)."""
    entry: int                  # 1, 2, ... in the order entries were added
    label: str                  # the name its author gave it, the same for every version
    version: int                # 1, 2, ... per label
    spec: AgentSpec             # as it plays: its label is `name`, submitted code carries its digest
    digest: str                 # what makes a new version: the staged code's digest, or a built-in's spec
    parent: int | None = None    # the entry of the previous version
    entrant: str | None = None   # who entered it (uploads); None from the command line
    status: str = "active"      # active | retired
    item: str = ""              # the agent item as given
    added: float = 0.0
    joined: int = 0             # the ladder's stored matches when it was added
    pi: float = 0.0             # TrueSkill's exact state (mu and sigma derive from it); 0: the prior
    tau: float = 0.0
    deals: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    share: list = field(default_factory=lambda: [0, 0.0, 0.0])   # Moments of its score share per deal
    form: str = ""

    @property
    def name(self) -> str:
        return self.spec.label

    def rating(self, env: trueskill.TrueSkill) -> trueskill.Rating:
        r = env.create_rating()
        if self.pi:
            r.pi, r.tau = self.pi, self.tau
        return r

    @property
    def mu(self) -> float:
        return self.tau / self.pi if self.pi else environment().mu

    @property
    def sigma(self) -> float:
        return math.sqrt(1 / self.pi) if self.pi else environment().sigma

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    def score(self) -> Interval | None:
        return moments_interval(Moments(*self.share), self.games)


def version_name(label: str, version: int) -> str:
    """The name an entry plays under (its seat label): the label, then `label@2`, `label@3`, ..."""
    return label if version == 1 else f"{label}@{version}"


def deal_ranks(matches: Sequence[dict[str, Any]], label: str | None = None) -> dict[str, int]:
    """{seat label: rank over the deal} from the deal's matches: by mean placement over every seat
    the label held, 1 = best, ties share; placements as agent `label`'s result reads each match
    (arena.results.outcome), the played-out games' when `label` is None."""
    places: dict[str, list] = {}
    for m in matches:
        seen = m["placements"] if label is None else placements_seen_by(m, label)
        for seat, place in zip(m["seats"], seen):
            places.setdefault(seat["label"], []).append(place)
    mean = {label: sum(p) / len(p) for label, p in places.items()}
    return {label: 1 + sum(other < m for other in mean.values()) for label, m in mean.items()}


def rate(entries: Sequence[Entry], ranks: Sequence[int], env: trueskill.TrueSkill,
         own_ranks: Mapping[str, Sequence[int]] | None = None) -> None:
    """One TrueSkill update of a line-up's entries from their ranks over a deal (1 = best).
    `own_ranks` gives, for an entry whose result reads the deal otherwise (it faulted: the fault
    rule, arena.results.outcome), the ranks of its own reading, from which it takes its update."""
    own = own_ranks or {}
    before = [(e.rating(env),) for e in entries]
    rated: dict[tuple[int, ...], list[trueskill.Rating]] = {}
    for e in [None, *entries]:
        reading = tuple(ranks if e is None else own.get(e.name, ranks))
        if reading not in rated:
            rated[reading] = [r for (r,) in env.rate(before, ranks=list(reading))]
    for k, e in enumerate(entries):
        mine = tuple(own.get(e.name, ranks))
        e.pi, e.tau = rated[mine][k].pi, rated[mine][k].tau
        firsts = sum(1 for r in mine if r == 1)
        e.deals += 1
        e.form = (e.form + ("W" if mine[k] == 1 and firsts == 1 else "D" if mine[k] == 1 else "L"))[-FORM:]


def fold_deal(by_name: dict[str, Entry], matches: Sequence[dict[str, Any]], env: trueskill.TrueSkill) -> list[Entry]:
    """Folds one complete deal (its stored matches, every rotation of one line-up) into the
    entries that played it; returns them in seat order of the first match."""
    ranks = deal_ranks(matches)
    playing = [by_name[label] for label in dict.fromkeys(s["label"] for s in matches[0]["seats"])]
    faulty = set().union(*(faulty_labels(m) for m in matches))
    own = {e.name: [deal_ranks(matches, e.name)[x.name] for x in playing] for e in playing if e.name in faulty}
    rate(playing, [ranks[e.name] for e in playing], env, own)
    shares: dict[str, list] = {}
    for m in matches:
        labels = [s["label"] for s in m["seats"]]
        faulty = faulty_labels(m)
        for label, (_, result) in ratings.results(m).items():
            e = by_name[label]
            e.games += 1
            if result == "win":
                e.wins += 1
            elif result == "draw":
                e.draws += 1
            else:
                e.losses += 1
            e.faults += label in faulty
            places = placements_seen_by(m, label)
            mine = [i for i, b in enumerate(labels) if b == label]
            pairs = [pair_score(places[i], places[j]) for i in mine for j, b in enumerate(labels) if b != label]
            if pairs:
                shares.setdefault(label, []).append(sum(pairs) / len(pairs))
    for label, values in shares.items():
        mo = Moments(*by_name[label].share)
        mo.add(sum(values) / len(values))
        by_name[label].share = mo.state()
    return playing


def meetings(matches: Iterable[dict[str, Any]]) -> dict[tuple[str, str], list[int]]:
    """{(label, opponent): [games, wins, draws, losses]} over these matches, for every two seats of
    different labels (a win: placed ahead of that opponent, as the label's result reads the match)."""
    out: dict[tuple[str, str], list[int]] = {}
    for m in matches:
        labels = [s["label"] for s in m["seats"]]
        for label in dict.fromkeys(labels):
            places = placements_seen_by(m, label)
            for i, b in enumerate(labels):
                if b != label:
                    continue
                for j, other in enumerate(labels):
                    if other != label:
                        row = out.setdefault((label, other), [0, 0, 0, 0])
                        row[0] += 1
                        row[1 if places[i] < places[j] else 3 if places[i] > places[j] else 2] += 1
    return out


def ordered(entries: Iterable[Entry]) -> list[Entry]:
    """The standings' order: by mu, highest first (then the older entry)."""
    return sorted(entries, key=lambda e: (-e.mu, e.entry))


def difference(a: Entry, b: Entry) -> tuple[float, float]:
    """(mu_a - mu_b, the half-width of its 95% interval)."""
    return a.mu - b.mu, Z95 * math.sqrt(a.sigma ** 2 + b.sigma ** 2)


def told_apart(a: Entry, b: Entry) -> bool:
    """Whether two entries' order is known: separated, or level (see the module docstring)."""
    d, half = difference(a, b)
    return abs(d) > half or abs(d) + half <= LEVEL_MU


def settled(standings: Sequence[Entry], entry: Entry) -> bool:
    """Whether `entry`'s place in `standings` (in the standings' order) is settled."""
    if entry.provisional:
        return False
    k = next(i for i, e in enumerate(standings) if e.entry == entry.entry)
    return all(told_apart(entry, other) for other in list(standings[max(0, k - 1):k]) + list(standings[k + 1:k + 2]))
