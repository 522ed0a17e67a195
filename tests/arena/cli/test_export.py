"""`arena export` writes a run as JSONL (every line valid against docs/export/line.schema.json) or
CSV, and `arena import` merges it into a store after replaying every match: the imported store
shows the same leaderboard and matchups, a tampered or conflicting file is refused with nothing
written, and importing twice changes nothing."""
import csv
import io
import json
import pathlib
import re

import jsonschema
import pytest

from cli import invoke, ok
from paths import FIXTURES, ROOT

SCHEMA = json.loads((pathlib.Path(ROOT) / "docs" / "export" / "line.schema.json").read_text())


def refused(*args, says):
    result = invoke(*args)
    assert result.exit_code == 2, (args, result.output)
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert says in result.output, result.output
    return result.output


@pytest.fixture(scope="module")
def every_game(tmp_path_factory):
    """A store with one tournament of every game (random and greedy, one deal each)."""
    path = tmp_path_factory.mktemp("export") / "s.sqlite"
    ok("run", "--agents", "random, greedy", "--games", 1, "-j", 1, "--store", path)
    return path


@pytest.fixture(scope="module")
def exported(every_game, tmp_path_factory):
    out = tmp_path_factory.mktemp("file") / "run.jsonl"
    ok("export", "--store", every_game, "--out", out)
    return out


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def without_store(text):
    data = json.loads(text)
    data.pop("store", None)
    return data


def test_every_line_of_every_game_follows_the_schema(exported):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    rows = lines(exported)
    assert rows[0]["type"] == "run" and rows[0]["matches"] == len(rows) - 1
    assert "deal_key" not in rows[0]
    assert {r["game_id"] for r in rows[1:]} == {g["game_id"] for g in rows[0]["config"]["games"]}
    for row in rows:
        validator.validate(row)
    assert all(m["mover"] < len(r["seats"]) for r in rows[1:] for m in r["moves"])


def test_the_deal_key_only_when_asked(every_game, tmp_path):
    from arena.store import Store
    store = Store(str(every_game), readonly=True)
    key = store.deal_key(store.run().run_id)
    store.close()
    first = json.loads(ok("export", "--store", every_game, "--with-deal-key").splitlines()[0])
    assert first["deal_key"] == key and key


def test_import_gives_the_same_leaderboard_and_matchups_and_twice_changes_nothing(every_game, exported, tmp_path):
    target = tmp_path / "t.sqlite"
    assert "imported" in ok("import", exported, "--store", target)
    for view in (("leaderboard", "--json"), ("matchups", "--json")):
        assert without_store(ok(*view, "--store", target)) == without_store(ok(*view, "--store", every_game))
    before = ok("export", "--store", target)
    assert " 0 matches imported" in ok("import", exported, "--store", target)
    assert ok("export", "--store", target) == before == exported.read_text()


def report_figures(store, out):
    """`arena report`'s figures (every inline SVG of its page) and its data, without what names the
    store, the file or the deal key (an export leaves the key out unless asked)."""
    data = json.loads(ok("report", "--store", store, "--out", out, "--json"))
    for where in ("out", "deal_key", "server"):
        data.pop(where, None)
    return re.findall(r"<svg[\s\S]*?</svg>", out.read_text()), data


def test_import_gives_the_same_report_figures(every_game, exported, tmp_path):
    target = tmp_path / "t.sqlite"
    ok("import", exported, "--store", target)
    figures, data = report_figures(every_game, tmp_path / "before.html")
    assert len(figures) >= 3 and data["sections"]
    imported_figures, imported_data = report_figures(target, tmp_path / "after.html")
    assert imported_data["config"].pop("imported") is True   # the one difference: where the run comes from
    assert (imported_figures, imported_data) == (figures, data)
    assert "imported from a file" in (tmp_path / "after.html").read_text()


def test_a_partial_store_is_completed(exported, tmp_path):
    """A store holding part of the run takes the rest (the checkpointed tallies stay right)."""
    part = tmp_path / "part.jsonl"
    rows = lines(exported)
    rows[0]["matches"] = 3
    part.write_text("".join(json.dumps(r) + "\n" for r in rows[:4]))
    target = tmp_path / "t.sqlite"
    ok("import", part, "--store", target)
    ok("leaderboard", "--json", "--store", target)
    assert f" {len(rows) - 4} matches imported" in ok("import", exported, "--store", target)
    ok("leaderboard", "--json", "--store", target)


def tampered(exported, tmp_path, change):
    rows = lines(exported)
    change(rows[3])
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, rows[3]["match_id"]


def swap_action(row):
    row["moves"][-1]["action"] = max(m["action"] for m in row["moves"]) + 1000


def change_return(row):
    row["returns"][0] += 1


def change_mover(row):
    row["moves"][0]["mover"] = 1 - row["moves"][0]["mover"] if len(row["seats"]) == 2 else \
        (row["moves"][0]["mover"] + 1) % len(row["seats"])


@pytest.mark.parametrize("change", [swap_action, change_return, change_mover])
def test_a_tampered_match_is_refused_naming_it_and_nothing_is_written(every_game, exported, tmp_path, change):
    target = tmp_path / "t.sqlite"
    ok("import", exported, "--store", target)
    other = ok("run", "--game", "insert", "--agents", "random, greedy", "--games", 1, "--seed", 7, "-j", 1,
               "--store", target)
    before = ok("runs", "--json", "--store", target)
    path, match_id = tampered(exported, tmp_path, change)
    refused("import", path, "--store", target, says=f"match {match_id}")
    assert ok("runs", "--json", "--store", target) == before and other
    fresh = tmp_path / "fresh.sqlite"
    refused("import", path, "--store", fresh, says=f"match {match_id}")
    assert not fresh.exists()


