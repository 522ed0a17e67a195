"""Deal books (`arena deals make`, `--deals BOOK`): two stores playing one book play the same
matches, in `arena run` and `arena compare`; the run names the book; a bad or tampered book is
refused with one line."""
import json
import os

import jsonschema
import pytest

from arena.store import Store
from arena.tournament import books
from cli import invoke, ok
from paths import ROOT

RUN = ["--agents", "greedy,random", "--jobs", "1", "--sandbox", "none", "--json"]


@pytest.fixture(autouse=True)
def no_deal_key(monkeypatch):
    """A book holds its key: the tests' ARENA_DEAL_KEY would be refused beside --deals."""
    monkeypatch.delenv("ARENA_DEAL_KEY")


def make_book(tmp_path, *args, name="book.json"):
    path = str(tmp_path / name)
    ok("deals", "make", "--phrase", "a test phrase", *args, "--out", path)
    return path


def matches(store_path, run_id):
    store = Store(store_path, readonly=True)
    out = [{k: m[k] for k in ("match_id", "game_params", "seed", "deal", "seats", "actions", "returns")}
           for m in store.matches(run_id)]
    store.close()
    return out


def rewrite(path, change, digest=True):
    """The book with `change(data)` applied; its digest recomputed when `digest` (a careful forger)."""
    with open(path) as f:
        data = json.load(f)
    change(data)
    if digest:
        data["digest"] = books._digest({k: v for k, v in data.items() if k != "digest"})
    with open(path, "w") as f:
        json.dump(data, f)


def test_a_book_holds_explicit_deals_valid_against_its_schema(tmp_path):
    path = make_book(tmp_path, "wizard", "--count", "3", "--players", "3", "--param", "hands=2")
    with open(os.path.join(ROOT, "docs", "deals", "book.schema.json")) as f:
        schema = json.load(f)
    with open(path) as f:
        data = json.load(f)
    jsonschema.validate(data, schema)
    assert data["game_id"] == "wizard" and data["params"]["players"] == 3 and len(data["deals"]) == 3
    for deal in data["deals"]:
        assert [len(hand) for hand in deal["dealt"]["hands"]] == [2, 2, 2]
    assert len({d["seed"] for d in data["deals"]}) == 3
    insert = make_book(tmp_path, "insert", "--count", "2", name="insert.json")
    with open(insert) as f:
        jsonschema.validate(json.load(f), schema)


def test_two_stores_playing_one_book_play_the_same_matches(tmp_path):
    path = make_book(tmp_path, "insert", "--count", "3", "--name", "spring cup")
    book = books.load(path)
    runs = [json.loads(ok("run", "--deals", path, "--store", tmp_path / f"{i}.sqlite", *RUN)) for i in (1, 2)]
    assert runs[0]["run_id"] == runs[1]["run_id"]
    assert runs[0]["book"] == {"name": "spring cup", "digest": book.digest, "phrase": "a test phrase"}
    first, second = (matches(tmp_path / f"{i}.sqlite", runs[0]["run_id"]) for i in (1, 2))
    assert first == second and len(first) == 6
    assert sorted({m["seed"] for m in first}) == sorted(book.seeds)
    # the first N deals of the book with --games N, and a run listing that names the book
    fewer = json.loads(ok("run", "--deals", path, "--games", "2", "--store", tmp_path / "3.sqlite", *RUN))
    assert [m["seed"] for m in matches(tmp_path / "3.sqlite", fewer["run_id"])] == [m["seed"] for m in first[:4]]
    listed = json.loads(ok("runs", "--store", tmp_path / "1.sqlite", "--json"))
    assert listed[0]["book"]["digest"] == book.digest
    assert f'the deals of deal book spring cup (sha256 {book.digest[:16]}, phrase "a test phrase")' in \
        ok("leaderboard", "--store", tmp_path / "1.sqlite")


def test_runs_of_different_books_are_different_runs(tmp_path):
    one = make_book(tmp_path, "insert", "--count", "2", "--name", "one", name="one.json")
    two = make_book(tmp_path, "insert", "--count", "2", "--name", "two", name="two.json")
    store = tmp_path / "s.sqlite"
    ids = [json.loads(ok("run", "--deals", b, "--store", store, *RUN))["run_id"] for b in (one, two)]
    assert ids[0] != ids[1]


def test_compare_plays_a_book_the_same_in_two_stores(tmp_path):
    path = make_book(tmp_path, "insert", "--count", "3")
    args = ["compare", "greedy", "random", "--deals", path, "--jobs", "1", "--sandbox", "none", "--json"]
    out = [json.loads(ok(*args, "--store", tmp_path / f"{i}.sqlite")) for i in (1, 2)]
    assert out[0]["run_id"] == out[1]["run_id"] and out[0]["deals_played"] == 3
    assert out[0]["book"] == books.load(path).ref()
    first, second = (matches(tmp_path / f"{i}.sqlite", out[0]["run_id"]) for i in (1, 2))
    assert first == second and len(first) == 6
    assert [m["seed"] for m in first[::2]] == books.load(path).seeds
    assert "--deals " + path in out[0]["command"]
    result = invoke(*args, "--store", tmp_path / "3.sqlite", "--max-deals", "4")
    assert result.exit_code == 2 and result.output == f"Error: --max-deals 4: deal book {path} holds 3 deals\n"


