"""Every registered game as an OpenSpiel (pyspiel) Python game, wrapping the Cython engines.

    import engines.openspiel            # registers "tabletop_<game_id>" for every game
    game = pyspiel.load_game("tabletop_wizard", {"players": 4, "hands": "3"})

Nothing is reimplemented: each OpenSpiel state holds one engine state and forwards to it.

Chance: SAMPLED_STOCHASTIC for every game. Our engines draw deals, draws and the initial layout
(Insert's tiles too) inside `make` and `apply_action` from the state's own RNG, so there are no chance
nodes to expose (`is_chance_node()` is never true); a state carries its RNG, clones share the future,
and `resample_from_infostate` (our `determinize`) resamples both the hidden cards and that RNG.
The game parameter `rng_seed` (OpenSpiel's name) seeds the deals: -1 (default) draws every new game's
seed at random; n >= 0 gives a reproducible sequence of deals.

Information: Insert is PERFECT_INFORMATION, the card games IMPERFECT_INFORMATION. Utility: the
engines' `returns` at the end, 0 before (TERMINAL reward model); Insert is ZERO_SUM (+1/-1/0), the
others GENERAL_SUM (raw scores; min/max utility are loose bounds). `max_game_length` is an upper
bound for Insert and Wizard, and a generous cap for the other games (their rules have no move limit;
random play stays far below it).

Strings and tensors (fixed size for each game, derived from `observation(player)`):
- observation_string: `observation(player)` as compact JSON with sorted keys.
- information_state_string: "infoset <key>" (our 64-bit `information_state_key`, equal exactly for
  states the player cannot tell apart, perfect recall) followed by the observation string.
- observation_tensor (OBS_FEATURES floats, shape [OBS_FEATURES]): hashed one-hot features of the
  observation dict. The dict is flattened into leaves `path=value` (path = the keys and list indices,
  e.g. `hands.0.known.3=B+2`; values as JSON scalars, so numbers are categories too); every list also
  gives index-free leaves (`hands.*.known.*=B+2`: the membership of a card in a hand). Each leaf sets
  feature crc32(leaf) mod OBS_FEATURES to 1. Deterministic across processes and machines; two leaves
  may share a feature (a hash collision), so it is an encoding for learning, not a lossless one.
- information_state_tensor (64 + OBS_FEATURES): the 64 bits of the infoset key, then the
  observation features. Tensor dicts: {"infoset_key": [64], "observation": [OBS_FEATURES]}.

The observation encoding (`observation_features`) needs only numpy; the games need pyspiel, and
`load` says so when it is missing.

Serialization: the default OpenSpiel Python-state serialization (pickled attributes) stores the
engine's exact position (our snapshot: position and chance RNG), so a deserialized state is the same
state, future deals included.
"""
import json
import random
import zlib
from typing import Any

import numpy as np

import engines
from engines import registry
from engines.core import GameState

try:
    import pyspiel
    _State: Any = pyspiel.State
    _Game: Any = pyspiel.Game
except ImportError:     # the encoding below stays usable without OpenSpiel (engines.pettingzoo uses it)
    pyspiel = None
    _State = _Game = object

OBS_FEATURES = 2048
KEY_BITS = 64
PREFIX = "tabletop_"


def short_name(game_id: str) -> str:
    return PREFIX + game_id


# ---------------------------------------------------------------- encoding of observation dicts

