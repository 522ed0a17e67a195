"""Which bots `arena serve` lets a web request name, and what becomes of their processes.

A request may name only the built-in agents, the installed ones and the bots the operator offered
with `arena serve --bots PATH`: a path or a module of its own is refused before anything is read or
staged from it. Each submitted bot of a game runs in a process of its own, killed (never pooled)
when the game ends or is dropped, and at most `bot_limit` run at once.

The bots here run with `--sandbox none` (no bubblewrap needed); the processes are counted as the
children of this process, from /proc.
"""
import json
import os
import time

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient
from test_serve import play_to_the_end

from arena import edge
from arena.cli import main
from arena.serve.app import create_app
from arena.serve.sessions import MAX_IDLE, MAX_LIVE_BOTS, find_bots
from paths import FIXTURES

# Starts real processes, boxes, browsers or compilers: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = pytest.mark.slow

BOTS = os.path.join(FIXTURES, "bots.py")
AGENT_FILE = "from agents import Agent\n\nopen({marker!r}, 'w').close()   # ran\n\n\nclass Evil(Agent):\n    pass\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty folder for the bots' code to be staged in (arena.sandbox's cache, under XDG_CACHE_HOME).
    Only for a test that must stage nothing: the sandbox remembers, per process, which copies it has
    checked, wherever the cache was then."""
    folder = tmp_path / "xdg"
    folder.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


def staged(cache):
    return [str(p.relative_to(cache)) for p in cache.rglob("*")]


def children():
    """The pids of the live (not zombie) child processes of this process."""
    me, out = os.getpid(), set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.add(int(pid))
    return out


def live_bots(before, wait=5.0):
    """The child processes started since `before` that are still running (a killed one may take a
    moment to be gone)."""
    deadline = time.monotonic() + wait
    while (new := children() - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(new)


def start(client, agents, **more):
    response = client.post("/api/play", json={"game_id": "insert", "agents": agents, "seat": 0, "seed": 7} | more)
    assert response.status_code == 200, response.text
    return response.json()


REFUSED = ["/etc/shadow:X", "/etc/no-such-file:X", "{evil}:Evil", "{evil_relative}:Evil", "~/evil.py:Evil",
           "json:JSONDecoder", "os.path:join", "{evil}:Evil as friendly", "openspiel_bot[factory={factory}:make]",
           "pimc[bidding=learned,bid_model=/etc/shadow]", "pimc[bidding=learned,bid_model=/etc/no-such-file]",
           "ismcts[value=/etc/shadow]", "pimc[bidding=learned,bid_model=shipped]",
           "ismcts[bidding=learned,bid_model=/etc/shadow]"]


def test_a_request_naming_a_file_or_module_of_its_own_is_refused_and_nothing_is_read(tmp_path, cache):
    """Not /etc/shadow, not a bot file outside the offered ones (not even to say whether it exists),
    not an installed module, not a built-in agent's parameter that loads code or reads a file (pimc's
    bid_model), even without a sandbox."""
    outside = tmp_path / "outside"
    outside.mkdir()
    evil, factory = outside / "evil.py", outside / "factory.py"
    evil.write_text(AGENT_FILE.format(marker=str(tmp_path / "evil-ran")))
    factory.write_text(f"open({str(tmp_path / 'factory-ran')!r}, 'w').close()\n\ndef make(game, player, seed):\n"
                       f"    return None\n")
    names = {"evil": str(evil), "evil_relative": os.path.relpath(evil), "factory": str(factory)}
    errors = {}
    with TestClient(create_app(str(tmp_path / "a.sqlite"), "none")) as client:
        for item in REFUSED:
            item = item.format(**names)
            response = client.post("/api/play", json={"game_id": "insert", "agents": item})
            assert 400 <= response.status_code < 500, (item, response.text)
            errors[item] = response.json()["error"]
            assert "\n" not in errors[item] and "Traceback" not in response.text
    assert staged(cache) == [] and not (tmp_path / "evil-ran").exists() and not (tmp_path / "factory-ran").exists()
    # The same answer for a file that exists and one that does not: no oracle of the server's files.
    assert errors["/etc/shadow:X"].replace("shadow", "?") == errors["/etc/no-such-file:X"].replace("no-such-file", "?")
    model = "pimc[bidding=learned,bid_model=/etc/{}]"
    assert errors[model.format("shadow")] == errors[model.format("no-such-file")]
    assert errors["/etc/shadow:X"].startswith("unknown agent 'shadow:X': this server offers only ")   # no path shown
    assert "random" in errors["/etc/shadow:X"]
    assert "the server's own process" in errors["openspiel_bot[factory={factory}:make]".format(**names)]
    assert "names a file on the server" in errors[model.format("shadow")]


def test_a_request_for_the_shipped_model_plays_it(tmp_path):
    """A file parameter's value that names no file on the server (ismcts's value=shipped, the
    model the project ships) is not a file the browser chose: the game starts."""
    with TestClient(create_app(str(tmp_path / "a.sqlite"), "none")) as client:
        response = client.post("/api/play", json={"game_id": "wizard", "seat": 0, "seed": 7,
                                                  "agents": "ismcts[value=shipped,iterations=20] as valued, "
                                                            "ismcts[bidding=learned,bid_model=shipped,iterations=20] "
                                                            "as bidder, random"})
        assert response.status_code == 200, response.text
        assert response.json()["view"]["names"][1:3] == ["seat 1 (valued)", "seat 2 (bidder)"]


def test_a_request_for_a_model_of_another_game_is_refused_before_the_game_starts(tmp_path):
    """Refused as the agent list is read, in the words `arena run` uses, and without the server's paths."""
    from agents.learned import shipped_path
    with TestClient(create_app(str(tmp_path / "a.sqlite"), "none")) as client:
        response = client.post("/api/play", json={"game_id": "insert", "seat": 0, "seed": 7,
                                                  "agents": "ismcts[bidding=learned,iterations=20]"})
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert "cannot play insert with 2 players: parameter 'bid_model'" in error and "built for wizard" in error
        assert "\n" not in error and os.path.dirname(shipped_path()) not in error


