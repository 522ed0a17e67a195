"""No answer of `arena serve` shows a folder of the server (the store's, the temporary folder, the
cache of staged bots) or a run's deal key: every JSON answer of the API, its error answers and the
error pages, walked over a store with a tournament, a ladder with an uploaded bot and a saved game."""
import json
import os
import tempfile

import pytest
from starlette.testclient import TestClient

from arena import edge
from arena.ladder import store as ladders
from arena.ladder import tokens, uploads
from arena.serve.app import create_app
from arena.store import Store
from cli import ok

BOT = b"from agents import Agent\n\n\nclass Mine(Agent):\n    def act(self, state):\n        return state.legal_actions()[0]\n"


@pytest.fixture
def served(tmp_path, monkeypatch):
    """(client, store path, alice's token, run id) of a store with a tournament and a ladder `club`
    with random and alice's uploaded bot `mine`."""
    path = str(tmp_path / "arena.sqlite")
    ok("run", "--game", "insert", "--agents", "random,greedy", "--games", "2", "-j", "1", "--store", path)
    store = Store(path)
    run_id = store.run().run_id
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    ladders.add(store, "club", edge.agent("random"))
    token = tokens.issue(store, "club", "alice")
    store.close()
    with TestClient(create_app(path, "none")) as client:
        with monkeypatch.context() as patched:
            patched.setattr(uploads, "_check", lambda *args: None)
            added = client.post("/api/ladders/club/bots", headers={"Authorization": f"Bearer {token}"},
                                files={"file": ("mine.py", BOT)}, data={"label": "mine"})
            assert added.status_code == 201, added.json()
        yield client, path, token, run_id


def secrets_of(path, tmp_path):
    """What no answer may hold: the test's and the server's folders, and every run's deal key."""
    store = Store(path, readonly=True)
    try:
        keys = [r[0] for r in store.db.execute("SELECT deal_key FROM runs WHERE deal_key != ''")]
    finally:
        store.close()
    folders = {str(tmp_path), os.path.dirname(os.path.abspath(path)), tempfile.gettempdir() + "/",
               uploads._cache_root()}
    return folders, keys


def check_answer(answer, folders, keys):
    text = answer.text
    assert not [f for f in folders if f in text], (answer.request.url, text[:300])
    assert not [k for k in keys if k in text], answer.request.url
    return answer


def test_no_answer_shows_a_server_folder_or_a_deal_key(served, tmp_path):
    client, path, token, run_id = served
    alice = {"Authorization": f"Bearer {token}"}
    game = client.post("/api/play", json={"game_id": "insert", "agents": "random", "seat": 0, "seed": 1}).json()
    session = game["session"]
    while game["legal"] or game["bot_to_move"]:
        game = client.post(f"/api/play/{session}/move", json={"action": game["legal"][0]["action"]}).json() \
            if game["legal"] else client.post(f"/api/play/{session}/bot", json={}).json()
    saved = client.post(f"/api/play/{session}/save", json={}).json()
    folders, keys = secrets_of(path, tmp_path)
    assert len(keys) == 2   # the tournament's and the ladder's (a saved game has none)
    answers = [client.get(address) for address in (
        "/api/runs", f"/api/runs/{run_id}", f"/api/runs/{run_id}/progress", f"/api/runs/{run_id}/matches",
        f"/api/runs/{run_id}/matches/0", f"/api/runs/{run_id}/matches/0/steps/0", saved["replay"].replace("/runs", "/api/runs"),
        "/api/games", "/api/ladders", "/api/ladders/club", "/api/ladders/club/entries/mine", f"/api/play/{session}")]
    assert all(a.status_code == 200 for a in answers)
    rows = {r["name"]: r for r in answers[9].json()["standings"]}
    assert rows["mine"]["agent"] == "bot.py:Mine as mine"
    errors = [client.get(address) for address in (
        "/api/runs/nosuch", "/api/runs/nosuch/matches", f"/api/runs/{run_id}/matches/999", "/api/ladders/nosuch",
        "/api/ladders/club/entries/nosuch", "/runs/nosuch", "/ladders/nosuch", "/ladders/club/entries/nosuch",
        "/api/play/nosuch")]
    errors += [client.post("/api/ladders/nosuch/bots", headers=alice, files={"file": ("a.py", BOT)}),
               client.post("/api/ladders/club/bots", headers=alice, files={"file": ("a.py", b"x = 1\n")}),
               client.post("/api/ladders/club/bots/nosuch/retire", headers=alice),
               client.post("/api/play", json={"game_id": "insert", "agents": "/etc/passwd.py:X"})]
    assert all(400 <= e.status_code < 500 for e in errors), [(e.request.url, e.status_code) for e in errors]
    for answer in answers + errors:
        check_answer(answer, folders, keys)
        if answer.headers["content-type"].startswith("application/json"):
            json.loads(answer.text)


def test_an_upload_error_that_quotes_the_bot_names_no_server_folder(served, tmp_path, monkeypatch):
    """A refusal that quotes the agent as the server wrote it (its scratch folder, as a bot that did
    not load was reported) shows only its file's name."""
    client, path, token, _ = served
    folders, keys = secrets_of(path, tmp_path)

    def check(agent, label, ladder, games):
        raise uploads.UploadRefused(f"the bot fails check-agent: agent {label} ({agent}): does not load")
    monkeypatch.setattr(uploads, "_check", check)
    refused = client.post("/api/ladders/club/bots", headers={"Authorization": f"Bearer {token}"},
                          files={"file": ("a.py", BOT)}, data={"label": "other"})
    assert refused.status_code == 422 and "(bot.py:Mine): does not load" in refused.json()["error"]
    check_answer(refused, folders, keys)
