"""Every game as a PettingZoo AEC environment (engines/pettingzoo.py): PettingZoo's api_test and seed
test, and a seeded random-agent episode per game."""
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install '.[test]')")

from pettingzoo.test import api_test, seed_test

import engines
from engines.openspiel import OBS_FEATURES
from engines.pettingzoo import env

CASES = [(g, {}) for g in engines.game_ids()] + [
    ("wizard", {"players": 3, "hands": "2,3", "secret_bids": True, "plus_minus_one": True}),
    ("royal_ball", {"players": 2, "match": "single_round"}),
]
IDS = [g + "".join(f"-{k}={v}" for k, v in p.items()) for g, p in CASES]


@pytest.mark.parametrize("game_id,params", CASES, ids=IDS)
def test_pettingzoo_api_test(game_id, params):
    with warnings.catch_warnings():
        # a dict observation with an action mask, as PettingZoo's own classic games have
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env(game_id, render_mode="ansi", **params), num_cycles=200)


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_pettingzoo_seed_test(game_id):
    seed_test(lambda: env(game_id), num_cycles=50)


def _episode(game_id, seed, **params):
    e = env(game_id, render_mode="ansi", **params)
    e.reset(seed=seed)
    for space in e.action_spaces.values():
        space.seed(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        assert obs["observation"].shape == (OBS_FEATURES,) and obs["observation"].dtype == np.float32
        if terminated or truncated:
            e.step(None)
            continue
        assert obs["action_mask"].sum() == len(e.state.legal_actions()) > 0
        e.step(e.action_space(agent).sample(obs["action_mask"]))
        steps += 1
    return totals, steps, e


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_a_seeded_random_episode_is_reproducible_and_pays_the_returns(game_id):
    totals, steps, e = _episode(game_id, 11)
    assert e.state.is_terminal() and not e.agents
    assert [totals[a] for a in e.possible_agents] == e.state.returns()
    assert e.render() == str(e.state) and e.render()
    again, again_steps, e2 = _episode(game_id, 11)
    assert (again, again_steps, e2.state.snapshot()) == (totals, steps, e.state.snapshot())


def test_parameters_are_validated_and_masks_follow_the_seat():
    with pytest.raises(engines.BadParameter):
        env("insert", players=3)
    e = env("wizard", players=4, hands="2")
    e.reset(seed=3)
    mover = e.agent_selection
    for agent in e.possible_agents:
        mask = e.observe(agent)["action_mask"]
        assert (mask.sum() > 0) == (agent == mover)
    assert e.infos[mover]["observation"]["hand"]