def test_the_offered_bots_are_listed_for_the_play_page_and_played_by_their_name(tmp_path):
    offered, skipped = find_bots([BOTS])
    assert offered["bots.py:GoodBot"] == f"{os.path.realpath(BOTS)}:GoodBot" and skipped == []
    with TestClient(create_app(str(tmp_path / "a.sqlite"), "none", bots=offered)) as client:
        listed = client.get("/api/games").json()
        assert {"bots.py:GoodBot", "bots.py:RaisingBot"} <= set(listed["bots"]) and "random" in listed["agents"]
        assert 'id="offered"' in client.get("/play").text and "data.bots" in client.get("/static/play.js").text
        final = play_to_the_end(client, start(client, "bots.py:GoodBot[delay=0] as good"))[-1]
        assert final["view"]["terminal"] and final["view"]["names"] == ["seat 0 (you)", "seat 1 (good)"]
        run_id = client.post(f"/api/play/{final['session']}/save", json={}).json()["saved"]
        seat = client.get(f"/api/runs/{run_id}").json()["agents"]
        assert "good" in json.dumps(seat)
        # The offered file by its path, or another class of it than those offered: refused.
        for item in (f"{BOTS}:GoodBot", "tests/fixtures/bots.py:GoodBot", "bots.py:Agent", "bots.py:os"):
            response = client.post("/api/play", json={"game_id": "insert", "agents": item})
            assert response.status_code == 400 and "unknown agent" in response.json()["error"], response.text


def test_the_bots_of_a_game_are_killed_when_it_ends_or_is_dropped_and_none_is_pooled(tmp_path):
    from arena.sandbox import POOL
    offered, _ = find_bots([BOTS])
    before = children()
    with TestClient(create_app(str(tmp_path / "a.sqlite"), "none", bots=offered)) as client:
        sessions = client.app.state.sessions
        ended = start(client, "bots.py:GoodBot")                     # ended by the page
        assert live_bots(before, wait=0) == 1
        assert client.post(f"/api/play/{ended['session']}/end", json={}).status_code == 200
        assert live_bots(before) == 0
        for _ in range(3):                                            # played to the end: over, killed
            final = play_to_the_end(client, start(client, "bots.py:GoodBot"))[-1]
            assert live_bots(before) == 0
        assert client.post(f"/api/play/{final['session']}/save", json={}).status_code == 200   # still there
        failing = start(client, "bots.py:RaisingBot", seat=1)        # a bot that fails: the game is over
        with pytest.raises(AssertionError):
            play_to_the_end(client, failing)
        assert client.get(f"/api/play/{failing['session']}").json()["failure"]
        assert live_bots(before) == 0
        idle = start(client, "bots.py:GoodBot")                      # left alone for too long
        sessions.get(idle["session"]).used -= MAX_IDLE + 1
        sessions.expire()
        assert live_bots(before) == 0 and client.get(f"/api/play/{idle['session']}").status_code == 404
        sessions.limit = 2                                            # dropped as the least recently used
        oldest = start(client, "bots.py:GoodBot")
        start(client, "random")
        start(client, "random")
        assert live_bots(before) == 0 and client.get(f"/api/play/{oldest['session']}").status_code == 404
        start(client, "bots.py:GoodBot")                              # still playing at shutdown
        start(client, "bots.py:GoodBot, bots.py:GoodBot", game_id="wizard", params={"hands": "2"})
        assert live_bots(before, wait=0) == 3
    assert live_bots(before) == 0
    pooled = [agent for agents in POOL.idle.values() for agent in agents]
    assert not [agent for agent in pooled if agent.spec.source.startswith("bots.py:")]


