"""Types of agents/playloop.pyx: whole matches between built-in random and greedy agents, played in C."""
from collections.abc import Sequence

from engines.core import GameState

RANDOM: int
GREEDY: int
KINDS: dict[str, int]

def play(state: GameState, kinds: Sequence[int], seeds: Sequence[int], view_base: int) -> list[int] | None: ...
