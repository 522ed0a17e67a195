"""Small manners of the command line: a reader that stops early (`| head -1`) ends a command quietly
with exit 0, listings say "(none)" for an empty default and which agents are not installed, a
number option says what it takes, and bench's help says what it prints."""
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from arena.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# rich's tables (leaderboard) and click's lines (games --json, matches) alike
@pytest.mark.slow
@pytest.mark.parametrize("command", [["games", "--json"], ["leaderboard"], ["matches"]])
def test_a_reader_that_stops_early_ends_the_command_quietly(command, insert_store):
    args = command + (["--store", insert_store] if command[0] != "games" else [])
    proc = subprocess.Popen([sys.executable, "-m", "arena", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()   # as `| head -0` does, before the command writes its first line
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0 and err == b"", (command, err)


def test_an_empty_default_is_shown_as_none():
    text = invoke("games").output
    assert "tiles=(none)" in text and "hands=(none)" in text
    assert "tiles= " not in text and not any(line.rstrip(" │").endswith("=") for line in text.splitlines())


def test_agents_that_need_openspiel_are_unavailable_without_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)     # `import pyspiel` raises ImportError
    rows = {r["name"]: r for r in json.loads(invoke("agents", "--json").output)}
    spiel = {name for name in rows if name.startswith("openspiel_")}
    assert spiel == {"openspiel_mcts", "openspiel_ismcts", "openspiel_bot"}
    for name, row in rows.items():
        if name in spiel:
            assert "pip install 'tabletop-arena[openspiel]'" in row["unavailable"], row
        else:
            assert row["unavailable"] is None, row
    text = " ".join(invoke("agents").output.split())
    assert text.count("unavailable") == 3 and text.count("'tabletop-arena[openspiel]'") == 3


@pytest.mark.parametrize("args", [["run", "--games", "abc"], ["analyze", "insert", "--games", "abc"],
                                  ["check-agent", "greedy", "--game", "insert", "--games", "x"],
                                  ["compare", "greedy", "random", "--game", "insert", "--max-deals", "1.5"],
                                  ["run", "--jobs", "many"]])
def test_a_number_option_says_it_takes_a_whole_number(args):
    result = invoke(*args)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "is not a valid whole number" in result.output and "integer range" not in result.output


def test_bench_help_says_what_it_prints():
    text = " ".join(invoke("bench", "--help").output.split())
    assert "a table, or with --json one JSON object per line" in text
