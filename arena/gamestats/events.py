"""The events of a stored match (engines/events.py has each game's vocabulary), rebuilt by replaying
its actions from its seed: so every stored run has them, also runs stored before events existed.

    from arena.gamestats.events import match_events
    per_action = match_events(match["game_id"], match["game_params"], match["seed"], match["actions"])
"""
from collections.abc import Sequence
from typing import Any

import engines
from engines.events import Event


def match_events(game_id: str, params: dict[str, Any], seed: int, actions: Sequence[int]) -> list[list[Event]]:
    """The events of each action of a match, in order (as `arena replay` rebuilds it: the game made
    from the stored parameters and seed, then the actions applied). ValueError if an action is not
    legal where it was stored, as for any replay."""
    state = engines.make(game_id, seed=seed, **dict(params))
    return [state.apply_with_events(action) for action in actions]
