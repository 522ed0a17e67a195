"""`arena bench --instructions`: instruction counts under callgrind, which repeat exactly where
seconds do not, and which put the C loop far below the Python face."""
import json
import shutil

import pytest
from click.testing import CliRunner

from arena.bench import instructions, yardstick
from arena.cli import main

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")]


def test_a_count_repeats_exactly():
    assert instructions.count("rollouts", "insert", 20) == instructions.count("rollouts", "insert", 20)
    # a search imports numpy, whose BLAS threads once made its counts differ by millions from run to run
    assert instructions.count("iterations", "royal_ball", 1) == instructions.count("iterations", "royal_ball", 1)


def test_the_rows_per_game_beside_their_baselines():
    result = CliRunner().invoke(main, ["bench", "--instructions", "--game", "royal_ball", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["case"]: r for r in map(json.loads, result.output.splitlines())}
    python, c, search = (rows["royal_ball/rollouts_python"], rows["royal_ball/rollouts"],
                         rows["ismcts/royal_ball/iterations"])
    assert python["unit"] == c["unit"] == "instructions/playout" and search["unit"] == "instructions/iteration"
    assert c["baseline"] == python["case"] and search["baseline"] == c["case"]
    # a playout in C costs a fraction of the same playout through the Python face
    assert 0 < c["instructions"] * 5 < python["instructions"]
    assert c["ratio"] == round(python["instructions"] / c["instructions"], 2)
    assert search["instructions"] > 0
    arena = rows["arena/royal_ball/matches"]
    assert arena["unit"] == "instructions/match" and arena["baseline"] == c["case"] and arena["instructions"] > 0
    assert arena["playout_pct"] == round(100 * c["instructions"] / arena["instructions"], 2)


@pytest.mark.skipif(yardstick.compiler() is None, reason="no C compiler")
def test_the_plain_c_yardstick_is_the_baseline_of_wizard_playouts():
    rows = {r["case"]: r for r in instructions.rows(["wizard"], search=False, scale=0.05)}
    plain, c = rows["wizard/rollouts_plain_c"], rows["wizard/rollouts"]
    assert plain["unit"] == c["unit"] == "instructions/playout" and plain["instructions"] > 0
    assert c["baseline"] == plain["case"] and c["ratio"] == round(plain["instructions"] / c["instructions"], 2)
    assert c["python_ratio"] == round(rows["wizard/rollouts_python"]["instructions"] / c["instructions"], 2)


def test_without_valgrind_it_is_one_line(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    result = CliRunner().invoke(main, ["bench", "--instructions", "--game", "insert"])
    assert result.exit_code == 2 and "needs valgrind" in result.output and len(result.output.splitlines()) == 1
