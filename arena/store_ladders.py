"""The ladders' tables in the store, and every statement that reads or writes them: the store owns
them (`Store.ladders`), their schema is part of the store's (arena.store.SCHEMA, its version and
its migrations), and the ladder (arena.ladder) reads and writes them only through `LadderTables`.

A store made before the ladders' tables were part of its schema (version 2 and older) may lack
some of them: read as it is, every read finds no ladder there; `arena store migrate` adds them.
What each table holds: arena.ladder.store's docstring and docs/store.md.
"""
import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladders (
    name        TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL,     -- its matches: the run `ladder-NAME` of the matches table
    created     REAL NOT NULL,
    config      TEXT NOT NULL,     -- JSON: a TournamentConfig of kind "ladder", without agents
    next_deal   INTEGER NOT NULL DEFAULT 0,
    next_match  INTEGER NOT NULL DEFAULT 0,
    batches     INTEGER NOT NULL DEFAULT 0    -- batches planned so far
);
CREATE TABLE IF NOT EXISTS ladder_entries (
    ladder      TEXT NOT NULL REFERENCES ladders(name),
    entry       INTEGER NOT NULL,  -- 1, 2, ... in the order added
    label       TEXT NOT NULL,     -- as its author named it, the same for every version
    version     INTEGER NOT NULL,
    name        TEXT NOT NULL,     -- its seat label in matches: label, then label@2, label@3, ...
    item        TEXT NOT NULL,     -- the agent item as given
    spec        TEXT NOT NULL,     -- JSON AgentSpec dict (label = name; submitted code's digest)
    digest      TEXT NOT NULL,     -- what tells versions apart
    parent      INTEGER,           -- the entry of the previous version
    entrant     TEXT,              -- its owner (uploads); NULL from the command line
    status      TEXT NOT NULL,     -- active | retired
    added       REAL NOT NULL,
    joined      INTEGER NOT NULL,  -- the ladder's stored matches when it was added
    pi          REAL NOT NULL DEFAULT 0,   -- TrueSkill's exact state (0: the prior)
    tau         REAL NOT NULL DEFAULT 0,
    mu          REAL NOT NULL,
    sigma       REAL NOT NULL,
    deals       INTEGER NOT NULL DEFAULT 0,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    faults      INTEGER NOT NULL DEFAULT 0,
    share       TEXT NOT NULL DEFAULT '[0, 0.0, 0.0]',   -- Moments of the score share per deal
    form        TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (ladder, entry),
    UNIQUE (ladder, name)
);
CREATE TABLE IF NOT EXISTS ladder_pairs (
    ladder      TEXT NOT NULL,
    a           INTEGER NOT NULL,  -- entry numbers, a < b
    b           INTEGER NOT NULL,
    deals       INTEGER NOT NULL,
    PRIMARY KEY (ladder, a, b)
);
CREATE TABLE IF NOT EXISTS ladder_meetings (
    ladder      TEXT NOT NULL,
    entry       INTEGER NOT NULL,
    opponent    INTEGER NOT NULL,
    games       INTEGER NOT NULL,  -- matches where both held a seat, counted per pair of seats
    wins        INTEGER NOT NULL,  -- placed ahead of the opponent
    draws       INTEGER NOT NULL,
    losses      INTEGER NOT NULL,
    PRIMARY KEY (ladder, entry, opponent)
);
CREATE TABLE IF NOT EXISTS ladder_plan (
    ladder      TEXT NOT NULL,
    match_id    INTEGER NOT NULL,
    deal        INTEGER NOT NULL,
    seats       TEXT NOT NULL,     -- JSON list of entry numbers, one per seat
    PRIMARY KEY (ladder, match_id)
);
CREATE TABLE IF NOT EXISTS ladder_history (
    ladder      TEXT NOT NULL,
    entry       INTEGER NOT NULL,
    deal        INTEGER NOT NULL,  -- after this deal of the ladder
    deals       INTEGER NOT NULL,  -- the entry's deals so far
    mu          REAL NOT NULL,
    sigma       REAL NOT NULL,
    PRIMARY KEY (ladder, entry, deal)
);
CREATE TABLE IF NOT EXISTS ladder_tokens (
    token_id    TEXT PRIMARY KEY,  -- public part of the token, selects the row
    ladder      TEXT NOT NULL,
    entrant     TEXT NOT NULL,
    salt        BLOB NOT NULL,
    digest      BLOB NOT NULL,     -- scrypt(secret, salt)
    created     REAL NOT NULL,
    expires     REAL,              -- NULL: never
    revoked     REAL               -- NULL: live
);
"""

ENTRY_COLUMNS = ("entry", "label", "version", "item", "spec", "digest", "parent", "entrant", "status", "added",
                 "joined", "pi", "tau", "deals", "games", "wins", "draws", "losses", "faults", "share", "form")
# An entry's standing, as arena.ladder.standing keeps it (`save_standings` rows, in this order).
STANDING_COLUMNS = ("pi", "tau", "mu", "sigma", "deals", "games", "wins", "draws", "losses", "faults", "share",
                    "form")
TOKEN_COLUMNS = ("token_id", "entrant", "created", "expires", "revoked")


class LadderTables:
    """The ladders' rows of one store's connection. Writes of several statements are one
    transaction each; the single-statement writes (`add_entry`, `set_status`, `save_standings`,
    `add_meetings`) join the caller's transaction (`with store.db:`)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def _has(self, table: str) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None

    def exist(self) -> bool:
        """Whether the store has the ladders' tables (one made before they were in its schema may not)."""
        return self._has("ladders")

    # ---- ladders ----
    def add_ladder(self, name: str, run_id: str, created: float, config: dict[str, Any]) -> None:
        with self.db:
            self.db.execute("INSERT INTO ladders (name, run_id, created, config) VALUES (?, ?, ?, ?)",
                            (name, run_id, created, json.dumps(config, sort_keys=True)))

    def ladder(self, name: str) -> dict[str, Any] | None:
        """The ladder's row (its config decoded), or None."""
        if not self.exist():
            return None
        row = self.db.execute("SELECT * FROM ladders WHERE name = ?", (name,)).fetchone()
        return None if row is None else _ladder_dict(row)

    def ladder_rows(self) -> list[dict[str, Any]]:
        """Every ladder's row, with its counts of entries and active ones, oldest first."""
        if not self.exist():
            return []
        return [_ladder_dict(row) | {"entries": row["entries"], "active": row["active"]}
                for row in self.db.execute(
                    "SELECT l.*, count(e.entry) AS entries, coalesce(sum(e.status = 'active'), 0) AS active "
                    "FROM ladders l LEFT JOIN ladder_entries e ON e.ladder = l.name "
                    "GROUP BY l.name ORDER BY l.created, l.name")]

    def active_names(self) -> dict[str, list[str]]:
        """{run id: its active entries' names, in the order added} for every ladder."""
        if not self.exist():
            return {}
        out: dict[str, list[str]] = {}
        for run_id, entry_name in self.db.execute(
                "SELECT l.run_id, e.name FROM ladders l JOIN ladder_entries e ON e.ladder = l.name "
                "WHERE e.status = 'active' ORDER BY l.name, e.entry"):
            out.setdefault(run_id, []).append(entry_name)
        return out

    # ---- entries ----
    def entry_rows(self, name: str, active: bool = False) -> list[dict[str, Any]]:
        """The ladder's entries (only the active ones with `active`) as {ENTRY_COLUMNS}, in the order
        added; `spec` and `share` decoded."""
        if not self.exist():
            return []
        sql = f"SELECT {', '.join(ENTRY_COLUMNS)} FROM ladder_entries WHERE ladder = ?"
        if active:
            sql += " AND status = 'active'"
        rows = [dict(zip(ENTRY_COLUMNS, r)) for r in self.db.execute(sql + " ORDER BY entry", (name,))]
        for r in rows:
            r["spec"], r["share"] = json.loads(r["spec"]), json.loads(r["share"])
        return rows

    def add_entry(self, name: str, label: str, version: int, played_name: str, item: str, spec: dict[str, Any],
                  digest: str, parent: int | None, entrant: str | None, added: float, joined: int,
                  mu: float, sigma: float) -> int:
        """A new active entry, numbered after the ladder's last; returns its number."""
        number = self.db.execute("SELECT coalesce(max(entry), 0) + 1 FROM ladder_entries WHERE ladder = ?",
                                 (name,)).fetchone()[0]
        self.db.execute(
            "INSERT INTO ladder_entries (ladder, entry, label, version, name, item, spec, digest, parent, entrant, "
            "status, added, joined, mu, sigma) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)",
            (name, number, label, version, played_name, item, json.dumps(spec), digest, parent, entrant, added,
             joined, mu, sigma))
        return number

    def set_status(self, name: str, entries: Iterable[int], status: str) -> None:
        self.db.executemany("UPDATE ladder_entries SET status = ? WHERE ladder = ? AND entry = ?",
                            [(status, name, e) for e in entries])

    def save_standings(self, name: str, standings: Iterable[tuple[int, Sequence[Any]]]) -> None:
        """[(entry, values of STANDING_COLUMNS)]; `share` a list, encoded here."""
        self.db.executemany(
            "UPDATE ladder_entries SET " + ", ".join(f"{c} = ?" for c in STANDING_COLUMNS)
            + " WHERE ladder = ? AND entry = ?",
            [(*values[:-2], json.dumps(values[-2]), values[-1], name, entry) for entry, values in standings])

    # ---- what entries played ----
    def add_meetings(self, name: str, counts: Iterable[tuple[int, int, int, int, int, int]]) -> None:
        """Adds head-to-head counts [(entry, opponent, games, wins, draws, losses)] to the ladder's."""
        self.db.executemany(
            "INSERT INTO ladder_meetings VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ladder, entry, opponent) DO UPDATE "
            "SET games = games + excluded.games, wins = wins + excluded.wins, draws = draws + excluded.draws, "
            "losses = losses + excluded.losses", [(name, *c) for c in counts])

    def meetings(self, name: str, entry: int | None = None) -> list[dict[str, Any]] | None:
        """[{entry, opponent, games, wins, draws, losses}] of the ladder (of one entry); None when
        the store holds none for it (a store older than these counts: its ladders' head-to-heads
        are counted from their matches)."""
        if not self._has("ladder_meetings") or self.db.execute(
                "SELECT 1 FROM ladder_meetings WHERE ladder = ? LIMIT 1", (name,)).fetchone() is None:
            return None
        sql = "SELECT entry, opponent, games, wins, draws, losses FROM ladder_meetings WHERE ladder = ?"
        args: tuple[Any, ...] = (name,)
        if entry is not None:
            sql, args = sql + " AND entry = ?", (name, entry)
        return [dict(r) for r in self.db.execute(sql, args)]

    def pairs(self, name: str) -> dict[tuple[int, int], int]:
        """{(a, b): deals played together} for entries a < b."""
        return {(r[0], r[1]): r[2] for r in self.db.execute("SELECT a, b, deals FROM ladder_pairs WHERE ladder = ?",
                                                             (name,))}

    def history(self, name: str, entry: int, step: int, last: int) -> list[dict[str, Any]]:
        """[{deal, deals, mu, sigma}] of one entry: the points whose deals are a multiple of `step`,
        and the one at `last` deals."""
        return [dict(r) for r in self.db.execute(
            "SELECT deal, deals, mu, sigma FROM ladder_history WHERE ladder = ? AND entry = ? "
            "AND (deals % ? = 0 OR deals = ?) ORDER BY deal", (name, entry, step, last))]

    # ---- batches ----
    def plan(self, name: str, matches: Iterable[tuple[int, int, Sequence[int]]], next_deal: int,
             next_match: int) -> None:
        """Records a batch [(match id, deal, entry per seat)] and the ladder's next deal and match."""
        with self.db:
            self.db.executemany("INSERT INTO ladder_plan VALUES (?, ?, ?, ?)",
                                [(name, m, d, json.dumps(list(seats))) for m, d, seats in matches])
            self.db.execute("UPDATE ladders SET next_deal = ?, next_match = ?, batches = batches + 1 WHERE name = ?",
                            (next_deal, next_match, name))

    def planned(self, name: str) -> list[tuple[int, int, list[int]]]:
        """The recorded batch: [(match id, deal, entry per seat)] in match-id order."""
        return [(m, d, json.loads(seats)) for m, d, seats in self.db.execute(
            "SELECT match_id, deal, seats FROM ladder_plan WHERE ladder = ? ORDER BY match_id", (name,))]

    def fold(self, name: str, run_id: str, folded: int, standings: Iterable[tuple[int, Sequence[Any]]],
             history: Iterable[tuple[int, int, int, float, float]], pairs: Iterable[tuple[int, int]],
             meetings: Iterable[tuple[int, int, int, int, int, int]]) -> None:
        """Folds a batch in one transaction: the entries' standings (as `save_standings`), their
        history [(entry, deal, deals, mu, sigma)], one deal more for each pair (a, b) that met, the
        head-to-heads (as `add_meetings`); the plan is cleared and the run's total is `folded`."""
        with self.db:
            self.save_standings(name, standings)
            self.db.executemany("INSERT INTO ladder_history VALUES (?, ?, ?, ?, ?, ?)", [(name, *h) for h in history])
            self.db.executemany("INSERT INTO ladder_pairs VALUES (?, ?, ?, 1) ON CONFLICT (ladder, a, b) "
                                "DO UPDATE SET deals = deals + 1", [(name, a, b) for a, b in pairs])
            self.add_meetings(name, meetings)
            self.db.execute("DELETE FROM ladder_plan WHERE ladder = ?", (name,))
            self.db.execute("UPDATE runs SET total = ? WHERE run_id = ?", (folded, run_id))

    # ---- entrant tokens ----
    def add_token(self, token_id: str, ladder: str, entrant: str, salt: bytes, digest: bytes, created: float,
                  expires: float | None) -> None:
        with self.db:
            self.db.execute("INSERT INTO ladder_tokens VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                            (token_id, ladder, entrant, salt, digest, created, expires))

    def revoke_tokens(self, ladder: str, entrant: str, when: float) -> int:
        """Revokes every live token of the entrant; how many."""
        with self.db:
            return self.db.execute("UPDATE ladder_tokens SET revoked = ? WHERE ladder = ? AND entrant = ? "
                                   "AND revoked IS NULL", (when, ladder, entrant)).rowcount

    def tokens(self, ladder: str) -> list[dict[str, Any]]:
        """The ladder's tokens as {TOKEN_COLUMNS}, oldest first."""
        if not self._has("ladder_tokens"):
            return []
        return [dict(zip(TOKEN_COLUMNS, row)) for row in self.db.execute(
            f"SELECT {', '.join(TOKEN_COLUMNS)} FROM ladder_tokens WHERE ladder = ? ORDER BY created", (ladder,))]

    def token(self, token_id: str) -> tuple[str, str, bytes, bytes, float | None, float | None] | None:
        """(ladder, entrant, salt, digest, expires, revoked) of a token, or None."""
        if not self._has("ladder_tokens"):
            return None
        row = self.db.execute("SELECT ladder, entrant, salt, digest, expires, revoked FROM ladder_tokens "
                              "WHERE token_id = ?", (token_id,)).fetchone()
        return None if row is None else tuple(row)   # type: ignore[return-value]


def _ladder_dict(row: sqlite3.Row) -> dict[str, Any]:
    return {k: row[k] for k in ("name", "run_id", "created", "next_deal", "next_match", "batches")} | \
        {"config": json.loads(row["config"])}
