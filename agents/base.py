"""The interface every agent implements, built-in or submitted."""
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from engines.params import coerce

if TYPE_CHECKING:
    from engines.core import GameState


# Limits shared by the built-in agents (see LIMITS below)
SEED_LIMITS = (0, 2**64 - 1)   # an agent's own `seed` parameter: any 64-bit seed
TIME_LIMITS = (0.0, 3600.0)    # a `time` budget: seconds per move, 0 for none
WEYL = 0x9E3779B97F4A7C15      # the golden-ratio increment of a Weyl sequence (as arena.seeds.WEYL)


def decision_seed(seed: int, decision: int) -> int:
    """The seed of decision number `decision` (0, 1, ... since `reset`) of an agent reset with `seed`:
    a Weyl step of 64 bits (agents.playloop repeats it in C). An agent that draws its random numbers
    for each decision afresh from it plays decision k+1 the same however many numbers decision k drew,
    so two matches that agree up to a decision stay coupled after it (see docs/reading-results.md)."""
    return (seed + (decision + 1) * WEYL) & 0xFFFFFFFFFFFFFFFF


class UnknownAgent(ValueError):
    pass


class BadAgentParameter(ValueError):
    pass


class ClockReading(NamedTuple):
    """An agent's clock under a time control (`arena run --time-control BASE+INC`), as the arena
    sets it in `Agent.clock` before each `act`: seconds left on it, this move included (a move
    that takes them all is a timeout), and seconds added after each move."""
    remaining: float
    increment: float


class Agent:
    """A game-playing bot.

    Subclasses set `name`, declare their parameters with defaults in `PARAMS` (the defaults fix
    the types), the inclusive range of each numeric parameter in `LIMITS` and the allowed values
    of each string parameter in `CHOICES`, and implement `act`. The constructor refuses, with
    BadAgentParameter, a float that is not finite, any value out of its range or choices, and a
    parameter of `NEEDS` given without the setting it needs.
    The arena calls `reset` once per match, then `act` whenever it is this agent's turn, with a
    state that holds only what this seat may know (in hidden-information games, a determinized
    copy). `act` returns one of `state.legal_actions()`. Under a time control the arena sets
    `clock` (a ClockReading) before each `act`; it is None otherwise. An agent that uses random
    numbers draws them in each `act` from a generator seeded with `next_seed()`, called once at its
    start: then one decision that draws more numbers leaves the next decisions' numbers unchanged.
    """

    name = "agent"
    PARAMS: dict[str, Any] = {}                    # parameter -> default (the default fixes the type)
    LIMITS: dict[str, tuple[float, float]] = {}    # numeric parameter -> (lowest, highest), inclusive
    CHOICES: dict[str, tuple[str, ...]] = {}       # string parameter -> allowed values
    # Parameters that name code of the user's to load (openspiel_bot's factory): that code runs in
    # the arena's own process, so the arena allows them only where nothing is sandboxed.
    CODE_PARAMS: tuple[str, ...] = ()
    # Parameters that name a data file the agent reads (pimc's bid_model), each with its values that
    # name none (none at all, or the model the project ships), which a server may let a browser ask
    # for: any text, no CHOICES; the agent checks the file when it is made, and that the file fits
    # the game when it is reset (`unfit`).
    FILE_PARAMS: dict[str, tuple[str, ...]] = {}
    # Parameters that only mean something with another one set (ismcts's worlds: inference=learned):
    # given without it, they are refused rather than ignored.
    NEEDS: dict[str, tuple[str, Any]] = {}
    clock: ClockReading | None = None   # set by the arena before each `act` under a time control

    def __init__(self, **params: Any) -> None:
        """:raises BadAgentParameter: an unknown parameter, or a value of the wrong type, not finite,
        out of its LIMITS or not among its CHOICES (one line naming the agent and parameter)."""
        unknown = sorted(set(params) - set(self.PARAMS))
        if unknown:
            valid = ", ".join(sorted(self.PARAMS)) or "none"
            raise BadAgentParameter(f"unknown parameter {unknown[0]!r} for agent {self.name}; valid: {valid}")
        self.params = {k: coerce(params.get(k, d), d, f"parameter {k!r} of agent {self.name}", BadAgentParameter,
                                 self.CHOICES.get(k), self.LIMITS.get(k)) for k, d in self.PARAMS.items()}
        for k, (other, value) in self.NEEDS.items():
            if k in params and self.params[other] != value:
                raise BadAgentParameter(f"parameter {k!r} of agent {self.name} is for {other}={value}")
        self.seat = 0
        self.seed = 0
        self.decisions = 0   # `act` calls since `reset` that asked for `next_seed`

    @classmethod
    def missing(cls) -> str | None:
        """What this agent needs that is not installed here, and how to install it (it then plays no
        game), or None."""
        return None

    @classmethod
    def cannot_play(cls, game_id: str, players: int) -> str | None:
        """Why this agent cannot play `game_id` with `players` players, or None when it can.
        The arena leaves an agent out of the games it cannot play."""
        return None

    @classmethod
    def files_read(cls, params: Mapping[str, Any]) -> dict[str, str]:
        """The files these parameters name for the agent to read (FILE_PARAMS), by parameter."""
        return {p: str(params[p]) for p, no_file in cls.FILE_PARAMS.items()
                if p in params and str(params[p]) not in no_file}

    @classmethod
    def unfit(cls, params: Mapping[str, Any], game_id: str, game_params: Mapping[str, Any]) -> str | None:
        """Why this agent, made with `params`, cannot play `game_id` with these complete parameters
        because a file it reads (FILE_PARAMS: a model) was built for another game or other rules, or
        None. The arena asks before a run starts, so that such an agent is refused in one line
        instead of faulting in every match: the agent is made and reset, which checks its files."""
        if not cls.FILE_PARAMS:
            return None
        try:
            cls(**params).reset(game_id, dict(game_params), 0, 0)
        except BadAgentParameter as e:
            return str(e)
        return None

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        """Called once before each match."""
        self.game_id, self.game_params, self.seat, self.seed = game_id, game_params, seat, seed
        self.decisions = 0

    def next_seed(self) -> int:
        """The seed of this decision (`decision_seed` of the match's seed and the number of decisions
        since `reset`); call it once at the start of `act`."""
        seed = decision_seed(self.seed, self.decisions)
        self.decisions += 1
        return seed

    def act(self, state: "GameState") -> int:
        """One of `state.legal_actions()`; `state` is this seat's view, a copy the agent may modify."""
        raise NotImplementedError
