"""A tournament from a description to stored results: plan it (new or resumed), then play it.

    import arena
    store = arena.Store("results/arena.sqlite")
    plan = arena.plan(store, game_id="insert", agents="ismcts, greedy", deals=10)   # its text read by arena.edge
    status = arena.play(store, plan, jobs=2)      # "finished" or "interrupted"

(docs/python.md shows this session whole: the standings and matches as records, pandas, compare.)
`arena.plan` reads its options' text (arena.edge) and calls `plan` here with the typed values.

Without `deals`, the run plays each game until its verdict is settled (arena.results.settle): deal
by deal up to the next look, then it looks, up to the cap `max_deals`. The run's schedule and
identity are those of its cap, so how far it got never changes which run it is; a kill -9 and
the same command again finish the deals of the pending look and take the same looks.

Everything is checked before the run is created (games, parameters, agents, limits, the sandbox),
so a tournament that cannot be played never leaves a run behind. The CLI (`arena run`) is a thin
layer over these two calls.
"""
import collections
import concurrent.futures as cf
import contextlib
import itertools
import math
import os
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Optional

from arena import agent_list, defaults, seeds
from arena.match import AgentSpec, MatchResult, MatchSpec, SandboxPolicy, TimeControl
from arena.results.settle import Look, looks
from arena.results.tallies import Checkpoint
from arena.run_config import DEFAULT_MAX_DEALS, GameSetting, StoppingRule, TournamentConfig
from arena.sandbox import DEFAULT_POLICY, POOL, check_available, describe, stage, validate_all
from arena.store import Store, StoreError
from arena.tournament import books
from arena.tournament import schedule as sched
from arena.tournament.backends import SerialExecutor, check_backend, default_jobs, executor
from arena.tournament.runner import play_matches

DEFAULT_TIME_LIMIT = defaults.TIME_LIMIT
MAX_TIME_LIMIT = 3600.0
TASK_SECONDS = 0.05           # the work sent to a worker at once, when matches are quick


class MatchFailed(Exception):
    """A match raised inside the arena or an engine (agents' errors are faults, not this)."""


@dataclass
class Plan:
    """A run ready to play (`plan` makes it, `play` plays it): its config and deal key, its schedule,
    the matches it has left and the store it is planned in."""
    run_id: str
    config: TournamentConfig
    deal_key: str
    schedule: sched.Schedule    # every match of the run, made as it is read
    todo: Sequence[MatchSpec]   # the matches not stored yet
    stored: int                 # matches already stored
    human: bool                 # a person plays: one match at a time, in this process
    extends: Optional["StoredRun"] = None   # the stored run with fewer deals whose matches this one took
    taken: int = 0              # matches taken from it by this plan
    store: Store | None = field(default=None, repr=False, compare=False)   # where it is stored

    def sit_outs(self) -> list[str]:
        return sit_outs(self.config)

    @property
    def rule(self) -> StoppingRule | None:
        """The stopping rule of a run played until settled; None for a run of fixed size (--games)."""
        return self.config.stop


@dataclass(frozen=True)
class StoredRun:
    """A tournament as the store keeps it: its id, config and deal key."""
    run_id: str
    config: TournamentConfig
    deal_key: str


def check_time_limit(value: float) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT):
        raise ValueError(f"--time-limit must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds, not {value}")
    return float(value)


