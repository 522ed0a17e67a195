"""The `arena` command line: first tournament, listings, and one-line errors for bad input."""
import json
import os

import pytest
from click.testing import CliRunner

import engines
from arena.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_first_tournament_puts_greedy_above_random(tmp_path):
    store = tmp_path / "arena.sqlite"
    result = invoke("run", "--game", "insert", "--agents", "random,greedy", "--games", 4, "--jobs", 1,
                    "--store", store)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "greedy" in line or "random" in line]
    assert "greedy" in lines[0] and "random" in lines[1], result.output

    again = invoke("leaderboard", "--store", store, "--json")
    assert again.exit_code == 0, again.output
    board = json.loads(again.output)
    rows = board["leaderboards"][0]["rows"]
    assert [r["label"] for r in rows] == ["greedy", "random"]
    assert rows[0]["games"] == rows[1]["games"] == 8
    assert rows[0]["wins"] + rows[0]["draws"] + rows[0]["losses"] == 8
    assert board["status"] == "finished" and board["matches"] == board["total"] == 8


def test_games_and_agents_list_what_is_registered():
    games = json.loads(invoke("games", "--json").output)
    assert [g["game_id"] for g in games] == engines.game_ids()
    insert = next(g for g in games if g["game_id"] == "insert")
    assert insert["params"]["insert_axes"] == "all4"
    agents = json.loads(invoke("agents", "--json").output)
    assert {"random", "greedy"} <= {a["name"] for a in agents}


@pytest.mark.parametrize("args, words", [
    (["run", "--game", "nosuchgame"], ["unknown game", "insert"]),
    (["run", "--game", "insert", "--agents", "random,nosuchbot"], ["unknown agent", "nosuchbot"]),
    (["run", "--game", "insert", "--param", "insert_axes"], ["malformed parameter"]),
    (["run", "--game", "insert", "--param", "insert_axes=diagonal"], ["insert_axes", "all4"]),
    (["run", "--game", "insert", "--param", "nosuch=1"], ["unknown parameter", "nosuch"]),
    (["run", "--game", "insert", "--players", "3"], ["2 to 2 players"]),
    (["run", "--game", "insert", "--param", "players=3"], ["2 to 2 players"]),
    (["check-agent", "greedy", "--game", "insert", "--param", "players=3"], ["2 to 2 players"]),
    (["run", "--game", "insert", "--agents", "random[depth=3],greedy"], ["depth", "random"]),
    (["run", "--game", "insert", "--agents", "random,random"], ["appears twice"]),
    (["run", "--game", "insert", "--agents", "random"], ["at least two agents"]),
    (["run", "--game", "insert", "--agents", "random,./no_such_bot.py:Bot"], ["no file"]),
    (["run", "--game", "insert", "--agents", "random,no_such_pkg.bots:Bot"], ["no module"]),
    (["leaderboard", "no-such-run"], ["no store"]),
    (["matchups", "--store", __file__ + "/s.sqlite"], ["no store"]),
    (["run", "--game", "insert", "--backend", "dask"], ["--address"]),
    (["run", "--resume", "no-such-run"], ["no run"]),
    (["check-agent", "nosuchbot", "--game", "insert"], ["unknown agent"]),
    (["bench", "--game", "nosuchgame"], ["unknown game"]),
])
def test_bad_input_is_one_line_and_exit_code_2(tmp_path, args, words):
    store = ["--store", tmp_path / "s.sqlite"] if args[0] in ("run", "leaderboard") else []
    result = invoke(*args, *store)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for w in words:
        assert w in lines[0], lines[0]
    if args[0] == "run":   # refused before its store was made
        assert not os.listdir(tmp_path)


def test_labels_with_parameters_print_literally(tmp_path):
    import agents
    if "ismcts" not in agents.agent_names():
        pytest.skip("ismcts is not registered")
    result = invoke("run", "--game", "insert", "--agents", "random, ismcts[iterations=20]", "--games", 1,
                    "--jobs", 1, "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 0, result.output
    assert "ismcts[iterations=20]" in result.output
    matrix = invoke("matchups", "--store", tmp_path / "s.sqlite")
    assert matrix.exit_code == 0 and "ismcts[iterations=20]" in matrix.output, matrix.output


def test_list_valued_parameters_need_no_quoting():
    from arena.agent_list import parse_params
    assert parse_params("hands=10,9, plus_minus_one=true", "x") == (("hands", "10,9"), ("plus_minus_one", "true"))
    assert parse_params("a=1", "x") == (("a", "1"),)


def test_an_agent_sits_out_the_games_it_cannot_play(tmp_path):
    """alphabeta plays only two-player perfect-information games: it sits the others out."""
    from click.testing import CliRunner

    from arena.cli import main as cli
    store = str(tmp_path / "s.sqlite")
    result = CliRunner().invoke(cli, ["run", "--agents", "alphabeta[depth=2],random", "--games", "1",
                                      "--jobs", "1", "--store", store])
    assert result.exit_code == 0, result.output
    assert "sits out wizard: it plays only two-player" in result.output
    assert "alphabeta[depth=2] sits out wizard" in result.output
    from arena.store import Store
    assert {m["game_id"] for m in Store(store).matches(Store(store).run().run_id)} == {"insert"}
    alone = CliRunner().invoke(cli, ["run", "--game", "wizard", "--agents", "alphabeta,random", "--store", store])
    assert alone.exit_code == 2 and "no game has two agents" in alone.output


def test_a_run_started_with_other_engine_code_is_not_resumed(tmp_path):
    """The same command after an engine or agent change starts a new run; --resume of the old one refuses."""
    import json
    import sqlite3

    from click.testing import CliRunner

    from arena.cli import main as cli
    from arena.store import Store
    store = str(tmp_path / "s.sqlite")
    args = ["run", "--game", "insert", "--agents", "random,greedy", "--games", "1", "--jobs", "1", "--store", store]
    assert CliRunner().invoke(cli, args).exit_code == 0
    run = Store(store).run()
    config = dict(run.config.to_json(), code="an older build")
    with sqlite3.connect(store) as db:
        db.execute("UPDATE runs SET config = ? WHERE run_id = ?", (json.dumps(config), run.run_id))
    refused = CliRunner().invoke(cli, ["run", "--resume", run.run_id, "--store", store])
    assert refused.exit_code == 2 and "changed since run" in refused.output


def test_two_settings_of_one_file_bot_are_labelled_by_their_parameters(tmp_path):
    from paths import FIXTURES
    bots = os.path.join(FIXTURES, "bots.py")
    result = invoke("run", "--game", "insert", "--agents", f"{bots}:GoodBot, {bots}:GoodBot[delay=0.0]",
                    "--games", 1, "--jobs", 1, "--sandbox", "none", "--store", tmp_path / "s.sqlite", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["leaderboards"][0]["rows"]
    assert sorted(r["label"] for r in rows) == ["GoodBot", "GoodBot[delay=0.0]"]
