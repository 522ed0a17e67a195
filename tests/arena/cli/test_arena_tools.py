"""`arena check-agent` and `arena bench`."""
import json
import os

import pytest
from click.testing import CliRunner

from arena import bench
from arena.cli import main
from paths import FIXTURES

BOTS = os.path.join(FIXTURES, "bots.py")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("bot, failed", [
    ("GoodBot", None),
    ("MutatingBot", "does not modify the state it is given"),
    ("UnseededBot", "deterministic under a seed"),
    ("IllegalBot", "returns legal actions"),
    ("SlowBot", "keeps to its time budget"),
    ("RaisingBot", "plays without raising or crashing"),
    ("BrokenInit", "loads and resets"),
])
def test_check_agent_finds_each_problem(bot, failed):
    result = invoke("check-agent", f"{BOTS}:{bot}", "--game", "insert", "--games", 1, "--time-limit", 1, "--json")
    report = json.loads(result.output)
    assert result.exit_code == (0 if failed is None else 1)
    assert [c["check"] for c in report["checks"] if not c["ok"]] == ([failed] if failed else [])


def test_check_agent_table_for_a_builtin():
    result = invoke("check-agent", "greedy", "--game", "insert", "--games", 1)
    assert result.exit_code == 0, result.output
    assert "deterministic under a seed" in result.output and "FAILED" not in result.output


def _check_row(r):
    assert set(r) >= {"case", "unit", "rates", "median_per_s"}
    assert r["rates"] and all(x > 0 for x in r["rates"])
    assert min(r["rates"]) <= r["median_per_s"] <= max(r["rates"])


@pytest.mark.slow
def test_bench_rows_pair_each_c_loop_with_its_python_baseline():
    result = invoke("bench", "--game", "insert", "--no-search", "--repeats", 2, "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["case"] for r in rows] == ["insert/rollouts_python", "insert/rollouts", "insert/clones_python",
                                         "insert/clones", "insert/apply_undo_python", "insert/apply_undo"]
    for r in rows:
        _check_row(r)
    for base, fast in zip(rows[::2], rows[1::2]):
        assert fast["baseline"] == base["case"]


def test_bench_arena_rows():
    rows = bench.arena_rows("insert", repeats=1, deals=2)
    assert [r["case"] for r in rows] == ["arena/insert/bare_loop", "arena/insert/workers_1", "arena/insert/workers_2",
                                         "arena/insert/playouts"]
    for r in rows:
        _check_row(r)
    for r in rows[:3]:
        assert r["unit"] == "games/s" and r["games"] == 4
    for r in rows[1:3]:   # a share of the raw rate, rounded: on a loaded machine 4 games can round to 0.0
        assert r["playout_pct"] == round(100 * r["median_per_s"] / rows[3]["median_per_s"], 2) < 100
