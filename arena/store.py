"""SQLite storage for tournaments: one row per run, one row per finished match.

Only the coordinating process writes. WAL mode and one transaction per batch of finished matches
(those that arrived together) make every match stored whole or not at all, so a killed tournament
resumes without losing or repeating one: it plays again the matches whose batch was not stored.
The coordinator of a run holds a lock on it (an flock on `STORE.<digest of the run id>.lock`, which
dies with its process): a second coordinator of the same run is refused, and a run marked running
whose lock nobody holds is shown as interrupted. Reporting commands open the store read-only and
never create it.

The schema has a version, kept in the database header (`PRAGMA user_version`): a new store is made
at SCHEMA_VERSION. A store of an older version is read as it is, but written only after `arena
store migrate` (`migrate`) has brought it up to date in one transaction; a store of a newer version
(made by a newer arena) is refused, read or written. To add a table: add it to SCHEMA and add one
to SCHEMA_VERSION; a new column of an existing table also needs its step in MIGRATIONS.
docs/store.md describes every table.
"""
import contextlib
import fcntl
import functools
import glob
import hashlib
import json
import os
import sqlite3
import stat
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena import run_config, store_ladders
from arena.match import MatchResult, MatchSpec
from arena.run_config import RunConfig, TournamentConfig
from arena.seeds import analyze_deal_key

