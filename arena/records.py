"""What a store holds of a run, as typed records: standings, matches and verdicts, and a comparison's
result. Each record is a frozen dataclass made from what the views already compute (the
leaderboard's `arena.reports.sections`, the CSV export's `arena.results.export.csv_rows`, `arena
compare --json`'s `arena.compare.compare.summary`), and its `to_record()` is that flat dict again:
plain str, int, float, bool or None values, so that `pandas.DataFrame(records.to_records())` or a
`csv.DictWriter` takes a list of them as it is.

The names a user needs are exported by `arena` itself (docs/python.md, docs/api.md).
"""
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

import engines
from arena.compare import compare
from arena.edge import plan_comparison  # noqa: F401 (exported by arena under this name)
from arena.reports import sections
from arena.results import export
from arena.store import Store
from arena.text import interval_fields, jsonable

Value = str | int | float | bool | None
"""What a record's field holds: a plain value, never a container."""

EXTRA = "metrics"   # a record's field of further flat fields (a game's own metrics), spread into its dict


@dataclass(frozen=True)
class Record:
    """A flat record: `to_record()` is a dict of plain values, keyed by the fields' names (a name
    with a trailing underscore, a Python keyword such as `return_`, without it)."""

    def to_record(self) -> dict[str, Value]:
        """The record as one flat dict, one key per field, in the fields' order."""
        out: dict[str, Value] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == EXTRA:
                out.update(value)
            else:
                out[f.name.rstrip("_")] = value
        return out

    @classmethod
    def from_record(cls: "type[R]", record: Mapping[str, Any]) -> "R":
        """The record of a flat dict (`to_record()`'s inverse); keys that are not fields go into
        the record's `metrics` (where it has them)."""
        names = {f.name.rstrip("_"): f.name for f in fields(cls) if f.name != EXTRA}
        values = {names[k]: v for k, v in record.items() if k in names}
        extra = {k: v for k, v in record.items() if k not in names}
        return cls(**values, **({EXTRA: extra} if extra else {}))


R = TypeVar("R", bound=Record)


class Records(tuple[R, ...]):
    """A tuple of records of one kind, in the order the arena shows them."""

    def to_records(self) -> list[dict[str, Value]]:
        """One flat dict per record (`Record.to_record`): `pandas.DataFrame(records.to_records())`."""
        return [r.to_record() for r in self]


@dataclass(frozen=True)
class Standing(Record):
    """One agent's row of one game's leaderboard, as `arena leaderboard` shows it (best first).

    Each interval is three fields: the mean, `_low` and `_high` (its 95% interval over deals), all
    None when the agent has no complete deal."""
    run_id: str
    game: str
    """The table's title: the game and the parameters that differ from its defaults."""
    game_id: str
    rank: int
    """1 + the number of agents surely above it; agents that no result separates share a rank."""
    label: str
    mu: float
    """TrueSkill mean, after the matches in match order."""
    sigma: float
    """TrueSkill standard deviation."""
    conservative: float
    """mu - 3 sigma."""
    games: int
    """Matches played."""
    wins: int
    """Matches won (first place alone)."""
    draws: int
    """Matches with a shared first place."""
    losses: int
    faults: int
    """Matches lost to its own fault."""
    mean_return: float
    duplicate_score: float | None
    """How much more it scored than its table on the same deals (None without a complete, fault-free
    duplicate group)."""
    deals: int
    """Deals its score share is over."""
    score_share: float | None
    """Its head-to-head score against every other agent's seats (1 a win, 1/2 a tie)."""
    score_share_low: float | None
    score_share_high: float | None
    placement: float | None
    """Its mean placement (1 is first)."""
    placement_low: float | None
    placement_high: float | None
    metrics: Mapping[str, Value] = field(default_factory=dict, hash=False)
    """The game's own metrics, each as three fields like the intervals above (Wizard's
    `bid_accuracy`, `bid_accuracy_low`, `bid_accuracy_high`); empty for most games."""


@dataclass(frozen=True)
class MatchSeat(Record):
    """One seat of one stored match: a row of `arena export --format csv` (docs/export.md)."""
    run_id: str
    match_id: int
    game_id: str
    game_params: str
    """The game's parameters as JSON text, keys sorted."""
    deal: int
    seed: int
    seat: int
    label: str
    agent_code: str
    """The digest of the agent's code ("" for a built-in agent)."""
    return_: float
    """The seat's return in the played-out game (`return` in the dict)."""
    placement: int
    """Its agent's placement by the fault rule (a faulty agent is last in its own reading)."""
    moves: int
    faults: str
    """The seat's faults, "KIND: MESSAGE" joined by "; " ("" for none)."""


