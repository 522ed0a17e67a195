"""What an upload costs the server (arena.ladder.uploads): each version kept once, beside the store
(wiping the cache of staged bots loses none), a retired version's files removed, a per-entrant quota of kept bytes, and a check that holds back no other
entrant's upload while the bot thinks."""
import io
import os
import shutil
import tarfile
import tempfile
import threading

import pytest
from starlette.testclient import TestClient

from arena import edge
from arena.ladder import store as ladders
from arena.ladder import tokens, uploads
from arena.serve.app import create_app
from arena.store import Store
from paths import ROOT

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="uploads enter only with the sandbox (bwrap)")


def bot(tag, size=0):
    """A Python bot file of its own (tag), padded to about `size` bytes."""
    return (b"from agents import Agent\n\n\nclass Bot(Agent):\n    def act(self, state):\n"
            b"        return state.legal_actions()[0]\n" + f"# {tag}\n".encode() + b"#" * size + b"\n")


@pytest.fixture
def club(tmp_path):
    """(store path, {entrant: token}) of a ladder `club` of Insert with random."""
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    ladders.add(store, "club", edge.agent("random"))
    issued = {who: tokens.issue(store, "club", who) for who in ("alice", "bob")}
    store.close()
    return path, issued


@pytest.fixture
def wiped_cache(tmp_path, monkeypatch):
    """The cache of staged bots in a folder of the test's own (XDG_CACHE_HOME), to wipe."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


def send(client, token, data, label, filename="bot.py"):
    return client.post("/api/ladders/club/bots", headers={"Authorization": f"Bearer {token}"},
                       files={"file": (filename, data)}, data={"label": label})


def c_kit():
    """A .tar.gz of the C kit (examples/bots/c): an exec bot with a build."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        archive.add(os.path.join(ROOT, "examples", "bots", "c"), arcname="c")
    return out.getvalue()


def copies(path, data):
    """The files holding exactly `data` beside the store, in the cache of staged bots and in the
    scratch folders: every copy an upload left."""
    places = [os.path.dirname(path), uploads._cache_root()] + \
        [os.path.join(tempfile.gettempdir(), d) for d in os.listdir(tempfile.gettempdir()) if d.startswith(uploads.SCRATCH)]
    found = []
    for place in places:
        for folder, _, files in os.walk(place):
            for name in files:
                if os.path.islink(os.path.join(folder, name)):   # a staged link to a kept copy is no copy
                    continue
                with open(os.path.join(folder, name), "rb") as f:
                    if f.read() == data:
                        found.append(os.path.join(folder, name))
    return found


@needs_bwrap
@pytest.mark.slow
def test_an_uploaded_version_is_kept_once_and_a_retired_one_leaves_no_file(club, wiped_cache):
    path, issued = club
    first, second = bot(os.urandom(8).hex(), 4096), bot(os.urandom(8).hex(), 4096)
    with TestClient(create_app(path)) as client:
        assert send(client, issued["alice"], first, "mine").status_code == 201
        assert len(copies(path, first)) == 1
        assert send(client, issued["alice"], second, "mine").status_code == 201   # mine@2; mine retired
        assert copies(path, first) == [] and len(copies(path, second)) == 1
        rows = {r["name"]: r["status"] for r in client.get("/api/ladders/club").json()["standings"]}
        assert rows == {"random": "active", "mine": "retired", "mine@2": "active"}   # the entry stays
        retired = client.post("/api/ladders/club/bots/mine/retire", headers={"Authorization": f"Bearer {issued['alice']}"})
        assert retired.status_code == 200 and copies(path, second) == []


def on_disk(places, data):
    """The distinct files (by inode) holding exactly `data` under `places`."""
    found = {}
    for place in places:
        for folder, _, files in os.walk(place):
            for name in files:
                with open(os.path.join(folder, name), "rb") as f:
                    if f.read() == data:
                        found[os.stat(os.path.join(folder, name)).st_ino] = os.path.join(folder, name)
    return sorted(found.values())


