"""Every registered game as a single-agent Gymnasium environment: the learner holds one seat, arena
agents hold the others.

    from arena.interop.gymnasium import TabletopEnv
    env = TabletopEnv("wizard", opponents="greedy", players=4, hands="3", render_mode="ansi")
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated

    import gymnasium, arena.interop.gymnasium     # registers "tabletop/<game_id>-v0" for every game
    env = gymnasium.make("tabletop/insert-v0", opponents="ismcts[iterations=200]")

Opponents: the agent grammar of `arena run --agents` (arena.agent_list): one item for every other
seat (`"greedy"`, `"ismcts[iterations=500]"`), a comma-separated list with one item per other seat
in seat order (`"greedy, random, ismcts"` for 4 players), or a Python list of items. Built-in
agents, `FILE.py:Class`, `package.module:Class` and installed entry points are all accepted; the
submitted kinds are loaded into this process (not sandboxed, not timed: they are the RL user's own
code). A bad item, the wrong number of items, or an agent that cannot play the game is a one-line
ValueError. Opponents play as in a tournament: each is `reset` at every episode with a seed drawn
from the episode's generator, and each of its moves is asked for and checked by the arena's
referee (arena.referee): it gets `state.determinize(seat, seed)`, never the true state, the
seeds of an episode's views following from one drawn at its start.

The learner's seat: `seat` (default 0), or `seat=None` for a seat drawn from the reset seed each
episode (`info["seat"]` says which). Opponents move until it is the learner's turn before `reset`
and `step` return; `info["opponent_moves"]` counts the moves they made meanwhile.

Spaces (the PettingZoo environment's, engines.pettingzoo): observation Dict of `observation`,
float32[OBS_FEATURES], the hashed one-hot encoding of what the seat sees (engines.openspiel), and
`action_mask`, int8[num_distinct_actions], 1 on the legal actions; action Discrete(num_distinct_actions).
`info["observation"]` holds the observation dict itself.

Rewards: no shaping. The learner's return (`state.returns()[seat]`: Insert +1/-1/0, the card games
their final scores) comes once, on the step that ends the game; every other step gives 0.

Illegal actions: with `illegal="penalty"` (the default, PettingZoo's convention for its classic
games) an action outside the mask ends the episode at once (terminated) with reward
`illegal_reward`, by default one less than the lowest return the game allows for these parameters
(engines.openspiel.bounds), so an illegal move always pays worse than any legal play; the state is left
as it was and `info["illegal_action"]` is set. With `illegal="error"` it raises ValueError.

Seeding: `reset(seed=s)` seeds `np_random`, from which the learner's seat (seat=None), the deal, the
base of its views' seeds and each opponent's seed are drawn, so an episode is a function of the seed and the
learner's actions. `reset()` without a seed continues the generator. A deal in which the game would
end before the learner's first move is skipped (a new deal is drawn from the same generator).

`render()` (render_mode="ansi") returns the engine's terminal drawing of the true state.

Layering: the environment is the engines' game under the arena's rules, with arena agents in the
other seats, so it lives in the arena (arena.interop), above the engines and the agents and above
arena.edge, which reads its `opponents` text as it reads every face's; the engines' own faces
(engines.openspiel, engines.pettingzoo) import nothing of the project.

Throughput: `python -m arena.interop.gymnasium [--episodes 100] [--opponents greedy] [game ...]` plays
a uniformly random learner (actions sampled from the mask) and prints a JSON row per game: steps/s
of wall time (learner steps, the opponents' moves and the encoding included), and steps per second
of the process's CPU time (`steps_per_cpu_s`), which a busy machine disturbs less.
"""
import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import engines
from arena import referee
from engines import registry
from engines.openspiel import OBS_FEATURES, bounds, observation_features

MAX_SKIPPED_DEALS = 100


def _load_opponents(opponents: str | list | tuple, game_id: str, game_params: dict[str, Any]) -> list:
    """One agent per other seat, from the agent grammar (read by arena.edge.opponents; see the
    module docstring), for this game with its complete parameters."""
    import agents
    from arena import edge
    from arena.agent_list import ScheduleError
    from arena.tournament.schedule import check_can_play
    players = game_params["players"]
    out = []
    for spec in edge.opponents(opponents, players - 1, game_id):
        if spec.kind == "builtin":
            try:
                check_can_play([spec], game_id, game_params)
            except ScheduleError as e:
                raise ValueError(f"opponents: {e}") from None
            cls: Any = agents.agent_class(spec.source)
        else:
            from arena.sandbox import load_class
            try:
                cls = load_class(spec.kind, spec.target)
            except Exception as e:
                raise ValueError(f"opponents: cannot load {spec.source}: {type(e).__name__}: {e}".splitlines()[0]) from None
            reason = cls.cannot_play(game_id, players) if hasattr(cls, "cannot_play") else None
            if reason:
                raise ValueError(f"opponents: {spec.label} cannot play {game_id} with {players} players: {reason}")
        try:
            out.append(cls(**dict(spec.params)))
        except Exception as e:
            raise ValueError(f"opponents: {spec.label}: {e}".splitlines()[0]) from None
    return out