def plan(store: "Store | str", *, games: Sequence[GameSetting] | None = None,
         agents: Sequence[AgentSpec] | None = None, deals: int | None = None, max_deals: int | None = None,
         seed: int = 0, time_limit: float = DEFAULT_TIME_LIMIT, sandbox: SandboxPolicy = DEFAULT_POLICY,
         deal_key: str | None = None, resume: str | None = None, backend: str = "local",
         address: str | None = None, kind: str | None = None, time_control: TimeControl | None = None,
         book: books.Book | None = None, seeding: str | None = None) -> Plan:
    """The run to play: `resume` (a run id) continues a stored run; otherwise the arguments describe
    a new one (the same description again on the same store is the same run), started by `kind`
    (e.g. "analyze"; None: a tournament of `arena run`), which its config keeps: `deals` per
    line-up, or without it each game until its verdict is settled, at most `max_deals` deals. Raises ValueError (one
    line) for anything that cannot be played; creates the run in the store only when all is well.
    `store` is a Store, or the path of one, opened (and made, when there is none) only after a new
    run's checks: a refused run leaves no store behind; `Plan.store` is the store either way.

    The arguments are typed values, as `arena.edge` reads them from the command line: `games` the
    GameSettings to play (None: every registered game with its defaults, or the deal book's game),
    `agents` the AgentSpecs (None: greedy and random), `sandbox` the SandboxPolicy, `time_control`
    a TimeControl or None, `deal_key` 32 hexadecimal digits or None. `book` is a deal book
    (arena.tournament.books) whose deals the run plays: all its deals or the first `deals`. `seeding`
    (arena.seeds.SEEDINGS) is a new run's, "coupled" when None; a resumed run keeps its own.

    :raises ValueError: games other than the deal book's, a time limit or a schedule out of range,
        a submitted agent that does not load, no sandbox available, a stored run with other deals
        than `deal_key`, or a resumed run given another seeding than its own.
    :raises StoreError: another process plays this run (a ValueError too).
    """
    wanted_key = deal_key
    check_backend(backend, address)
    if book is not None:
        if resume:
            raise ValueError("--deals starts a run: a resumed run keeps its deals (leave --deals out)")
        if max_deals is not None:
            raise ValueError("--max-deals is for a run played until settled: a deal book's run plays its deals "
                             "(--games N: the first N)")
        books.check_games(book, games)
        wanted_key = book.key
        deals = books.take(book, deals, "--games")
    config = None
    if not resume:
        time_limit = check_time_limit(time_limit)
        if games is None:
            games = books.games(book, None, None, ()) if book else sched.resolve_games(None, None, ())
        if agents is None:
            agents = agent_list.default_agents()
        agent_specs = [stage(a) for a in agents]
        rule = None
        if deals is None:
            rule = StoppingRule(DEFAULT_MAX_DEALS if max_deals is None else max_deals)
            deals = rule.max_deals
        elif max_deals is not None:
            raise ValueError("--max-deals caps a run played until settled: give it or --games, not both")
        config = replace(sched.tournament_config(games, agent_specs, deals, seed, time_limit, sandbox, time_control,
                                                 rule, seeding or "coupled"),
                         kind=kind, book=book.ref() if book else None)
        sched.check_size(config)
        validate_all(agent_specs, sandbox)
        sched.check_fit(agent_specs, config.games)
    if resume and not isinstance(store, Store) and not os.path.exists(store):
        raise StoreError(f"no run {resume!r} in {store}: there is no store there")
    with opened(store) as planned_in:
        return _stored_plan(planned_in, config, resume, seeding, wanted_key, backend)


def _stored_plan(store: Store, config: TournamentConfig | None, resume: str | None, seeding: str | None,
                 wanted_key: str | None, backend: str) -> Plan:
    """`plan`'s part that reads and writes the store: a resumed run's own config (`config` None),
    then the run stored, taking the matches of a smaller run it extends."""
    if resume:
        check_not_imported(store, resume)
        run_id = resume
        stored = store.run(resume)
        if stored.kind == "play":
            raise ValueError(f"run {resume} is a game played in `arena serve`, with nothing left to play")
        config = stored.tournament_config()
        if config.compare:
            raise ValueError(f"run {resume} is an `arena compare` run: the same `arena compare` command resumes it")
        check_seeding(resume, config, seeding)
        if config.code and config.code != sched.code_digest():
            raise ValueError(f"the engines or built-in agents changed since run {resume} started; "
                             f"its remaining matches would not be comparable: start a new run")
        if any(a.submitted for a in config.agents):
            check_available(config.sandbox)
        for a in config.agents:
            stage(a)   # the copy made when the run started, or the unchanged original
    else:
        assert config is not None
        run_id = config.run_id
    check_not_imported(store, run_id)
    extends = None if resume else smaller_run(store, config, wanted_key)
    if extends and store.deal_key(run_id) not in (None, extends.deal_key):
        extends = None   # this run was started on other deals
    old = sched.schedule_from_config(extends.run_id, extends.config, extends.deal_key) if extends else sched.Schedule([])
    if extends and not dealt_as_scheduled(store, extends.run_id, old):
        extends = None   # imported without its deal key: its deals cannot be continued
    if store.deal_key(run_id) == "" and not dealt_as_scheduled(store, run_id,
                                                                sched.schedule_from_config(run_id, config, "")):
        raise ValueError(f"run {run_id} in {store.path} was imported without its deal key (`arena export` without "
                         f"--with-deal-key): its remaining deals cannot be played; import an export with the key, "
                         f"or use another store")
    key = deal_key_for(store, run_id, wanted_key or (extends.deal_key if extends else None))
    human = any(a.source == "human" for a in config.agents)
    if human and backend != "local":
        raise ValueError("the human agent plays on this terminal: use the local backend")
    schedule = sched.schedule_from_config(run_id, config, key)
    if not schedule:
        raise ValueError("no game has two agents that can play it: " + "; ".join(sit_outs(config)))
    store.claim(run_id)
    store.create_run(run_id, config, len(schedule), key)
    taken = 0
    if extends:
        taken = store.copy_matches(extends.run_id, run_id, shared_matches(old, schedule))
    done = store.finished_ids(run_id)
    out = Plan(run_id, config, key, schedule, [], len(done), human, extends, taken, store)
    out.todo = next_batch(store, out, done) if out.rule else Unplayed(schedule, done)
    return out


