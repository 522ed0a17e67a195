"""Game engines and their registry: `engines.make("wizard", players=4, seed=1)`.

It imports nothing else of the project: agents and the arena build on it."""
from engines.registry import BadParameter, GameSpec, UnknownGame, game_ids, make, spec

__all__ = ["GameSpec", "UnknownGame", "BadParameter", "game_ids", "spec", "make"]
