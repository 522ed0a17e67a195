"""The public face: `import arena` exports the few names a user needs, each with a docstring, loaded
on first use (so the import is cheap), and the records read from a store are the views' own data as
frozen dataclasses whose `to_records()` pandas takes as it is."""
import ast
import dataclasses
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import arena
from arena.compare import compare
from arena.reports import sections
from arena.results import export
from arena.text import jsonable

HEAVY = ("click", "dask", "distributed", "starlette", "uvicorn", "matplotlib")
PLAIN = (str, int, float, bool, type(None))


def loaded_after(code):
    """The arena modules and the HEAVY ones loaded after `code`, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\nprint(json.dumps(sorted("
                          f"m for m in sys.modules if m.startswith('arena.') or m.split('.')[0] in {HEAVY!r})))"],
                         check=True, capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(arena.__file__))).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.slow
def test_import_arena_loads_none_of_its_modules_and_the_face_nothing_heavy():
    assert loaded_after("import arena") == []
    touched = loaded_after("import arena\n" + "\n".join(f"arena.{name}" for name in arena.__all__))
    assert "arena.records" in touched and "arena.tournament.coordinator" in touched
    assert not [m for m in touched if m.split(".")[0] in HEAVY], touched


def test_every_name_of_the_face_exists_and_has_a_docstring():
    assert len(arena.__all__) == len(set(arena.__all__)) >= 10
    for name in arena.__all__:
        value = getattr(arena, name)
        assert (inspect.getdoc(value) or "").strip(), f"arena.{name} has no docstring"
        assert name in dir(arena)
    for record in (arena.Standing, arena.MatchSeat, arena.Verdict, arena.Comparison):
        assert dataclasses.is_dataclass(record) and record.__dataclass_params__.frozen
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = arena.nothing


def test_the_face_is_declared_once_for_type_checkers_and_once_for_the_lazy_loader():
    """The `if TYPE_CHECKING:` imports (what mypy and the API reference read) name the same modules
    as the table `__getattr__` loads from, for exactly the names of __all__."""
    with open(arena.__file__) as f:
        tree = ast.parse(f.read())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    declared = {a.name: node.module for node in block.body for a in node.names}
    assert declared == arena._HOMES and set(declared) == set(arena.__all__)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A store with a run of random and greedy on two Insert deals and one on a Wizard deal (whose
    standings have a game metric), and a comparison of greedy with random on three Insert deals."""
    store = arena.Store(tmp_path_factory.mktemp("face") / "a.sqlite")
    runs = []
    for game_id, deals in (("insert", 2), ("wizard", 1)):
        plan = arena.plan(store, game_id=game_id, agents="random, greedy", deals=deals)
        assert arena.play(store, plan, jobs=1) == "finished"
        runs.append(plan.run_id)
    duel = arena.plan_comparison(store, "greedy", "random", "insert", max_deals=3)
    return store, runs, duel, arena.play_comparison(store, duel, jobs=1)


def plain(records):
    return all(isinstance(r, dict) and all(type(v) in PLAIN for v in r.values()) for r in records)


def test_standings_are_the_leaderboards_records_typed(played):
    store, runs, _, _ = played
    for run_id in runs:
        flat = sections.standings(store, run_id)
        typed = arena.standings(store, run_id)
        assert isinstance(typed, arena.Records) and all(isinstance(r, arena.Standing) for r in typed)
        records = typed.to_records()
        assert records == flat and [list(r) for r in records] == [list(r) for r in flat]   # the same keys, in order
        assert plain(records)
        assert [arena.Standing.from_record(r) for r in flat] == list(typed)
    wizard = arena.standings(store, runs[1])
    assert all(set(r.metrics) == {"bid_accuracy", "bid_accuracy_low", "bid_accuracy_high"} for r in wizard)
    assert "bid_accuracy" in wizard.to_records()[0]
    assert arena.standings(store, runs[0])[0].metrics == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        wizard[0].rank = 9


def test_matches_are_the_csv_exports_rows_typed(played):
    store, runs, _, _ = played
    typed = arena.matches(store, runs[0])
    assert all(isinstance(m, arena.MatchSeat) for m in typed) and len(typed) == 2 * 2 * 2
    assert typed.to_records() == list(export.csv_rows(store, runs[0]))
    assert typed[0].return_ == typed.to_records()[0]["return"]
    assert plain(typed.to_records())


def test_verdicts_are_the_sections_verdicts(played):
    store, runs, _, _ = played
    for run_id in runs:
        shown = sections.run_sections(store, run_id)[0]
        typed = arena.verdicts(store, run_id)
        assert [(v.game_id, v.game, v.deals, v.matches, v.verdict) for v in typed] == \
            [(s["game_id"], s["title"], s["deals"], s["matches"], s["verdict"]) for s in shown]
        assert all(v.run_id == run_id and v.settled is None for v in typed) and plain(typed.to_records())
        assert typed[0].verdict


def test_a_comparison_is_compare_jsons_summary_flat_and_plain(played):
    store, _, duel, result = played
    assert isinstance(result, arena.Comparison) and result.run_id == duel.run_id and result.status == "finished"
    status, outcome = compare.play(store, duel, jobs=1)   # played already: only read again
    summary = jsonable(compare.summary(duel, outcome, status))
    assert result == arena.Comparison.from_summary(summary)
    record = result.to_record()
    assert plain([record])
    assert {k: record[k] for k in ("candidate", "baseline", "deals", "verdict", "llr", "command")} == \
        {k: summary[k] for k in ("candidate", "baseline", "deals", "verdict", "llr", "command")}
    for name in ("score", "elo", "nelo", "points"):
        assert [record[name], record[f"{name}_low"], record[f"{name}_high"]] == \
            [summary[name] and summary[name][k] for k in ("mean", "low", "high")]
    assert result.score_low <= result.score <= result.score_high


def test_a_mistyped_run_or_game_is_a_one_line_error_not_an_empty_table(played):
    store, runs, _, _ = played
    for read in (arena.standings, arena.matches, arena.verdicts):
        with pytest.raises(ValueError, match=r"^no run 'insert-nope' in .*a\.sqlite \(latest: insert-"):
            read(store, "insert-nope")
    for read in (arena.standings, arena.verdicts):
        with pytest.raises(ValueError, match=r"^unknown game 'insrt'; valid games: "):
            read(store, runs[0], "insrt")
    assert arena.standings(store, runs[0], "wizard") == ()   # a game the run did not play: none of its rows


def test_jsonable_makes_numpy_floats_plain():
    assert type(jsonable(np.float64(0.5))) is float and jsonable({"a": [np.float64("inf")]}) == {"a": [None]}


def test_the_records_go_into_pandas_as_they_are(played):
    pandas = pytest.importorskip("pandas")
    store, runs, _, result = played
    for records in (arena.standings(store, runs[1]), arena.matches(store, runs[0]), arena.verdicts(store, runs[0])):
        frame = pandas.DataFrame(records.to_records())
        assert len(frame) == len(records) and list(frame.columns) == list(records[0].to_record())
    assert pandas.DataFrame([result.to_record()]).loc[0, "candidate"] == "greedy"
