"""A results file is untrusted. `arena import` adds a match to a run this store played only when
it proves to be that run's (the file carries the run's deal key, the match is dealt as the run's
schedule deals its id, it replays, its faults show in the replay); a file's run is stored as an
imported run, read only, whose deal key no later `arena run` adopts; a ladder takes no file's
matches; every line is checked against the schema, one at a time, and a refusal is one line
naming the line, field or match, with nothing written."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest
from test_export import lines, refused, without_store

from cli import ok
from paths import FIXTURES, ROOT

RUN = ("run", "--game", "insert", "--agents", "random, greedy", "-j", 1)


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def victim(tmp_path, monkeypatch):
    """A finished run of 3 deals (6 matches) under its own secret key, and its export (no key)."""
    monkeypatch.delenv("ARENA_DEAL_KEY")
    store = tmp_path / "victim.sqlite"
    ok(*RUN, "--games", 3, "--store", store)
    ok("export", "--store", store, "--out", tmp_path / "run.jsonl")
    return store, lines(tmp_path / "run.jsonl")


def faulted(row, label, kind="timeout"):
    """The match with `label`'s seat said to have faulted at its first move (no metrics; placements, as
    stored, the played-out game's)."""
    row = json.loads(json.dumps(row))
    [seat] = [s["seat"] for s in row["seats"] if s["label"] == label]
    first = next(i for i, m in enumerate(row["moves"]) if m["mover"] == seat)
    row["faults"] = [{"seat": seat, "label": label, "kind": kind, "message": "no answer within 1 s", "move": first}]
    places = [1 + sum(r > mine for r in row["returns"]) for mine in row["returns"]]
    row["placements"] = places
    row["metrics"] = {}
    return row


def test_forged_matches_do_not_join_a_run_played_here(victim, tmp_path):
    """The attack: the victim's own export plus six matches at new ids in which greedy "timed out".
    Without the run's deal key no match joins it; nothing is written."""
    store, rows = victim
    forged = [dict(faulted(r, "greedy"), match_id=r["match_id"] + 6) for r in rows[1:]]
    head = dict(rows[0], matches=12)
    path = write(tmp_path / "forged.jsonl", [head] + rows[1:] + forged)
    before = ok("leaderboard", "--json", "--store", store)
    out = refused("import", path, "--store", store, says="match 6")
    assert "deal key" in out and "line 8" in out
    assert ok("leaderboard", "--json", "--store", store) == before


def copy_without_last_deal(store, part):
    """A private copy of `store` at `part` with its last deal (matches 4 and on) missing."""
    with sqlite3.connect(store) as db, sqlite3.connect(part) as copy:
        db.backup(copy)
        os.chmod(part, 0o600)   # as the arena makes a store: its owner's only
    with sqlite3.connect(part) as db:
        db.execute("DELETE FROM matches WHERE match_id >= 4")
        db.execute("DELETE FROM tallies")


@pytest.fixture
def partial(victim, tmp_path):
    """The victim's run with its last deal missing (as if interrupted), and a keyed export of all of it."""
    store, rows = victim
    ok("export", "--store", store, "--out", tmp_path / "keyed.jsonl", "--with-deal-key")
    part = tmp_path / "part.sqlite"
    copy_without_last_deal(store, part)
    return store, part, lines(tmp_path / "keyed.jsonl")


def test_a_claimed_fault_does_not_join_even_with_the_key(partial, tmp_path):
    store, part, rows = partial
    for kind in ("timeout", "crash", "exception", "illegal"):
        bad = list(rows)
        bad[5] = faulted(rows[5], "greedy", kind)
        refused("import", write(tmp_path / f"{kind}.jsonl", bad), "--store", part, says="match 4")
    with sqlite3.connect(part) as db:
        assert db.execute("SELECT count(*) FROM matches").fetchone()[0] == 4


@pytest.fixture
def illegal(tmp_path):
    """A finished run of 3 deals (under the tests' fixed deal key: the same matches every time) with
    a bot whose every action is illegal (each match has its fault, its seat then played by the
    stand-in), a copy of it missing its last deal, and the keyed export."""
    store, part = tmp_path / "illegal.sqlite", tmp_path / "part.sqlite"
    ok("run", "--game", "insert", "--agents", f"random, {FIXTURES}/bots.py:IllegalBot as illegal", "--games", 3,
       "-j", 1, "--sandbox", "none", "--store", store)
    ok("export", "--store", store, "--out", tmp_path / "keyed.jsonl", "--with-deal-key")
    copy_without_last_deal(store, part)
    rows = lines(tmp_path / "keyed.jsonl")
    assert all(r["faults"] and r["faults"][0]["kind"] == "illegal" for r in rows[1:])
    return store, part, rows


def test_an_illegal_action_is_proved_by_replay_and_joins(illegal, tmp_path):
    store, part, _ = illegal
    assert " 2 matches imported" in ok("import", tmp_path / "keyed.jsonl", "--store", part)
    assert without_store(ok("leaderboard", "--json", "--store", part)) == \
        without_store(ok("leaderboard", "--json", "--store", store))


