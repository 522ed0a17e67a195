"""`arena serve`'s API through Starlette's test client: every endpoint, every bad input (a one-line
JSON error with a 4xx status), replayed positions against the engine's, and what a person playing
in the browser is sent (only what their seat may know)."""
import json
import os
import time

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

import engines
from arena.cli import main
from arena.human_game import replay_states
from arena.match import AgentSpec, MatchResult, MatchSpec
from arena.serve.app import create_app
from arena.serve.sessions import MAX_IDLE, Sessions
from arena.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store with two real tournaments: Insert (random, greedy; 4 matches), then Wizard (3 players, one
    hand of 2 cards; 6 matches)."""
    path = str(tmp_path_factory.mktemp("serve") / "arena.sqlite")
    for args in (["--game", "insert", "--agents", "random,greedy", "--games", "2"],
                 ["--game", "wizard", "--players", "3", "--param", "hands=2", "--agents", "random,greedy",
                  "--games", "1"]):
        result = CliRunner().invoke(main, ["run", *args, "-j", "1", "--store", path])
        assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def runs(store):
    reader = Store(store, readonly=True)
    out = {r.config.games[0].game_id: r.run_id for r in reader.runs()}
    reader.close()
    return out


@pytest.fixture
def client(store):
    with TestClient(create_app(store)) as c:
        yield c


def test_runs_list_shows_each_runs_status_and_progress(client, store, runs):
    data = client.get("/api/runs").json()
    assert data["store"] == os.path.basename(store)   # its name: the server's folders are its own
    rows = {r["run_id"]: r for r in data["runs"]}
    assert (rows[runs["insert"]]["status"], rows[runs["insert"]]["finished"], rows[runs["insert"]]["total"]) == \
        ("finished", 4, 4)
    assert (rows[runs["wizard"]]["finished"], rows[runs["wizard"]]["games"]) == (6, ["wizard"])
    assert rows[runs["insert"]]["kind"] == "tournament"


def test_run_summary_has_the_leaderboard_matrix_and_graph_of_report_collect(client, store, runs):
    from arena.reports import report
    data = client.get(f"/api/runs/{runs['insert']}").json()
    reader = Store(store, readonly=True)
    expected, _ = report.collect(reader, runs["insert"])
    reader.close()
    section = data["sections"][0]
    assert (data["finished"], data["total"], data["status"]) == (4, 4, "finished")
    assert section["leaderboard"] == expected["sections"][0]["leaderboard"]
    assert section["head_to_head"] == expected["sections"][0]["head_to_head"]
    assert section["verdict"] == expected["sections"][0]["verdict"]
    assert section["columns"]["head"][:2] == ["#", "agent"] and len(section["columns"]["cells"]) == 2
    assert {n["label"] for n in section["graph"]["nodes"]} == {"random", "greedy"}
    assert client.get(f"/api/runs/{runs['insert']}/progress").json() | {"created": 0} == \
        {"run_id": runs["insert"], "status": "finished", "finished": 4, "total": 4, "created": 0}


def test_a_run_being_written_is_summed_up_again_as_matches_arrive(client, store, runs, tmp_path):
    """The summary follows the store: a run whose matches are written one by one (as `arena run` does)."""
    reader = Store(store, readonly=True)
    run, matches = reader.run(runs["insert"]), reader.matches(runs["insert"])
    reader.close()
    live = str(tmp_path / "live.sqlite")
    writer = Store(live)
    writer.create_run("live-1", run.config, 4)
    with TestClient(create_app(live)) as c:
        assert c.get("/api/runs/live-1").json()["sections"] == []
        for k, m in enumerate(matches):
            spec = MatchSpec("live-1", m["match_id"], m["game_id"], tuple(m["game_params"].items()), m["seed"],
                             tuple(AgentSpec(s["label"], s["source"]) for s in m["seats"]), m["deal"])
            writer.record(spec, MatchResult(m["match_id"], m["returns"], m["placements"], m["actions"]))
            data = c.get("/api/runs/live-1").json()
            assert data["finished"] == k + 1 and data["total"] == 4
            assert sum(r["games"] for r in data["sections"][0]["leaderboard"]) == 2 * (k + 1)
    writer.close()


def test_matches_are_listed_by_pages(client, runs):
    data = client.get(f"/api/runs/{runs['wizard']}/matches?offset=2&limit=3").json()
    assert data["count"] == 6 and [m["match_id"] for m in data["matches"]] == [2, 3, 4]
    assert all(m["game_id"] == "wizard" and len(m["seats"]) == 3 for m in data["matches"])


@pytest.mark.parametrize("game", ["insert", "wizard"])
def test_replay_view_equals_the_engine_state_at_every_step(client, store, runs, game):
    reader = Store(store, readonly=True)
    match = reader.match(runs[game], 1)
    reader.close()
    states = replay_states(match)
    base = f"/api/runs/{runs[game]}/matches/1"
    meta = client.get(base).json()
    assert meta["steps"] == len(match["actions"]) and meta["names"][0].startswith("seat 0 (")
    for k, state in enumerate(states):
        everything = client.get(f"{base}/steps/{k}").json()
        assert everything["observations"] == json.loads(json.dumps(
            [state.observation(p) for p in range(state.num_players)]))
        assert everything["to_move"] == state.current_player() and everything["terminal"] == state.is_terminal()
        seat_view = client.get(f"{base}/steps/{k}?viewer=1").json()
        assert seat_view["observation"] == json.loads(json.dumps(state.observation(1)))
        assert seat_view["observations"] is None and seat_view["viewer"] == 1
        if k:
            mover = states[k - 1].current_player()
            assert everything["last_move"] == {"seat": mover, "name": meta["names"][mover],
                                               "text": states[k - 1].action_to_string(match["actions"][k - 1])}
    assert everything["returns"] == match["returns"] and everything["placements"] == match["placements"]


def test_a_seats_replay_hides_the_other_hands_and_their_cards(client, store, runs):
    reader = Store(store, readonly=True)
    match = reader.match(runs["wizard"], 0)
    reader.close()
    states = replay_states(match)
    body = client.get(f"/api/runs/{runs['wizard']}/matches/0/steps/0?viewer=0").text
    for p in (1, 2):
        for card in states[0].hand(p):
            assert f'"{card}"' not in body


def test_a_seats_replay_is_sent_no_move_after_the_step_it_shows(client, store, runs):
    """Only "everything" lists the whole game; a seat's view gets the moves up to the step shown."""
    base = f"/api/runs/{runs['wizard']}/matches/0"
    whole = client.get(base).json()
    assert len(whole["moves"]) == whole["steps"]
    assert client.get(f"{base}?viewer=1").json()["moves"] is None
    for k in range(whole["steps"] + 1):
        moves = client.get(f"{base}/steps/{k}?viewer=1").json()["moves"]
        assert [m["seat"] for m in moves] == [m["seat"] for m in whole["moves"][:k]]


