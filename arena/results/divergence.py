"""Where coupled matches part: the matches of one deal, compared move by move.

Under coupled seeding (arena.seeds) two matches of one deal with equal agents in equal seats are
identical, and two that differ in one seat's agent stay identical until that agent first decides
otherwise. So the first move at which their actions differ is where the agents first disagreed, and
a deal whose matches all played the same moves says nothing about which agent is stronger.
"""
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Divergence:
    first: int | None   # the first move (0, 1, ...) at which the matches' actions differ; None: identical
    differing: int         # moves whose actions differ, position by position (a move only one has counts)

    @property
    def identical(self) -> bool:
        return self.first is None

    def as_dict(self) -> dict:
        return {"first_move": self.first, "differing_moves": self.differing}


def divergence(*histories: Sequence[int]) -> Divergence:
    """Where the action lists of a deal's matches part (two or more; equal lists are identical)."""
    longest = max(len(h) for h in histories)
    differ = [i for i in range(longest) if len({h[i] if i < len(h) else None for h in histories}) > 1]
    return Divergence(differ[0] if differ else None, len(differ))


def identical_text(identical: int, deals: int) -> str:
    """"identical play on N of M deals", as `arena compare` and the leaderboard say it."""
    return f"identical play on {identical} of {deals} deal" + ("" if deals == 1 else "s")


def identical_line(identical: int, deals: int, seeding: str) -> str:
    """The leaderboard's line (terminal, HTML report, web app) on a run's deals whose matches all played alike."""
    return f"{identical_text(identical, deals)}: every match of the deal played the same moves ({seeding} seeds)"
