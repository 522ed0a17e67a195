"""The store's schema version: an older store (tests/fixtures/store_v0.sqlite, written by the arena
before versions) is read as it is, written only after `arena store migrate`, which changes no result
and is a no-op the second time; a store newer than the code is refused by every command."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

import arena.store
from arena.store import SCHEMA_VERSION, Store, StoreError, migrate
from cli import invoke, ok
from paths import FIXTURES

TOURNAMENT = "insert-b9c9efb567"
COMPARISON = "cmp-insert-0c0bfcc925"


@pytest.fixture
def old(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(os.path.join(FIXTURES, "store_v0.sqlite"), path)
    os.chmod(path, 0o600)   # as an arena makes a store: its owner\'s only
    return str(path)


def version(path):
    with sqlite3.connect(path) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def reading_commands(path, out):
    return [["leaderboard", "--store", path, "--json"], ["runs", "--store", path, "--json"],
            ["matches", TOURNAMENT, "--store", path, "--json"], ["matchups", "--store", path, "--json"],
            ["faults", "--store", path], ["graph", "--store", path, "--out", out + ".svg"],
            ["report", TOURNAMENT, "--store", path, "--out", out],
            ["replay", TOURNAMENT, "0", "--to-end", "--store", path],
            ["replay", TOURNAMENT, "0", "--html", out + ".replay.html", "--store", path],
            ["export", TOURNAMENT, "--store", path], ["leaderboard", COMPARISON, "--store", path],
            ["analyze", "--run", TOURNAMENT, "--store", path]]


def writing_commands(path, export):
    """The commands that write, `export` an export of the fixture's tournament."""
    return [["import", export, "--store", path],
            ["analyze", "insert", "--games", "1", "--jobs", "1", "--store", path],
            ["run", "--game", "insert", "--agents", "greedy,random", "--games", "1", "--jobs", "1", "--sandbox", "none",
             "--store", path],
            ["compare", "greedy", "random", "--game", "insert", "--max-deals", "1", "--jobs", "1", "--sandbox", "none",
             "--store", path]]


def test_a_new_store_is_made_at_the_current_version(tmp_path):
    Store(str(tmp_path / "new.sqlite")).close()
    assert version(tmp_path / "new.sqlite") == SCHEMA_VERSION >= 1


def test_an_old_store_is_read_as_it_is_and_written_only_after_migrating(old, tmp_path):
    out = str(tmp_path / "report.html")
    before = [ok(*args) for args in reading_commands(old, out)]
    export = str(tmp_path / "run.jsonl")
    ok("export", TOURNAMENT, "--store", old, "--out", export)
    for args in writing_commands(old, export):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert result.output.count("\n") == 1 and "arena store migrate --store" in result.output
    assert version(old) == 0   # reading and refusing wrote nothing
    assert f"migrated from schema version 0 to {SCHEMA_VERSION}" in ok("store", "migrate", "--store", old)
    after = [ok(*args) for args in reading_commands(old, out)]
    assert before[0] == after[0] and json.loads(before[0])["matches"] == 6   # the leaderboard, identical
    assert before[1:4] == after[1:4]   # runs, matches, matchups
    for args in writing_commands(old, export):
        ok(*args)


def test_migrating_twice_is_a_no_op(old):
    assert migrate(old) == (0, SCHEMA_VERSION)
    with open(old, "rb") as f:
        once = f.read()
    assert "already: nothing to do" in ok("store", "migrate", "--store", old)
    with open(old, "rb") as f:
        assert f.read() == once


def test_a_failed_migration_leaves_the_store_as_it_was(old, monkeypatch):
    step = arena.store.MIGRATIONS[1]

    def failing(db):   # the real step, changes, then a failure before the commit
        step(db)
        db.execute("CREATE TABLE half_done (x)")
        db.execute("DELETE FROM matches")
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(arena.store, "MIGRATIONS", {1: failing})
    with pytest.raises(StoreError, match="disk I/O error"):
        migrate(old)
    monkeypatch.undo()
    assert version(old) == 0
    with sqlite3.connect(old) as db:
        assert db.execute("SELECT 1 FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
        assert db.execute("SELECT count(*) FROM matches").fetchone()[0] == 12
    assert migrate(old) == (0, SCHEMA_VERSION)


def test_a_store_older_than_deal_keys_and_outputs_is_migrated(tmp_path):
    path = str(tmp_path / "older.sqlite")
    with sqlite3.connect(path) as db:   # the first stores: runs and matches only, no deal key
        db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, created REAL NOT NULL, config TEXT NOT NULL, "
                   "total INTEGER NOT NULL, status TEXT NOT NULL)")
        db.execute("INSERT INTO runs VALUES ('r', 0, '{}', 0, 'finished')")
    migrate(path)
    store = Store(path)
    assert store.deal_key("r") == "" and store.tallies("r") == (0, [])
    assert list(store.outputs("r")) == []
    store.close()


def test_a_newer_store_is_refused_by_every_command(old, tmp_path):
    export = str(tmp_path / "run.jsonl")
    ok("export", TOURNAMENT, "--store", old, "--out", export)
    with sqlite3.connect(old) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    for args in reading_commands(old, str(tmp_path / "r.html")) + writing_commands(old, export) + [
            ["store", "migrate", "--store", old]]:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output == f"Error: the store {old} has schema version {SCHEMA_VERSION + 1}, newer than this " \
                                f"arena's {SCHEMA_VERSION}: use a newer arena\n", args
    # `arena serve` refuses it before it listens (a server that started would outlive the timeout)
    served = subprocess.run([sys.executable, "-m", "arena", "serve", "--store", old, "--port", "0"],
                            capture_output=True, text=True, timeout=60)
    assert served.returncode == 2 and served.stderr == result.output


def test_a_table_added_later_is_a_version_bump_and_a_migration(tmp_path, monkeypatch):
    path = str(tmp_path / "s.sqlite")
    Store(path).close()   # a store of this version
    monkeypatch.setattr(arena.store, "SCHEMA", arena.store.SCHEMA + "CREATE TABLE IF NOT EXISTS later (x);")
    monkeypatch.setattr(arena.store, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    Store(path, readonly=True).close()
    with pytest.raises(StoreError, match="arena store migrate"):
        Store(path)
    assert migrate(path) == (SCHEMA_VERSION, SCHEMA_VERSION + 1)
    store = Store(path)
    assert store.db.execute("SELECT count(*) FROM later").fetchone()[0] == 0
    store.close()


def test_an_old_stores_runs_read_as_typed_values_with_their_own_run_ids(old):
    """Store.runs gives each stored run typed: its config read back is the config of the run id it
    was stored under (the digest of the same JSON form), whatever kind of run it is."""
    from arena.run_config import TournamentConfig
    runs = {run.run_id: run for run in Store(old, readonly=True).runs()}
    assert set(runs) == {TOURNAMENT, COMPARISON}
    for run_id, run in runs.items():
        assert isinstance(run.config, TournamentConfig) and run.config.run_id == run_id
    assert (runs[TOURNAMENT].kind, runs[COMPARISON].kind) == ("tournament", "compare")
    assert runs[TOURNAMENT].labels and runs[TOURNAMENT].game_ids == ("insert",)