@contextlib.contextmanager
def opened(store: "Store | str") -> Iterator[Store]:
    """`store`, or the Store at the path `store` (made when there is none), for a plan to store its
    run in once the run passed its checks; one it opened is closed again when the plan fails."""
    made = store if isinstance(store, Store) else Store(store)
    try:
        yield made
    except BaseException:
        if made is not store:
            made.close()
        raise


def check_seeding(run_id: str, config: TournamentConfig, seeding: str | None) -> None:
    """ValueError when a resumed run is given another seeding than its own (None: its own)."""
    if seeding is not None and seeding != config.seeding:
        raise ValueError(f"run {run_id} was played with {config.seeding} seeding, not {seeding}: a run resumes "
                         f"with its own (leave --seeding out)")


class Unplayed(Sequence[MatchSpec]):
    """The matches of `schedule` whose ids are not in `done` (all stored matches of its run), in
    order, read from the schedule as they are iterated; equal to the list of them."""

    def __init__(self, schedule: Sequence[MatchSpec], done: set[int]) -> None:
        self.schedule, self.done = schedule, done

    def __len__(self) -> int:
        return len(self.schedule) - len(self.done)

    def __iter__(self) -> Iterator[MatchSpec]:
        return (s for s in self.schedule if s.match_id not in self.done)

    def __getitem__(self, index):  # type: ignore[override]
        return list(self)[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and all(a == b for a, b in zip(self, other))

    __hash__ = None   # type: ignore[assignment]


def dealt_as_scheduled(store: Store, run_id: str, schedule: Sequence[MatchSpec]) -> bool:
    """Whether the run's stored matches were dealt by `schedule` (its deal key): one stored match
    tells, every deal of a run coming from the same key. Not so for a run imported without its key."""
    stored = store.listing(run_id, 0, 1)
    if not stored:
        return True
    match_id = stored[0]["match_id"]   # a match's id is its place in the schedule
    return 0 <= match_id < len(schedule) and schedule[match_id].seed == stored[0]["seed"]


def next_batch(store: Store, plan: Plan, done: set[int] | None = None) -> list[MatchSpec]:
    """The missing matches of every unsettled game's deals up to its next look (arena.results.settle)."""
    return _batch_and_looks(store, plan, done)[0]


def _batch_and_looks(store: Store, plan: Plan, done: set[int] | None = None) -> tuple[list[MatchSpec], list[Look]]:
    """`next_batch`, and the Look of every game it was chosen from (one fold of the stored matches for both)."""
    assert plan.rule is not None   # called for a run played until settled only
    done = store.finished_ids(plan.run_id) if done is None else done
    games = looks(store, plan.run_id, plan.schedule, plan.rule, done)
    batch = [s for specs, now in games if now.next_look
             for s in specs if s.deal < now.next_look and s.match_id not in done]
    return batch, [now for _, now in games]


def smaller_run(store: Store, config: TournamentConfig, wanted_key: str | None = None) -> StoredRun | None:
    """The stored run that a run of `config` extends: of the runs with the same description (the
    same code included) but fewer deals, the one with the most, on the deals of `wanted_key` when
    one is given; or None. Its deals are the new run's first ones, so its matches need not be
    played again (`--games 70` after `--games 30` plays 40 more deals)."""
    best = None
    for run in store.runs():
        c = run.tournament
        if run.imported or c is None:
            continue   # read only (its deals are the file's word, its key not this store's), or no tournament
        if c.deals is not None and config.deals is not None and c.deals < config.deals \
                and c.without_deals() == config.without_deals() \
                and (not wanted_key or run.deal_key == wanted_key) \
                and (best is None or c.deals > (best.config.deals or 0)):
            best = StoredRun(run.run_id, c, run.deal_key)
    return best


def shared_matches(old: Iterable[MatchSpec], new: Iterable[MatchSpec]) -> dict[int, int]:
    """{match id in `old`: match id in `new`} for the matches two schedules share: the same game,
    deal, deal seed and seating."""
    def ident(spec):
        return spec.game_id, spec.game_params, spec.deal, spec.seed, tuple(a.label for a in spec.seats)
    ids = {ident(spec): spec.match_id for spec in new}
    return {spec.match_id: ids[ident(spec)] for spec in old if ident(spec) in ids}


def check_not_imported(store: Store, run_id: str) -> None:
    """ValueError when the store holds `run_id` as a run imported from a file: read only. A run
    played here never deals from a key it did not make or was not given (a file naming the run id
    a later `arena run` will have must not choose its deals)."""
    if store.deal_key(run_id) is not None and store.run(run_id).imported:
        raise ValueError(f"run {run_id} in {store.path} was imported from a file (`arena import`): it is read "
                         f"only and never played on; play this run in another store (--store)")


def deal_key_for(store: Store, run_id: str, wanted: str | None = None) -> str:
    """The run's deal key: the stored one, else `wanted` (--deal-key), else a new secret one.
    :raises ValueError: the store holds the run with another key than `wanted`, or holds it as an
        imported run (`check_not_imported`)."""
    check_not_imported(store, run_id)
    stored = store.deal_key(run_id)
    if wanted and stored is not None and stored != wanted:
        raise ValueError(f"run {run_id} is already in {store.path} with other deals than --deal-key gives; "
                         f"use another store")
    return stored if stored is not None else (wanted or seeds.new_deal_key())


def play(store: Store, plan: Plan, backend: str = "local", jobs: int | None = None,
         address: str | None = None, on_match: Callable[[MatchResult], None] | None = None,
         on_look: Callable[[list, list], None] | None = None) -> str:
    """Plays the plan's missing matches, storing each as it arrives and calling `on_match(result)`;
    returns the run's status, "finished" or "interrupted" (Ctrl-C, SIGTERM). An error (an engine
    bug: MatchFailed, an unreachable cluster) marks the run interrupted and is raised.

    A run played until settled plays batch after batch (`next_batch`) until no game has one left,
    calling `on_look([settle.Look per game], batch)` before each batch and at the end (with an
    empty batch)."""
    check_backend(backend, address)
    if plan.human:
        jobs = 1   # a person answers on this terminal: one match at a time, in this process
    status = "finished"
    with running(store, plan.run_id) as ended:
        if not plan.todo:
            # Killed after its last matches were stored but before its checkpoint was saved: save it now.
            Checkpoint(store, plan.run_id).save()
        now: list[Look] | None = None   # the games' Looks as the last batch was chosen

        def look(batch):
            if plan.rule and on_look:
                on_look(now if now is not None else [g for _, g in looks(store, plan.run_id, plan.schedule, plan.rule)],
                        batch)
        while plan.todo and status == "finished":
            look(plan.todo)
            status = play_specs(store, plan.todo, backend, jobs, address, on_match)
            if plan.rule:
                plan.todo, now = _batch_and_looks(store, plan)
            else:
                plan.todo = []
        if status == "finished":
            look([])
            if plan.rule:   # every game settled or at its cap: these are all its matches
                store.set_total(plan.run_id, len(store.finished_ids(plan.run_id)))
        ended(status)
    return status


@contextlib.contextmanager
def running(store: Store, run_id: str) -> Iterator[Callable[[str], None]]:
    """The run is marked running while its matches are played; yields `ended(status)` to record how
    it ended. An error marks it interrupted; either way this process's claim on it is released."""
    store.set_status(run_id, "running")
    try:
        yield lambda status: store.set_status(run_id, status)
    except BaseException:
        store.set_status(run_id, "interrupted")
        raise
    finally:
        store.release(run_id)


def sit_outs(config: TournamentConfig) -> list[str]:
    """One line per agent that sits a game out, and why."""
    notes = []
    for g in config.games:
        for a in config.agents:
            reason = sched.sits_out(a, g.game_id, g.players)
            if reason:
                notes.append(f"{a.label} sits out {g.game_id}: {reason}")
    return notes


@contextlib.contextmanager
def stop_requests(immediate: bool) -> Iterator[Callable[[], bool]]:
    """Ctrl-C, SIGTERM and SIGHUP ask the tournament to stop, while this lasts; yields a function
    that says whether one came. The loop then stops at its next safe point (within a tenth of a
    second). With `immediate` (matches played in this process) or at a second signal,
    KeyboardInterrupt is raised at once instead."""
    count = [0]

    def request(signum, frame):
        count[0] += 1
        if immediate or count[0] > 1:
            raise KeyboardInterrupt

    previous = {s: signal.signal(s, request) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield lambda: count[0] > 0
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def play_specs(store: Store, todo: Sequence[MatchSpec], backend: str = "local", jobs: int | None = None,
               address: str | None = None, on_match: Callable[[MatchResult], None] | None = None,
               checkpoint: bool = True) -> str:
    """Plays the MatchSpecs `todo` (of one run) on the chosen backend, storing the results as they
    arrive (one transaction for those that arrive together), advancing the run's checkpointed
    tallies (arena.results.tallies; not with `checkpoint` False: a ladder keeps tallies of its own)
    and calling `on_match(result)`;
    returns "finished", or "interrupted" by Ctrl-C, SIGTERM or SIGHUP (the matches in progress are
    abandoned at once; a resume replays them)."""
    if not todo:
        return "finished"
    tallies = Checkpoint(store, next(iter(todo)).run_id) if checkpoint else None
    on_match = on_match or (lambda result: None)

    def stored(results, matches):
        if tallies:
            tallies.recorded(matches)
        for result in results:
            on_match(result)

    try:
        serial = backend == "local" and (jobs or default_jobs()) == 1
        with stop_requests(immediate=serial) as stop_requested, \
                executor(backend, jobs, address) as (pool, slots):
            _play(pool, slots, store, todo, stored, stop_requested)
    except KeyboardInterrupt:   # the workers are killed already (executor())
        return "interrupted"
    finally:
        POOL.close()
        if tallies:
            tallies.save()
    return "finished"


def _play(pool, slots, store, todo, on_stored, stop_requested):
    """Submits the MatchSpecs `todo` in batches, at most 2 per slot in flight, reading them as they
    are sent (only the batches in flight are in memory), and stores the results that arrive
    together in one transaction, then calls `on_stored(results, the matches as the store reads them)`."""
    # Tasks in flight: enough that no worker waits for the coordinator. In this process a task is
    # played as it is submitted: one at a time, so that nothing is played after a failed match.
    window = 1 if isinstance(pool, SerialExecutor) else 2 * slots
    pending: dict[cf.Future, dict[int, MatchSpec]] = {}   # future -> its batch {match id: spec}
    durations: collections.deque = collections.deque(maxlen=100)
    queue, left = iter(todo), len(todo)
    chunk = 1
    while left or pending:
        while left and len(pending) < window:
            batch = list(itertools.islice(queue, chunk))
            left = left - len(batch) if batch else 0
            if batch:
                pending[pool.submit(play_matches, batch)] = {b.match_id: b for b in batch}
        finished, _ = cf.wait(list(pending), timeout=0.1, return_when=cf.FIRST_COMPLETED)
        if stop_requested():
            raise KeyboardInterrupt
        failed, arrived = None, []
        for future in sorted(finished, key=lambda f: next(iter(pending[f]))):
            specs = pending.pop(future)
            if future.cancelled():
                continue
            try:
                results, error = future.result()
            except Exception as e:
                results, error = [], (next(iter(specs)), describe(e))
            arrived += [(specs[r.match_id], r) for r in results]
            if error and not failed:
                # A bug in an engine or the arena, not an agent's fault: stop, keep what is stored.
                spec = specs[error[0]]
                failed = MatchFailed(f"match {spec.match_id} ({spec.game_id}, seed {spec.seed}) "
                                     f"failed: {error[1]}")
        if arrived:
            matches = store.record_many(arrived)
            durations.extend(r.duration for _, r in arrived)
            on_stored([r for _, r in arrived], matches)
        if failed:
            for future in pending:
                future.cancel()
            raise failed
        if durations:
            # Cheap matches travel in batches of about TASK_SECONDS, fewer round trips and
            # transactions (in this process too); never so large that the last batches leave a
            # worker idle.
            mean = sum(durations) / len(durations)
            chunk = max(1, min(64, int(TASK_SECONDS / max(mean, 1e-6)), left // (2 * slots)))