def test_a_replay_step_that_completes_a_trick_sends_its_cards_winner_and_the_rounds(client, store, runs):
    reader = Store(store, readonly=True)
    match = reader.match(runs["wizard"], 0)
    reader.close()
    states = replay_states(match)
    base = f"/api/runs/{runs['wizard']}/matches/0"
    marks = client.get(base).json()["marks"]
    ends = [k for k in range(1, len(states)) if states[k - 1].observation(0)["phase"] == "play"
            and len(states[k].observation(0)["trick"]) != len(states[k - 1].observation(0)["trick"]) + 1]
    assert marks == {"tricks": ends, "rounds": [len(states) - 1]}   # one round of two cards
    first = client.get(f"{base}/steps/{ends[0]}?viewer=2").json()
    before, after = states[ends[0] - 1].observation(0), states[ends[0]].observation(0)
    assert first["exchange"]["cards"] == before["trick"] + [after["plays"][-1]]
    assert [first["exchange"]["winner"]] == [p for p in range(3) if after["tricks"][p] > before["tricks"][p]]
    assert client.get(f"{base}/steps/{ends[0] + 1}").json()["exchange"] is None
    end = client.get(f"{base}/steps/{len(states) - 1}").json()
    final = states[-1].observation(0)
    assert end["rounds"] == [{"round": 1, "bids": final["bids"], "tricks": final["tricks"],
                              "points": final["scores"], "totals": final["scores"]}]