@dataclass(frozen=True)
class Verdict(Record):
    """One game's verdict in a run: who is stronger, when the intervals allow it."""
    run_id: str
    game: str
    """The table's title: the game and the parameters that differ from its defaults."""
    game_id: str
    matches: int
    deals: int
    settled: bool | None
    """For a run played until settled, whether this game is; None for a run of a fixed size."""
    verdict: str | None
    """The verdict as every view writes it; None for a game with fewer than two agents."""


@dataclass(frozen=True)
class Comparison(Record):
    """What `arena compare` found: the candidate against the baseline, as `arena compare --json`
    says it (without its curves and histogram). `score`, `elo`, `nelo` and `points` are each three
    fields, the estimate, `_low` and `_high` (95%), None before the first deal."""
    run_id: str
    status: str
    """"finished", or "interrupted" (the same call resumes it)."""
    game_id: str
    candidate: str
    baseline: str
    model: str
    """"pentanomial" (two players) or "paired-difference" (more)."""
    decision: str | None
    """"H1" (the candidate is stronger), "H0" (it is not), "identical" (every deal played alike) or
    None (no decision)."""
    verdict: str
    deals: int
    """Deals the test used."""
    max_deals: int
    deals_played: int
    not_counted: int
    """Stored matches past the point where the test stopped."""
    llr: float
    """The sequential test's log-likelihood ratio after the deals used."""
    score: float | None
    score_low: float | None
    score_high: float | None
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    nelo: float | None
    nelo_low: float | None
    nelo_high: float | None
    points: float | None
    """The mean point difference per deal (the candidate's seat minus the baseline's)."""
    points_low: float | None
    points_high: float | None
    seeding: str
    identical_deals: int
    """Deals whose two matches played the same moves."""
    command: str
    """The command line that plays this comparison again."""

    @classmethod
    def from_summary(cls, summary: Mapping[str, Any]) -> "Comparison":
        """The record of `arena.compare.compare.summary`'s dict."""
        flat = jsonable(summary)   # plain numbers (numpy's among them)
        for name in ("score", "elo", "nelo", "points"):
            flat.update(interval_fields(name, flat[name]))
        return cls.from_record({f.name: flat[f.name] for f in fields(cls)})


def _check(store: Store, run_id: str, game_id: str | None = None) -> None:
    """A mistyped run or game is an error, not an empty table: StoreError (a ValueError) for a run
    the store does not hold, UnknownGame (a ValueError) for a game no engine plays."""
    store.run(run_id)
    if game_id is not None:
        engines.spec(game_id)


def standings(store: Store, run_id: str, game_id: str | None = None) -> Records[Standing]:
    """The run's leaderboards (or one game's), one record per agent and game, each game's best first.

    :raises ValueError: the store holds no such run, or no engine plays such a game.
    """
    _check(store, run_id, game_id)
    return Records(Standing.from_record(r) for r in sections.standings(store, run_id, game_id))


def matches(store: Store, run_id: str) -> Records[MatchSeat]:
    """The run's stored matches, one record per match and seat, in match order.

    :raises ValueError: the store holds no such run.
    """
    _check(store, run_id)
    return Records(MatchSeat.from_record(r) for r in export.csv_rows(store, run_id))


def verdicts(store: Store, run_id: str, game_id: str | None = None) -> Records[Verdict]:
    """The run's verdict per game and rule variant (or one game's).

    :raises ValueError: the store holds no such run, or no engine plays such a game.
    """
    _check(store, run_id, game_id)
    return Records(Verdict(run_id, s["title"], s["game_id"], s["matches"], s["deals"], s["settled"], s["verdict"])
                   for s in sections.run_sections(store, run_id, game_id)[0])


def play_comparison(store: Store, plan: compare.ComparePlan, **options: Any) -> Comparison:
    """Plays the comparison `plan_comparison` planned until its test decides or it reaches its most
    deals, and returns what it found. `options` are `arena.compare.compare.play`'s (`jobs`,
    `backend`, `address`, `on_batch`, `on_match`). After Ctrl-C its status is "interrupted", and the
    same two calls again resume it.

    :raises ValueError: a bad backend or address.
    :raises arena.tournament.coordinator.MatchFailed: a match raised inside an engine (the run is
        marked interrupted).
    """
    status, outcome = compare.play(store, plan, **options)
    return Comparison.from_summary(compare.summary(plan, outcome, status))
