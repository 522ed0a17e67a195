"""When a game's verdict is settled: the stopping rule of `arena run` without --games.

The rule (quoted in docs/reading-results.md):

* **Looks.** The run looks at a game only after fixed numbers of deals, the same for every run with
  the same cap: FIRST_LOOK deals, then about half as many again each time (8, 12, 18, 27, 41, ...),
  and last at the cap. Every rotation of every line-up of a deal is stored before a look counts it.
* **Settled.** At a look, the agents are taken in leaderboard order; the verdict is settled when
  every pair of neighbours in that order is either *separated* (the interval of one's score against
  the other lies wholly above 0.50 or wholly below) or *level* (it lies wholly inside 0.50 +- LEVEL,
  about 35 Elo either way). The game then stops; otherwise it plays on to the next look, or stops
  unsettled at the cap.
* **Error rate.** Each interval is the leaderboard's (a Student t interval over deals, see
  arena.results.intervals.moments_interval) at confidence 1 - alpha / (looks x pairs), `pairs` every
  pair of agents in the game. A claim (one agent stronger, two level) is wrong only when one of these
  intervals misses its true score, and by the union bound that happens in at most a fraction alpha
  of runs, however many looks the run took and whichever pairs ended up neighbours (Bonferroni over
  the looks and the pairs). The t interval's coverage is approximate for few deals, so
  tests/arena/results/test_settle.py measures the rate by simulation. Timing (--jobs, the backend, a
  kill and resume) never changes what a look sees, nor so at which look a game stops.

(The rule's values, `StoppingRule` and its constants FIRST_LOOK, GROWTH, LEVEL and ALPHA, are in
arena.run_config, with the config of the run that carries them.)
"""
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.match import MatchSpec
from arena.results.intervals import Interval
from arena.results.standings import GroupTally
from arena.run_config import StoppingRule

if TYPE_CHECKING:
    from arena.store import Store


def pair_state(iv: Interval | None, level: float) -> str | None:
    """">" (the first agent is stronger), "<" (weaker), "=" (level) or None (open) from an
    Interval of the first agent's score against the second."""
    if iv is None:
        return None
    if iv.low > 0.5:
        return ">"
    if iv.high < 0.5:
        return "<"
    if 0.5 - level <= iv.low and iv.high <= 0.5 + level:
        return "="
    return None


def neighbours(order: list, h2h: dict) -> list:
    """[(a, b, Interval of a's score against b, or None)] for each pair of neighbours in `order`."""
    return [(a, b, h2h.get(a, {}).get(b)) for a, b in zip(order, order[1:])]


def settled(pairs: list, level: float) -> bool:
    return bool(pairs) and all(pair_state(iv, level) is not None for _, _, iv in pairs)


def judge(tally: GroupTally, rule: StoppingRule) -> list:
    """The neighbours of a closed tally's leaderboard order, with intervals at the rule's confidence."""
    order = [row.label for row in tally.standings()]
    return neighbours(order, tally.head_to_head(rule.confidence(len(order))))


@dataclass
class Look:
    """Where one game of a run stands under its stopping rule."""
    game_id: str
    params: dict
    deals: int                  # complete deals stored (every rotation of every line-up)
    looked: int = 0             # deals at the last look taken (0 before the first)
    settled: bool = False
    next_look: int | None = None   # the deals to complete before the next look (None: no more to play)
    pairs: list = field(default_factory=list)   # the neighbours at the last look (see judge)


def look(store: "Store", run_id: str, specs: Sequence[MatchSpec], done: set[int], rule: StoppingRule) -> Look:
    """Takes the looks a game's stored deals allow, in order, each on exactly the deals before it,
    and stops at the first that settles. `specs` are the game's MatchSpecs (deals in order,
    contiguous match ids), `done` the run's stored match ids."""
    first_of_deal: dict[int, int] = {}
    complete: dict[int, bool] = {}
    for s in specs:
        first_of_deal.setdefault(s.deal, s.match_id)
        complete[s.deal] = complete.get(s.deal, True) and s.match_id in done
    deals = 0
    while complete.get(deals):
        deals += 1
    first = specs[0]
    out = Look(first.game_id, dict(first.game_params), deals, next_look=rule.next_look(deals))
    looks = [n for n in rule.looks() if n <= deals]
    if not looks:
        return out
    tally = GroupTally(first.game_id, dict(first.game_params))
    matches = store.results(run_id, first.match_id, first_of_deal.get(looks[-1], specs[-1].match_id + 1))
    pending = next(matches, None)
    for n in looks:
        while pending is not None and pending["deal"] < n:
            tally.add(pending)
            pending = next(matches, None)
        out.looked, out.pairs = n, judge(tally.closed(), rule)
        if settled(out.pairs, rule.level):
            out.settled, out.next_look = True, None
            break
    return out


def looks(store: "Store", run_id: str, schedule: Any, rule: StoppingRule,
          done: set[int] | None = None) -> list[tuple[Sequence[MatchSpec], Look]]:
    """[(the game's MatchSpecs, its Look)] for each game of a run's schedule (an
    arena.tournament.schedule.Schedule), in schedule order."""
    done = store.finished_ids(run_id) if done is None else done
    return [(specs, look(store, run_id, specs, done, rule)) for specs in schedule.games]