DEFAULT_STORE = os.path.join("results", "arena.sqlite")
PRIVATE = 0o600   # the store and its companion files: the owner's only (deal keys, token hashes)

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id      TEXT PRIMARY KEY,
    created     REAL NOT NULL,
    config      TEXT NOT NULL,     -- JSON: everything needed to rebuild the schedule (resume, report)
    total       INTEGER NOT NULL,  -- matches in the schedule
    status      TEXT NOT NULL,     -- running | finished | interrupted
    deal_key    TEXT NOT NULL DEFAULT ''  -- hex; deal seeds are keyed with it (never shown to a bot)
);
CREATE TABLE IF NOT EXISTS matches (
    run_id      TEXT NOT NULL REFERENCES runs(run_id),
    match_id    INTEGER NOT NULL,
    game_id     TEXT NOT NULL,
    game_params TEXT NOT NULL,     -- JSON object, players included
    seed        INTEGER NOT NULL,
    deal        INTEGER NOT NULL,  -- duplicate group
    seats       TEXT NOT NULL,     -- JSON list of AgentSpec dicts, one per seat
    returns     TEXT NOT NULL,     -- JSON list per seat
    placements  TEXT NOT NULL,     -- JSON list per seat, 1 = best
    actions     TEXT NOT NULL,     -- JSON list of every action, for replay
    faults      TEXT NOT NULL,     -- JSON list of {seat, label, kind, message}
    metrics     TEXT NOT NULL,     -- JSON object
    duration    REAL NOT NULL,
    finished    REAL NOT NULL,
    PRIMARY KEY (run_id, match_id)
);
CREATE TABLE IF NOT EXISTS tallies (
    run_id      TEXT NOT NULL REFERENCES runs(run_id),
    game_id     TEXT NOT NULL,
    game_params TEXT NOT NULL,     -- as in matches
    upto        INTEGER NOT NULL,  -- every match of the run with a smaller id is folded in
    state       TEXT NOT NULL,     -- JSON: an arena.results.standings.GroupTally (a checkpoint, see arena.results.tallies)
    PRIMARY KEY (run_id, game_id, game_params)
);
CREATE TABLE IF NOT EXISTS outputs (
    run_id      TEXT NOT NULL,
    match_id    INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    label       TEXT NOT NULL,
    text        TEXT NOT NULL,     -- what the seat's submitted agent printed (stdout, stderr), as it printed it
    cut         INTEGER NOT NULL,  -- bytes it printed beyond `text`, not kept (arena.sandbox.wire.OUTPUT_LIMIT)
    PRIMARY KEY (run_id, match_id, seat)
);
CREATE INDEX IF NOT EXISTS matches_with_faults ON matches(run_id, match_id) WHERE faults != '[]';
""" + store_ladders.SCHEMA   # the ladders' tables (version 3 on), read and written by arena.store_ladders


def _add_deal_key(db: sqlite3.Connection) -> None:
    columns = {r[1] for r in db.execute("PRAGMA table_info(runs)")}
    if "deal_key" not in columns:   # a store from before deal keys: its runs keep unkeyed deals
        db.execute("ALTER TABLE runs ADD COLUMN deal_key TEXT NOT NULL DEFAULT ''")


def _played_out_placements(db: sqlite3.Connection) -> None:
    """A faulty match's placements as the played-out game placed them, where the store has the
    faulty seats moved last (the fault rule before version 2; arena.results.outcome reads the
    played-out game's). Recomputed by replaying the match's actions; a match whose replay does not
    end as stored (one from before faulty matches were played out, or of an engine since changed)
    keeps its placements."""
    import engines
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'matches'").fetchone() is None:
        return   # made by SCHEMA after the steps, empty
    rows = db.execute("SELECT run_id, match_id, game_id, game_params, seed, returns, actions FROM matches "
                      "WHERE faults != '[]'").fetchall()
    for run_id, match_id, game_id, params, seed, returns, actions in rows:
        try:
            state = engines.make(game_id, seed=seed, **json.loads(params))
            for action in json.loads(actions):
                if state.is_terminal() or action not in state.legal_actions():
                    raise ValueError("the replay leaves the stored game")
                state.apply_action(action)
            if not state.is_terminal() or [float(x) for x in state.returns()] != json.loads(returns):
                raise ValueError("the replay does not end as stored")
        except (ValueError, TypeError, KeyError):
            continue
        db.execute("UPDATE matches SET placements = ? WHERE run_id = ? AND match_id = ?",
                   (_encode([int(p) for p in state.placements()]), run_id, match_id))


SCHEMA_VERSION = 3   # 3: the ladders' tables (arena.store_ladders), made until then on a ladder's first write
# The steps that change tables an older store already has (a new column, recomputed values), by the
# version they bring it to; the tables and indexes of SCHEMA it lacks are created after them (migrate).
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _add_deal_key, 2: _played_out_placements}

# json.dumps (sort_keys=True), without building an encoder on every call
_encode = json.JSONEncoder().encode
_encode_sorted = json.JSONEncoder(sort_keys=True).encode
_raw_decode = json.JSONDecoder().raw_decode   # json.loads of text with no surrounding spaces, as _encode writes it

# What the folds read of a match: everything but its actions (the bulk of a row).
RESULT_COLUMNS = "match_id, game_id, game_params, seed, deal, seats, returns, placements, faults, metrics"


class StoreError(ValueError):
    pass


class Store:
    """A tournament store: one SQLite file of runs and their matches (docs/store.md). `Store(path)`
    opens it for writing, making it (and its folder) when it does not exist; `readonly=True` only
    reads an existing one."""

    def __init__(self, path: "str | os.PathLike[str]" = DEFAULT_STORE, readonly: bool = False) -> None:
        """Opens the store; for writing, creates, checks (`PRAGMA quick_check`) and migrates it.

        :raises StoreError: it cannot be opened or created, it is damaged (for writing), or it does
            not exist or is not a tournament store (read-only).
        """
        self.path = path = os.fspath(path)
        self._claims: dict[str, int] = {}
        self._texts: dict[tuple[int, int], tuple[Any, Any, str, str]] = {}   # record_many's caches (see there)
        # json.loads of a match's parameters or seats, decoded once per text: they repeat from match to match
        self._decoded: Callable[[str], Any] = functools.lru_cache(maxsize=1024)(lambda text: _raw_decode(text)[0])
        try:
            self.db = self._open_readonly(path) if readonly else self._open_for_writing(path)
            self.db.row_factory = sqlite3.Row
        except (OSError, sqlite3.DatabaseError) as e:
            raise StoreError(f"cannot open the store {path}: {e}") from None

    @staticmethod
    def _open_for_writing(path):
        db, version = _open_checked(path, older=False)
        if version == -1:   # a new store, made in one transaction
            db.executescript(f"BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        return db

    @staticmethod
    def _open_readonly(path):
        if not os.path.isfile(path):
            raise StoreError(f"no store at {path}: start a tournament with `arena run` (or give --store)")
        uri = "file:" + urllib.parse.quote(os.path.abspath(path))
        db = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=30)
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            # A WAL store in a place this user cannot write (no -shm file to share): read it as it is.
            db.close()
            db = sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, timeout=30)
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'runs'").fetchone() is None:
            db.close()
            raise StoreError(f"{path} is not a tournament store")
        _version(db, path)
        make_private(path, writing=False)
        return db

    @functools.cached_property
    def ladders(self) -> store_ladders.LadderTables:
        """The ladders' tables (arena.store_ladders): every read and write of a ladder goes through it."""
        return store_ladders.LadderTables(self.db)

    def close(self) -> None:
        for run_id in list(self._claims):
            self.release(run_id)
        self.db.close()

    # ---- who plays a run ----
    def _lock_path(self, run_id):
        return f"{self.path}.{hashlib.sha256(run_id.encode()).hexdigest()[:12]}.lock"

    def claim(self, run_id: str) -> None:
        """Marks this process as the run's coordinator until it exits or `release`s it; StoreError
        when another process plays the run."""
        if run_id in self._claims:
            return
        path = self._lock_path(run_id)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise StoreError(f"run {run_id} is being played by another arena process on {self.path}: "
                                 f"wait for it, or stop it first") from None
            if _names(path, fd):
                break
            # Its last holder removed the file between our open and our lock: lock a fresh one.
            os.close(fd)
        self._claims[run_id] = fd

    def release(self, run_id: str) -> None:
        """Gives the run up; the lock file goes too. Only a holder removes it (while it holds the
        lock), and a claim checks that the file it locked is still the one at the path, so a
        process that opened the file just before it was removed never plays beside another."""
        fd = self._claims.pop(run_id, None)
        if fd is None:
            return
        path = self._lock_path(run_id)
        try:
            if _names(path, fd):
                os.unlink(path)
        except OSError:
            pass   # a store in a place this user can no longer write: the file stays, harmless
        os.close(fd)

    def _played_elsewhere(self, run_id):
        try:
            fd = os.open(self._lock_path(run_id), os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        except OSError:
            return True
        finally:
            os.close(fd)

    # ---- runs ----
    def create_run(self, run_id: str, config: RunConfig, total: int, deal_key: str = "") -> None:
        """Stores a new run; a run already stored (the same command again) is kept as is. Matches
        stored for a run that does not exist yet were not played by it: StoreError."""
        with self.db:
            if self.db.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is None and \
                    self.db.execute("SELECT 1 FROM matches WHERE run_id = ? LIMIT 1", (run_id,)).fetchone():
                raise StoreError(f"{self.path} already holds matches of run {run_id}, which this store never "
                                 f"started: something else writes this store; use another one")
            self.db.execute("INSERT OR IGNORE INTO runs (run_id, created, config, total, status, deal_key) "
                            "VALUES (?, ?, ?, ?, 'running', ?)",
                            (run_id, time.time(), _config_text(config, False), total, deal_key))

    def deal_key(self, run_id: str) -> str | None:
        """The run's deal key, or None when the store has no such run."""
        row = self.db.execute("SELECT deal_key FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else row[0]

    def set_status(self, run_id: str, status: str) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET status = ? WHERE run_id = ?", (status, run_id))

    def set_total(self, run_id: str, total: int) -> None:
        """The matches the run plays after all (a run until settled plays fewer than its cap's)."""
        with self.db:
            self.db.execute("UPDATE runs SET total = ? WHERE run_id = ?", (total, run_id))

    def run(self, run_id: str | None = None, kind: str | None = None) -> "Run":
        """The run; without run_id, the latest run of `kind` (any kind when None; a
        tournament imported from a file counts as a tournament). StoreError if there is none."""
        if run_id is not None:
            row = self.db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                known = ", ".join(r.run_id for r in self.runs()[-5:]) or "none"
                raise StoreError(f"no run {run_id!r} in {self.path} (latest: {known})")
            return self._run(row)
        runs = self.runs()
        for run in reversed(runs):
            if kind in (None, run.kind) or (kind == "tournament" and run.origin == kind):
                return run
        if kind in (None, "tournament"):
            others = f" (it holds {len(runs)} other runs: `arena runs` lists them; give a RUN)" if runs else ""
            raise StoreError(f"no tournament in {self.path} yet: start one with `arena run`{others}")
        raise StoreError(f"no {kind} run in {self.path}")

    def runs(self) -> list["Run"]:
        """Every run, oldest first."""
        return [self._run(r) for r in self.db.execute("SELECT * FROM runs ORDER BY created, rowid")]

    def _run(self, row: sqlite3.Row) -> "Run":
        """A row of runs as a Run. A run marked running whose coordinator is gone (killed) is
        interrupted; a ladder that no `ladder run` plays is idle, as it never finishes (it plays on
        when run again)."""
        config, imported, problem = _read_config(row["config"])
        status = row["status"]
        if status == "running" and row["run_id"] not in self._claims and not self._played_elsewhere(row["run_id"]):
            status = "interrupted"
        elif status == "finished" and config is not None and config.kind == "ladder":
            status = "idle"
        return Run(row["run_id"], row["created"], config, row["total"], status, row["deal_key"], imported, problem)

    # ---- matches ----
    def record(self, spec: MatchSpec, result: MatchResult) -> None:
        """Writes one finished match in its own transaction (`record_many` of one)."""
        self.record_many([(spec, result)])

    def record_many(self, finished: Sequence[tuple[MatchSpec, MatchResult]]) -> list[dict[str, Any]]:
        """Writes finished matches in one transaction: all of them or, if the process dies or a
        write fails, none (a resumed run plays those again). The coordinator plays only matches
        that are not stored, so a row already there was written by someone else: StoreError, and
        neither row silently wins.

        Returns the matches as `results` reads them back (decoded from the very text written), to
        be read only: a match's parameters and seats are shared with the other matches that have them."""
        matches, outputs, out = [], [], []
        now = time.time()
        for spec, result in finished:
            params, seats = self._spec_text(spec)
            row = (spec.run_id, spec.match_id, spec.game_id, params, spec.seed, spec.deal, seats,
                   _encode(result.returns), _encode(result.placements), _encode(result.actions),
                   _encode([f.__dict__ for f in result.faults]) if result.faults else "[]",
                   _encode_sorted(result.metrics), result.duration, now)
            matches.append(row)
            outputs += [(spec.run_id, spec.match_id, o["seat"], o["label"], o["text"], o["cut"])
                        for o in result.output]
            out.append({"match_id": spec.match_id, "game_id": spec.game_id, "game_params": self._decoded(params),
                        "seed": spec.seed, "deal": spec.deal, "seats": self._decoded(seats),
                        "returns": _raw_decode(row[7])[0], "placements": _raw_decode(row[8])[0],
                        "faults": _raw_decode(row[10])[0], "metrics": _raw_decode(row[11])[0]})
        try:
            with self.db:
                self.db.executemany("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", matches)
                if outputs:
                    self.db.executemany("INSERT INTO outputs VALUES (?, ?, ?, ?, ?, ?)", outputs)
        except sqlite3.IntegrityError:
            have = self.finished_ids(finished[0][0].run_id)
            spec = next((spec for spec, _ in finished if spec.match_id in have), finished[0][0])
            raise StoreError(f"match {spec.match_id} of run {spec.run_id} appeared in {self.path} while it "
                             f"was being played: something else writes this store") from None
        return out

    def _spec_text(self, spec: MatchSpec) -> tuple[str, str]:
        """(game_params, seats) of a match as stored: JSON, encoded once per parameter set and seating
        (the schedule gives all its matches the same objects; by identity, as equal tuples may encode
        differently: True == 1)."""
        key = (id(spec.game_params), id(spec.seats))
        known = self._texts.get(key)
        if known is None or known[0] is not spec.game_params or known[1] is not spec.seats:
            known = (spec.game_params, spec.seats, _encode_sorted(spec.params_dict()),
                     _encode([s.as_dict() for s in spec.seats]))
            if len(self._texts) >= 1024:
                self._texts.clear()
            self._texts[key] = known
        return known[2], known[3]

    def copy_matches(self, source: str, target: str, ids: dict[int, int]) -> int:
        """Copies run `source`'s stored matches into run `target`, match `old` as `ids[old]`, but
        not over a match `target` already holds; returns how many were copied."""
        have = self.finished_ids(target)
        copied = 0
        with self.db:
            for old, new in sorted(ids.items()):
                if new not in have:
                    copied += self.db.execute(
                        "INSERT INTO matches SELECT ?, ?, game_id, game_params, seed, deal, seats, returns, "
                        "placements, actions, faults, metrics, duration, finished FROM matches "
                        "WHERE run_id = ? AND match_id = ?", (target, new, source, old)).rowcount
                    self.db.execute("INSERT INTO outputs SELECT ?, ?, seat, label, text, cut FROM outputs "
                                    "WHERE run_id = ? AND match_id = ?", (target, new, source, old))
        return copied

    def import_run(self, run: "Run", matches: Iterable[dict[str, Any]]) -> int:
        """Merges a run and its matches (as `matches` gives them, one at a time: an error it raises
        undoes the whole import) in one transaction; returns how many matches were added. A run
        already stored with another config or deal key, or a match stored with other contents, is a
        conflict: StoreError, and nothing is written. Only an imported run (arena.results.export)
        takes a deal key it lacks: a run played here keeps its own."""
        run_id = run.run_id
        if run.config is None:
            raise StoreError(f"run {run_id} has no config that can be read: not imported")
        with self.db:
            row = self.db.execute("SELECT config, deal_key FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                self.db.execute("INSERT INTO runs (run_id, created, config, total, status, deal_key) "
                                "VALUES (?, ?, ?, ?, ?, ?)",
                                (run_id, run.created, _config_text(run.config, run.imported), run.total,
                                 run.status, run.deal_key))
            else:
                config, imported, _ = _read_config(row[0])
                if config is None or (config, imported) != (run.config, run.imported):
                    raise StoreError(f"{self.path} holds another run {run_id} (another config): not imported")
                if row[1] and run.deal_key and row[1] != run.deal_key:
                    raise StoreError(f"{self.path} holds run {run_id} with another deal key: not imported")
                if run.deal_key and not row[1] and imported:
                    self.db.execute("UPDATE runs SET deal_key = ? WHERE run_id = ?", (run.deal_key, run_id))
            compared = ("game_id", "game_params", "seed", "deal", "seats", "returns", "placements", "actions",
                        "faults")
            added = 0
            for m in matches:
                stored = self.db.execute("SELECT * FROM matches WHERE run_id = ? AND match_id = ?",
                                         (run_id, m["match_id"])).fetchone()
                if stored is not None:
                    stored = _match_dict(stored)
                    if any(stored[k] != m[k] for k in compared):
                        raise StoreError(f"match {m['match_id']} of run {run_id} differs from the one in "
                                         f"{self.path}: a conflicting run, not imported")
                    continue
                self.db.execute(
                    "INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (run_id, m["match_id"], m["game_id"], json.dumps(m["game_params"], sort_keys=True), m["seed"],
                     m["deal"], json.dumps(m["seats"]), json.dumps(m["returns"]), json.dumps(m["placements"]),
                     json.dumps(m["actions"]), json.dumps(m["faults"]), json.dumps(m["metrics"], sort_keys=True),
                     m["duration"], time.time()))
                added += 1
        return added

    def finished_ids(self, run_id: str, first: int | None = None) -> set[int]:
        """The ids of the run's stored matches; with `first`, those from it on (a ladder's batch, past
        those folded)."""
        sql = "SELECT match_id FROM matches WHERE run_id = ?"
        args: list[Any] = [run_id]
        if first is not None:
            sql, args = sql + " AND match_id >= ?", args + [first]
        return {r[0] for r in self.db.execute(sql, args)}

    def matches(self, run_id: str, game_id: str | None = None) -> list[dict[str, Any]]:
        """Every stored match of a run as a dict, in match-id order (the order ratings replay)."""
        sql, args = "SELECT * FROM matches WHERE run_id = ?", [run_id]
        if game_id is not None:
            sql, args = sql + " AND game_id = ?", args + [game_id]
        return [_match_dict(r) for r in self.db.execute(sql + " ORDER BY match_id", args)]

    def results(self, run_id: str, start: int = 0, stop: int | None = None,
                game_id: str | None = None) -> Iterator[dict[str, Any]]:
        """The run's stored matches with start <= match id < stop, in match-id order and without
        their actions, one at a time (never all in memory)."""
        sql, args = f"SELECT {RESULT_COLUMNS} FROM matches WHERE run_id = ? AND match_id >= ?", [run_id, start]
        if stop is not None:
            sql, args = sql + " AND match_id < ?", args + [stop]
        if game_id is not None:
            sql, args = sql + " AND game_id = ?", args + [game_id]
        for row in self.db.execute(sql + " ORDER BY match_id", args):
            yield _match_dict(row)

    def first_results(self, run_id: str, game_id: str, game_params: str, start: int,
                      limit: int) -> list[dict[str, Any]]:
        """The first `limit` stored matches of one game and parameter set (JSON text, as stored) from
        match id `start` on, without their actions."""
        return [_match_dict(r) for r in self.db.execute(
            f"SELECT {RESULT_COLUMNS} FROM matches WHERE run_id = ? AND match_id >= ? AND game_id = ? "
            f"AND game_params = ? ORDER BY match_id LIMIT ?", (run_id, start, game_id, game_params, limit))]

    def listing(self, run_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        """One page of the run's stored matches in match-id order, each without its actions but
        with their number (`moves`)."""
        return [_match_dict(r) for r in self.db.execute(
            f"SELECT {RESULT_COLUMNS}, json_array_length(actions) AS moves FROM matches WHERE run_id = ? "
            f"ORDER BY match_id LIMIT ? OFFSET ?", (run_id, limit, offset))]

    def identical_deals(self, run_id: str) -> dict[tuple[str, str], tuple[int, int]]:
        """{(game id, canonical JSON of its parameters): (deals whose stored matches all played the
        same moves, deals)}, over the deals with two or more stored matches (arena.results.divergence)."""
        rows = self.db.execute(
            "SELECT game_id, game_params, count(*), sum(moves = 1) FROM (SELECT game_id, game_params, "
            "count(*) AS matches, count(DISTINCT actions) AS moves FROM matches WHERE run_id = ? "
            "GROUP BY game_id, game_params, deal HAVING matches > 1) GROUP BY game_id, game_params", (run_id,))
        return {(g, json.dumps(json.loads(p), sort_keys=True)): (int(same), int(deals)) for g, p, deals, same in rows}

    def played(self) -> dict[str, int]:
        """{run id: its stored matches} for every run with one."""
        return dict(self.db.execute("SELECT run_id, count(*) FROM matches GROUP BY run_id").fetchall())

    def count(self, run_id: str) -> int:
        return self.db.execute("SELECT count(*) FROM matches WHERE run_id = ?", (run_id,)).fetchone()[0]

    def faults(self, run_id: str, game_id: str | None = None, limit: int = -1) -> list[dict[str, Any]]:
        """The recorded faults (of one game; of the first `limit` matches with faults):
        [{match_id, game_id, seat, label, kind, message, ...}] in match order."""
        sql, args = "SELECT match_id, game_id, faults FROM matches WHERE run_id = ? AND faults != '[]'", [run_id]
        if game_id is not None:
            sql, args = sql + " AND game_id = ?", args + [game_id]
        return [{"match_id": r[0], "game_id": r[1], **f}
                for r in self.db.execute(sql + " ORDER BY match_id LIMIT ?", args + [limit])
                for f in json.loads(r[2])]

    def outputs(self, run_id: str, match_id: int | None = None, faulted: bool = False,
                until: int | None = None) -> Iterator[dict[str, Any]]:
        """What submitted agents printed (in one match; in the matches with faults; in those up to
        match id `until`), {match_id, seat, label, text, cut} in match and seat order, one at a
        time (never all in memory); none for a store from before outputs were kept."""
        if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'outputs'").fetchone() is None:
            return
        sql = "SELECT match_id, seat, label, text, cut FROM outputs WHERE run_id = ?"
        args: list[Any] = [run_id]
        if match_id is not None:
            sql, args = sql + " AND match_id = ?", args + [match_id]
        if until is not None:
            sql, args = sql + " AND match_id <= ?", args + [until]
        if faulted:
            sql, args = sql + (" AND match_id IN (SELECT match_id FROM matches WHERE run_id = ? "
                               "AND faults != '[]')"), args + [run_id]
        for row in self.db.execute(sql + " ORDER BY match_id, seat", args):
            yield dict(row)

    # ---- checkpoints of the folds (arena.results.tallies) ----
    def tallies(self, run_id: str) -> tuple[int, list[tuple[str, str, str]]]:
        """(upto, [(game_id, game_params, state)]): the run's checkpoint; (0, []) when there is none
        (or the store predates checkpoints)."""
        if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'tallies'").fetchone() is None:
            return 0, []
        rows = self.db.execute("SELECT game_id, game_params, upto, state FROM tallies WHERE run_id = ?",
                               (run_id,)).fetchall()
        if not rows or len({r[2] for r in rows}) != 1:
            return 0, []
        return rows[0][2], [(r[0], r[1], r[3]) for r in rows]

    def save_tallies(self, run_id: str, upto: int, rows: list[tuple[str, str, str]]) -> None:
        """Replaces the run's checkpoint: every match id below `upto` is folded into the states."""
        with self.db:
            self.db.execute("DELETE FROM tallies WHERE run_id = ?", (run_id,))
            self.db.executemany("INSERT INTO tallies VALUES (?, ?, ?, ?, ?)",
                                [(run_id, game_id, params, upto, state) for game_id, params, state in rows])

    def match(self, run_id: str, match_id: int) -> dict[str, Any]:
        row = self.db.execute("SELECT * FROM matches WHERE run_id = ? AND match_id = ?",
                              (run_id, match_id)).fetchone()
        if row is None:
            numbers = self.match_numbers(run_id)
            raise StoreError(f"run {run_id!r} has no finished match {match_id}: "
                             + (f"its matches are numbered {numbers}" if numbers else "it has none yet"))
        return _match_dict(row)

    def match_numbers(self, run_id: str, most: int = 8) -> str:
        """The run's stored match ids as runs of consecutive numbers, "0-15, 32-79, 128": a run played
        until settled numbers each game's matches from the start of its block, so they have gaps;
        "" for none. At most `most` runs, then "and more"."""
        spans = self.db.execute(
            "SELECT MIN(match_id), MAX(match_id) FROM (SELECT match_id, match_id - ROW_NUMBER() OVER "
            "(ORDER BY match_id) AS span FROM matches WHERE run_id = ?) GROUP BY span ORDER BY 1 LIMIT ?",
            (run_id, most + 1)).fetchall()
        text = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans[:most])
        return text + (", and more" if len(spans) > most else "")


def migrate(path: str) -> tuple[int, int]:
    """Brings the store at `path` to SCHEMA_VERSION: the steps of MIGRATIONS past its version, the
    tables and indexes of SCHEMA it lacks, and the new version number, in one transaction (a kill
    leaves it as it was); returns (version before, version after). A store at SCHEMA_VERSION is
    left alone.

    :raises StoreError: no store there, not a tournament store, damaged, or newer than this arena.
    """
    if not os.path.isfile(path):
        raise StoreError(f"no store at {path} (give --store)")
    try:
        db, version = _open_checked(path, older=True)
        try:
            if version < SCHEMA_VERSION:
                db.execute("BEGIN IMMEDIATE")
                try:
                    for step in range(version + 1, SCHEMA_VERSION + 1):
                        if step in MIGRATIONS:
                            MIGRATIONS[step](db)
                    # SCHEMA's missing tables and indexes; not executescript, which would commit
                    for statement in _statements(SCHEMA):
                        db.execute(statement)
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    db.commit()
                except BaseException:
                    db.rollback()
                    raise
            return version, SCHEMA_VERSION
        finally:
            db.close()
    except (OSError, sqlite3.DatabaseError) as e:
        raise StoreError(f"cannot migrate the store {path}: {e}") from None


def _statements(script: str) -> Iterator[str]:
    """The SQL statements of a script, one at a time (a ";" in a comment does not end one)."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""


def _open_checked(path, older):
    """(connection, schema version) for writing to the SQLite file at `path` (created when missing,
    version -1), checked intact and of a version this arena writes (with `older`: an existing store
    it migrates), in WAL mode. Nothing is written to a file that is refused."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with contextlib.suppress(FileExistsError):   # made here, private: sqlite gives its -wal and -shm its mode
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE))
    db = sqlite3.connect(path, timeout=30)
    version = _version(db, path)
    if version == -1 and older:
        db.close()
        raise StoreError(f"{path} is not a tournament store")
    if 0 <= version < SCHEMA_VERSION and not older:
        db.close()
        raise StoreError(f"the store {path} has schema version {version}, older than this arena's "
                         f"{SCHEMA_VERSION}: it can be read but not written; upgrade it with "
                         f"`arena store migrate --store {path}`")
    problems = [r[0] for r in db.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        db.close()
        raise StoreError(f"the store {path} is damaged ({problems[0]}); nothing was written to it: "
                         f"use another store (the reporting commands may still read what is intact)")
    try:
        make_private(path, writing=True)
    except StoreError:
        db.close()
        raise
    db.execute("PRAGMA journal_mode=WAL")
    # In WAL mode NORMAL still survives a killed process (the log is in the OS's cache); only
    # a power cut can lose the last matches, and commits no longer wait for the disk.
    db.execute("PRAGMA synchronous=NORMAL")
    return db, version


def make_private(path: str, writing: bool) -> None:
    """Keeps the store and its companion files (-wal, -shm, -journal, run locks) readable by their
    owner only: they hold every run's deal key and the ladders' token hashes. A file other users
    may read is tightened to PRIVATE when this user owns it, with one line on stderr saying so;
    one this user cannot tighten is refused for writing (StoreError), and read as it is."""
    loose = []
    for name in [path, path + "-wal", path + "-shm", path + "-journal"] + glob.glob(glob.escape(path) + ".*.lock"):
        try:
            st = os.stat(name)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):   # `--store /dev/null` names no file of ours to tighten
            continue
        if st.st_mode & 0o077:
            loose.append((name, st))
    tightened = []
    for name, st in loose:
        try:
            if st.st_uid != os.geteuid():
                raise PermissionError("another user's file")
            os.chmod(name, PRIVATE)
            tightened.append(st.st_mode & 0o777)
        except OSError as e:
            if not writing:
                continue
            raise StoreError(f"{name} can be read by other users (mode {st.st_mode & 0o777:04o}) and cannot be "
                             f"made private ({e.strerror or e}): its owner should `chmod 600` it") from None
    if tightened:
        modes = ", ".join(sorted({f"{m:04o}" for m in tightened}))
        sys.stderr.write(f"arena: the store {path} could be read by other users (mode {modes}): it is now "
                         f"{PRIVATE:04o}, its owner's only\n")


