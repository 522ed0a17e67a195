"""Every registered game as a PettingZoo AEC environment, wrapping the Cython engines.

    from engines.pettingzoo import env
    e = env("wizard", players=4, hands="3", render_mode="ansi")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are "player_0" .. "player_{n-1}" (the engine's seats). The player to move is whoever the
engine says: in several games one player takes a few decisions in a row (a turn of small steps).
Chance (deals, draws) happens inside the engine; `reset(seed=...)` seeds it, so an episode is
reproducible from its seed and the actions.

Observations: {"observation": float32[OBS_FEATURES], "action_mask": int8[num_distinct_actions]}.
The vector is the hashed one-hot encoding of the engine's `observation(seat)` dict, exactly what that
seat sees (engines.openspiel.observation_features: every `path=value` leaf of the dict, and the
index-free form of every list entry, sets feature crc32(leaf) mod OBS_FEATURES); the mask is 1 on the
seat's legal actions when it is to move, 0 elsewhere. `infos[agent]["observation"]` holds the
observation dict itself.
Rewards: the engine's returns (Insert +1/-1/0, the card games their scores), given once, at the end.
`render()` with render_mode="ansi" returns the engine's terminal drawing (`str(state)`).
"""
import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import engines
from engines import registry
from engines.openspiel import OBS_FEATURES, observation_features


class TabletopAECEnv(AECEnv):
    """One game (with its parameters) as an AEC environment; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "tabletop_v0", "is_parallelizable": False}

    def __init__(self, game_id: str, players: int | None = None, render_mode: str | None = None,
                 **params: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.game_id = game_id
        self.game_params = registry.resolve(game_id, players=players, **params)
        self.metadata = {**self.metadata, "name": f"tabletop_{game_id}_v0"}
        self.render_mode = render_mode
        n = self.game_params["players"]
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.state = self._new_state(0)
        self.num_actions = self.state.num_distinct_actions
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (OBS_FEATURES,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._seeds = random.Random()

    def _new_state(self, seed: int):
        params = dict(self.game_params)
        return engines.make(self.game_id, players=params.pop("players"), seed=seed, **params)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
        self.state = self._new_state(self._seeds.getrandbits(64))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]
        self._update_infos()

    def _update_infos(self) -> None:
        for a in self.agents:
            self.infos[a] = {"observation": self.state.observation(self._seat[a])}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        mask = np.zeros(self.num_actions, np.int8)
        if not self.state.is_terminal() and self.state.current_player() == seat:
            mask[self.state.legal_actions()] = 1
        return {"observation": observation_features(self.state.observation(seat)), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        self.rewards = {a: 0.0 for a in self.agents}
        if self.state.is_terminal():
            for a, r in zip(self.possible_agents, self.state.returns()):
                self.rewards[a] = float(r)
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._update_infos()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return str(self.state)

    def close(self) -> None:
        pass


def env(game_id: str, players: int | None = None, render_mode: str | None = None,
        **params: Any) -> TabletopAECEnv:
    """The AEC environment of `game_id` with the given parameters (as `engines.make` takes them)."""
    return TabletopAECEnv(game_id, players=players, render_mode=render_mode, **params)
