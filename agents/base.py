"""The interface every agent implements, built-in or submitted."""


class UnknownAgent(ValueError):
    pass


class BadAgentParameter(ValueError):
    pass


class Agent:
    """A game-playing bot.

    Subclasses set `name`, declare their parameters with defaults in `PARAMS` (the defaults fix
    the types), and implement `act`. The arena calls `reset` once per match, then `act` whenever
    it is this agent's turn, with a state that holds only what this seat may know (in hidden-
    information games, a determinized copy). `act` returns one of `state.legal_actions()`.
    """

    name = "agent"
    PARAMS = {}

    def __init__(self, **params):
        unknown = sorted(set(params) - set(self.PARAMS))
        if unknown:
            valid = ", ".join(sorted(self.PARAMS)) or "none"
            raise BadAgentParameter(f"unknown parameter {unknown[0]!r} for agent {self.name}; valid: {valid}")
        self.params = {k: _coerce(self.name, k, params.get(k, d), d) for k, d in self.PARAMS.items()}
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
        if isinstance(default, int) and not isinstance(value, float):
            return int(value)
        if isinstance(default, (int, float)):
            return float(value)
        if default is None:
            return None if value in (None, "", "none") else float(value)
        return str(value)
    except (TypeError, ValueError):
        raise BadAgentParameter(f"{where} must be like {default!r}, not {value!r}") from None
