"""What a game in the browser may ask of the server (`arena serve --play-*`, PlayCaps): a built-in
agent's time and threads within the operator's caps and its work parameters within their defaults,
each refusal a JSON 400 naming the parameter and its cap; and at most so many games' bots thinking
at once."""
import threading

import pytest
from starlette.testclient import TestClient

from arena.serve.app import create_app
from arena.serve.sessions import PlayCaps


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(str(tmp_path / "arena.sqlite"), "none")) as c:
        yield c


def new_game(client, agents, seat=0):
    return client.post("/api/play", json={"game_id": "insert", "agents": agents, "seat": seat, "seed": 3})


@pytest.mark.parametrize("agents, named", [
    ("ismcts[threads=64]", "threads at most 1"),
    ("ismcts[time=3600]", "time at most 2"),
    ("ismcts[time=2.5]", "time at most 2"),
    ("ismcts[iterations=10000000]", "iterations at most 10000"),
    ("alphabeta[depth=64]", "depth at most 10"),
    ("alphabeta[tt_bits=28]", "tt_bits at most 20"),
    ("minimax[determinizations=100000]", "determinizations at most 24"),
])
def test_a_game_asking_more_than_the_caps_is_refused_naming_the_parameter_and_its_cap(client, agents, named):
    answer = new_game(client, agents)
    assert answer.status_code == 400 and named in answer.json()["error"], answer.json()
    assert "\n" not in answer.json()["error"]
    assert client.app.state.sessions.games == {}


@pytest.mark.parametrize("agents", ["ismcts[time=2,threads=1]", "ismcts[iterations=500]", "alphabeta[depth=3]",
                                    "greedy"])
def test_a_game_within_the_caps_is_played(client, agents):
    assert new_game(client, agents).status_code == 200


def test_the_operator_sets_the_caps(tmp_path):
    with TestClient(create_app(str(tmp_path / "arena.sqlite"), "none", caps=PlayCaps(seconds=5, threads=2))) as c:
        assert new_game(c, "ismcts[time=5,threads=2]").status_code == 200
        assert "time at most 5" in new_game(c, "ismcts[time=6]").json()["error"]


def test_bots_beyond_the_games_that_may_think_at_once_are_refused_with_a_429(tmp_path):
    """One game's bot thinks (held on an event); another game's bot move is refused meanwhile,
    and played once the first is done."""
    with TestClient(create_app(str(tmp_path / "arena.sqlite"), "none", caps=PlayCaps(games=1))) as client:
        games = []
        for _ in range(2):
            state = new_game(client, "random", seat=1).json()
            if not state["bot_to_move"]:
                state = client.post(f"/api/play/{state['session']}/move",
                                    json={"action": state["legal"][0]["action"]}).json()
            games.append(state["session"])
        bot = client.app.state.sessions.get(games[0]).bots[0]
        thinking, answer = threading.Event(), threading.Event()
        act = bot.act
        bot.act = lambda view: (thinking.set(), answer.wait(60), act(view))[2]
        moved = []
        worker = threading.Thread(target=lambda: moved.append(client.post(f"/api/play/{games[0]}/bot", json={})))
        worker.start()
        try:
            assert thinking.wait(60)
            busy = client.post(f"/api/play/{games[1]}/bot", json={})
            assert busy.status_code == 429 and "--play-games" in busy.json()["error"]
            assert busy.headers["retry-after"] == "1"
        finally:
            answer.set()
            worker.join(60)
        assert moved[0].status_code == 200
        assert client.post(f"/api/play/{games[1]}/bot", json={}).status_code == 200