def test_a_conflicting_run_is_refused(exported, tmp_path):
    target = tmp_path / "t.sqlite"
    ok("import", exported, "--store", target)
    rows = lines(exported)
    a, b = rows[1], rows[2]   # two matches' contents under each other's ids: each replays, but the run differs
    a["match_id"], b["match_id"] = b["match_id"], a["match_id"]
    path = tmp_path / "other.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = ok("export", "--store", target)
    refused("import", path, "--store", target, says="conflicting run")
    assert ok("export", "--store", target) == before


def test_csv_has_one_row_per_match_and_seat(every_game, exported):
    rows = list(csv.DictReader(io.StringIO(ok("export", "--format", "csv", "--store", every_game))))
    matches = lines(exported)[1:]
    assert len(rows) == sum(len(m["seats"]) for m in matches)
    assert {(int(r["match_id"]), int(r["seat"])) for r in rows} == \
        {(m["match_id"], s) for m in matches for s in range(len(m["seats"]))}
    by_key = {(m["match_id"], s): m for m in matches for s in range(len(m["seats"]))}
    for r in rows:
        m = by_key[int(r["match_id"]), int(r["seat"])]
        assert float(r["return"]) == m["returns"][int(r["seat"])] and int(r["moves"]) == len(m["moves"])


def test_malformed_input_is_one_line(exported, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    refused("import", bad, "--store", tmp_path / "t.sqlite", says="not JSON")
    rows = lines(exported)
    rows[0]["version"] = 99
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    refused("import", bad, "--store", tmp_path / "t.sqlite", says="version 99")
    text = exported.read_text()
    bad.write_text(text[: len(text) // 2])
    refused("import", bad, "--store", tmp_path / "t.sqlite", says="bad.jsonl")
    bad.write_text("\n".join(text.splitlines()[:-1]) + "\n")
    refused("import", bad, "--store", tmp_path / "t.sqlite", says="truncated")
    refused("import", tmp_path / "missing.jsonl", "--store", tmp_path / "t.sqlite", says="cannot read")
    refused("export", "--store", exported.parent / "none.sqlite", says="no store")
    refused("export", "--out", tmp_path / "nofolder" / "x.jsonl", "--store", tmp_path / "t.sqlite", says="no folder")
    assert not (tmp_path / "t.sqlite").exists()


def test_a_faulty_match_replays(tmp_path):
    """A fault's stand-in moves and the faulty seat's placement survive the round trip."""
    source, target, out = tmp_path / "s.sqlite", tmp_path / "t.sqlite", tmp_path / "r.jsonl"
    ok("run", "--game", "insert", "--agents", f"random, {FIXTURES}/bots.py:RaisingBot as raising", "--games", 1,
       "-j", 1, "--sandbox", "none", "--store", source)
    ok("export", "--store", source, "--out", out)
    assert any(r.get("faults") for r in lines(out)[1:])
    ok("import", out, "--store", target)
    assert without_store(ok("leaderboard", "--json", "--store", target)) == \
        without_store(ok("leaderboard", "--json", "--store", source))
    # A file of format version 1 had the faulty seats moved last: imported, it is read as played out.
    older, v1 = tmp_path / "v1.jsonl", tmp_path / "v1.sqlite"
    head, *matches = lines(out)
    for m in matches:
        for f in m["faults"]:
            m["placements"] = [2 if seat == f["seat"] else 1 for seat in range(2)]
    older.write_text("\n".join(json.dumps(line) for line in [head | {"version": 1}, *matches]) + "\n")
    ok("import", older, "--store", v1)
    assert without_store(ok("leaderboard", "--json", "--store", v1)) == \
        without_store(ok("leaderboard", "--json", "--store", source))
    # The CSV gives each seat its agent's result: the faulty seat last.
    ok("export", "--store", source, "--format", "csv", "--out", tmp_path / "r.csv")
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert rows and all(r["placement"] == "2" for r in rows if r["faults"])


def test_an_imported_run_is_read_only_and_never_dealt_from(tmp_path, monkeypatch):
    """With or without its deal key, an imported run is never resumed nor extended: the same command
    is refused, and a longer run of the same line-up deals all its matches afresh."""
    monkeypatch.delenv("ARENA_DEAL_KEY")   # each run its own secret key, as outside the tests
    source, target, out = tmp_path / "s.sqlite", tmp_path / "t.sqlite", tmp_path / "r.jsonl"
    command = ("run", "--game", "insert", "--agents", "random, greedy", "-j", 1)
    ok(*command, "--games", 1, "--store", source)
    ok("export", "--store", source, "--out", out)
    ok("import", out, "--store", target)
    refused(*command, "--games", 1, "--store", target, says="was imported from a file")
    assert "0 already stored" in ok(*command, "--games", 2, "--store", target)
    keyed = tmp_path / "keyed.jsonl"
    ok("export", "--store", source, "--out", keyed, "--with-deal-key")
    ok("import", keyed, "--store", target)
    refused(*command, "--games", 1, "--store", target, says="was imported from a file")
    [run] = [r for r in json.loads(ok("runs", "--json", "--store", target)) if r["kind"] == "imported"]
    refused("run", "--resume", run["run_id"], "--store", target, says="was imported from a file")
