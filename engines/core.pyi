"""Types of the Python face of every engine's state (engines/core.pyx); the engines add their own
inspection methods (`hand`, `voids`, `groups`, ...) on top."""
from typing import Any

from engines.events import Event

class GameState:
    game_id: str
    params: dict[str, Any]
    num_players: int
    num_distinct_actions: int

    def __init__(self, params: dict[str, Any], seed: int = 0) -> None:
        """Every engine's state is made so, from complete parameters (engines.registry)."""

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to move, in increasing order; [] once terminal."""
    def apply_action(self, action: int) -> None:
        """:raises ValueError: the action is not legal here."""
    def apply_with_events(self, action: int) -> list[Event]:
        """apply_action, and what happened in it (engines/events.py has each game's vocabulary).

        :raises ValueError: the action is not legal here."""
    def undo_action(self) -> int:
        """:raises IndexError: nothing to undo."""
    def history(self) -> list[int]: ...
    def clone(self) -> GameState: ...
    def current_player(self) -> int:
        """The seat to move, -1 once terminal."""
    def is_terminal(self) -> bool: ...
    def returns(self) -> list[float]: ...
    def scores(self) -> list[float]: ...
    def round(self) -> int: ...
    def evaluate(self, player: int) -> float:
        """:raises ValueError: no such seat."""
    def placements(self) -> list[int]: ...
    def information_state_key(self, player: int) -> int:
        """:raises ValueError: no such seat."""
    def move_patterns(self) -> list[int]:
        """:raises ValueError: the engine has no move patterns, or the game is over."""
    def move_pattern_count(self) -> int: ...
    def plausibility(self, observer: int) -> float:
        """:raises ValueError: no such seat."""
    def policy_action(self, seed: int = 0) -> int:
        """:raises ValueError: the game is over."""
    def action_view(self, observer: int, action: int) -> int:
        """:raises ValueError: no such seat, or the action is out of range."""
    def determinize(self, player: int, seed: int | None = None) -> GameState:
        """:raises ValueError: no such seat."""
    def rollout(self, seed: int = 0, horizon: str = "game") -> None: ...
    def action_to_string(self, action: int) -> str: ...
    def string_to_action(self, text: str) -> int:
        """:raises ValueError: no action has this name."""
    def observation(self, player: int) -> dict[str, Any]:
        """:raises ValueError: no such seat."""
    def metrics(self) -> dict[str, list[float]]: ...
    def snapshot(self) -> bytes: ...


def run_rollouts(proto: GameState, n: int, seed: int, horizon: int = ...) -> None: ...
def run_clones(proto: GameState, n: int) -> None: ...
def run_apply_undo(proto: GameState, n: int, seed: int) -> None: ...
