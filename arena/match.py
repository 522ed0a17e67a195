"""The values that cross process boundaries: what to play (MatchSpec) and what happened (MatchResult).

Both are small and picklable, so the same code runs on a local process pool and on a Dask cluster.
"""
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AgentSpec:
    label: str            # the name shown on leaderboards (unique within a tournament)
    source: str           # "ismcts" (built-in), "./bot.py:MyBot", "pkg.mod:Class", or an entry-point name
    params: tuple = ()    # ((name, value), ...) as given by the user
    kind: str = "builtin"  # builtin (trusted, runs in the worker) | file | module | entrypoint (own process)
    target: str = ""      # what to load: the built-in name, "/abs/path/bot.py:Class" or "module:Class"
    code: str = ""        # submitted agents: digest of the code staged at the start of the run

    @property
    def submitted(self) -> bool:
        return self.kind != "builtin"

    def as_dict(self) -> dict[str, Any]:
        out = {"label": self.label, "source": self.source, "params": dict(self.params),
               "kind": self.kind, "target": self.target or self.source}
        if self.code:
            out["code"] = self.code
        return out


SANDBOXES = ("bwrap", "none")
# name -> (default, unit, what it limits); per bot, per match.
LIMITS = {
    "memory": (2048, "MiB", "address space of each of its processes, and the memory of all of them together"),
    "cpu": (3600, "s", "CPU time in one match"),
    "processes": (32, "", "processes and threads"),
    "file_size": (16, "MiB", "size of one file it writes"),
    "disk": (256, "MiB", "size of each of its writable file systems, /tmp and /dev/shm"),
    "open_files": (64, "", "open file descriptors"),
}


@dataclass(frozen=True)
class SandboxPolicy:
    """How submitted agents are confined: under bubblewrap ("bwrap") or not at all ("none"), with
    resource limits per bot process (LIMITS: names, units and defaults)."""
    mode: str = "bwrap"
    limits: tuple = ()    # ((name, value), ...), every limit

    @classmethod
    def with_defaults(cls, mode: str = "bwrap", limits: Mapping[str, int] | None = None) -> "SandboxPolicy":
        """The policy of `mode` with `limits` (checked values), every limit not given at its default."""
        values = {name: default for name, (default, _, _) in LIMITS.items()} | dict(limits or {})
        return cls(mode, tuple(sorted(values.items())))

    def limits_dict(self) -> dict[str, Any]:
        return dict(self.limits)


@dataclass(frozen=True)
class TimeControl:
    """A clock per bot, as in chess: `base` seconds for the match, `increment` seconds added after
    each of its moves; it runs only while the bot moves (arena.referee.Clock)."""
    base: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """"BASE+INC" (or "BASE") in seconds, BASE more than 0, INC 0 or more; ValueError otherwise."""
        base, _, increment = str(text).strip().partition("+")
        try:
            control = cls(float(base), float(increment) if increment else 0.0)
        except ValueError:
            control = None
        if (control is None or not math.isfinite(control.base + control.increment) or control.base <= 0
                or control.increment < 0):
            raise ValueError(f"--time-control must be BASE+INC in seconds, BASE more than 0 and INC 0 or "
                             f"more (e.g. 60+1), not {text!r}")
        return control

    def __str__(self) -> str:
        return f"{self.base:g}+{self.increment:g}"

    def to_json(self) -> dict[str, float]:
        return {"base": self.base, "increment": self.increment}


@dataclass(frozen=True)
class MatchSpec:
    run_id: str
    match_id: int         # position in the schedule: ratings are replayed in this order
    game_id: str
    game_params: tuple    # ((name, value), ...) complete, players included
    seed: int             # the deal: every match of one duplicate group shares it
    seats: tuple          # AgentSpec per seat
    deal: int = 0         # duplicate group id: the same deal with the agents rotated through the seats
    time_limit: float = 0.0   # seconds per move, 0 = none
    sandbox: SandboxPolicy | None = None   # for submitted agents; None = the default policy
    time_control: TimeControl | None = None   # a clock per seat; None = none
    seeding: str = "coupled"   # arena.seeds.SEEDINGS: what agents' and views' seeds derive from

    def params_dict(self) -> dict[str, Any]:
        return dict(self.game_params)


@dataclass
class Fault:
    seat: int
    label: str
    kind: str             # "exception", "illegal", "timeout", "crash"
    message: str
    move: int = -1        # the move number at which it happened (-1: while starting or resetting)


@dataclass
class MatchResult:
    match_id: int
    returns: list         # final score per seat
    placements: list      # 1 = best per seat, as the played-out game placed them (the fault rule: arena.results.outcome)
    actions: list         # every action in order, for replay
    faults: list = field(default_factory=list)    # Fault values
    metrics: dict = field(default_factory=dict)   # per-game metrics, e.g. {"bid_accuracy": [...]}
    duration: float = 0.0
    output: list = field(default_factory=list)    # what submitted agents printed: {seat, label, text, cut}
