"""Which line-ups a ladder plays next: where a game tells most.

`choose` picks a batch of line-ups from the entries' standings and how often each pair has met,
nothing else, so the same store and seed always give the same batch:

* **Focus.** Each line-up starts from the entry whose rating is least known for its play so far:
  the highest sigma / sqrt(1 + deals), deals counting those already chosen in this batch. A new
  entry (sigma 25/3, no deals) is chosen first, again and again until its rating firms up.
* **Opponents.** The seats left are filled one by one with the entry that makes the closest game,
  TrueSkill's match quality of the line-up (the draw probability: opponents close in rating, and
  uncertain ones, tell most), divided by 1 + the deals that pair is already given in this batch.
* **Every pair meets.** Every EXPLORE-th line-up starts instead from the pair of active entries
  that has met least (ties: the fewer deals, then a seeded order), so the least-met pair's count
  keeps rising and every pair meets, however lopsided the ratings.
* With fewer active entries than seats, the entries fill the seats in turn as a tournament's do
  (arena.tournament.schedule.lineups), those line-ups in turn.

Ties are broken by a keyed hash of the ladder's seed, the batch and the entries (arena.seeds), never
by the order of a dict. Each line-up is then played as one deal in every seat rotation
(arena.ladder.play). `round_robin` is the plain alternative the simulation compares with.
"""
import functools
import itertools
import math
from collections.abc import Mapping, Sequence

import trueskill

from arena.ladder.standing import Entry
from arena.seeds import derive_seed
from arena.tournament.schedule import lineups

EXPLORE = 4      # every 4th line-up of a batch: the pair that has met least
BATCH = 8        # line-ups per batch


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def choose(active: Sequence[Entry], met: Mapping[tuple[int, int], int], players: int, count: int, seed: int,
           batch: int, env: trueskill.TrueSkill) -> list[tuple[int, ...]]:
    """`count` line-ups (tuples of entry numbers, one per seat before rotation) for batch number
    `batch`; [] with fewer than two active entries. `met`: {(a, b), a < b: deals played together}."""
    if len(active) < 2:
        return []
    numbers = sorted(e.entry for e in active)
    if len(active) < players:
        ups = lineups(numbers, players)
        return [ups[(batch * count + i) % len(ups)] for i in range(count)]
    by_number = {e.entry: e for e in active}
    rating = {e.entry: e.rating(env) for e in active}
    deals = {e.entry: e.deals for e in active}
    meetings: dict[tuple[int, int], int] = {(a, b): met.get((a, b), 0) for a, b in itertools.combinations(numbers, 2)}
    now: dict[tuple[int, int], int] = {}    # deals given to each pair in this batch

    def tie(*entries):
        return derive_seed(seed, "ladder matchmaking", batch, *entries)

    def least_met(pair: tuple[int, int]) -> tuple[int, int, int]:
        return meetings[pair], deals[pair[0]] + deals[pair[1]], tie(*pair)

    def closeness(lineup: list[int], o: int) -> tuple[float, int]:
        """How good a game `o` makes with `lineup`, less for pairs already given deals in this batch."""
        quality = env.quality([(rating[e],) for e in lineup + [o]])
        return quality / (1 + sum(now.get(_pair(o, e), 0) for e in lineup)), tie(o, *lineup)

    out = []
    for i in range(count):
        if i % EXPLORE == EXPLORE - 1:
            first, second = min(meetings, key=least_met)
            lineup = [first, second]
        else:
            lineup = [max(numbers, key=lambda e: (by_number[e].sigma / math.sqrt(1 + deals[e]), tie(e)))]
        while len(lineup) < players:
            lineup.append(max((o for o in numbers if o not in lineup), key=functools.partial(closeness, lineup)))
        for e in lineup:
            deals[e] += 1
        for a, b in itertools.combinations(sorted(lineup), 2):
            meetings[a, b] += 1
            now[a, b] = now.get((a, b), 0) + 1
        out.append(tuple(lineup))
    return out


def round_robin(active: Sequence[Entry], players: int, count: int, start: int) -> list[tuple[int, ...]]:
    """`count` line-ups of a plain round robin: every combination of the active entries in turn,
    from the `start`-th line-up played on."""
    ups = lineups(sorted(e.entry for e in active), players)
    return [ups[(start + i) % len(ups)] for i in range(count)] if len(active) >= 2 else []
