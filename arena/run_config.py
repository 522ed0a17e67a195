"""What a run is: one typed, frozen value from the command line to the store and back.

A `TournamentConfig` holds everything that determines a run's results and nothing else (not --jobs,
not the backend, not the deal key, which the store keeps apart). Its JSON form (`to_json`) is what
the store keeps, and `from_json` reads it back into an equal value, so a resumed run has the same
config, schedule and run id as the run that started it. The run id is a digest of the JSON form.

An `arena compare` run is a tournament config too: it has no fixed number of deals (its sequential
test stops it) and carries the comparison's settings. A game played in `arena serve` is stored as a
run of its own with a `PlayConfig`. `read` reads either back from the store's JSON form; this
module sits below the store (docs/architecture.md), which gives its runs as these values.
"""
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from arena import defaults
from arena.match import AgentSpec, SandboxPolicy, TimeControl
from arena.seeds import SEEDINGS
from arena.text import book_text, jsonable

# The stopping rule of a run played until settled (arena.results.settle applies it).
FIRST_LOOK = 8         # fewer cannot settle even a clean sweep (two agents, the default cap)
GROWTH = 1.5           # each look after about half as many deals again as the one before
LEVEL = 0.05           # a score within 0.50 +- LEVEL (about 35 Elo) counts as level
ALPHA = 0.05           # a settled verdict is wrong at most this often
DEFAULT_MAX_DEALS = defaults.RUN_MAX_DEALS


@dataclass(frozen=True)
class StoppingRule:
    """When a run without --games stops each game (arena.results.settle): at the looks, or at the cap."""
    max_deals: int = DEFAULT_MAX_DEALS
    alpha: float = ALPHA
    level: float = LEVEL

    def looks(self) -> list:
        """The deal counts at which a game is looked at, the cap last."""
        out, n = [], FIRST_LOOK
        while n < self.max_deals:
            out.append(n)
            n = math.ceil(n * GROWTH)
        return out + [self.max_deals]

    def next_look(self, deals: int) -> int | None:
        """The first look after `deals` deals, or None past the cap."""
        return next((n for n in self.looks() if n > deals), None)

    def confidence(self, agents: int) -> float:
        """The confidence of each interval for a game of `agents` agents (Bonferroni over looks and pairs)."""
        pairs = max(1, agents * (agents - 1) // 2)
        return 1 - self.alpha / (len(self.looks()) * pairs)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GameSetting:
    """One game of a tournament, with its complete parameters (players included) as plain JSON values."""
    game_id: str
    params: Mapping[str, Any]

    @property
    def players(self) -> int:
        return int(self.params["players"])

    def to_json(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "params": dict(self.params)}


@dataclass(frozen=True)
class CompareSettings:
    """What an `arena compare` run decides: the candidate against the baseline (before a field of
    other agents in games of three or more), by a sequential test, within `max_deals`."""
    candidate: str
    baseline: str
    field: tuple[str, ...]
    sprt: Mapping[str, float]      # elo0, elo1, alpha, beta
    max_deals: int

    def to_json(self) -> dict[str, Any]:
        return {"candidate": self.candidate, "baseline": self.baseline, "field": list(self.field),
                "sprt": dict(self.sprt), "max_deals": self.max_deals}


@dataclass(frozen=True)
class TournamentConfig:
    games: tuple[GameSetting, ...]
    agents: tuple[AgentSpec, ...]       # submitted agents carry the digest of their staged code
    sandbox: SandboxPolicy
    seed: int
    time_limit: float                   # seconds per move for submitted agents
    deals: int | None = None         # deals per line-up; None in a comparison
    # Built-in agents' default parameters: a new default budget makes a new run.
    agent_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # A digest of the engines' and built-in agents' code: changed rules make a new run ("" = not recorded).
    code: str = ""
    compare: CompareSettings | None = None
    kind: str | None = None          # what started it besides `arena run` (e.g. "analyze"); None: a tournament
    # A clock per bot (seconds a match + per move); kept in the JSON form only when set, so a run
    # without one keeps its run id.
    time_control: TimeControl | None = None
    # A run played until each game's verdict is settled (`arena run` without --games), `deals` its cap.
    stop: StoppingRule | None = None
    # The deal book whose deals the run plays (arena.tournament.books): {"name", "digest"}.
    book: Mapping[str, str] | None = None
    # What agents' and views' seeds derive from (arena.seeds.SEEDINGS). Runs stored before coupling
    # have no "seeding" in their JSON form and are independent; only a coupled run writes it, so an
    # independent run keeps its run id.
    seeding: str = "independent"

    @classmethod
    def create(cls, games: Sequence[GameSetting], agents: Sequence[AgentSpec], deals: int | None,
               seed: int, time_limit: float, sandbox: SandboxPolicy, agent_defaults: Mapping[str, Any],
               code: str, time_control: TimeControl | None = None,
               stop: StoppingRule | None = None, seeding: str = "coupled") -> "TournamentConfig":
        """A config from the checked pieces of a command line (a new run: coupled seeds unless
        `seeding` says otherwise). Parameters are kept as plain JSON values (a tuple as a list), as
        the store gives them back."""
        return cls(games=tuple(GameSetting(g.game_id, jsonable(g.params)) for g in games),
                   agents=tuple(_agent(jsonable(a.as_dict())) for a in agents),
                   sandbox=sandbox, seed=int(seed), time_limit=float(time_limit), deals=deals,
                   agent_defaults=jsonable(agent_defaults), code=code, time_control=time_control, stop=stop,
                   seeding=seeding)

    @property
    def run_id(self) -> str:
        """The run's id: the game (or "all"), then a digest of the config ("cmp-" before a comparison's)."""
        digest = hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:10]
        run_id = f"{self.games[0].game_id if len(self.games) == 1 else 'all'}-{digest}"
        return "cmp-" + run_id if self.compare else run_id

    def without_deals(self) -> "TournamentConfig":
        """The config but for its number of deals (and a stopping rule's cap): runs that differ only
        there share their first deals."""
        return replace(self, deals=None, stop=self.stop and replace(self.stop, max_deals=0))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "games": [g.to_json() for g in self.games],
            "agents": [a.as_dict() for a in self.agents],
            "sandbox": {"mode": self.sandbox.mode, "limits": self.sandbox.limits_dict()},
            "agent_defaults": {k: dict(v) for k, v in self.agent_defaults.items()},
            "seed": self.seed,
            "time_limit": self.time_limit,
            "code": self.code,
        }
        if self.deals is not None:
            out["deals"] = self.deals
        if self.compare is not None:
            out["compare"] = self.compare.to_json()
        if self.kind is not None:
            out["kind"] = self.kind
        if self.time_control is not None:
            out["time_control"] = self.time_control.to_json()
        if self.stop is not None:
            out["stop"] = self.stop.as_dict()
        if self.book is not None:
            out["book"] = dict(self.book)
        if self.seeding != "independent":
            out["seeding"] = self.seeding
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "TournamentConfig":
        """The config a store keeps, as a value; ValueError when it is not a tournament's (a game
        played in `arena serve`) or is not readable. Runs stored before the sandbox could be chosen
        (or before a limit existed) used today's default policy (limits)."""
        if data.get("kind") == "play":
            raise ValueError("this run is a game played in `arena serve`, not a tournament")
        if data.get("seeding", "independent") not in SEEDINGS:
            raise ValueError(f"the stored run's seeding {data.get('seeding')!r} is none of {', '.join(SEEDINGS)}")
        try:
            sandbox = data.get("sandbox", {})
            compare = data.get("compare")
            clock = data.get("time_control")
            return cls(games=tuple(GameSetting(g["game_id"], g["params"]) for g in data["games"]),
                       agents=tuple(_agent(a) for a in data["agents"]),
                       sandbox=SandboxPolicy.with_defaults(sandbox.get("mode", "bwrap"), sandbox.get("limits")),
                       seed=data["seed"], time_limit=data["time_limit"], deals=data.get("deals"),
                       agent_defaults=data.get("agent_defaults", {}), code=data.get("code", ""),
                       compare=CompareSettings(compare["candidate"], compare["baseline"], tuple(compare["field"]),
                                               compare["sprt"], compare["max_deals"]) if compare else None,
                       kind=data.get("kind"),
                       time_control=TimeControl(clock["base"], clock["increment"]) if clock else None,
                       stop=StoppingRule(**data["stop"]) if data.get("stop") else None,
                       book=data.get("book"), seeding=data.get("seeding", "independent"))
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"the stored run's configuration cannot be read ({type(e).__name__}: {e})") from None


