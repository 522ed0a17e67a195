"""Hostile requests to a ladder over HTTP (arena.serve.ladders): a form with a field twice, a query
parameter, a token anywhere but the Authorization header, wrong tokens sent over and over; refused
with a JSON 4xx before anything is written."""
import html.parser
import os

import pytest
from starlette.exceptions import HTTPException
from starlette.testclient import TestClient

from arena import edge
from arena.ladder import store as ladders
from arena.ladder import tokens
from arena.serve import ladders as ladders_web
from arena.serve.app import create_app
from arena.serve.ladders import STATIC
from arena.store import Store

BOT = b"from agents import Agent\n\n\nclass Bot(Agent):\n    def act(self, state):\n        return 0\n"


@pytest.fixture
def served(tmp_path):
    """(client, alice's token) of a ladder `club` of Insert with random."""
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    ladders.add(store, "club", edge.agent("random"))
    token = tokens.issue(store, "club", "alice")
    store.close()
    with TestClient(create_app(path)) as client:
        yield client, token


def part(name, content, filename=None):
    disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
    return f"--X\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + content + b"\r\n"


@pytest.mark.parametrize("parts, field", [
    ([part("file", BOT, "a.py"), part("file", b"print('the other one')", "b.py")], "file"),
    ([part("label", b"mine"), part("label", b"other"), part("file", BOT, "a.py")], "label"),
    ([part("file", b"label-as-text"), part("file", BOT, "a.py")], "file"),
], ids=["two-files", "two-labels", "a-text-and-a-file"])
def test_a_form_with_a_field_twice_is_refused(served, parts, field):
    client, token = served
    answer = client.post("/api/ladders/club/bots", content=b"".join(parts) + b"--X--\r\n",
                         headers={"Authorization": f"Bearer {token}", "content-type": "multipart/form-data; boundary=X"})
    assert answer.status_code == 422 and answer.json()["error"] == f"the form has the field {field!r} twice"
    assert [row["name"] for row in client.get("/api/ladders/club").json()["standings"]] == ["random"]


@pytest.mark.parametrize("method, path", [
    ("get", "/api/ladders"), ("get", "/api/ladders/club"), ("get", "/api/ladders/club/entries/random"),
    ("post", "/api/ladders/club/bots"), ("post", "/api/ladders/club/bots/random/retire")])
def test_the_ladder_api_refuses_query_parameters_a_token_in_them_too(served, method, path):
    client, token = served
    answer = getattr(client, method)(f"{path}?token={token}")
    assert answer.status_code == 400 and "unknown query parameter 'token'" in answer.json()["error"]
    assert token not in answer.text


# This held before it was written; it guards that a token in a cookie (which a page of another
# site could make a browser send) counts for nothing.
def test_a_token_in_a_cookie_is_ignored(served):
    client, token = served
    answer = client.post("/api/ladders/club/bots", files={"file": ("a.py", BOT)}, headers={"Cookie": f"token={token}"})
    assert answer.status_code == 401 and token not in answer.text
    retire = client.post("/api/ladders/club/bots/random/retire", headers={"Cookie": f"token={token}"})
    assert retire.status_code == 401


def test_the_upload_form_sent_before_its_script_runs_carries_no_token():
    """A form the browser sends itself (its script not loaded yet, or failed) is a GET with every
    named field in the address: the token would land in the history and the server's log."""
    named = []

    class Fields(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag in ("input", "select", "textarea", "button") and dict(attrs).get("name"):
                named.append(dict(attrs)["name"])
    with open(os.path.join(STATIC, "ladder-upload.html"), encoding="utf-8") as f:
        Fields().feed(f.read())
    assert named == []


def test_a_form_of_many_parts_is_refused_before_it_is_parsed(served):
    client, token = served
    parts = [part(f"f{i}", b"") for i in range(1000)] + [part("file", BOT, "a.py")]
    answer = client.post("/api/ladders/club/bots", content=b"".join(parts) + b"--X--\r\n",
                         headers={"Authorization": f"Bearer {token}", "content-type": "multipart/form-data; boundary=X"})
    assert answer.status_code == 422 and "more than 8 parts" in answer.json()["error"]


def test_a_client_sending_wrong_tokens_is_refused_before_any_hashing(served, monkeypatch):
    """Each token check costs an scrypt hash: past MAX_FAILED failures a client gets a JSON 429 with
    Retry-After, and no more hashes, even for a good token (which is not told apart from a guess)."""
    client, token = served
    hashed = []
    real_hash = tokens._hash
    monkeypatch.setattr(tokens, "_hash", lambda secret, salt: hashed.append(1) or real_hash(secret, salt))
    wrong = {"Authorization": f"Bearer {token[:-2]}xx"}
    for _ in range(ladders_web.MAX_FAILED):
        assert client.post("/api/ladders/club/bots/random/retire", headers=wrong).status_code == 401
    assert len(hashed) == ladders_web.MAX_FAILED
    for headers in (wrong, {"Authorization": f"Bearer {token}"}):
        answer = client.post("/api/ladders/club/bots", headers=headers, files={"file": ("bot.py", BOT)})
        assert answer.status_code == 429 and "too many failed token checks" in answer.json()["error"]
        assert 1 <= int(answer.headers["retry-after"]) <= ladders_web.FAILED_WINDOW
    assert len(hashed) == ladders_web.MAX_FAILED
    assert [row["name"] for row in client.get("/api/ladders/club").json()["standings"]] == ["random"]


def test_failed_token_checks_expire_and_stay_per_client(tmp_path):
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    token = tokens.issue(store, "club", "alice")
    now = [1000.0]
    checks = ladders_web.TokenChecks(clock=lambda: now[0])
    for _ in range(ladders_web.MAX_FAILED):
        with pytest.raises(HTTPException) as refused:
            checks.entrant(store, "club", "no.such", "10.0.0.1")
        assert refused.value.status_code == 401
    with pytest.raises(HTTPException) as refused:
        checks.entrant(store, "club", token, "10.0.0.1")
    assert refused.value.status_code == 429
    assert checks.entrant(store, "club", token, "10.0.0.2") == "alice"   # another address
    now[0] += ladders_web.FAILED_WINDOW
    assert checks.entrant(store, "club", token, "10.0.0.1") == "alice"   # the failures have expired
    store.close()


def test_a_flood_from_many_addresses_keeps_the_memory_of_failures_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(ladders_web, "MAX_CLIENTS", 50)
    monkeypatch.setattr(tokens, "_hash", lambda secret, salt: b"\1" * 32)   # cheap: only the bookkeeping is tested
    store = Store(str(tmp_path / "arena.sqlite"))
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    checks = ladders_web.TokenChecks(clock=lambda: 0.0)
    for i in range(500):
        with pytest.raises(HTTPException):
            checks.entrant(store, "club", "no.such", f"10.0.{i // 256}.{i % 256}")
    assert len(checks.failed) <= 50
    store.close()