def test_a_belladone_bluff_replay_marks_each_completed_row_with_its_points(tmp_path):
    from cli import run_matches
    path = str(tmp_path / "bb.sqlite")
    run_id, matches = run_matches(path, "--game", "belladone_bluff", "--agents", "random,greedy", "--games", "1")
    states = replay_states(matches[0])
    completed = [k for k in range(1, len(states)) if any(
        len(b) < len(a) for a, b in zip(states[k - 1].observation(0)["preparations"], states[k].observation(0)["preparations"]))]
    assert completed
    with TestClient(create_app(path)) as c:
        base = f"/api/runs/{run_id}/matches/0"
        assert c.get(base).json()["marks"]["tricks"] == completed
        k = completed[0]
        exchange = c.get(f"{base}/steps/{k}?viewer=0").json()["exchange"]
        before, after = states[k - 1].observation(0)["scores"], states[k].observation(0)["scores"]
        assert exchange["points"] == [b - a for a, b in zip(before, after)] and 0 <= exchange["row"] < 3


def test_every_games_rules_panel_links_to_its_section_of_the_rules_page(client):
    import re

    from arena.serve.app import STATIC
    page = client.get("/rules")
    assert page.status_code == 200 and "<h2" in page.text
    for game in engines.game_ids():
        with open(f"{STATIC}/games/{game}.js", encoding="utf-8") as f:
            anchor = re.search(r'anchor: "([^"]+)"', f.read())[1]
        assert f'id="{anchor}"' in page.text, game


def test_pages_and_their_scripts_are_served(client, runs):
    for path in ("/", "/play", f"/runs/{runs['insert']}", f"/runs/{runs['insert']}/matches/0"):
        response = client.get(path)
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
        for script in ("runs.js", "run.js", "replay.js", "play.js"):
            if script in response.text:
                assert client.get(f"/static/{script}").status_code == 200
    for module in ("common.js", "games/insert.js", "games/wizard.js", "style.css"):
        assert client.get(f"/static/{module}").status_code == 200


def test_games_lists_every_game_with_its_parameters_and_the_agents(client):
    data = client.get("/api/games").json()
    assert [g["game_id"] for g in data["games"]] == engines.game_ids()
    wizard = next(g for g in data["games"] if g["game_id"] == "wizard")
    assert wizard["params"]["hands"] == [] and wizard["min_players"] == 3
    assert "random" in data["agents"] and "human" not in data["agents"]


BAD_READS = [
    ("/api/runs/nosuch", 404, "no run 'nosuch'"),
    ("/api/runs/nosuch/progress", 404, "no run 'nosuch'"),
    ("/api/runs/nosuch/matches", 404, "no run 'nosuch'"),
    ("/api/runs/{insert}/matches/99", 404, "has no finished match 99"),
    ("/api/runs/{insert}/matches/99999999999999999999999", 404, "has no finished match"),
    ("/api/runs/{insert}/matches/0/steps/9999", 400, "step must be from 0 to"),
    ("/api/runs/{insert}/matches/0?viewer=2", 400, "viewer must be a seat from 0 to 1 or all"),
    ("/api/runs/{insert}/matches/0/steps/1?viewer=x", 400, "viewer must be a seat"),
    ("/api/runs/{insert}/matches?limit=100000", 400, "limit must be"),
    ("/api/runs/{insert}/matches?offset=-1", 400, "offset must be"),
    ("/api/play/nosuchgame", 404, "no game 'nosuchgame' in progress"),
    ("/api/nosuch", 404, "Not Found"),
    ("/api/runs?viewer=1", 400, "unknown query parameter 'viewer': this takes none"),
    ("/api/games?game=insert", 400, "unknown query parameter 'game'"),
    ("/api/runs/{insert}/matches/0?step=3", 400, "unknown query parameter 'step': this accepts only viewer"),
    ("/api/runs/{insert}/matches?viewer=0", 400, "unknown query parameter 'viewer'"),
]


@pytest.mark.parametrize("path,status,message", BAD_READS)
def test_bad_reads_get_a_one_line_json_error(client, runs, path, status, message):
    response = client.get(path.format(**runs))
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert message in error and "\n" not in error and "Traceback" not in response.text


def test_an_unknown_run_page_says_so_in_the_page(client):
    response = client.get("/runs/nosuch")
    assert response.status_code == 404 and "no run &#x27;nosuch&#x27;" in response.text
    assert client.get("/runs/nosuch/matches/3").status_code == 404


def test_a_missing_store_lists_no_runs_and_finds_none(tmp_path):
    with TestClient(create_app(str(tmp_path / "none.sqlite"))) as c:
        assert c.get("/api/runs").json()["runs"] == []
        response = c.get("/api/runs/x")
        assert response.status_code == 404 and "no store at" in response.json()["error"]


