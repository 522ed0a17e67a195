"""experiments.bid_accuracy: Wizard's bid accuracy of a field, and of pimc shown every hand."""
import json
import os
import subprocess
import sys

import pytest

import engines
from experiments.bid_accuracy import PLAYERS, SeeingPIMC, accuracy_rows, check_field, play_game

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FULL = engines.registry.resolve("wizard", players=PLAYERS)


def test_a_rounds_bid_met_is_what_the_engine_counts():
    """The rounds the experiment counts as met are the engine's own bid accuracy, seat by seat, in
    a game where seats rotate (game 1: the field's i-th agent sits in seat i + 1)."""
    field = ["greedy", "random", "random", "random"]
    met = play_game(field, frozenset(), seed=5, game=1)
    assert [len(rounds) for rounds in met] == [15] * PLAYERS
    assert [cards for cards, _ in met[0]] == list(range(1, 16))
    # replay the game to read the engine's count: the agents are seeded, so it is the same game
    state = engines.make("wizard", players=PLAYERS, seed=6)
    from agents.registry import make
    players = [make(field[(seat - 1) % PLAYERS]) for seat in range(PLAYERS)]
    for seat, agent in enumerate(players):
        agent.reset("wizard", FULL, seat, 6 * PLAYERS + seat)
    while not state.is_terminal():
        state.apply_action(players[state.current_player()].act(state))
    engine = state.metrics()["bid_accuracy"]
    for i in range(PLAYERS):
        assert sum(hit for _, hit in met[i]) / 15 == pytest.approx(engine[(i + 1) % PLAYERS])


def test_a_seeing_pimc_scores_the_deal_itself():
    """Its one world is the true deal (every hand, the deck's order), not a sample for its seat."""
    state = engines.make("wizard", players=PLAYERS, seed=3)
    while state.phase() != "play":
        state.apply_action(state.legal_actions()[0])
    agent = SeeingPIMC()
    agent.reset("wizard", FULL, state.current_player(), 0)
    worlds = list(agent._worlds(state, 400))
    assert len(worlds) == 1 and worlds[0][1] == 1.0
    assert worlds[0][0].snapshot() == state.snapshot()
    sampled = state.determinize(state.current_player(), 1)
    assert sampled.snapshot() != state.snapshot()   # what plain pimc scores instead


def test_the_rows_are_seeded_and_tell_a_strong_field_member_from_a_weak_one():
    rows = list(accuracy_rows(["greedy", "random", "random", "random"], games=4, seed=2))
    assert [r["case"] for r in rows] == ["bid_accuracy/0/greedy"] + [f"bid_accuracy/{i}/random" for i in (1, 2, 3)]
    assert all(0 <= r["low"] <= r["accuracy"] <= r["high"] <= 1 and r["games"] == 4 for r in rows)
    assert rows[0]["accuracy"] > max(r["accuracy"] for r in rows[1:])
    assert sorted(rows[0]["by_cards"]) == list(range(1, 16))
    assert rows == list(accuracy_rows(["greedy", "random", "random", "random"], games=4, seed=2))


@pytest.mark.parametrize("field, sight, said", [
    (["pimc", "pimc"], frozenset(), "the field names 2 agents; a game has 4 seats"),
    (["greedy", "pimc", "pimc", "pimc"], frozenset({0}), "greedy: only a pimc seat can be shown every hand"),
    (["pimc", "nosuch", "pimc", "pimc"], frozenset(), "unknown agent 'nosuch'"),
])
def test_a_bad_field_is_refused_in_one_line(field, sight, said):
    with pytest.raises(ValueError, match=said):
        check_field(field, sight)


def test_the_cli_prints_json_rows_and_refuses_bad_input_in_one_line():
    cli = [sys.executable, "-m", "experiments.bid_accuracy"]
    done = subprocess.run(cli + ["--field", "pimc,random,random,random", "--sight", "0", "--games", "2"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in done.stdout.splitlines()]
    assert [(r["agent"], r["sees_all"]) for r in rows] == [("pimc", True)] + [("random", False)] * 3
    for bad in (["--sight", "4"], ["--sight", "x"], ["--games", "0"], ["--field", "ismcts", "--sight", "0"]):
        out = subprocess.run(cli + bad, capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 1 and out.stderr.startswith("error: "), (bad, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
