"""What `arena serve` trusts of a request: the failed token checks are counted by the connection's
address, never by an X-Forwarded-For a client writes (uvicorn would take it from any request from
127.0.0.1), unless `--behind-proxy`, where the last address of the header (the proxy's own entry)
counts."""
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from arena import edge
from arena.cli.serve import make_server
from arena.ladder import store as ladders
from arena.ladder import tokens
from arena.serve.app import create_app
from arena.serve.ladders import MAX_FAILED
from arena.store import Store


@pytest.fixture
def store_path(tmp_path):
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    tokens.issue(store, "club", "alice")
    store.close()
    return path


def serving(store_path, **options):
    """(url, stop) of the app on uvicorn as `arena serve` starts it, on a free port of 127.0.0.1."""
    server = make_server(create_app(store_path, **options))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the server did not start"
        time.sleep(0.02)

    def stop():
        server.should_exit = True
        thread.join(30)
        sock.close()
    return f"http://127.0.0.1:{sock.getsockname()[1]}", stop


def wrong_tokens(url, forwarded):
    """The statuses of a wrong token sent once per X-Forwarded-For value."""
    statuses = []
    for value in forwarded:
        request = urllib.request.Request(f"{url}/api/ladders/club/bots/x/retire", method="POST", data=b"", headers={
            "Authorization": "Bearer nosuch.secret", "X-Forwarded-For": value})
        try:
            statuses.append(urllib.request.urlopen(request, timeout=30).status)
        except urllib.error.HTTPError as e:
            statuses.append(e.code)
    return statuses


def test_a_rotated_forwarded_for_does_not_escape_the_limit_by_default(store_path):
    url, stop = serving(store_path)
    try:
        statuses = wrong_tokens(url, [f"10.0.0.{i}" for i in range(MAX_FAILED + 2)])
    finally:
        stop()
    assert statuses == [401] * MAX_FAILED + [429, 429]


def test_behind_a_proxy_the_proxys_entry_of_forwarded_for_counts(store_path):
    url, stop = serving(store_path, behind_proxy=True)
    try:
        # what a client writes comes first; the proxy appends the address it saw
        forged = wrong_tokens(url, [f"10.0.0.{i}, 192.0.2.7" for i in range(MAX_FAILED + 1)])
        others = wrong_tokens(url, [f"192.0.2.{i}" for i in range(8, 8 + MAX_FAILED + 1)])
    finally:
        stop()
    assert forged == [401] * MAX_FAILED + [429]
    assert others == [401] * (MAX_FAILED + 1)   # each client its own allowance
