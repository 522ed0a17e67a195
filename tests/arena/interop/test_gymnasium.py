"""The single-agent Gymnasium wrapper (arena/interop/gymnasium.py): Gymnasium's env checker on every game,
seeded determinism, opponents that really act on their own determinized views, the illegal-action
rule and one-line errors for bad opponents."""
import os
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install '.[test]')")

from gymnasium.utils.env_checker import check_env

import engines
from arena.interop.gymnasium import TabletopEnv, env_id, random_episodes
from engines.openspiel import OBS_FEATURES
from paths import FIXTURES

SPY = os.path.join(FIXTURES, "interop_bots.py") + ":SpyBot"
CASES = [(g, {}) for g in engines.game_ids()] + [
    ("wizard", {"players": 3, "hands": "2,3", "secret_bids": True}),
    ("royal_ball", {"players": 2, "match": "single_round"}),
]
IDS = [g + "".join(f"-{k}={v}" for k, v in p.items()) for g, p in CASES]


@pytest.mark.parametrize("game_id,params", CASES, ids=IDS)
def test_gymnasium_env_checker_passes(game_id, params):
    env = gymnasium.make(env_id(game_id), opponents="greedy", render_mode="ansi", **params).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # any complaint of the checker fails the test
        check_env(env)
    assert env.observation_space["observation"].shape == (OBS_FEATURES,)
    assert env.action_space.n == env.state.num_distinct_actions


def _episode(env, seed, policy_seed=None):
    obs, info = env.reset(seed=seed)
    rng = random.Random(seed if policy_seed is None else policy_seed)
    trace, total, done = [info["seat"], info["opponent_moves"], obs["observation"].tobytes()], 0.0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        assert sorted(legal.tolist()) == sorted(env.state.legal_actions())
        assert env.state.current_player() == env.seat
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        done = terminated or truncated
        trace += [reward, info["opponent_moves"], obs["observation"].tobytes()]
    return trace, total, env.state


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_a_seeded_episode_is_reproducible_and_pays_the_learners_return(game_id):
    env = TabletopEnv(game_id, opponents="random", seat=None)
    trace, total, state = _episode(env, 5)
    assert state.is_terminal() and total == state.returns()[env.seat]
    again, total2, state2 = _episode(TabletopEnv(game_id, opponents="random", seat=None), 5)
    assert (again, total2, state2.snapshot()) == (trace, total, state.snapshot())
    other, _, state3 = _episode(env, 6, policy_seed=5)
    assert state3.snapshot() != state.snapshot()


def test_opponents_really_act_on_their_own_determinized_views():
    env = TabletopEnv("wizard", opponents=SPY, seat=2, players=4, hands="3")
    obs, info = env.reset(seed=9)
    assert env.state.current_player() == 2
    done, opponent_moves, learner_moves = False, info["opponent_moves"], 0
    while not done:
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        learner_moves += 1
        opponent_moves += info["opponent_moves"]
        done = terminated or truncated
    seen = [call for seat in (0, 1, 3) for call in env.opponents[seat].seen]
    assert sorted(env.opponents) == [0, 1, 3] and len(seen) == opponent_moves
    # every position of the game, from its true state: (player to move, their infoset key, snapshot)
    true, positions = env.state.clone(), {}
    while true.history():
        true.undo_action()
        positions.setdefault((true.current_player(), true.information_state_key(true.current_player())),
                             true.snapshot())
    assert sum(1 for (p, _) in positions if p == 2) == learner_moves
    for seat, to_move, key, _ in seen:
        assert seat == to_move != 2 and (to_move, key) in positions
    assert any(snapshot != positions[(to_move, key)] for _, to_move, key, snapshot in seen)


def test_illegal_actions_end_the_episode_with_the_penalty_or_raise():
    env = TabletopEnv("insert", opponents="greedy")
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.state.snapshot()
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-2.0, True, False, illegal)
    assert env.state.snapshot() == before
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = TabletopEnv("wizard", opponents="random", illegal="error", illegal_reward=-5)
    assert strict.illegal_reward == -5.0
    obs, _ = strict.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


@pytest.mark.parametrize("opponents,words", [
    ("nosuch", "unknown agent 'nosuch'"),
    ("greedy[depth=3]", "unknown parameter 'depth'"),
    ("ismcts[iterations=0]", "iterations"),
    ("greedy, random", "2 agents given for the 3 other seats"),
    (["greedy"] * 4, "4 agents given for the 3 other seats"),
    ("alphabeta", "cannot play wizard"),
    ("pimc[bidding=learned]", "cannot play wizard with 4 players: parameter 'bid_model' of agent pimc"),
    ("./no/such/bot.py:Bot", "no file"),
    (42, "opponents must be agent text"),
    ("greedy[", "unbalanced"),
])
def test_a_bad_opponent_spec_is_a_one_line_value_error(opponents, words):
    with pytest.raises(ValueError) as err:
        TabletopEnv("wizard", opponents=opponents, players=4, plus_minus_one=True)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_other_arguments_are_checked_and_a_list_gives_one_agent_per_seat():
    for kwargs in ({"seat": 2}, {"seat": True}, {"render_mode": "human"}, {"illegal": "ignore"}):
        with pytest.raises(ValueError):
            TabletopEnv("insert", **kwargs)
    env = TabletopEnv("wizard", opponents="greedy, random, ismcts[iterations=50]", seat=1, players=4, hands="2")
    env.reset(seed=2)
    assert [type(env.opponents[s]).__name__ for s in (0, 2, 3)] == ["GreedyAgent", "RandomAgent", "ISMCTSAgent"]
    assert TabletopEnv("insert").render() is None
    assert env.action_masks().dtype == bool and env.action_masks().sum() == len(env.state.legal_actions())


def test_random_episodes_counts_every_learner_step():
    row = random_episodes("insert", episodes=3, opponents="random")
    assert row["episodes"] == 3 and row["unit"] == "steps/s" and row["steps"] >= 3 * 9
    assert row["steps"] + row["opponent_moves"] >= 3 * 18


def test_gymnasium_make_in_a_fresh_process_through_the_module_form():
    """What the docs give for a fresh process: the "module:id" form imports the registering module."""
    code = ("import gymnasium; env = gymnasium.make('arena.interop.gymnasium:tabletop/insert-v0'); "
            "obs, info = env.reset(seed=1); print(type(env.unwrapped).__name__, sorted(obs))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("TabletopEnv")
