"""Hostile deal books (arena.tournament.books): a file a user hands in, forged with a correct digest
(the digest is no secret), is refused with one line, never a traceback."""
import json

import pytest

from arena.tournament import books
from cli import invoke, ok


@pytest.fixture(autouse=True)
def no_deal_key(monkeypatch):
    monkeypatch.delenv("ARENA_DEAL_KEY", raising=False)


@pytest.fixture
def book(tmp_path):
    path = tmp_path / "book.json"
    ok("deals", "make", "--phrase", "a test phrase", "insert", "--count", "2", "--out", path)
    return path


def forge(path, change):
    """The book with `change(data)` applied and its digest made to match."""
    data = json.loads(path.read_text())
    change(data)
    data["digest"] = books._digest({k: v for k, v in data.items() if k != "digest"})
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000],
                         ids=["deep-list", "deep-object"])
def test_json_nested_too_deep_is_not_a_book(tmp_path, text):
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(books.BookError, match="nested too deep"):
        books.load(str(path))
    result = invoke("run", "--deals", path, "--agents", "random,random", "--sandbox", "none",
                    "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 2 and "nested too deep" in result.output and "Traceback" not in result.output


def test_a_file_larger_than_any_book_is_refused_without_reading_it_whole(tmp_path, monkeypatch):
    """/dev/zero never ends: read whole, it took every byte of memory the machine had."""
    monkeypatch.setattr(books, "MAX_BOOK_BYTES", 1 << 20)
    with pytest.raises(books.BookError, match=r"^/dev/zero is not a deal book \(larger than 1 MiB\)$"):
        books.load("/dev/zero")


def test_a_parameter_named_game_id_is_an_unknown_parameter(tmp_path, book):
    forge(book, lambda data: data["params"].update(game_id="wizard"))
    with pytest.raises(books.BookError, match="unknown parameter 'game_id'"):
        books.load(str(book))
    result = invoke("deals", "make", "--phrase", "a test phrase", "insert", "--count", "1", "--param", "game_id=3", "--out", tmp_path / "b.json")
    assert result.exit_code == 2 and "unknown parameter 'game_id'" in result.output


# These held before they were written; they guard what no other test sends: NaN and huge numbers,
# a key of the wrong length, and a book whose game was changed (its digest made to match).
@pytest.mark.parametrize("change, message", [
    (lambda data: data["params"].update(players=float("nan")), "must be an integer, not nan"),
    (lambda data: data["params"].update(players=10 ** 30), "played by 2 to 2 players"),
    (lambda data: data.update(key="ab" * 8), "its key is not the one its phrase gives"),
    (lambda data: data.update(game_id="wizard"), "unknown parameter"),
    (lambda data: data["deals"][0].update(seed=2 ** 70), "not derived from its key"),
], ids=["nan", "huge-players", "short-key", "another-game", "huge-seed"])
def test_a_forged_book_is_refused(book, change, message):
    forge(book, change)
    with pytest.raises(books.BookError, match=message):
        books.load(str(book))
