"""`arena play` and `arena replay` through the CLI, with scripted input."""
import os
import re

import pytest
from click.testing import CliRunner

import engines
from arena.cli import main
from arena.store import Store
from paths import FIXTURES

BOTS = os.path.join(FIXTURES, "bots.py")


def scripted(bad_first=True, moves=3000):
    """Nonsense and out-of-range answers first (to be refused), then always the first listed move."""
    return ("castle\n0\n99999\n" if bad_first else "") + "1\n" * moves


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_a_whole_game_against_bots_with_bad_input(game_id):
    spec = engines.spec(game_id)
    vs = ",".join(["random"] * (spec.default_players - 1))
    result = CliRunner().invoke(main, ["play", game_id, "--vs", vs, "--seed", "5", "--seat", "1"],
                                input=scripted())
    assert result.exit_code == 0, result.output
    assert "'castle' is not one of your moves" in result.output
    assert "'99999' is not one of your moves" in result.output
    assert "final scores:" in result.output
    assert "your moves: 1)" in result.output


def test_a_move_can_be_given_by_name():
    runner = CliRunner()
    result = runner.invoke(main, ["play", "insert", "--vs", "greedy", "--seed", "2", "--seat", "0"],
                           input="c3\n" + scripted(bad_first=False))
    assert result.exit_code == 0, result.output
    assert "seat 0 (you): c3" in result.output


def test_play_refuses_bad_setups_in_one_line():
    runner = CliRunner()
    for args, message in (
        (["play", "chess", "--vs", "random"], "unknown game"),
        (["play", "insert", "--vs", "nobody"], "unknown agent"),
        (["play", "insert", "--vs", "random,random"], "played by 2 to 2 players"),
        (["play", "insert", "--vs", "random", "--seat", "5"], "--seat"),
        (["play", "insert", "--vs", "random", "--seed", "-5"], "--seed"),
        (["play", "insert", "--vs", f"{BOTS}:BrokenInit"], "missing model file"),
    ):
        result = runner.invoke(main, args, input="1\n" * 40)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output


@pytest.fixture
def stored_run(tmp_path):
    store = str(tmp_path / "r.sqlite")
    result = CliRunner().invoke(main, ["run", "--game", "insert", "--agents", "random,greedy", "--games", "2",
                                       "--jobs", "1", "--store", store])
    assert result.exit_code == 0, result.output
    return store


def test_a_replay_reaches_the_stored_final_scores(stored_run):
    s = Store(stored_run)
    run_id = s.run().run_id
    matches = s.matches(run_id)
    assert matches
    for m in matches:
        result = CliRunner().invoke(main, ["replay", run_id, str(m["match_id"]), "--to-end", "--store", stored_run])
        assert result.exit_code == 0, result.output
        scores = re.search(r"final scores: (.*)", result.output).group(1)
        for seat, score in enumerate(m["returns"]):
            assert f"seat {seat} ({m['seats'][seat]['label']}) {score:g}" in scores
        assert "warning" not in result.output


def test_replay_steps_forward_back_and_to_the_end(stored_run):
    match = Store(stored_run).matches(Store(stored_run).run().run_id)[0]
    last = len(match["actions"])
    result = CliRunner().invoke(main, ["replay", str(match["match_id"]), "--store", stored_run],
                                input="n\nn\nb\nwhat\n5\ne\nq\n")
    assert result.exit_code == 0, result.output
    shown = [int(x) for x in re.findall(r"move (\d+) of", result.output)]
    assert shown == [0, 1, 2, 1, 1, 5, last]
    assert "unknown command 'what'" in result.output
    assert "final scores:" in result.output


def test_replay_for_one_seat_shows_that_seats_view(stored_run):
    match = Store(stored_run).matches(Store(stored_run).run().run_id)[0]
    result = CliRunner().invoke(main, ["replay", str(match["match_id"]), "--seat", "1", "--to-end",
                                       "--store", stored_run])
    assert result.exit_code == 0, result.output
    assert "last moves:" in result.output


def test_replay_errors_are_one_line(stored_run):
    for args in (["replay", "999999", "--store", stored_run], ["replay", "nosuchrun", "1", "--store", stored_run],
                 ["replay", "--store", stored_run]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output


def test_a_person_can_sit_in_a_tournament(tmp_path):
    """`human` is an agent like any other: the tournament then plays in this terminal, serially."""
    store = str(tmp_path / "h.sqlite")
    result = CliRunner().invoke(main, ["run", "--game", "insert", "--agents", "human,random", "--games", "1",
                                       "--store", store], input=scripted())
    assert result.exit_code == 0, result.output
    assert "'castle' is not one of your moves" in result.output
    s = Store(store)
    matches = s.matches(s.run().run_id)
    assert len(matches) == 2 and not any(m["faults"] for m in matches)
    assert {seat["label"] for m in matches for seat in m["seats"]} == {"human", "random"}


def test_usage_errors_are_one_line_too():
    """click's own errors (a bad option value, an unknown command) print one line, exit 2."""
    for args in (["play", "insert", "--vs", "random", "--seat", "x"], ["nosuch"], ["replay"],
                 ["run", "--games", "0"]):
        result = CliRunner().invoke(main, args)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2, (args, result.output)
        assert len(lines) == 1 and lines[0].startswith("Error: "), (args, result.output)