NEW_GAME = {"game_id": "insert", "agents": "random", "seat": 0}
BAD_STARTS = [
    ({"game_id": "nosuch", "agents": "random"}, 404, "unknown game 'nosuch'"),
    ({"game_id": "insert", "agents": "nosuch"}, 400, "unknown agent 'nosuch'"),
    ({"game_id": "insert", "agents": "ismcts[iterations=x]"}, 400, "iterations"),
    ({"game_id": "insert", "agents": "ismcts["}, 400, "unbalanced '['"),
    ({"game_id": "insert", "agents": ""}, 400, "at least one agent"),
    ({"game_id": "insert", "agents": "human"}, 400, "here you are the human"),
    ({"game_id": "insert", "agents": "random, random"}, 400, "insert is played by 2 to 2 players, not 3"),
    ({"game_id": "insert", "agents": "random", "seat": 2}, 400, "your seat must be between 0 and 1"),
    ({"game_id": "insert", "agents": "random", "seat": "0"}, 400, "seat must be a whole number"),
    ({"game_id": "insert", "agents": "random", "seed": -1}, 400, "seed must be"),
    ({"game_id": "insert", "agents": "random", "params": {"tiebreak": "coin"}}, 400, "tiebreak"),
    ({"game_id": "insert", "agents": "random", "params": {"colour": "red"}}, 400, "unknown parameter 'colour'"),
    ({"game_id": "insert", "agents": "random", "params": {"players": 2}}, 400, "number of players"),
    ({"game_id": "wizard", "agents": "random, random", "params": {"hands": "x"}}, 400, "hands"),
    ({"agents": "random"}, 400, "give {"),
    ([1, 2], 400, "must be a JSON object"),
]


@pytest.mark.parametrize("body,status,message", BAD_STARTS)
def test_bad_new_games_get_a_one_line_json_error(client, body, status, message):
    response = client.post("/api/play", json=body)
    assert response.status_code == status, response.text
    assert message in response.json()["error"] and "\n" not in response.json()["error"]


