"""The baseline agents: uniformly random, and greedy one ply deep on the engine's evaluation."""
import random
from typing import Any

from agents.base import Agent
from engines.core import GameState


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        super().reset(game_id, game_params, seat, seed)
        self.rng = random.Random(seed)

    def act(self, state: GameState) -> int:
        return self.rng.choice(state.legal_actions())


class GreedyAgent(Agent):
    """Plays the action whose resulting position the engine evaluates best for this seat."""

    name = "greedy"

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        super().reset(game_id, game_params, seat, seed)
        self.rng = random.Random(seed)

    def act(self, state: GameState) -> int:
        me = state.current_player()
        best, best_value = [], None
        for a in state.legal_actions():
            state.apply_action(a)
            value = state.evaluate(me)
            state.undo_action()
            if best_value is None or value > best_value:
                best, best_value = [a], value
            elif value == best_value:
                best.append(a)
        return self.rng.choice(best)