def refusal(tmp_path, path, *extra):
    result = invoke("run", "--deals", path, "--store", tmp_path / "s.sqlite", *RUN, *extra)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: "), result.output
    return result.output


def test_a_bad_or_tampered_book_is_refused_with_one_line(tmp_path):
    path = make_book(tmp_path, "insert", "--count", "2")
    assert "no deal book at" in refusal(tmp_path, str(tmp_path / "missing.json"))
    assert "deals insert, not wizard" in refusal(tmp_path, path, "--game", "wizard")
    assert "deals insert with" in refusal(tmp_path, path, "--param", "tiebreak=next_largest")
    assert "not both" in refusal(tmp_path, path, "--deal-key", "0" * 32)
    with open(path) as f:
        good = f.read()

    def restore(text=good):
        with open(path, "w") as f:
            f.write(text)

    def variant(text):
        restore(text)
        return refusal(tmp_path, path)
    assert "not JSON" in variant(good[:-20])
    assert "is not a deal book" in variant("[1, 2]")
    assert "changed since it was made" in variant(good.replace('"seed": ', '"seed": 1', 1))
    restore()
    rewrite(path, lambda d: d["deals"][1].update(seed=d["deals"][1]["seed"] + 1))
    assert "tampered with: the seed of deal 1" in refusal(tmp_path, path)
    restore()
    rewrite(path, lambda d: d["deals"][0]["dealt"].update(first=1 - d["deals"][0]["dealt"]["first"]))
    assert "deals deal 0 differently" in refusal(tmp_path, path)
    restore()
    rewrite(path, lambda d: d["params"].update(tiebreak="sudden death"))
    assert "cannot be played" in refusal(tmp_path, path)
    restore()
    rewrite(path, lambda d: d.update(version=3))
    assert "this arena reads version 2" in refusal(tmp_path, path)
    assert not os.path.exists(tmp_path / "s.sqlite") or not Store(str(tmp_path / "s.sqlite"), readonly=True).runs()


@pytest.mark.parametrize("field", ["name", "game_id", "params", "phrase", "key", "deals"])
def test_a_book_with_a_field_of_another_type_is_refused_by_load(tmp_path, field):
    """Refused with a BookError (one line), never another exception."""
    path = make_book(tmp_path, "insert", "--count", "2")
    with open(path) as f:
        good = f.read()
    for value in (None, 5, True, "x", [], {}, [1], {"seed": 1}, [{"seed": "1"}], 1e300):
        with open(path, "w") as f:
            f.write(good)
        rewrite(path, lambda d, value=value: d.update({field: value}))
        if field == "name" and value == "x":   # any text, but the key derives from it
            with pytest.raises(books.BookError, match="its key is not the one its phrase gives"):
                books.load(path)
            continue
        with pytest.raises(books.BookError):
            books.load(path)


def test_a_run_of_a_wizard_book_plays_the_hands_the_book_shows(tmp_path):
    import engines
    path = make_book(tmp_path, "wizard", "--count", "2", "--players", "3", "--param", "hands=2,1")
    book = books.load(path)
    run = json.loads(ok("run", "--deals", path, "--store", tmp_path / "s.sqlite", *RUN))
    played = matches(tmp_path / "s.sqlite", run["run_id"])
    assert {m["deal"] for m in played} == {0, 1}
    for m in played:
        state = engines.make("wizard", seed=m["seed"], **m["game_params"])
        assert [state.hand(p) for p in range(3)] == book.deals[m["deal"]]["dealt"]["hands"]


def test_a_books_key_cannot_be_chosen(tmp_path, monkeypatch):
    """A book's deals derive from its phrase: `deals make` takes no key (nor ARENA_DEAL_KEY), a book
    whose key is not its phrase's is refused even with its seeds and digest made to match, and a
    version 1 book (a key chosen freely) is refused."""
    from arena.tournament.schedule import deal_seed
    chosen = "0123456789abcdef0123456789abcdef"
    out = tmp_path / "chosen.json"
    result = invoke("deals", "make", "insert", "--count", "2", "--phrase", "p", "--deal-key", chosen, "--out", out)
    assert result.exit_code == 2 and "never chosen" in result.output and not out.exists()
    monkeypatch.setenv("ARENA_DEAL_KEY", chosen)
    path = make_book(tmp_path, "insert", "--count", "2")
    book = books.load(path)
    assert book.key == books.derive_key("a test phrase", "book", "insert", book.params, 2) != chosen
    monkeypatch.delenv("ARENA_DEAL_KEY")

    def ground(d):   # the grinder's book: a key of its choice, every seed and the digest made to match
        d["key"] = chosen
        d["deals"] = [books.dealt("insert", d["params"], deal_seed(0, "insert", d["params"], k, chosen))
                      for k in range(2)]
    rewrite(path, ground)
    assert "its key is not the one its phrase gives" in refusal(tmp_path, path)
    rewrite(path, lambda d: (d.update(version=1), d.pop("phrase")))
    assert "version 1 book, whose key its maker chose freely" in refusal(tmp_path, path)
