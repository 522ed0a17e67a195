"""TrueSkill ratings, folded over stored matches in match-id order (arena.results.analysis.GroupTally).

How matches are rated (quoted in the README):

* One TrueSkill player per agent label, per game and rule variant (mu 25, sigma 25/3, the trueskill
  package's defaults). Ratings are replayed over the stored matches in match-id order, so a parallel,
  distributed or resumed run gives exactly the leaderboard of a serial one.
* Each match is a free-for-all between the agents at the table. An agent holding several seats
  (fewer agents than seats) is ranked by the mean of its seats' placements; agents with equal means
  tie. A win is first place alone, a draw is a shared first place, anything else a loss.
* A faulty agent's seats are all placed last (see arena.tournament.runner), so a fault costs rating like a loss.
* `conservative` is mu - 3 sigma; leaderboards are sorted by it.
"""
from collections import OrderedDict, defaultdict
from typing import Any

import trueskill


def agent_ranks(match: dict[str, Any]) -> list[tuple[str, int]]:
    """[(label, rank)] for the agents of a match, in first-seat order; rank 1 = best, ties share."""
    seats = defaultdict(list)
    for seat, placement in zip(match["seats"], match["placements"]):
        seats[seat["label"]].append(placement)
    mean = OrderedDict((label, sum(p) / len(p)) for label, p in seats.items())
    return [(label, 1 + sum(1 for other in mean.values() if other < m)) for label, m in mean.items()]


def environment() -> trueskill.TrueSkill:
    """The TrueSkill environment every leaderboard uses (the package's defaults, draws 10%)."""
    return trueskill.TrueSkill(draw_probability=0.10)