def test_malformed_json_is_a_400(client):
    response = client.post("/api/play", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400 and response.json()["error"]


def play_to_the_end(client, state, choose=lambda legal: legal[0]["action"]):
    """Plays the person's moves with `choose` and lets the bots answer; returns every response."""
    sid, seen = state["session"], [state]
    while not state["view"]["terminal"]:
        if state["legal"]:
            response = client.post(f"/api/play/{sid}/move", json={"action": choose(state["legal"])})
        else:
            assert state["bot_to_move"]
            response = client.post(f"/api/play/{sid}/bot", json={})
        assert response.status_code == 200, response.text
        state = response.json()
        seen.append(state)
    return seen


def test_a_whole_insert_game_then_saved_is_a_stored_match_every_view_reads(client, store):
    seen = play_to_the_end(client, client.post("/api/play", json=NEW_GAME | {"seed": 11}).json())
    final = seen[-1]
    assert final["view"]["returns"] is not None and final["seed"] == "11"
    assert all(s["seed"] is None for s in seen[:-1])
    saved = client.post(f"/api/play/{final['session']}/save", json={}).json()
    run_id = saved["saved"]
    assert run_id.startswith("play-") and saved["replay"] == f"/runs/{run_id}/matches/0"
    assert client.post(f"/api/play/{final['session']}/save", json={}).json()["saved"] == run_id   # once
    row = next(r for r in client.get("/api/runs").json()["runs"] if r["run_id"] == run_id)
    assert (row["kind"], row["status"], row["finished"], row["total"]) == ("play", "finished", 1, 1)
    replay = client.get(f"/api/runs/{run_id}/matches/0").json()
    assert replay["returns"] == final["view"]["returns"] and replay["names"][0] == "seat 0 (you)"
    assert [m["text"] for m in replay["moves"]] == [m["text"] for m in final["moves"]]
    summary = client.get(f"/api/runs/{run_id}").json()
    assert {r["label"] for r in summary["sections"][0]["leaderboard"]} == {"you", "random"}
    # one game is no tournament: no verdict telling the person to play it with --games
    assert summary["kind"] == "play" and summary["sections"][0]["verdict"] is None
    leaderboard = CliRunner().invoke(main, ["leaderboard", run_id, "--store", store])
    assert leaderboard.exit_code == 0 and "you" in leaderboard.output
    resumed = CliRunner().invoke(main, ["run", "--resume", run_id, "--store", store])
    assert resumed.exit_code == 2 and "played in `arena serve`" in resumed.output, resumed.output


def test_the_person_sees_only_their_seat_in_every_response(client):
    """Wizard, 4 players: no response for seat 1 names a card another seat holds at that moment (nor
    the deal's seed, which gives away every hand, before the end), and bots are given determinized
    copies, never the real state."""
    start = client.post("/api/play", json={"game_id": "wizard", "agents": "random, greedy, random", "seat": 1,
                                           "params": {"hands": "3,2"}, "seed": 987654321})
    assert start.status_code == 200, start.text
    sid = start.json()["session"]
    session = client.app.state.sessions.get(sid)
    given = []
    for seat, bot in session.bots.items():
        act = bot.act
        bot.act = lambda view, act=act, seat=seat: (given.append((seat, view, view.observation(seat))), act(view))[1]

    def hidden(state):
        return {c for p in range(4) if p != 1 for c in state.hand(p) if c not in ("W", "J")}

    def strings(value):
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return [str(value)]

    checked, round_start, current = 0, 0, 0
    state = start.json()
    while True:
        body = json.dumps(state)
        if state["view"]["observation"]["round"] != current:   # a new deal: the cards of the last are public
            current, round_start = state["view"]["observation"]["round"], len(state["moves"]) - 1
        if not state["view"]["terminal"]:
            shown = state | {"moves": state["moves"][round_start:]}
            assert not hidden(session.state) & set(strings(shown)), body
            assert "987654321" not in body
            for line in str(session.state).splitlines():   # the engine's own text of a hand of 2+ cards
                if line.lstrip("*").startswith(("P0", "P2", "P3")) and " " in line.split("hand ")[1]:
                    assert line.split("hand ")[1] not in body
            checked += 1
        else:
            break
        sid_url = f"/api/play/{sid}"
        state = client.post(f"{sid_url}/move", json={"action": state["legal"][0]["action"]}).json() \
            if state["legal"] else client.post(f"{sid_url}/bot", json={}).json()
    assert checked > 10 and given
    for seat, view, observed in given:
        assert view is not session.state and seat != 1
        assert observed["hand"] is not None


def test_moves_out_of_turn_illegal_or_malformed_are_refused(client):
    state = client.post("/api/play", json={"game_id": "wizard", "agents": "random, random", "seat": 2,
                                           "params": {"hands": "2"}, "seed": 5}).json()
    sid = state["session"]
    view = state["view"]
    assert state["bot_to_move"] and not state["legal"] and view["to_move"] != 2
    refused = client.post(f"/api/play/{sid}/move", json={"action": 54})
    assert refused.status_code == 400
    assert refused.json()["error"] == f"it is not your turn: {view['names'][view['to_move']]} is to move"
    while client.get(f"/api/play/{sid}").json()["bot_to_move"]:
        client.post(f"/api/play/{sid}/bot", json={})
    mine = client.get(f"/api/play/{sid}").json()
    assert mine["legal"]
    for bad in (999, -1, "54", True, 1.5, None):
        response = client.post(f"/api/play/{sid}/move", json={"action": bad})
        assert response.status_code == 400 and "is not one of your legal moves" in response.json()["error"]
    assert client.post(f"/api/play/{sid}/bot", json={}).json()["error"] == "no bot is to move"
    assert "not over yet" in client.post(f"/api/play/{sid}/save", json={}).json()["error"]
    assert client.get(f"/api/play/{sid}").json()["moves"] == mine["moves"]   # nothing was applied
    assert client.post(f"/api/play/{sid}/end", json={}).json() == {"ended": sid}
    assert client.get(f"/api/play/{sid}").status_code == 404
    assert client.post(f"/api/play/{sid}/end", json={}).status_code == 404


def test_sessions_are_capped_idle_ones_end_and_a_dropped_one_closes_its_bots():
    class Game:
        closed, holds = 0, 0

        def __init__(self):
            self.used = time.monotonic()

        def close(self):
            self.closed += 1

    games = [Game() for _ in range(4)]
    sessions = Sessions(limit=2)
    ids = [sessions.add(g) for g in games[:2]]
    sessions.get(ids[0])                 # the first one is used again: the second is the oldest now
    sessions.add(games[2])
    assert (games[0].closed, games[1].closed) == (0, 1)
    sessions.add(games[3])
    assert games[0].closed == 1 and len(sessions.games) == 2 and len(set(ids)) == 2
    sessions.close()
    assert games[2].closed == games[3].closed == 1
    forgotten, fresh = Game(), Game()
    sessions.add(forgotten)
    forgotten.used -= MAX_IDLE + 1
    sessions.add(fresh)
    assert forgotten.closed == 1 and list(sessions.games.values()) == [fresh]


@pytest.mark.parametrize("host,warned,shown", [("0.0.0.0", True, "127.0.0.1"), ("::", True, "[::1]"),
                                               ("127.0.0.1", False, "127.0.0.1"), ("localhost", False, "localhost"),
                                               ("::1", False, "[::1]")])
def test_serve_prints_the_url_warns_off_loopback_and_announces_itself_beside_the_store(
        monkeypatch, tmp_path, host, warned, shown):
    """The URL names the port really bound (here --port 0); while the server runs, `arena report`
    finds it beside the store (arena.server_address), and not after."""
    import socket

    import uvicorn

    from arena import server_address as address
    if ":" in host and not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    store, seen = str(tmp_path / "a.sqlite"), []

    def run(server, sockets=None):
        seen.append((sockets[0].getsockname()[1], address.running_url(store)))
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    result = CliRunner().invoke(main, ["serve", "--host", host, "--port", "0", "--store", store])
    assert result.exit_code == 0, result.output
    (port, announced), = seen
    assert port > 0 and announced == f"http://{shown}:{port}/" and announced in result.output
    assert ("anyone on the network can then play and read the store" in result.output) == warned
    assert address.running_url(store) is None


def test_serve_on_an_address_it_cannot_listen_on_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["serve", "--host", "192.0.2.1", "--port", "0", "--store", str(tmp_path / "a.sqlite")])
    assert result.exit_code == 2 and "cannot listen on 192.0.2.1:0" in result.output and "Traceback" not in result.output
    assert "anyone on the network" in result.output


