"""--out on every command that takes it: a folder that does not exist is a one-line error (exit 2),
never created, and nothing is written outside the folder named."""
import json
import os

import click
import pytest
from click.testing import CliRunner

from arena.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# The arguments, besides --out and --store, of each command that takes --out.
ARGS = {
    "graph": [],
    "report": [],
    "export": [],
    "analyze": ["insert", "--games", 1, "-j", 1],
}


def files(folder):
    """Every file and folder under `folder`."""
    return sorted(os.path.relpath(os.path.join(d, name), folder)
                  for d, subs, names in os.walk(folder) for name in subs + names)


# Found, not listed: a new command with --out is checked too (and fails here until ARGS has it).
TAKE_OUT = sorted(name for name, command in main.commands.items() if any("--out" in p.opts for p in command.params))


@pytest.mark.parametrize("command", TAKE_OUT)
@pytest.mark.parametrize("missing", [os.path.join("no", "such", "x.html"), os.path.join("no", "x.svg")])
def test_out_into_a_missing_folder_is_one_line_and_creates_nothing(command, missing, insert_store, tmp_path):
    # analyze plays its games into a store of its own: nothing is played (the store not created either).
    assert command in ARGS, f"give the arguments of `arena {command}` in ARGS"
    store_path = str(tmp_path / "new.sqlite") if command == "analyze" else insert_store
    before = files(os.path.dirname(insert_store))
    result = invoke(command, *ARGS[command], "--store", store_path, "--out", tmp_path / missing)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "no folder" in result.output, result.output
    assert str(tmp_path / "no") in result.output
    assert os.listdir(tmp_path) == [] and files(os.path.dirname(insert_store)) == before


def test_the_report_goes_beside_the_store_by_default_and_writes_one_file(insert_store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    def beside():   # but SQLite's own -wal and -shm files
        return {name for name in os.listdir(os.path.dirname(insert_store)) if not name.startswith("s.sqlite")}
    before = beside()
    data = json.loads(invoke("report", "--store", insert_store, "--json").output)
    assert data["out"] == os.path.join(os.path.dirname(insert_store), f"report-{data['run_id']}.html")
    assert beside() - before == {os.path.basename(data["out"])}
    assert os.listdir(tmp_path) == []   # no results/ folder made where the command ran
    os.remove(data["out"])



def _commands(group, path=()):
    for name, command in group.commands.items():
        yield " ".join(path + (name,)), command
        if hasattr(command, "commands"):
            yield from _commands(command, path + (name,))


COMMANDS = dict(_commands(main))
# Found, not listed: every option a command's help marks [required].
REQUIRED = sorted((name, p.opts[0]) for name, command in COMMANDS.items() for p in command.params
                  if isinstance(p, click.Option) and p.required)
# A value for each required argument and option, so that the one left out is the only thing missing.
VALUES = {"check-agent": ["greedy"], "play": ["insert"], "deals make": ["insert"],
          "--game": "insert", "--count": "1", "--vs": "random", "--phrase": "a phrase of the test"}


@pytest.mark.parametrize("command,option", REQUIRED)
def test_a_required_option_left_out_is_named(command, option, insert_store, tmp_path):
    args = command.split() + VALUES.get(command, [])
    for other in (o for c, o in REQUIRED if c == command and o != option):
        args += [other, str(tmp_path / "out.json") if other == "--out" else VALUES[other]]
    if any("--store" in p.opts for p in COMMANDS[command].params):
        args += ["--store", insert_store]
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert f"Missing option '{option}'" in result.output, result.output
    assert os.listdir(tmp_path) == []
