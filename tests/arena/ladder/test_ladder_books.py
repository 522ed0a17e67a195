"""A ladder of a deal book (`arena ladder new NAME --deals BOOK`): its deal k is the book's deal k,
so two stores with the same book and entries play the same matches; it stops at the book's last
deal and refuses to run beyond it; `show` and the ladder's web page name the book; a book of
another game is refused."""
import json

import pytest
from starlette.testclient import TestClient

from arena.serve.app import create_app
from arena.store import Store
from arena.tournament import books
from cli import invoke, ok

ENTRIES = ["random as r1", "greedy as g", "random as r2"]


@pytest.fixture(autouse=True)
def no_deal_key(monkeypatch):
    """A book holds its key: the tests' ARENA_DEAL_KEY would be refused beside --deals."""
    monkeypatch.delenv("ARENA_DEAL_KEY")


def book_ladder(tmp_path, store_name, book):
    path = str(tmp_path / store_name)
    ok("ladder", "new", "lad", "--deals", book, "--store", path)
    for agent in ENTRIES:
        ok("ladder", "add", "lad", agent, "--store", path)
    return path


def played(path):
    store = Store(path, readonly=True)
    try:
        return [(m["match_id"], m["deal"], m["seed"], [s["label"] for s in m["seats"]], m["actions"])
                for m in store.matches("ladder-lad")]
    finally:
        store.close()


def test_two_stores_playing_one_book_play_its_deals_in_order_and_stop_at_its_end(tmp_path):
    book = str(tmp_path / "ten.json")
    ok("deals", "make", "--phrase", "a test phrase", "insert", "--count", 10, "--name", "ten", "--out", book)
    made = books.load(book)
    a, b = book_ladder(tmp_path, "a.sqlite", book), book_ladder(tmp_path, "b.sqlite", book)
    for path in (a, b):
        result = invoke("ladder", "run", "lad", "-j", 1, "--store", path)
        assert result.exit_code == 0, result.output
        assert "has played all 10 deals of its deal book" in result.output
    assert played(a) == played(b)
    assert [m[2] for m in played(a) if m[0] % 2 == 0] == made.seeds   # deal k on the book's deal k, every deal once
    again = invoke("ladder", "run", "lad", "--store", a)
    assert again.exit_code == 2 and again.output.count("\n") == 1
    assert "played all 10 deals of its deal book ten" in again.output
    shown = json.loads(ok("ladder", "show", "lad", "--json", "--store", a))
    assert shown["book"] == made.ref() and shown["matches"] == 20
    assert f"the deals of deal book ten (sha256 {made.digest[:16]}, phrase \"a test phrase\")" in \
        " ".join(ok("ladder", "show", "lad", "--store", a).split())
    page = TestClient(create_app(a, sandbox="none")).get("/api/ladders/lad").json()   # the ladder's web page
    assert page["book"] == made.ref() and page["matches"] == 20


def test_a_book_of_another_game_or_with_a_deal_key_is_refused_with_one_line(tmp_path):
    book = str(tmp_path / "wizard.json")
    ok("deals", "make", "--phrase", "a test phrase", "wizard", "--count", 1, "--out", book)
    store = str(tmp_path / "s.sqlite")
    for extra, message in ((["--game", "insert"], "deals wizard, not insert"),
                           (["--deal-key", "00112233445566778899aabbccddeeff"], "not both")):
        result = invoke("ladder", "new", "lad", "--deals", book, *extra, "--store", store)
        assert result.exit_code == 2 and result.output.count("\n") == 1 and message in result.output, result.output
