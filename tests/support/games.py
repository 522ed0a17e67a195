"""Whole games for the tests, as the training data of whole games keeps them (a seed and the actions)."""
import random

import engines


def random_games(game_id, n, seed=0):
    """`n` whole games of `game_id` (seeds 0..n-1, the default parameters) of uniformly random play."""
    out = []
    for g in range(n):
        rng = random.Random(seed * 1000 + g)
        st = engines.make(game_id, seed=g)
        actions = []
        while not st.is_terminal():
            actions.append(rng.choice(st.legal_actions()))
            st.apply_action(actions[-1])
        out.append({"deal": g, "seed": g, "actions": actions})
    return out
