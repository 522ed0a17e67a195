"""The baseline agents: uniformly random, and greedy one ply deep on the engine's evaluation."""
import random

from agents.base import Agent
from engines.core import GameState


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"

    def act(self, state: GameState) -> int:
        return random.Random(self.next_seed()).choice(state.legal_actions())


class GreedyAgent(Agent):
    """Plays the action whose resulting position the engine evaluates best for this seat."""

    name = "greedy"

    def act(self, state: GameState) -> int:
        rng = random.Random(self.next_seed())
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
        return rng.choice(best)