def test_at_most_bot_limit_bots_run_and_the_least_recently_used_games_bots_make_room(tmp_path):
    offered, _ = find_bots([BOTS])
    before = children()
    with TestClient(create_app(str(tmp_path / "a.sqlite"), "none", bots=offered)) as client:
        client.app.state.sessions.bot_limit = 2
        first, second = start(client, "bots.py:GoodBot", seat=1), start(client, "bots.py:GoodBot", seat=1)
        client.get(f"/api/play/{first['session']}")                  # used again: the second is the oldest
        third = start(client, "bots.py:GoodBot", seat=1)
        assert live_bots(before) == 2
        stopped = client.get(f"/api/play/{second['session']}").json()
        assert "stopped to make room for a newer game: at most 2 submitted bots" in stopped["failure"]
        assert not stopped["bot_to_move"] and not stopped["legal"]
        assert client.post(f"/api/play/{second['session']}/bot", json={}).status_code == 400
        for game in (first, third):                                   # the others play on
            if not game["bot_to_move"]:
                game = client.post(f"/api/play/{game['session']}/move",
                                   json={"action": game["legal"][0]["action"]}).json()
            assert client.post(f"/api/play/{game['session']}/bot", json={}).status_code == 200
        too_many = client.post("/api/play", json={"game_id": "wizard", "params": {"hands": "2"},
                                                  "agents": ", ".join(["bots.py:GoodBot"] * 3)})
        assert too_many.status_code == 400 and "at most 2 submitted bots" in too_many.json()["error"]
        assert live_bots(before) == 2
    assert live_bots(before) == 0


def test_a_game_left_alone_is_ended_by_the_server_itself_and_its_bots_killed(tmp_path, monkeypatch):
    """No request needed: the server looks for idle games every SWEEP_EVERY seconds."""
    from arena.serve import app as serve_app
    monkeypatch.setattr(serve_app, "SWEEP_EVERY", 0.05)
    before = children()
    with TestClient(create_app(str(tmp_path / "a.sqlite"), "none", bots=find_bots([BOTS])[0])) as client:
        idle = start(client, "bots.py:GoodBot")
        client.app.state.sessions.games[idle["session"]].used -= MAX_IDLE + 1
        assert live_bots(before) == 0
        assert client.get(f"/api/play/{idle['session']}").status_code == 404


def test_a_game_dropped_while_its_bots_start_starts_no_more_and_kills_those_started(tmp_path, monkeypatch):
    from arena import referee
    from arena.serve.sessions import PlaySession, SessionError, Sessions
    offered, _ = find_bots([BOTS])
    from arena.sandbox import make_policy
    session = PlaySession("wizard", {"hands": "2"}, edge.web_agents("bots.py:GoodBot, bots.py:GoodBot", offered), 0, 1,
                          make_policy("none"))
    sessions, made = Sessions(), []
    real = referee.make_player

    def make_player(*args):
        made.append(real(*args))
        if len(made) == 1:   # another request drops the game meanwhile
            sessions.end(session_id)
        return made[-1]

    monkeypatch.setattr(referee, "make_player", make_player)
    before = children()
    session_id = sessions.add(session)
    with pytest.raises(SessionError, match="the game was ended before its bots started"):
        session.start()
    assert len(made) == 1 and session.bots == {} and session.holds == 0 and live_bots(before) == 0