def _leaves(value: Any, path: str, wild: str, out: list) -> None:
    if isinstance(value, dict):
        for k in sorted(value):
            _leaves(value[k], f"{path}.{k}" if path else str(k), f"{wild}.{k}" if wild else str(k), out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _leaves(v, f"{path}.{i}", f"{wild}.*", out)
    else:
        scalar = json.dumps(value)
        out.append(f"{path}={scalar}")
        if wild != path:
            out.append(f"{wild}={scalar}")


def observation_features(obs: dict, size: int = OBS_FEATURES) -> np.ndarray:
    """The fixed-size hashed one-hot encoding of an observation dict (see the module docstring)."""
    leaves: list = []
    _leaves(obs, "", "", leaves)
    v = np.zeros(size, np.float32)
    for leaf in leaves:
        v[zlib.crc32(leaf.encode()) % size] = 1.0
    return v


def observation_string(state: GameState, player: int) -> str:
    return json.dumps(state.observation(player), sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------- bounds per game

def bounds(game_id: str, full: dict, proto: GameState) -> tuple:
    """(min_utility, max_utility, max_game_length) for the resolved parameters (the game's GameSpec.bounds)."""
    return registry.spec(game_id).bounds(full, proto)


def _to_openspiel_value(value):
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return value


def _param_spec(s: registry.GameSpec) -> dict:
    spec = {"players": s.default_players, "rng_seed": -1}
    for name, default in s.params.items():
        spec[name] = _to_openspiel_value(default)
    return spec


def _engine_params(game_id: str, params: dict) -> dict:
    """OpenSpiel parameters -> registry-resolved engine parameters (players included)."""
    s = registry.spec(game_id)
    given = {k: v for k, v in params.items() if k in s.params}
    for name, default in s.params.items():
        if isinstance(default, tuple) and given.get(name) == "":
            given[name] = default
    return registry.resolve(game_id, players=params.get("players", s.default_players), **given)


# ---------------------------------------------------------------- the lazily dealt engine state

def _position_copy(s):
    """A copy of the engine position (chance RNG included) without its undo stack and history."""
    fn, args = s.__reduce__()
    return fn(*args[:6], b"", [])


class _Engine:
    """Holds the engine state of an OpenSpiel state, dealt on first use.

    OpenSpiel clones a Python state by making a new initial state and deep-copying the attributes
    of the original over it; dealing lazily keeps those throwaway initial states free (no deal, no
    seed drawn from the game), and deep-copying an undealt holder deals the original first, so a
    clone is always the same deal.
    """

    def __init__(self, game):
        self._game = game
        self._state = None

    def get(self):
        if self._state is None:
            self._state = self._game._deal()
            self._game = None
        return self._state

    def set(self, state) -> None:
        self._state, self._game = state, None

    def __deepcopy__(self, memo):
        c = _Engine(None)
        c._state = _position_copy(self.get())
        return c

    def __getstate__(self):
        return {"state": _position_copy(self.get())}

    def __setstate__(self, d):
        self._game, self._state = None, d["state"]


class TabletopState(_State):
    """An OpenSpiel state forwarding to one engine state (`engine`)."""

    def __init__(self, game):
        super().__init__(game)
        self._engine = _Engine(game)

    @property
    def engine(self) -> GameState:
        """The wrapped engine state (engines.core.GameState)."""
        return self._engine.get()

    def current_player(self) -> int:
        e = self.engine
        return pyspiel.PlayerId.TERMINAL if e.is_terminal() else e.current_player()

    def _legal_actions(self, player):
        return self.engine.legal_actions()

    def _apply_action(self, action):
        self.engine.apply_action(int(action))

    def _action_to_string(self, player, action):
        return self.engine.action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self.engine.is_terminal()

    def returns(self) -> list[float]:
        e = self.engine
        return [float(r) for r in e.returns()] if e.is_terminal() else [0.0] * e.num_players

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "TabletopState":
        """A state `player_id` cannot tell from this one (our `determinize`), hidden cards and future
        chance resampled. `probability_sampler` is a callable returning floats in [0, 1) (OpenSpiel's
        convention) or a random.Random / numpy RandomState; the seed is drawn from it."""
        if hasattr(probability_sampler, "getrandbits"):
            seed = probability_sampler.getrandbits(64)
        elif hasattr(probability_sampler, "randint"):
            seed = int(probability_sampler.randint(0, 2**62))
        else:
            seed = int(probability_sampler() * 2**53) ^ (int(probability_sampler() * 2**53) << 11)
        s = self.get_game().new_initial_state()
        s._engine.set(self.engine.determinize(player_id, seed % 2**64))
        return s

    def __str__(self):
        return str(self.engine)


class _Observer:
    """OpenSpiel's PyObserver interface: `tensor`, `dict`, `set_from`, `string_from`."""

    def __init__(self, info_state: bool):
        self.info_state = info_state
        size = OBS_FEATURES + (KEY_BITS if info_state else 0)
        self.tensor = np.zeros(size, np.float32)
        if info_state:
            self.dict = {"infoset_key": self.tensor[:KEY_BITS], "observation": self.tensor[KEY_BITS:]}
        else:
            self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        e = state.engine
        self.dict["observation"][:] = observation_features(e.observation(player))
        if self.info_state:
            key = e.information_state_key(player)
            self.dict["infoset_key"][:] = [(key >> i) & 1 for i in range(KEY_BITS)]

    def string_from(self, state, player):
        e = state.engine
        obs = observation_string(e, player)
        if self.info_state:
            return f"infoset {e.information_state_key(player):016x}\n{obs}"
        return obs


class TabletopGame(_Game):
    """Base of the generated game classes; `GAME_ID` and `GAME_TYPE` are set per game."""

    GAME_ID = ""
    GAME_TYPE: Any = None

    def __init__(self, params=None):
        params = dict(params or {})
        self.engine_params = _engine_params(self.GAME_ID, params)
        seed = int(params.get("rng_seed", -1))
        self._rng = random.Random(seed) if seed >= 0 else random.Random()
        proto = engines.make(self.GAME_ID, seed=0, **self.engine_params_without_players())
        lo, hi, length = bounds(self.GAME_ID, self.engine_params, proto)
        info = pyspiel.GameInfo(
            num_distinct_actions=proto.num_distinct_actions,
            max_chance_outcomes=0,
            num_players=self.engine_params["players"],
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if registry.spec(self.GAME_ID).zero_sum else None,
            max_game_length=length)
        super().__init__(self.GAME_TYPE, info, params)

    def engine_params_without_players(self) -> dict:
        p = dict(self.engine_params)
        return {"players": p.pop("players"), **p}

    def _deal(self):
        return engines.make(self.GAME_ID, seed=self._rng.getrandbits(64), **self.engine_params_without_players())

    def new_initial_state(self) -> TabletopState:
        return TabletopState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> "_Observer":
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        return _Observer(info_state=iig_obs_type is not None and bool(iig_obs_type.perfect_recall))


def _game_type(game_id: str) -> "pyspiel.GameType":
    s = registry.spec(game_id)
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"Tabletop Arena {game_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if s.perfect_information
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=(pyspiel.GameType.Utility.ZERO_SUM if s.zero_sum
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=s.max_players,
        min_num_players=s.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_param_spec(s),
    )


GAME_CLASSES: dict = {}


def _register_all() -> None:
    registered = set(pyspiel.registered_names())
    for game_id in engines.game_ids():
        cls: Any = type(f"{game_id.title().replace('_', '')}OpenSpielGame", (TabletopGame,),
                   {"GAME_ID": game_id, "GAME_TYPE": _game_type(game_id)})
        GAME_CLASSES[game_id] = cls
        if short_name(game_id) not in registered:
            pyspiel.register_game(cls.GAME_TYPE, cls)


if pyspiel is not None:
    _register_all()


def load(game_id: str, **params: Any) -> "pyspiel.Game":
    """The OpenSpiel game of `game_id` (our id) with the given parameters (players, rng_seed and the
    game's own; lists such as Wizard's hands as "10,9").

    :raises ImportError: OpenSpiel is not installed."""
    if pyspiel is None:
        raise ImportError("engines.openspiel needs OpenSpiel: pip install open_spiel")
    return pyspiel.load_game(short_name(game_id), {k: _to_openspiel_value(v) for k, v in params.items()})


def wrap(game: "pyspiel.Game", engine_state: GameState) -> TabletopState:
    """An OpenSpiel state of `game` holding (a position copy of) `engine_state`."""
    s = game.new_initial_state()
    s._engine.set(_position_copy(engine_state))
    return s