def _version(db, path):
    """The store's schema version; -1 for an empty database. StoreError (and the connection closed)
    for a database of something else, or a store newer than this arena."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return -1
    if "runs" not in tables:
        db.close()
        raise StoreError(f"{path} is an SQLite database of something else, not a tournament store: "
                         f"give another --store")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version < 0:
        db.close()
        raise StoreError(f"the store {path} has schema version {version}, which no arena writes: it is damaged "
                         f"or not a tournament store")
    if version > SCHEMA_VERSION:
        db.close()
        raise StoreError(f"the store {path} has schema version {version}, newer than this arena's "
                         f"{SCHEMA_VERSION}: use a newer arena")
    return version


@dataclass(frozen=True)
class Run:
    """A stored run: its row of the runs table, the config read as a typed value."""
    run_id: str
    created: float
    config: RunConfig | None    # None when the stored config cannot be read (`problem` says why)
    total: int                  # matches in its schedule
    status: str                 # running | finished | interrupted | idle (a ladder that no process plays)
    deal_key: str = ""          # hex; "" for unkeyed deals
    imported: bool = False      # `arena import`ed from another store: read only, never played on
    problem: str = ""

    @property
    def kind(self) -> str:
        """What started the run: "tournament" (`arena run`), "compare", "analyze", "play" (a game in
        `arena serve`), "imported" (`arena import`: read only, never played on), or the kind its
        config names."""
        return "imported" if self.imported else self.origin

    @property
    def origin(self) -> str:
        """What started the run where it was played (an imported run: in the store it came from).
        An `arena analyze` run from before analyze runs said so is known by its deal key, derived
        from its seed."""
        config = self.config
        if config is not None and config.kind is not None:
            return config.kind
        if isinstance(config, TournamentConfig) and config.compare is not None:
            return "compare"
        if self.deal_key and config is not None and self.deal_key == analyze_deal_key(config.seed):
            return "analyze"
        return "tournament"

    @property
    def tournament(self) -> TournamentConfig | None:
        """The config of a tournament (any run played by the coordinator); None for a game played in
        `arena serve` or a config that cannot be read (the views then show no notes of it)."""
        return self.config if isinstance(self.config, TournamentConfig) else None

    def tournament_config(self) -> TournamentConfig:
        """The tournament's config; ValueError (one line) when the run has none that can be read."""
        if self.config is None:
            raise ValueError(self.problem)
        if not isinstance(self.config, TournamentConfig):
            raise ValueError("this run is a game played in `arena serve`, not a tournament")
        return self.config

    @property
    def game_ids(self) -> tuple[str, ...]:
        """Its game ids, each once, in order."""
        return tuple(dict.fromkeys(g.game_id for g in self.config.games)) if self.config else ()

    @property
    def labels(self) -> tuple[str, ...]:
        """Its agents' labels, in order."""
        return tuple(a.label for a in self.config.agents) if self.config else ()

    @property
    def book(self) -> Mapping[str, str] | None:
        """The deal book it played ({"name", "digest"}), or None."""
        return self.tournament.book if self.tournament else None


