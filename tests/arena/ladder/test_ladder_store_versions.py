"""A ladder made before the ladders' tables joined the store's schema (tests/fixtures/ladder_store_v2.sqlite,
written by the arena at schema version 2: ladder `lad` on insert, entries r, g and r2 (retired), one
batch of 16 matches folded (g 5 deals, r 6, r2 5), a token for alice) reads as it is, is written only after `arena store
migrate`, and then plays on from where it stopped with its entries, standings, head-to-heads and token."""
import json
import os
import shutil
import sqlite3

import pytest

from arena.ladder import store as ladders
from arena.ladder import tokens
from arena.store import SCHEMA_VERSION, Store, StoreError, migrate
from arena.tournament import schedule as sched
from cli import invoke, ok
from paths import FIXTURES

ALICE = "0888a18ff54aa388.R0bVKqU-KRFLCqqs0-cPbQ_JrSVeAzyK7tFrX7hJi6g"   # the fixture's token (test data only)


@pytest.fixture
def old(tmp_path, monkeypatch):
    """A copy of the fixture, played on as by the engines and agents that wrote it: a ladder refuses
    other code (its ratings would mix two sets of rules), and the code changes after the fixture."""
    path = tmp_path / "ladder.sqlite"
    shutil.copy(os.path.join(FIXTURES, "ladder_store_v2.sqlite"), path)
    os.chmod(path, 0o600)
    with sqlite3.connect(path) as db:
        code = json.loads(db.execute("SELECT config FROM ladders WHERE name = 'lad'").fetchone()[0])["code"]
    monkeypatch.setattr(sched, "code_digest", lambda: code)
    return str(path)


def views(path):
    store = Store(path, readonly=True)
    try:
        names = [e.name for e in ladders.entries(store, "lad")]
        return {"standings": ladders.standings(store, "lad", include_retired=True),
                "head_to_head": {n: ladders.head_to_head(store, "lad", n) for n in names},
                "history": {n: ladders.history(store, "lad", n) for n in names},
                "tokens": tokens.tokens(store, "lad"), "list": ladders.ladders(store),
                "alice": tokens.entrant_of(store, "lad", ALICE)}
    finally:
        store.close()


def test_an_older_ladder_reads_as_it_is_and_after_migrate_plays_on_with_everything_it_had(old):
    before = views(old)
    assert [(r["name"], r["status"], r["deals"]) for r in before["standings"]] == \
        [("g", "active", 5), ("r", "active", 6), ("r2", "retired", 5)]
    assert before["list"][0]["matches"] == 16 and before["alice"] == "alice" and len(before["tokens"]) == 1
    assert all(before["head_to_head"][n] for n in ("g", "r"))

    with pytest.raises(StoreError, match="arena store migrate"):
        Store(old)
    refused = invoke("ladder", "run", "lad", "--matches", 4, "-j", 1, "--store", old)
    assert refused.exit_code != 0 and "arena store migrate" in refused.output and "Traceback" not in refused.output

    assert migrate(old) == (2, SCHEMA_VERSION) and SCHEMA_VERSION >= 3
    assert views(old) == before

    ok("ladder", "run", "lad", "--matches", 4, "-j", 1, "--store", old)
    after = views(old)
    store = Store(old, readonly=True)
    try:
        assert [m["match_id"] for m in store.matches("ladder-lad")] == list(range(32))   # on from match 16
    finally:
        store.close()
    played = {r["name"]: r for r in after["standings"]}
    # one batch of 8 deals, g against r in both seatings (r2 is retired): 16 matches more for each
    assert (played["g"]["deals"], played["r"]["deals"], played["r2"]["deals"]) == (13, 14, 5)
    assert {n: sum(r["games"] for r in rows) for n, rows in after["head_to_head"].items()} == \
        {"g": 26, "r": 28, "r2": 10}
    assert after["alice"] == "alice"
    shown = json.loads(ok("ladder", "show", "lad", "--json", "--store", old))["standings"]
    assert [r["name"] for r in shown] == [r["name"] for r in after["standings"] if r["status"] == "active"]


def test_a_ladder_older_than_its_head_to_head_counts_gets_them_counted_once_on_its_next_write(old):
    store = Store(old, readonly=True)
    expected = {n: ladders.head_to_head(store, "lad", n) for n in ("g", "r")}
    store.close()
    migrate(old)
    store = Store(old)
    with store.db:   # as a store whose ladder was folded before it kept head-to-heads
        store.db.execute("DELETE FROM ladder_meetings")
    assert {n: ladders.head_to_head(store, "lad", n) for n in ("g", "r")} == expected   # counted from the matches
    ladders.count_meetings(store)
    ladders.count_meetings(store)   # once: the second finds them kept
    with store.db:
        store.db.execute("DELETE FROM matches")
    assert {n: ladders.head_to_head(store, "lad", n) for n in ("g", "r")} == expected
    store.close()