def test_a_bots_folder_offers_each_agent_class_of_its_py_files(tmp_path):
    folder, elsewhere = tmp_path / "bots", tmp_path / "elsewhere"
    for f in (folder / "sub", elsewhere):
        f.mkdir(parents=True)
    (folder / "alpha.py").write_text("import agents\nfrom agents import Agent\nfrom x import Base\n\n"
                                     "class A(Agent):\n    pass\n\nclass B(A):\n    pass\n\n"
                                     "class C(agents.Agent):\n    pass\n\nclass _Hidden(Agent):\n    pass\n\n"
                                     "class Helper:\n    pass\n\nclass Other(Base):\n    pass\n")
    (folder / "helpers.py").write_text("def helper():\n    return 1\n")
    (folder / "broken.py").write_text("class Broken(Agent:\n")
    (folder / "my bot.py").write_text("from agents import Agent\nclass Spaced(Agent):\n    pass\n")
    (folder / "notes.txt").write_text("class Text(Agent): pass\n")
    (folder / "sub" / "deep.py").write_text("from agents import Agent\nclass Deep(Agent):\n    pass\n")
    (elsewhere / "outside.py").write_text("from agents import Agent\nclass Outside(Agent):\n    pass\n")
    (folder / "link.py").symlink_to(elsewhere / "outside.py")
    offered, skipped = find_bots([str(folder), str(folder / "alpha.py")])
    real = os.path.realpath(folder / "alpha.py")
    assert offered == {f"alpha.py:{c}": f"{real}:{c}" for c in "ABC"}
    assert sorted(os.path.basename(s.split(":")[0]) for s in skipped) == ["broken.py", "helpers.py", "my bot.py"]
    (elsewhere / "alpha.py").write_text("from agents import Agent\nclass A(Agent):\n    pass\n")
    with pytest.raises(ValueError, match="two bot files are named alpha.py"):
        find_bots([str(folder), str(elsewhere)])


def test_serve_offers_the_bots_of_bots_paths_and_refuses_a_bad_one_in_one_line(tmp_path, monkeypatch):
    import uvicorn
    folder = tmp_path / "empty"
    folder.mkdir()
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "plain.py").write_text("x = 1\n")
    store = str(tmp_path / "a.sqlite")
    for path, message in ((tmp_path / "missing", "does not exist"), (tmp_path / "notes.txt", "neither a .py file"),
                          (folder, "no Agent class"), (tmp_path / "plain.py", "no Agent class")):
        result = CliRunner().invoke(main, ["serve", "--port", "0", "--store", store, "--bots", str(path)])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("Error: Invalid value for '--bots'") and message in result.output
        assert result.output.count("\n") == 1 and "Traceback" not in result.output
    apps = []

    def run(server, sockets=None):
        apps.append(server.config.app)
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--store", store, "--bots", BOTS])
    assert result.exit_code == 0 and "bots offered: bots.py:GoodBot" in result.output, result.output
    with TestClient(apps[0], base_url="http://127.0.0.1:8000") as client:
        assert "bots.py:GoodBot" in client.get("/api/games").json()["bots"]
    help_text = " ".join(CliRunner().invoke(main, ["serve", "--help"]).output.split())
    assert "--bots PATH" in help_text and f"at most {MAX_LIVE_BOTS} run at once" in help_text


def test_the_play_page_lists_the_offered_bots_and_a_whole_game_against_one_is_played(tmp_path, monkeypatch):
    """In a real browser (as test_serve_browser, whose server and clicking this borrows)."""
    browser_tests = pytest.importorskip("test_serve_browser")
    monkeypatch.setattr(browser_tests, "create_app", lambda store: create_app(store, "none", bots=find_bots([BOTS])[0]))
    before = children()
    server = browser_tests.Server(str(tmp_path / "a.sqlite"))
    try:
        with browser_tests.sync_api.sync_playwright() as playwright:
            browser = browser_tests.launch(playwright)
            page = browser.new_page()
            page.goto(f"{server.url}/play")
            assert "this server's bots: bots.py:GoodBot, bots.py:RaisingBot" in page.text_content("#offered")
            clicks, _, state = browser_tests.play_by_clicking(page, server, "insert", "bots.py:GoodBot as good")
            assert state.is_terminal() and clicks > 0
            browser.close()
    finally:
        server.stop()
    assert live_bots(before) == 0