def test_an_announcement_of_a_dead_or_strange_server_is_ignored(tmp_path):
    import json

    from arena import server_address as address
    store = str(tmp_path / "a.sqlite")
    for content in ({"url": "http://127.0.0.1:1/", "pid": 2 ** 22 + 12345}, {"url": "javascript:alert(1)", "pid": 1},
                    {"url": "http://x/"}, "not json", "[" * 100_000):
        (tmp_path / "a.sqlite.serve").write_text(json.dumps(content) if isinstance(content, dict) else content)
        assert address.running_url(store) is None


def test_serve_refuses_a_bad_port_with_one_line():
    result = CliRunner().invoke(main, ["serve", "--port", "70000"])
    assert result.exit_code == 2 and "70000" in result.output and "Traceback" not in result.output


def test_the_server_answers_while_a_bot_thinks(client):
    """A bot's move runs off the event loop: the game can be read (and another one played) meanwhile."""
    import threading
    state = client.post("/api/play", json={"game_id": "insert", "agents": "random", "seat": 1, "seed": 3}).json()
    sid = state["session"]
    if not state["bot_to_move"]:   # the person moves first in this deal: one move, and the bot is to move
        state = client.post(f"/api/play/{sid}/move", json={"action": state["legal"][0]["action"]}).json()
    session = client.app.state.sessions.get(sid)
    bot = session.bots[0]
    thinking, answer = threading.Event(), threading.Event()
    act = bot.act
    bot.act = lambda view: (thinking.set(), answer.wait(60), act(view))[2]
    moved = []
    worker = threading.Thread(target=lambda: moved.append(client.post(f"/api/play/{sid}/bot", json={})))
    worker.start()
    try:
        assert thinking.wait(60)
        meanwhile = client.get(f"/api/play/{sid}").json()
        assert meanwhile["bot_to_move"] and meanwhile["moves"] == state["moves"]
        assert client.post("/api/play", json=NEW_GAME).status_code == 200
    finally:
        answer.set()
        worker.join(60)
    assert moved[0].status_code == 200 and len(moved[0].json()["moves"]) == len(state["moves"]) + 1


