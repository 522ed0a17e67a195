"""Deal books: the deals of a game in a file, so that people on different machines, with different
stores, play exactly the same deals (`arena deals make`, then `--deals BOOK` on `arena run` and
`arena compare`). docs/deals.md describes the format (docs/deals/book.schema.json) and the trust model.

A book's key is derived from a phrase its maker gives (`derive_key`: BLAKE2b of the phrase, the
book's name, game, parameters and number of deals), never chosen: whoever tries keys until the deals
favour a bot must try phrases, and the phrase is printed wherever the book is named. Per deal, the
book holds the seed derived from the key as a run derives its deal seeds
(arena.tournament.schedule.deal_seed, tournament seed 0), with what the engine deals from that seed:
a digest of every seat's first view (`start`) and, where the engine shows its deal from Python, the
deal itself (`dealt`: Wizard's first-round hands, turn-up and dealer; Insert's line layout and first
player). No engine can start a whole match from an explicit deal without changing its Cython source
(Wizard's `from_deal` sets one round, Insert's layout is a game parameter and its first player is
drawn from the seed), so matches are dealt from the seeds, and a book is refused by an engine that
deals them differently.

Whoever knows the phrase (with the name, game, parameters and size) knows every deal. The run keeps
the book's key as its deal key (never shown to a bot), so a run resumes without the book file. The
digest (SHA-256 of the book's canonical JSON without it) names the book in the run's config, so
runs of different books are different runs. docs/deals.md says what a book proves and what not.
"""
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engines
from arena.run_config import GameSetting
from arena.text import jsonable
from arena.tournament.schedule import deal_seed, resolve_games

FORMAT = "tabletop-arena deal book"
VERSION = 2   # version 1 books held a key their maker chose freely: refused (docs/deals.md)
DERIVATION = "BLAKE2b-128 of the JSON list [\"tabletop-arena deal book 2\", phrase, name, game, parameters, deals]"
MAX_PHRASE = 1000
MAX_DEALS = 100_000
MAX_BOOK_BYTES = 256 << 20   # far above a book of MAX_DEALS deals (16 MB at Insert); /dev/zero is no book
BOOK_SEED = 0   # the tournament seed a book's deals are derived under


class BookError(ValueError):
    pass


@dataclass(frozen=True)
class Book:
    name: str
    game_id: str
    params: Mapping[str, Any]   # complete, players included, as JSON values
    phrase: str                 # the public text its key derives from (derive_key)
    key: str
    deals: tuple[Mapping[str, Any], ...]   # {"seed", "start"[, "dealt"]} per deal
    digest: str
    path: str = ""

    @property
    def seeds(self) -> list[int]:
        return [d["seed"] for d in self.deals]

    def ref(self) -> dict[str, str]:
        """What a run's config keeps of the book: its name, digest and the phrase its key derives from."""
        return {"name": self.name, "digest": self.digest, "phrase": self.phrase}

    def to_json(self) -> dict[str, Any]:
        return {**_body(self.name, self.game_id, self.params, self.phrase, self.key, list(self.deals)),
                "digest": self.digest}


