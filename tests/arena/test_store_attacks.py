"""Hostile stores (arena.store): a schema version no arena writes, and `arena store migrate` killed
with SIGKILL half-way; refused in one line, or left as it was."""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from arena.store import SCHEMA_VERSION, Store, StoreError, migrate
from cli import invoke
from paths import FIXTURES


@pytest.fixture
def old(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(os.path.join(FIXTURES, "store_v0.sqlite"), path)
    os.chmod(path, 0o600)   # as an arena makes a store: its owner\'s only
    return str(path)


def set_version(path, version):
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {version}")


def read(path):
    """(version, matches, tables) of the store at `path`."""
    with sqlite3.connect(path) as db:
        return (db.execute("PRAGMA user_version").fetchone()[0], db.execute("SELECT count(*) FROM matches").fetchone()[0],
                sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")))


@pytest.mark.parametrize("version", [-1, -5, -2 ** 31])
def test_a_negative_schema_version_is_refused_by_every_command_and_nothing_is_written(old, version):
    set_version(old, version)
    before = read(old)
    for args in (["runs", "--json"], ["store", "migrate"],
                 ["run", "--game", "insert", "--agents", "greedy,random", "--games", "1", "--jobs", "1",
                  "--sandbox", "none"]):
        result = invoke(*args, "--store", old)
        assert result.exit_code == 2 and "which no arena writes" in result.output, (args, result.output)
        assert result.output.count("\n") == 1
    for readonly in (True, False):
        with pytest.raises(StoreError, match="which no arena writes"):
            Store(old, readonly=readonly)
    assert read(old) == before


# This held before it was written; it guards what the test of a failed migration (an exception,
# then a rollback) does not: a migration killed outright, with no chance to roll back.
def test_a_migration_killed_half_way_leaves_the_store_as_it_was(old, tmp_path):
    before = read(old)
    ready = tmp_path / "ready"
    script = textwrap.dedent(f"""
        import os, time
        import arena.store
        step = arena.store.MIGRATIONS[1]
        def stalled(db):   # the real step and more changes, then a pause before the commit
            step(db)
            db.execute("CREATE TABLE half_done (x)")
            db.execute("DELETE FROM matches")
            open({str(ready)!r}, "w").close()
            time.sleep(60)
        arena.store.MIGRATIONS[1] = stalled
        arena.store.migrate({old!r})
    """)
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        for _ in range(600):
            if ready.exists() or child.poll() is not None:
                break
            time.sleep(0.05)
        assert ready.exists(), "the migration never reached its pause"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert read(old) == before
    with sqlite3.connect(old) as db:
        assert [r[0] for r in db.execute("PRAGMA integrity_check")] == ["ok"]
    assert migrate(old) == (0, SCHEMA_VERSION)
    assert read(old)[:2] == (SCHEMA_VERSION, before[1])


# This held before it was written; it guards `arena store migrate` on a file that is not a store:
# one line, exit 2, and the file's bytes as they were.
@pytest.mark.parametrize("kind", ["text", "damaged", "empty"])
def test_migrating_a_file_that_is_not_a_store_changes_nothing(old, tmp_path, kind):
    path = tmp_path / f"{kind}.sqlite"
    if kind == "text":
        path.write_text("not a database\n" * 100)
    elif kind == "empty":
        path.write_bytes(b"")
    else:
        data = bytearray(open(old, "rb").read())
        data[8192:11192] = b"A" * 3000   # pages of the tables overwritten
        path.write_bytes(bytes(data))
    before = path.read_bytes()
    result = invoke("store", "migrate", "--store", path)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == sorted(["old.sqlite", path.name])