def test_a_failing_bot_ends_the_game_with_one_line(client):
    from arena.sandbox import AgentFault
    state = client.post("/api/play", json={"game_id": "insert", "agents": "random", "seat": 1, "seed": 3}).json()
    sid = state["session"]
    if not state["bot_to_move"]:
        state = client.post(f"/api/play/{sid}/move", json={"action": state["legal"][0]["action"]}).json()

    def crash(view):
        raise AgentFault("exception", "ValueError: no idea")

    client.app.state.sessions.get(sid).bots[0].act = crash
    failed = client.post(f"/api/play/{sid}/bot", json={})
    assert failed.status_code == 400
    assert failed.json()["error"] == "seat 0 (random) failed (exception): ValueError: no idea; the game cannot go on"
    after = client.get(f"/api/play/{sid}").json()
    assert after["failure"] == failed.json()["error"] and not after["bot_to_move"] and not after["legal"]
    assert client.post(f"/api/play/{sid}/bot", json={}).json()["error"] == failed.json()["error"]


def test_a_report_written_while_the_server_runs_links_each_match_to_its_replay(client, store, runs, tmp_path):
    from arena import server_address as address
    url, run_id = "http://127.0.0.1:8765/", runs["insert"]
    out = tmp_path / "r.html"
    with address.announced(store, url):
        result = CliRunner().invoke(main, ["report", run_id, "--store", store, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"replays of its matches: {url}runs/{run_id}" in result.output
    page = out.read_text()
    assert f'<a href="{url}runs/{run_id}/matches/0">0</a>' in page
    assert client.get(f"/runs/{run_id}/matches/0").status_code == 200   # where the link leads
    alone = CliRunner().invoke(main, ["report", run_id, "--store", store, "--out", str(out)])
    assert alone.exit_code == 0 and "replays" not in alone.output and "<a href=\"http" not in out.read_text()


def test_other_sites_cannot_drive_the_server(store):
    """A page of another site can post only "simple" requests (text/plain) without the browser asking
    first, and may reach 127.0.0.1 through a name of its own (DNS rebinding): neither gets through."""
    from arena.cli.serve import LOOPBACK_NAMES
    app = create_app(store, hosts=LOOPBACK_NAMES)
    with TestClient(app, base_url="http://127.0.0.1:8000") as local:
        form = local.post("/api/play", content='{"game_id": "insert", "agents": "random"}',
                          headers={"content-type": "text/plain"})
        assert form.status_code == 415 and "Content-Type: application/json" in form.json()["error"]
        game = local.post("/api/play", json={"game_id": "insert", "agents": "random"})
        assert game.status_code == 200
        # every POST of a game, its end too, takes only JSON
        for action in ("end", "bot", "save", "move"):
            answer = local.post(f"/api/play/{game.json()['session']}/{action}", content="{}",
                                headers={"content-type": "text/plain"})
            assert answer.status_code == 415 and "Content-Type: application/json" in answer.json()["error"]
    for name in ("attacker.example:8000", "[::2]:8000"):
        with TestClient(app, base_url=f"http://{name}") as rebound:
            for path in ("/api/runs", "/"):
                answer = rebound.get(path)
                assert answer.status_code == 400 and "does not answer for the host" in answer.json()["error"]
    with TestClient(app, base_url="http://[::1]:8000") as local6:
        assert local6.get("/api/runs").status_code == 200


def test_a_game_refuses_query_parameters_it_does_not_take(client):
    session = client.post("/api/play", json=NEW_GAME).json()["session"]
    answer = client.get(f"/api/play/{session}?viewer=1")
    assert answer.status_code == 400 and "unknown query parameter 'viewer'" in answer.json()["error"]
    answer = client.post(f"/api/play/{session}/bot?seat=1", json={})
    assert answer.status_code == 400 and "unknown query parameter 'seat'" in answer.json()["error"]


def test_serve_stopped_by_sigterm_removes_its_announcement_as_ctrl_c_does(tmp_path):
    import signal
    signal_name = "SIGTERM"
    from arena_processes import start
    store = tmp_path / "a.sqlite"
    proc = start(["--port", "0", "--store", store], tmp_path, command="serve")
    try:
        deadline = time.time() + 60
        while not (tmp_path / "a.sqlite.serve").exists():
            assert proc.poll() is None and time.time() < deadline, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(getattr(signal, signal_name))
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + getattr(signal, signal_name)
    assert not (tmp_path / "a.sqlite.serve").exists()


def test_a_bot_that_would_load_your_code_outside_the_sandbox_is_refused(client):
    """openspiel_bot's factory runs in the server's own process: never from a request (not even with
    --sandbox none, see test_serve_bots)."""
    answer = client.post("/api/play", json={"game_id": "insert", "agents": "openspiel_bot[factory=os:system]"})
    assert answer.status_code == 400 and "outside the sandbox" in answer.json()["error"]