def derive_key(phrase: str, name: str, game_id: str, params: Mapping[str, Any], count: int) -> str:
    """A book's deal key (DERIVATION): a function of what names the book, so that its maker cannot
    choose it without choosing, and showing, another phrase."""
    text = json.dumps(["tabletop-arena deal book 2", phrase, name, game_id, params, count], sort_keys=True,
                      separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def make(game_id: str, params: Mapping[str, Any], count: int, name: str, phrase: str) -> Book:
    """A book of `count` deals of the game with these complete parameters, under the key derived
    from `phrase` and the rest (derive_key)."""
    if not (isinstance(count, int) and 1 <= count <= MAX_DEALS):
        raise BookError(f"--count must be between 1 and {MAX_DEALS:,}, not {count}")
    if not name.strip():
        raise BookError("a deal book needs a name")
    if not phrase.strip() or len(phrase) > MAX_PHRASE:
        raise BookError(f"--phrase must be some text (at most {MAX_PHRASE} characters) fixed before the bots are "
                        f"known, e.g. a public draw's result (docs/deals.md)")
    params = jsonable(dict(params))
    key = derive_key(phrase, name, game_id, params, count)
    deals = [dealt(game_id, params, deal_seed(BOOK_SEED, game_id, params, d, key)) for d in range(count)]
    body = _body(name, game_id, params, phrase, key, deals)
    return Book(name, game_id, params, phrase, key, tuple(deals), _digest(body))


def dealt(game_id: str, params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """One deal of a book: its seed, the digest of every seat's first view, and the deal itself
    where the engine shows it."""
    state = engines.make(game_id, seed=seed, **params)
    views = [state.observation(p) for p in range(state.num_players)]
    out: dict[str, Any] = {"seed": seed,
                           "start": hashlib.sha256(json.dumps(views, sort_keys=True).encode()).hexdigest()[:16]}
    dealt = engines.spec(game_id).dealt
    if dealt is not None:
        out["dealt"] = dealt(state, views)
    return out


def save(book: Book, path: str) -> None:
    """Writes the book as JSON, a deal a line."""
    head = {k: v for k, v in book.to_json().items() if k not in ("deals", "digest")}
    deals = ",\n".join("  " + json.dumps(d) for d in book.deals)
    with open(path, "w") as f:
        f.write(json.dumps(head, indent=1)[:-2] + f',\n "deals": [\n{deals}\n ],\n "digest": "{book.digest}"\n}}\n')


def load(path: str) -> Book:
    """The book at `path`, checked: its format and version, its digest, its seeds against its key,
    its game and parameters against this code, and what the engine deals from each seed.

    :raises BookError: one line saying what is wrong.
    """
    what = f"deal book {path}"
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BOOK_BYTES + 1)
        data = json.loads(raw) if len(raw) <= MAX_BOOK_BYTES else None
    except FileNotFoundError:
        raise BookError(f"no deal book at {path}") from None
    except IsADirectoryError:
        raise BookError(f"{path} is a folder, not a deal book") from None
    except OSError as e:
        raise BookError(f"cannot read {what}: {e.strerror}") from None
    except ValueError as e:
        raise BookError(f"{path} is not a deal book (not JSON: {e})") from None
    except RecursionError:
        raise BookError(f"{path} is not a deal book (JSON nested too deep)") from None
    if len(raw) > MAX_BOOK_BYTES:
        raise BookError(f"{path} is not a deal book (larger than {MAX_BOOK_BYTES >> 20} MiB)")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BookError(f"{path} is not a deal book (no \"format\": \"{FORMAT}\")")
    if data.get("version") == 1:
        raise BookError(f"{what} is a version 1 book, whose key its maker chose freely (and so could have chosen "
                        f"its deals): make it again with `arena deals make ... --phrase TEXT`")
    if data.get("version") != VERSION:
        raise BookError(f"{what} has version {data.get('version')!r}; this arena reads version {VERSION}")
    try:
        body = _body(data["name"], data["game_id"], data["params"], data["phrase"], data["key"], data["deals"])
        digest = data["digest"]
        ok = isinstance(body["name"], str) and body["name"].strip() != "" and isinstance(body["game_id"], str) \
            and isinstance(body["phrase"], str) and len(body["phrase"]) <= MAX_PHRASE \
            and isinstance(body["key"], str) and isinstance(body["params"], dict) and isinstance(digest, str) \
            and isinstance(body["deals"], list) and 1 <= len(body["deals"]) <= MAX_DEALS \
            and all(isinstance(d, dict) and type(d.get("seed")) is int for d in body["deals"])
    except KeyError as e:
        raise BookError(f"{what} is malformed (missing {e})") from None
    if not ok:
        raise BookError(f"{what} is malformed (see docs/deals/book.schema.json)")
    if _digest(body) != digest:
        raise BookError(f"{what} was changed since it was made: its digest does not match its contents")
    key = body["key"]   # no text to read: it must be the key its phrase derives, checked below
    try:
        params = jsonable(engines.registry.resolve(body["game_id"], **body["params"]))
    except ValueError as e:
        raise BookError(f"{what} cannot be played: {e}") from None
    if params != body["params"]:
        raise BookError(f"{what} cannot be played: its parameters of {body['game_id']} are not this arena's "
                        f"(this arena's: {json.dumps(params, sort_keys=True)})")
    if derive_key(body["phrase"], body["name"], body["game_id"], params, len(body["deals"])) != key:
        raise BookError(f"{what} was tampered with: its key is not the one its phrase gives ({DERIVATION})")
    for d, deal in enumerate(body["deals"]):
        if deal_seed(BOOK_SEED, body["game_id"], params, d, key) != deal["seed"]:
            raise BookError(f"{what} was tampered with: the seed of deal {d} is not derived from its key")
        if dealt(body["game_id"], params, deal["seed"]) != deal:
            raise BookError(f"{what} cannot be played: this arena's {body['game_id']} engine deals deal {d} "
                            f"differently than the engine that made the book")
    return Book(body["name"], body["game_id"], params, body["phrase"], key, tuple(body["deals"]), digest, path)


def load_for(path: str, deal_key: str | None, seed: int) -> Book:
    """The book `--deals PATH` names, for a run or comparison: `load`, and BookError when the command
    line also gives a deal key or a tournament seed (the book fixes the deals)."""
    if deal_key:
        raise BookError("give --deals or --deal-key (or ARENA_DEAL_KEY), not both: a deal book holds its key")
    if seed != BOOK_SEED:
        raise BookError(f"--seed {seed}: a deal book's deals are its own; leave --seed out with --deals")
    return load(path)


def games(book: Book, game_id: str | None, players: int | None,
          params: Sequence[tuple[str, str]]) -> list[GameSetting]:
    """The game of a run of the book, with its complete parameters; BookError when the command line
    names another game, or other parameters (--param's (name, value) pairs), than the book's."""
    if game_id not in (None, book.game_id):
        raise BookError(f"deal book {book.path} deals {book.game_id}, not {game_id}")
    if players is not None or params:
        [given] = resolve_games(book.game_id, players, params)
        if jsonable(given.params) != book.params:
            raise BookError(f"deal book {book.path} deals {book.game_id} with {_params_text(book)}: give those "
                            f"parameters, or leave --players and --param out")
    return [GameSetting(book.game_id, dict(book.params))]


def check_games(book: Book, games: Sequence[GameSetting] | None) -> None:
    """BookError when `games` (None: the book's) are not the book's game with its parameters."""
    if games is not None and [(g.game_id, jsonable(g.params)) for g in games] != [(book.game_id, book.params)]:
        raise BookError(f"deal book {book.path} deals {book.game_id} with {_params_text(book)}, and only that game")


def _params_text(book: Book) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(book.params.items()))


def take(book: Book, deals: int | None, option: str) -> int:
    """How many of the book's deals to play: all, or the first `deals` (--games, --max-deals)."""
    if deals is None:
        return len(book.deals)
    if deals > len(book.deals):
        raise BookError(f"{option} {deals}: deal book {book.path} holds {len(book.deals)} deals")
    return deals


def default_name(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _body(name, game_id, params, phrase, key, deals):
    return {"format": FORMAT, "version": VERSION, "name": name, "game_id": game_id, "params": params,
            "phrase": phrase, "key": key, "deals": deals}


def _digest(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