class TabletopEnv(gymnasium.Env):
    """One game (with its parameters) as a single-agent environment; see the module docstring."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, game_id: str, opponents: str | list = "greedy", seat: int | None = 0,
                 players: int | None = None, render_mode: str | None = None, illegal: str = "penalty",
                 illegal_reward: float | None = None, **params: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        if illegal not in ("penalty", "error"):
            raise ValueError(f"illegal must be 'penalty' or 'error', not {illegal!r}")
        self.game_id = game_id
        self.game_params = registry.resolve(game_id, players=players, **params)
        n = self.game_params["players"]
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise ValueError(f"seat must be a seat of {game_id} with {n} players (0 to {n - 1}) or None, not {seat!r}")
        self.fixed_seat = seat
        self.seat = seat or 0
        self.render_mode = render_mode
        self.illegal = illegal
        proto = self._new_state(0)
        self.num_actions = proto.num_distinct_actions
        self.illegal_reward = float(bounds(game_id, self.game_params, proto)[0] - 1 if illegal_reward is None
                                    else illegal_reward)
        self._opponent_agents = _load_opponents(opponents, game_id, self.game_params)
        self.opponents: dict = {}
        self._view_base = 0
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (OBS_FEATURES,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        self.action_space = spaces.Discrete(self.num_actions)
        self.state = proto
        self._done = True       # until reset()

    def _new_state(self, seed: int):
        params = dict(self.game_params)
        return engines.make(self.game_id, players=params.pop("players"), seed=seed, **params)

    def _seed(self) -> int:
        return int(self.np_random.integers(0, 2**63))

    def _obs(self) -> dict:
        mask = np.zeros(self.num_actions, np.int8)
        if not self.state.is_terminal() and self.state.current_player() == self.seat:
            mask[self.state.legal_actions()] = 1
        return {"observation": observation_features(self.state.observation(self.seat)), "action_mask": mask}

    def _info(self, moves: int) -> dict:
        return {"seat": self.seat, "opponent_moves": moves, "observation": self.state.observation(self.seat)}

    def _play_opponents(self) -> int:
        """The other seats move until the learner is to move or the game is over; returns how many
        moves. Each move is the referee's (arena.referee), the opponent trusted: the RL user's own
        code, whose exceptions go through unchanged (an illegal action is an AgentFault)."""
        moves = 0
        s = self.state
        while not s.is_terminal() and s.current_player() != self.seat:
            referee.play_move(s, self.opponents[s.current_player()], self._view_base, len(s.history()),
                              trusted=True)
            moves += 1
        return moves

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        n = self.game_params["players"]
        for _ in range(MAX_SKIPPED_DEALS):
            self.seat = int(self.np_random.integers(0, n)) if self.fixed_seat is None else self.fixed_seat
            self.state = self._new_state(self._seed())
            self._view_base = self._seed()
            others = [p for p in range(n) if p != self.seat]
            self.opponents = dict(zip(others, self._opponent_agents))
            for p, agent in self.opponents.items():
                agent.reset(self.game_id, dict(self.game_params), p, self._seed())
            moves = self._play_opponents()
            if not self.state.is_terminal():
                self._done = False
                return self._obs(), self._info(moves)
        raise RuntimeError(f"{MAX_SKIPPED_DEALS} deals of {self.game_id} in a row ended before seat {self.seat} moved")

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        s = self.state
        if self._done:
            raise RuntimeError("step() after the episode ended: call reset()")
        a = int(action)
        if a not in s.legal_actions():
            if self.illegal == "error":
                raise ValueError(f"action {a} is not legal here; legal: {s.legal_actions()}")
            info = self._info(0)
            info["illegal_action"] = a
            self._done = True
            return self._obs(), self.illegal_reward, True, False, info
        s.apply_action(a)
        moves = self._play_opponents()
        reward = float(s.returns()[self.seat]) if s.is_terminal() else 0.0
        self._done = s.is_terminal()
        return self._obs(), reward, s.is_terminal(), False, self._info(moves)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return str(self.state)

    def action_masks(self) -> np.ndarray:
        """The current action mask as booleans (the name sb3-contrib's MaskablePPO looks for)."""
        return self._obs()["action_mask"].astype(bool)


def env_id(game_id: str) -> str:
    return f"tabletop/{game_id}-v0"


def _register_all() -> None:
    for game_id in engines.game_ids():
        if env_id(game_id) not in gymnasium.registry:
            gymnasium.register(env_id(game_id), entry_point="arena.interop.gymnasium:TabletopEnv",
                               kwargs={"game_id": game_id}, disable_env_checker=True)


_register_all()


def random_episodes(game_id: str, episodes: int = 100, opponents: str = "greedy", seed: int = 0,
                    **params: Any) -> dict:
    """A uniformly random learner (actions sampled from the mask) plays `episodes` episodes: the
    learner's steps per second of wall time (and of CPU time), with the resets and the opponents'
    moves included."""
    env = TabletopEnv(game_id, opponents=opponents, **params)
    env.action_space.seed(seed)
    steps = opponent_moves = 0
    started, cpu = time.perf_counter(), time.process_time()
    for e in range(episodes):
        obs, info = env.reset(seed=seed + e)
        opponent_moves += info["opponent_moves"]
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(env.action_space.sample(obs["action_mask"]))
            steps += 1
            opponent_moves += info["opponent_moves"]
            done = terminated or truncated
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"case": f"gymnasium_random/{game_id}/{opponents}", "unit": "steps/s", "rates": [steps / seconds],
            "median_per_s": steps / seconds, "episodes": episodes, "steps": steps,
            "opponent_moves": opponent_moves, "seconds": seconds, "cpu_seconds": cpu,
            "steps_per_cpu_s": steps / cpu}


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="steps/s of a random learner through the Gymnasium wrapper")
    p.add_argument("games", nargs="*")
    p.add_argument("--episodes", type=int, default=100)
    p.add_argument("--opponents", default="greedy")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for game_id in args.games or engines.game_ids():
        print(json.dumps(random_episodes(game_id, args.episodes, args.opponents, args.seed)), flush=True)


if __name__ == "__main__":
    main()
