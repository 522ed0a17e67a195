"""The interface every agent implements, built-in or submitted."""
from typing import Any
import math


# Limits shared by the built-in agents (see LIMITS below)
SEED_LIMITS = (0, 2**64 - 1)   # an agent's own `seed` parameter: any 64-bit seed
TIME_LIMITS = (0.0, 3600.0)    # a `time` budget: seconds per move, 0 for none


class UnknownAgent(ValueError):
    pass


class BadAgentParameter(ValueError):
    pass


class Agent:
    """A game-playing bot.

    Subclasses set `name`, declare their parameters with defaults in `PARAMS` (the defaults fix
    the types), the inclusive range of each numeric parameter in `LIMITS` and the allowed values
    of each string parameter in `CHOICES`, and implement `act`. The constructor refuses, with
    BadAgentParameter, a float that is not finite and any value out of its range or choices.
    The arena calls `reset` once per match, then `act` whenever it is this agent's turn, with a
    state that holds only what this seat may know (in hidden-information games, a determinized
    copy). `act` returns one of `state.legal_actions()`.
    """

    name = "agent"
    PARAMS: dict[str, Any] = {}                    # parameter -> default (the default fixes the type)
    LIMITS: dict[str, tuple[float, float]] = {}    # numeric parameter -> (lowest, highest), inclusive
    CHOICES: dict[str, tuple[str, ...]] = {}       # string parameter -> allowed values

    def __init__(self, **params):
        unknown = sorted(set(params) - set(self.PARAMS))
        if unknown:
            valid = ", ".join(sorted(self.PARAMS)) or "none"
            raise BadAgentParameter(f"unknown parameter {unknown[0]!r} for agent {self.name}; valid: {valid}")
        self.params = {k: _coerce(self.name, k, params.get(k, d), d) for k, d in self.PARAMS.items()}
        for k, v in self.params.items():
            _check(self.name, k, v, self.LIMITS.get(k), self.CHOICES.get(k))
        self.seat = 0
        self.seed = 0

    @classmethod
    def cannot_play(cls, game_id, players):
        """Why this agent cannot play `game_id` with `players` players, or None when it can.
        The arena leaves an agent out of the games it cannot play."""
        return None

    def reset(self, game_id, game_params, seat, seed):
        """Called once before each match."""
        self.game_id, self.game_params, self.seat, self.seed = game_id, game_params, seat, seed

    def act(self, state):
        raise NotImplementedError


def _coerce(agent, name, value, default):
    where = f"parameter {name!r} of agent {agent}"
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError
                return value.lower() in ("true", "1", "yes")
            return bool(value)
        if isinstance(default, int):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError
            return int(value)
        if isinstance(default, (int, float)):
            return _float(value)
        if default is None:
            return None if value in (None, "", "none") else _float(value)
        return str(value)
    except (TypeError, ValueError):
        raise BadAgentParameter(f"{where} must be like {default!r}, not {value!r}") from None


def _float(value):
    """float(value), with integers too large for a float as infinities (refused by `_check`)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _check(agent, name, value, limits, choices):
    """Refuses a parameter value that is not finite, outside `limits` or not one of `choices`."""
    where = f"parameter {name!r} of agent {agent}"
    if isinstance(value, float) and not math.isfinite(value) or (
            limits and isinstance(value, (int, float)) and not limits[0] <= value <= limits[1]):
        raise BadAgentParameter(f"{where} must be {_range(limits)}, not {value!r}")
    if choices and value not in choices:
        raise BadAgentParameter(f"{where} must be one of {', '.join(choices)}, not {value!r}")


def _range(limits):
    if not limits:
        return "a finite number"
    return "from {} to {}".format(*(f"{x:,}" if isinstance(x, int) else f"{x:,g}" for x in limits))
