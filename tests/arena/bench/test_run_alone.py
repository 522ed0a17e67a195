"""Each benchmark module run alone (`python -m arena.bench.X`) answers bad arguments in one line, and
names its options in its help."""
import subprocess
import sys

import pytest

MODULES = ["arena.bench.ismcts", "arena.bench.minimax", "arena.bench.pimc", "arena.bench.learned", "arena.bench.instructions"]


def run(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("module", MODULES)
def test_an_unknown_game_is_one_line_and_exit_2(module):
    done = run(module, "nosuchgame")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"python -m {module}: error: unknown game 'nosuchgame'; valid games: "
                                        "belladone_bluff, belle_of_the_ball, insert, royal_ball, wizard"]


@pytest.mark.parametrize("rounds", ["x", "0", None])
def test_a_bad_number_of_rounds_is_one_line_and_exit_2(rounds):
    done = run("arena.bench.ismcts", "--rounds", *([rounds] if rounds else []))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["python -m arena.bench.ismcts: error: --rounds takes a whole number of "
                                        "rounds, at least 1"]


def test_a_known_game_prints_its_rows():
    done = run("arena.bench.pimc", "insert")   # no pimc case on Insert: no rows, and no error
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


def test_the_help_of_the_ismcts_bench_names_rounds():
    done = run("arena.bench.ismcts", "--help")
    assert done.returncode == 0 and "--rounds [N]" in done.stdout and "interleaved rounds" in done.stdout


def test_rounds_takes_no_game():
    done = run("arena.bench.ismcts", "--rounds", "2", "insert")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["python -m arena.bench.ismcts: error: --rounds takes no game"]


def test_rounds_without_openspiel_is_one_line():
    done = subprocess.run([sys.executable, "-c", "import sys, runpy; sys.modules['pyspiel'] = None; "
                           "sys.argv = ['ismcts', '--rounds', '1']; runpy.run_module('arena.bench.ismcts', "
                           "run_name='__main__', alter_sys=True)"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.splitlines() == ["python -m arena.bench.ismcts: error: --rounds needs OpenSpiel: "
                                        "pip install -e '.[openspiel]'"]
