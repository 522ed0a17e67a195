"""Ladders over HTTP (arena.serve.ladders): tokens, uploads and retirements with their status codes,
nothing written for a refused upload, and a hostile uploaded bot that faults only itself."""
import glob
import io
import os
import shutil
import tarfile
import tempfile
import time

import pytest
from starlette.testclient import TestClient

from arena import edge
from arena.ladder import play, tokens, uploads
from arena.ladder import store as ladders
from arena.serve import ladders as ladders_web
from arena.serve.app import create_app
from arena.store import Store
from paths import FIXTURES, ROOT

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="uploads enter only with the sandbox (bwrap)")
PYTHON_KIT = os.path.join(ROOT, "examples", "bots", "python")
FAILING_BOT = b"""
from agents import Agent


class Broken(Agent):
    def act(self, state):
        raise RuntimeError("broken on purpose")
"""


def kit(extra=()):
    """The Python kit (examples/bots/python) as a .tar.gz, with `extra` [(TarInfo, bytes)] members."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        archive.add(PYTHON_KIT, "python", filter=lambda info: None if "__pycache__" in info.name else info)
        for info, content in extra:
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return out.getvalue()


def member(name, content=b"x", kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info, content


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """(store path, {entrant: token}) of a ladder `club` of Insert with random and greedy (and an
    empty ladder `other`), made once and copied for each test."""
    path = str(tmp_path_factory.mktemp("ladder") / "arena.sqlite")
    store = Store(path)
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    ladders.create(store, "other", game=edge.game("insert", None), seed=1)
    ladders.create(store, "unconfined", game=edge.game("insert", None), seed=1, sandbox=edge.sandbox_policy("none"))
    for agent in ("random", "greedy"):
        ladders.add(store, "club", edge.agent(agent))
    issued = {who: tokens.issue(store, "club", who) for who in ("alice", "bob")}
    issued["other-ladder"] = tokens.issue(store, "other", "alice")
    issued["unconfined"] = tokens.issue(store, "unconfined", "alice")
    issued["expired"] = tokens.issue(store, "club", "carol", days=1, now=time.time() - 2 * 86400)
    issued["revoked"] = tokens.issue(store, "club", "dave")
    tokens.revoke(store, "club", "dave")
    store.close()
    return path, issued


@pytest.fixture
def ladder(template, tmp_path):
    path = str(tmp_path / "arena.sqlite")
    shutil.copy(template[0], path)
    return path, template[1]


@pytest.fixture
def client(ladder):
    with TestClient(create_app(ladder[0])) as c:
        yield c


def written(path):
    """Everything an upload could write: the rows of every table, the files kept beside the store,
    the staged copies in the cache and the scratch folders."""
    store = Store(path, readonly=True)
    try:
        tables = [r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        rows = {t: store.db.execute(f"SELECT * FROM {t}").fetchall() for t in tables}
        rows = {t: [tuple(r) for r in v] for t, v in rows.items()}
    finally:
        store.close()
    files = sorted(os.path.relpath(os.path.join(d, f), path + ".uploads")
                   for d, _, fs in os.walk(path + ".uploads") for f in fs)
    return rows, files, uploads._cache_entries(), glob.glob(os.path.join(tempfile.gettempdir(), "arena-upload-*"))


def kept_folders(path, name, ladder="club"):
    """The folders an uploaded entry keeps (its one kept copy beside the store; a build's copy)."""
    store = Store(path, readonly=True)
    try:
        return uploads._folders(store, ladders.entry(store, ladder, name).spec)
    finally:
        store.close()


def upload(client, token, data, filename="bot.tar.gz", ladder="club", **fields):
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return client.post(f"/api/ladders/{ladder}/bots", headers=headers, files={"file": (filename, data)}, data=fields)


@pytest.mark.parametrize("who", [None, "wrong", "other-ladder", "expired", "revoked", "not-bearer"])
def test_an_upload_without_a_valid_token_is_401_and_writes_nothing(ladder, client, who):
    path, issued = ladder
    token = {"wrong": issued["alice"][:-2] + "xx", "not-bearer": None}.get(who, issued.get(who))
    before = written(path)
    headers = {"Authorization": f"Basic {issued['alice']}"} if who == "not-bearer" else None
    response = client.post("/api/ladders/club/bots", files={"file": ("bot.tar.gz", kit())},
                           headers=headers or ({"Authorization": f"Bearer {token}"} if token else {}))
    assert response.status_code == 401 and "no valid entrant token" in response.json()["error"]
    assert client.post("/api/ladders/club/bots/random/retire",
                       headers={"Authorization": f"Bearer {token}"} if token else {}).status_code == 401
    assert written(path) == before


@pytest.mark.parametrize("data, status, message", [
    (kit([member("/tmp/ladder-evil")]), 422, "relative paths"),
    (kit([member("python/../../ladder-evil")]), 422, "must not hold .."),
    (kit([member("python/link", b"", tarfile.SYMTYPE, "/etc/passwd")]), 422, "link or a device"),
    (kit([member("python/hard", b"", tarfile.LNKTYPE, "python/bot.py")]), 422, "link or a device"),
    (kit([member("python/zeros", b"\0" * (uploads.MAX_UNPACKED + 1))]), 413, "unpacks to more than"),
    (kit([member(f"python/f{i}", b"") for i in range(uploads.MAX_MEMBERS)]), 413, "members"),
    (b"\x1f\x8b" + os.urandom(uploads.MAX_UPLOAD + 1), 413, "at most"),
    (b"not a bot", 422, "Python bot file"),
], ids=["absolute", "dotdot", "symlink", "hardlink", "too-big-unpacked", "too-many-files", "oversized", "not-a-bot"])
def test_a_bad_upload_gets_its_status_and_writes_nothing(ladder, client, data, status, message):
    path, issued = ladder
    before = written(path)
    response = upload(client, issued["alice"], data, "bot.tar.gz" if data[:2] == b"\x1f\x8b" else "bot.txt")
    assert response.status_code == status, response.json()
    assert response.json()["error"].count("\n") == 0 and message in response.json()["error"]
    assert written(path) == before
    assert not os.path.exists("/tmp/ladder-evil")


def test_a_python_file_that_cannot_be_parsed_says_where_as_check_agent_does(ladder, client):
    path, issued = ladder
    before = written(path)
    source = b"from agents import Agent\n\n\nclass MyBot(Agent)\n    pass\n"
    response = upload(client, issued["alice"], source, "syntax.py")
    assert response.status_code == 422, response.json()
    assert response.json()["error"] == "the Python file cannot be parsed: SyntaxError: syntax.py, line 4: expected ':'"
    assert written(path) == before


def test_a_bot_that_fails_check_agent_is_422_and_leaves_no_staged_copy(ladder, client):
    path, issued = ladder
    before = written(path)
    bot = FAILING_BOT + f"# {os.urandom(8).hex()}\n".encode()   # code the cache has never staged
    for _ in range(2):   # the second time, its staged copy is made again, not taken as still there
        response = upload(client, issued["alice"], bot, "broken.py")
        assert response.status_code == 422
        assert "fails check-agent" in response.json()["error"] and "broken on purpose" in response.json()["error"]
        assert written(path) == before


@pytest.mark.parametrize("fields, message", [
    ({"label": "<script>alert(1)</script>"}, "label"),
    ({"label": "../../x"}, "label"),
    ({"label": "x" * (10 << 10)}, "longer than"),
])
def test_a_bad_label_or_a_huge_field_is_422(ladder, client, fields, message):
    path, issued = ladder
    before = written(path)
    response = upload(client, issued["alice"], kit(), **fields)
    assert response.status_code == 422 and message in response.json()["error"]
    assert written(path) == before


def test_a_ladder_without_the_sandbox_takes_no_upload(ladder, client):
    path, issued = ladder
    before = written(path)
    response = upload(client, issued["unconfined"], FAILING_BOT, "bot.py", ladder="unconfined")
    assert response.status_code == 403 and "without the sandbox" in response.json()["error"]
    assert written(path) == before


def test_an_unknown_ladder_is_404(ladder, client):
    path, issued = ladder
    assert upload(client, issued["alice"], kit(), ladder="nosuch").status_code == 404
    assert client.post("/api/ladders/nosuch/bots/x/retire").status_code == 404
    assert client.get("/api/ladders/nosuch").status_code == 404
    assert client.get("/ladders/nosuch").status_code == 404
    assert client.get("/api/ladders/club/entries/nosuch").status_code == 404


@needs_bwrap
@pytest.mark.slow
def test_an_upload_enters_the_bot_and_only_its_entrant_may_retire_it(ladder, client, monkeypatch):
    path, issued = ladder
    response = upload(client, issued["alice"], kit(), label="kit")
    assert response.status_code == 201, response.json()
    assert response.json()["name"] == "kit" and response.json()["entrant"] == "alice"
    rows = {r["name"]: r for r in client.get("/api/ladders/club").json()["standings"]}
    assert rows["kit"]["entrant"] == "alice" and rows["kit"]["status"] == "active"
    kept = kept_folders(path, "kit")
    assert kept and all(os.path.isfile(os.path.join(folder, "python", "bot.toml")) for folder in kept)

    before = written(path)
    assert upload(client, issued["bob"], kit(), label="kit").status_code == 403      # alice's label
    bob = {"Authorization": f"Bearer {issued['bob']}"}
    assert client.post("/api/ladders/club/bots/kit/retire", headers=bob).status_code == 403
    assert client.post("/api/ladders/club/bots/random/retire", headers=bob).status_code == 403   # nobody's
    assert client.post("/api/ladders/club/bots/nosuch/retire", headers=bob).status_code == 404
    monkeypatch.setattr(uploads, "MAX_BOTS", 1)
    assert upload(client, issued["alice"], kit(), label="second").status_code == 409
    assert written(path) == before

    alice = {"Authorization": f"Bearer {issued['alice']}"}
    response = client.post("/api/ladders/club/bots/kit/retire", headers=alice)
    assert response.status_code == 200 and response.json()["retired"] == ["kit"]
    rows = {r["name"]: r for r in client.get("/api/ladders/club").json()["standings"]}
    assert rows["kit"]["status"] == "retired"
    assert not any(os.path.exists(folder) for folder in kept)   # its files go; its entry and matches stay


# A bot that behaves while check-agent watches (it knows the check's seeds) and, in the ladder's
# matches, tries to kill every process it sees and then to take far more memory than its limit.
LATE_BOMB = b"""

class LateBomb(KillParent, MemoryBomb):
    PARAMS = {"megabytes": 4096}

    def attack(self, state):
        from arena.seeds import derive_seed
        if self.seed in {derive_seed(derive_seed(0, "check", g), "agent") for g in range(2)}:
            return
        KillParent.attack(self, state)
        MemoryBomb.attack(self, state)
"""


@needs_bwrap
@pytest.mark.slow
def test_a_hostile_uploaded_bot_faults_only_itself_when_it_plays(ladder, client):
    path, issued = ladder
    with open(os.path.join(FIXTURES, "hostile_bots.py"), "rb") as f:
        source = f.read() + LATE_BOMB
    response = upload(client, issued["alice"], source, "hostile.py", **{"class": "LateBomb"})
    assert response.status_code == 201, response.json()
    store = Store(path)
    try:
        outcome = play.run(store, "club", matches=6, jobs=1)
        assert outcome["status"] == "finished"
        matches = store.matches(ladders.get(store, "club").run_id)
    finally:
        store.close()
    assert matches and all(len(m["placements"]) == 2 for m in matches)
    bomb_seats = [s["label"] for m in matches for s in m["seats"] if s["label"] == "LateBomb"]
    faults = [f for m in matches for f in m["faults"]]
    assert bomb_seats and faults and {f["label"] for f in faults} == {"LateBomb"}
    assert not any("ATTACK SUCCEEDED" in f["message"] for f in faults)
    rows = {r["name"]: r for r in client.get("/api/ladders/club").json()["standings"]}
    assert rows["LateBomb"]["faults"] > 0 and rows["random"]["faults"] == rows["greedy"]["faults"] == 0


def test_an_oversized_body_without_a_length_is_413_as_it_arrives(ladder, client):
    """A chunked body (no Content-Length) is counted as it arrives and refused past the cap, even
    when what is past it is a preamble the form's parser would skip."""
    path, issued = ladder
    before = written(path)

    def body():
        for _ in range(ladders_web.MAX_BODY // (1 << 16) + 2):
            yield b"#" * (1 << 16)
        yield b"\r\n--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bot.py\"\r\n\r\nx\r\n--x--\r\n"
    response = client.post("/api/ladders/club/bots", content=body(),
                           headers={"Authorization": f"Bearer {issued['alice']}",
                                    "Content-Type": "multipart/form-data; boundary=x"})
    assert response.status_code == 413 and "at most" in response.json()["error"]
    assert written(path) == before