def test_moves_after_a_fault_must_be_the_stand_ins(illegal, tmp_path):
    """The faulty seat's moves after its fault are replaced by other legal ones (the game replayed to
    its end with those, returns and placements made to match): refused."""
    import engines
    _, part, rows = illegal
    row = json.loads(json.dumps(rows[5]))
    fault = row["faults"][0]
    state = engines.make(row["game_id"], seed=row["seed"], **row["game_params"])
    moves = []
    for m in row["moves"][:fault["move"]]:
        moves.append(m)
        state.apply_action(m["action"])
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[-1] if state.current_player() == fault["seat"] else legal[0]
        moves.append({"mover": int(state.current_player()), "action": int(action)})
        state.apply_action(action)
    row["moves"], row["returns"] = moves, [float(x) for x in state.returns()]
    row["placements"] = [int(p) for p in state.placements()]
    bad = list(rows)
    bad[5] = row
    out = refused("import", write(tmp_path / "moved.jsonl", bad), "--store", part, says="match 4")
    assert "stand-in" in out
    state = engines.make(row["game_id"], seed=row["seed"], **row["game_params"])
    for m in rows[5]["moves"][:fault["move"]]:
        state.apply_action(m["action"])
    legal = state.legal_actions()[0]   # the fault said to name an action that is legal there
    bad[5] = dict(rows[5], faults=[dict(fault, message=f"returned {legal}, not a legal action")])
    out = refused("import", write(tmp_path / "legal.jsonl", bad), "--store", part, says="match 4")
    assert "names a legal action" in out


def test_a_match_dealt_otherwise_does_not_join_even_with_the_key(partial, tmp_path):
    """Deal 0's first match, replayable and legal, under match id 4 (deal 2): refused, its seed is not the key's."""
    store, part, rows = partial
    bad = list(rows)
    bad[5] = dict(rows[1], match_id=4)
    out = refused("import", write(tmp_path / "moved.jsonl", bad), "--store", part, says="match 4")
    assert "not a match of this run" in out


def test_the_runs_own_keyed_export_completes_it(partial, tmp_path):
    store, part, _ = partial
    assert " 2 matches imported" in ok("import", tmp_path / "keyed.jsonl", "--store", part)
    for view in (("leaderboard", "--json"), ("matchups", "--json")):
        assert without_store(ok(*view, "--store", part)) == without_store(ok(*view, "--store", store))


def test_a_ladder_never_takes_a_files_matches(tmp_path):
    """Matches placed at the ladder's next batch's ids would be folded without being played."""
    store = tmp_path / "lad.sqlite"
    ok("ladder", "new", "lad", "--game", "insert", "--store", store)
    for agent in ("greedy as g", "random as r"):
        ok("ladder", "add", "lad", agent, "--store", store)
    ok("ladder", "run", "lad", "--matches", 1, "-j", 1, "--store", store)
    ok("export", "ladder-lad", "--out", tmp_path / "lad.jsonl", "--store", store, "--with-deal-key")
    rows = lines(tmp_path / "lad.jsonl")
    played = len(rows) - 1
    forged = [dict(faulted(r, "g"), match_id=r["match_id"] + played) for r in rows[1:]]
    path = write(tmp_path / "forged.jsonl", [dict(rows[0], matches=2 * played)] + rows[1:] + forged)
    before = ok("ladder", "show", "lad", "--json", "--store", store)
    refused("import", path, "--store", store, says=f"match {played}")
    ok("ladder", "run", "lad", "--matches", 1, "-j", 1, "--store", store)
    with sqlite3.connect(store) as db:
        faults = db.execute("SELECT count(*) FROM matches WHERE faults != '[]'").fetchone()[0]
    assert faults == 0 and before != ok("ladder", "show", "lad", "--json", "--store", store)


def test_a_ladder_never_folds_matches_it_did_not_plan(tmp_path):
    """What an older arena's import let in at the next batch's ids: the ladder refuses to go on
    rather than fold them."""
    store = tmp_path / "lad.sqlite"
    ok("ladder", "new", "lad", "--game", "insert", "--store", store)
    for agent in ("greedy as g", "random as r"):
        ok("ladder", "add", "lad", agent, "--store", store)
    ok("ladder", "run", "lad", "--matches", 1, "-j", 1, "--store", store)
    before = ok("ladder", "show", "lad", "--json", "--store", store)
    with sqlite3.connect(store) as db:
        played = db.execute("SELECT count(*) FROM matches").fetchone()[0]
        db.execute("INSERT INTO matches SELECT run_id, match_id + ?, game_id, game_params, seed, deal, seats, "
                   "returns, placements, actions, faults, metrics, duration, finished FROM matches", (played,))
    refused("ladder", "run", "lad", "--matches", 1, "-j", 1, "--store", store, says="never planned")
    assert ok("ladder", "show", "lad", "--json", "--store", store) == before


