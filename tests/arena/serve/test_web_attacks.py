"""Hostile requests to `arena serve` (arena.serve.app): a Host header that only looks local, a JSON
body nested too deep or too big; each a one-line JSON 4xx, never a 500, and no game started."""
import pytest
from starlette.testclient import TestClient

from arena.cli.serve import LOOPBACK_NAMES
from arena.serve import app as web


@pytest.fixture
def client(tmp_path):
    with TestClient(web.create_app(str(tmp_path / "arena.sqlite"), "none", hosts=LOOPBACK_NAMES),
                    base_url="http://127.0.0.1:8000") as c:
        yield c


@pytest.mark.parametrize("host", ["127.0.0.1:80@attacker.example", "localhost:8000:attacker.example",
                                  "[::1]attacker.example", "[::1", "localhost:80x"])
def test_a_host_that_only_starts_like_a_local_one_is_refused(client, host):
    answer = client.get("/api/runs", headers={"host": host})
    assert answer.status_code == 400 and "does not answer for the host" in answer.json()["error"]


# These held before they were written: the forms a browser sends for a local name with a trailing
# dot, in capitals, or an IPv6 literal without brackets (or half of them) are refused (a name is matched exactly).
@pytest.mark.parametrize("host, status", [("localhost.", 400), ("LOCALHOST:8000", 400), ("::1", 400), ("[::1", 400),
                                          ("localhost:8000", 200), ("[::1]:8000", 200), ("127.0.0.1", 200)])
def test_a_host_is_matched_exactly_port_aside(client, host, status):
    assert client.get("/api/runs", headers={"host": host}).status_code == status


@pytest.mark.parametrize("body, status, message", [
    (b"[" * 10_000 + b"]" * 10_000, 400, "nested too deep"),
    (b'{"game_id": "insert", "agents": "random", "pad": "' + b"x" * (1 << 20) + b'"}', 413, "at most"),
], ids=["deep", "huge"])
def test_a_json_body_too_deep_or_too_big_is_refused(client, body, status, message):
    answer = client.post("/api/play", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == status and message in answer.json()["error"]
    assert not client.app.state.sessions.games


def test_a_json_body_without_a_length_is_counted_as_it_arrives(client):
    def chunks():
        yield b'{"game_id": "insert", "agents": "random", "pad": "'
        for _ in range(1024):
            yield b"x" * 1024
        yield b'"}'
    answer = client.post("/api/play", content=chunks(), headers={"content-type": "application/json"})
    assert answer.status_code == 413 and "at most" in answer.json()["error"]
