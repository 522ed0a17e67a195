"""Text shown to people and data written for programs, shared by every part of the arena: user and
bot text made safe (no control character reaches a terminal or a page), games and parameter values
written as the command line takes them, a mean with its interval as every view writes it, a
match's result in a line, and any result as plain JSON data. The tables' columns and legend are arena.reports.tables; the verdict,
arena.results.verdict."""
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

# an absolute path in a message: a "/" that starts a word (not a URL's, nor "a/b"), up to its last part
_ABSOLUTE_PATH = re.compile(r"(?<![\w./-])/(?:[^\s'\"`,;:()\[\]<>/]+/)*([^\s'\"`,;:()\[\]<>/]+)")


def first_line(e: object) -> str:
    """The first line of an error's (or any value's) text, "" for none."""
    return str(e).splitlines()[0] if str(e) else ""


def without_paths(text: str) -> str:
    """`text` with each absolute path cut to its last part ("/srv/x/arena.sqlite" -> "arena.sqlite"):
    what a web answer may say of a file without showing the server's folders."""
    return _ABSOLUTE_PATH.sub(lambda m: m[1], text)


def printable(text: object, limit: int | None = None, keep: str = "\n\t") -> str:
    """`text` with control characters escaped ("\\x1b"), except those in `keep`; at most `limit` long."""
    text = str(text)[:limit]
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


def plural(n: int, word: str, many: str = "") -> str:
    """"1 move", "2 moves"; `many` is the plural when it is not word + "s" ("matches")."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def format_value(value: object) -> str:
    """A parameter value as --param takes it: a list as "10,9"."""
    return ",".join(str(x) for x in value) if isinstance(value, (list, tuple)) else str(value)


def option_value(value: object) -> str:
    """A parameter value in a command line to copy: as `format_value`, a bool as true/false."""
    return str(value).lower() if isinstance(value, bool) else format_value(value)


def game_title(game_id: str, params: Mapping[str, Any], only_changed: bool = False) -> str:
    """"game (name=value, ...)": every parameter that is set, in name order; with only_changed, the
    parameters that differ from the game's defaults (every one, for a game no longer registered)."""
    if only_changed:
        import engines
        try:
            defaults = engines.registry.resolve(game_id)
        except ValueError:
            defaults = {}
        shown = [(k, v) for k, v in params.items()
                 if defaults.get(k) != (tuple(v) if isinstance(v, list) else v)]
    else:
        shown = [(k, v) for k, v in sorted(params.items()) if v not in ("", None, [])]
    text = ", ".join(f"{k}={format_value(v)}" for k, v in shown)
    return f"{game_id} ({text})" if text else game_id


def jsonable(value: Any) -> Any:
    """Plain JSON data: objects with `as_dict()` (intervals, standings) as their dicts, mappings and
    sequences element by element, numbers of any numeric type as Python numbers (a float that is
    not finite as None), and anything else as its text."""
    if hasattr(value, "as_dict"):
        return jsonable(value.as_dict())
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float):   # numpy's float64 too, made a plain float
        return float(value) if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


# ---- a mean with its 95% interval, as every view writes it ----

def interval_part(iv: Any, key: str) -> Any:
    """One figure of an interval, given as an Interval or as its plain data (`jsonable`)."""
    return iv[key] if isinstance(iv, dict) else getattr(iv, "n" if key == "deals" else key)


def interval_fields(name: str, iv: Any) -> dict[str, Any]:
    """An interval (an Interval, its plain data, or None) as three flat fields: NAME (the mean),
    NAME_low and NAME_high (None for None), as records carry it for pandas or a CSV writer."""
    return {f"{name}{suffix}": None if iv is None else interval_part(iv, key)
            for suffix, key in (("", "mean"), ("_low", "low"), ("_high", "high"))}


def interval_text(iv: Any, digits: int = 2) -> str:
    """A mean with its 95% interval as every view writes it: "0.90 [0.81-0.97]" ("" for None)."""
    if iv is None:
        return ""
    mean, low, high = (interval_part(iv, k) for k in ("mean", "low", "high"))
    return f"{mean:.{digits}f} [{low:.{digits}f}-{high:.{digits}f}]"


def book_text(book: Mapping[str, str]) -> str:
    """A deal book as a run names it (arena.tournament.books): "NAME (sha256 16 digits..., phrase
    "...")", the phrase its key derives from (none for a book made before keys were derived)."""
    phrase = f', phrase "{printable(book["phrase"], 200, keep="")}"' if book.get("phrase") else ""
    return f"{printable(book['name'], keep='')} (sha256 {printable(book['digest'], 16, keep='')}{phrase})"


def match_result(labels: Sequence[str], placements: Sequence[int], returns: Sequence[float],
                 faulty: Sequence[int] = ()) -> str:
    """A stored match's result in a line, by seat and label: "1: greedy won (returns -1 / 1)", "draw
    (...)" when every seat placed first, "0: a and 2: b tied first (...)" when some did. With
    `faulty` seats (those of agents that faulted), the result is the fault rule's
    (arena.results.outcome): they lost, a seat that did not fault won if the played-out game placed
    it first, and the returns are labelled as the played-out game's: "1: Boom lost by its fault;
    nobody won (played out with a stand-in: returns -1 / 1)"."""
    winners = [seat for seat, place in enumerate(placements) if place == 1 and seat not in faulty]   # a label may hold two seats
    names = " and ".join(f"{seat}: {labels[seat]}" for seat in winners)
    result = "draw" if len(winners) == len(labels) else "nobody won" if not winners else \
        f"{names} won" if len(winners) == 1 else f"{names} tied first"
    shown = " / ".join(f"{x:g}" for x in returns)
    if not faulty:
        return f"{result} (returns {shown})"
    lost = " and ".join(f"{seat}: {labels[seat]}" for seat in faulty)
    return f"{lost} lost by {'its' if len(faulty) == 1 else 'their'} fault; {result} (played out with a stand-in: returns {shown})"


# ---- pages ----

NO_SOURCE = "'none'"

def csp(scripts: Sequence[str]) -> str:
    """A written page's Content-Security-Policy: nothing loaded, no form sent, only `scripts` (by
    hash) run; styles inline (the drawings set style attributes and add <style> elements)."""
    import base64
    import hashlib
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts)
    return (f"default-src 'none'; script-src {hashes or NO_SOURCE}; style-src 'unsafe-inline'; "
            f"base-uri 'none'; form-action 'none'")


def csp_meta(scripts: Sequence[str]) -> str:
    """`csp` as the <meta> element that puts it in a page's head."""
    import html
    return f'<meta http-equiv="Content-Security-Policy" content="{html.escape(csp(scripts))}">'