def stored_config(data: Any) -> tuple[RunConfig | None, bool, str]:
    """(config or None, imported, why it cannot be read) of a run's config in the JSON form the
    store keeps (`config_json`: the runs table's, a report's data)."""
    if not isinstance(data, Mapping):
        return None, False, "the stored run's configuration is not a JSON object"
    data = dict(data)
    imported = bool(data.pop("imported", False))
    try:
        return run_config.read(data), imported, ""
    except ValueError as e:
        return None, imported, str(e)


def config_json(config: RunConfig, imported: bool) -> dict[str, Any]:
    """A run's config in the JSON form the store keeps (an imported run's marked so)."""
    return config.to_json() | ({"imported": True} if imported else {})


def _read_config(text: str) -> tuple[RunConfig | None, bool, str]:
    try:
        data = json.loads(text)
    except ValueError as e:
        return None, False, f"the stored run's configuration is not JSON ({e})"
    return stored_config(data)


def _config_text(config: RunConfig, imported: bool) -> str:
    return json.dumps(config_json(config, imported), sort_keys=True)


def _names(path, fd):
    """Whether `path` is the file open as `fd` (not removed or replaced since it was opened)."""
    try:
        here, there = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _match_dict(row):
    d = dict(row)
    for k in ("game_params", "seats", "returns", "placements", "actions", "faults", "metrics"):
        if k in d:
            d[k] = json.loads(d[k])
    return d