def _agent(data: Mapping[str, Any]) -> AgentSpec:
    return AgentSpec(data["label"], data["source"], tuple(data["params"].items()), data["kind"], data["target"],
                     data.get("code", ""))


@dataclass(frozen=True)
class PlayConfig:
    """A game played in `arena serve` against bots, stored as a run of one match: no tournament."""
    games: tuple[GameSetting, ...]      # the one game
    agents: tuple[AgentSpec, ...]       # one per seat, the person's (human) included
    human_seat: int
    seed: int
    code: str = ""
    kind = "play"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "games": [g.to_json() for g in self.games],
                "agents": [a.as_dict() for a in self.agents], "human_seat": self.human_seat, "seed": self.seed,
                "code": self.code}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "PlayConfig":
        try:
            return cls(tuple(GameSetting(g["game_id"], g["params"]) for g in data["games"]),
                       tuple(_agent(a) for a in data["agents"]), data["human_seat"], data["seed"],
                       data.get("code", ""))
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"the stored game's configuration cannot be read ({type(e).__name__}: {e})") from None


RunConfig = TournamentConfig | PlayConfig


def read(data: Mapping[str, Any]) -> RunConfig:
    """A run's config from its JSON form (the store's, an export's): a PlayConfig for a game played
    in `arena serve`, else a TournamentConfig; ValueError when it cannot be read."""
    if not isinstance(data, Mapping):
        raise ValueError("the stored run's configuration is not a JSON object")
    return PlayConfig.from_json(data) if data.get("kind") == "play" else TournamentConfig.from_json(data)


def time_note(config: TournamentConfig | None) -> str | None:
    """The time rules of a run under a time control, one line (None without one)."""
    clock = config and config.time_control
    if not config or not clock:
        return None
    return (f"time control {clock.base:g}+{clock.increment:g}: each bot's clock has {clock.base:g} s a "
            f"match and gains {clock.increment:g} s a move; a submitted agent's move has at most "
            f"{config.time_limit:g} s (--time-limit)")


def book_note(config: TournamentConfig | None) -> str | None:
    """Which deal book a run played, one line (None without one)."""
    return f"the deals of deal book {book_text(config.book)}" if config and config.book else None