@needs_bwrap
@pytest.mark.slow
def test_an_uploaded_version_has_one_copy_beside_the_store_and_none_in_the_cache(club, wiped_cache):
    path, issued = club
    data = bot(os.urandom(8).hex(), 4096)
    with TestClient(create_app(path)) as client:
        assert send(client, issued["alice"], data, "mine").status_code == 201
    [copy] = on_disk([os.path.dirname(path), str(wiped_cache)], data)
    assert copy.startswith(path + ".uploads" + os.sep + os.path.join("club", "mine") + os.sep)
    assert os.stat(path + ".uploads").st_mode & 0o777 == 0o700


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("upload", [lambda: (bot("wiped"), "bot.py"), lambda: (c_kit(), "c.tar.gz")],
                         ids=["python", "exec-with-build"])
def test_a_wiped_cache_loses_no_upload_the_next_batch_plays_it(club, wiped_cache, upload):
    """The ladder's next batch restages the kept copy (and rebuilds an exec bot)."""
    from arena.ladder import play
    path, issued = club
    with TestClient(create_app(path)) as client:
        data, filename = upload()
        answer = send(client, issued["alice"], data, "mine", filename)
        assert answer.status_code == 201, answer.json()
    shutil.rmtree(wiped_cache)
    store = Store(path)
    try:
        assert play.run(store, "club", matches=2)["status"] == "finished"
        mine = next(e for e in ladders.entries(store, "club") if e.label == "mine")
        assert mine.games >= 2 and mine.status == "active"
        assert not store.db.execute("SELECT count(*) FROM matches WHERE faults != '[]'").fetchone()[0]
    finally:
        store.close()


def test_an_entrants_uploads_are_kept_within_the_quota(club, monkeypatch):
    path, issued = club
    monkeypatch.setattr(uploads, "_check", lambda *args: None)   # what is kept, not the bot, is tried here
    size = 40 << 10
    with TestClient(create_app(path, upload_quota=100 << 10)) as client:
        assert send(client, issued["alice"], bot("a", size), "a").status_code == 201
        assert send(client, issued["alice"], bot("b", size), "b").status_code == 201
        refused = send(client, issued["alice"], bot("c", size), "c")
        assert refused.status_code == 413 and "over the 0.1 MiB each entrant may keep" in refused.json()["error"]
        assert "--upload-quota" in refused.json()["error"] and "\n" not in refused.json()["error"]
        assert copies(path, bot("c", size)) == []
        assert send(client, issued["alice"], bot("a2", size), "a").status_code == 201   # a new version replaces a
        assert send(client, issued["bob"], bot("bob", size), "c").status_code == 201    # bob has his own quota
        rows = {r["name"]: r["status"] for r in client.get("/api/ladders/club").json()["standings"]}
        assert rows == {"random": "active", "a": "retired", "a@2": "active", "b": "active", "c": "active"}


def test_a_slow_check_does_not_hold_back_another_entrants_upload(club, monkeypatch):
    """alice's bot thinks (its check waits on an event) while bob uploads: bob's upload is answered
    first, and alice's when her bot is done."""
    path, issued = club
    thinking, done = threading.Event(), threading.Event()

    def check(agent, label, ladder, games):
        if label == "slow":
            thinking.set()
            assert done.wait(120)
    monkeypatch.setattr(uploads, "_check", check)
    answers = []
    with TestClient(create_app(path)) as client:
        def post(who, label):
            answers.append((label, send(client, issued[who], bot(label), label).status_code))
        slow = threading.Thread(target=post, args=("alice", "slow"))
        slow.start()
        try:
            assert thinking.wait(60)
            quick = threading.Thread(target=post, args=("bob", "quick"))
            quick.start()
            quick.join(60)
            assert answers == [("quick", 201)]   # while alice's bot still thinks
            busy = send(client, issued["alice"], bot("again"), "again")   # alice's second check waits for none
            assert busy.status_code == 409 and "being checked" in busy.json()["error"]
        finally:
            done.set()
            slow.join(60)
    assert answers == [("quick", 201), ("slow", 201)]