def test_a_file_cannot_plant_the_deal_key_of_a_run_not_yet_played(tmp_path, monkeypatch):
    """Deal-key squatting: the attacker plays the victim's future run (its id is a digest of its
    config) under a key of the attacker's and sends the export with the key; the victim imports it,
    then starts that run: refused, and no match of it is dealt from the attacker's key."""
    monkeypatch.delenv("ARENA_DEAL_KEY")
    attacker, victim = tmp_path / "attacker.sqlite", tmp_path / "victim.sqlite"
    key = "0123456789abcdef0123456789abcdef"
    ok(*RUN, "--games", 3, "--deal-key", key, "--store", attacker)
    ok("export", "--store", attacker, "--out", tmp_path / "planted.jsonl", "--with-deal-key")
    ok("import", tmp_path / "planted.jsonl", "--store", victim)
    refused(*RUN, "--games", 3, "--store", victim, says="was imported from a file")
    # a longer run of the same line-up deals afresh (it does not extend the imported one)
    assert "0 already stored" in ok(*RUN, "--games", 4, "--store", victim)
    from arena.store import Store
    s = Store(str(victim), readonly=True)
    try:
        keys = {r.run_id: r.deal_key for r in s.runs()}
    finally:
        s.close()
    assert list(keys.values()).count(key) == 1   # the imported run's own, used by nothing else


def head_and_match(rows):
    return dict(rows[0], matches=1), rows[1]


@pytest.mark.parametrize("field, value, says", [
    ("match_id", "4", "$.match_id"), ("match_id", 4.0, "$.match_id"), ("match_id", -1, "$.match_id"),
    ("seed", "12", "$.seed"), ("seed", 2 ** 64, "$.seed"), ("deal", [0], "$.deal"), ("deal", True, "$.deal"),
    ("seats", [], "$.seats"), ("returns", "x" * 5000, "$.returns"), ("duration", -1, "$.duration"),
    ("duration", 10 ** 30, "$.duration"),
])
def test_a_bad_type_is_refused_at_its_line(victim, tmp_path, field, value, says):
    _, rows = victim
    head, match = head_and_match(rows)
    path = write(tmp_path / "bad.jsonl", [head, dict(match, **{field: value})])
    target = tmp_path / "t.sqlite"
    out = refused("import", path, "--store", target, says="line 2")
    assert says in out
    assert not target.exists()


def test_deep_json_and_non_numbers_are_one_line(victim, tmp_path):
    _, rows = victim
    head, match = head_and_match(rows)
    target = tmp_path / "t.sqlite"
    deep = json.dumps(head) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n"
    (tmp_path / "deep.jsonl").write_text(deep)
    refused("import", tmp_path / "deep.jsonl", "--store", target, says="line 2")
    nested = dict(match, metrics={"a": json.loads("[" * 900 + "]" * 900)})
    refused("import", write(tmp_path / "nested.jsonl", [head, nested]), "--store", target, says="line 2")
    (tmp_path / "nan.jsonl").write_text(json.dumps(head) + "\n" + json.dumps(match).replace(
        '"duration": ', '"duration": NaN, "x": ', 1) + "\n")
    refused("import", tmp_path / "nan.jsonl", "--store", target, says="line 2")
    refused("import", write(tmp_path / "runid.jsonl", [dict(head, run_id="../../x"), match]), "--store", target,
            says="line 1")
    assert not target.exists()


@pytest.mark.slow
def test_a_million_line_file_is_refused_at_its_first_bad_line_in_bounded_memory(victim, tmp_path):
    """1,000,000 match lines (some 700 MB) whose first is bad: refused at line 2 without reading on.
    Peak RSS of the importing process stays far below the file's size."""
    _, rows = victim
    head, match = head_and_match(rows)
    path = tmp_path / "big.jsonl"
    bad = json.dumps(dict(match, seed="0")) + "\n"
    good = json.dumps(match) + "\n"
    with open(path, "w") as f:
        f.write(json.dumps(dict(head, matches=1_000_000)) + "\n" + bad)
        for _ in range(999_999 // 10_000):
            f.write(good * 10_000)
        f.write(good * (999_999 % 10_000))
    size = os.path.getsize(path)
    assert size > 500_000_000
    code = ("import resource, sys\n"
            "from arena.cli import main\n"
            "try:\n    main([\"import\", sys.argv[1], \"--store\", sys.argv[2]])\n"
            "except SystemExit as e:\n    print('exit', e.code)\n"
            # VmHWM: this program's own peak (ru_maxrss keeps the forking pytest's across exec)
            "print('rss_kib', next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))\n")
    out = subprocess.run([sys.executable, "-c", code, str(path), str(tmp_path / "t.sqlite")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert "line 2" in out.stderr and "$.seed" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "exit 2" in out.stdout
    rss = int(out.stdout.split("rss_kib")[1]) * 1024
    assert rss < 250_000_000 < size / 2, (rss, size)
    assert not (tmp_path / "t.sqlite").exists()
