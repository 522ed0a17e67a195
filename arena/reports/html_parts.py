"""The parts every HTML page of the arena is made of (the report, `arena analyze --out`): escaped
text, tables whose numeric cells align right, and figures as inline SVG with a caption."""
import html
import re
from collections.abc import Iterable
from typing import Any


def escape(x: Any) -> str:
    return html.escape(str(x))


def _td(c):
    numeric = isinstance(c, (int, float)) or re.match(r"[-+]?[0-9.]", re.sub(r"<[^>]*>", "", str(c)))
    return f"<td class=\"num\">{c}</td>" if numeric else f"<td>{c}</td>"


def table(head: Iterable[str], rows: Iterable[Iterable[Any]], cls: str = "") -> str:
    """A table of HTML cells (escape text first); numbers align right."""
    return (f"<table class=\"{cls}\"><thead><tr>" + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join("<tr>" + "".join(_td(c) for c in r) + "</tr>"
                                               for r in rows) + "</tbody></table>")


def figure(fig: Any, caption: str) -> str:
    """A matplotlib figure as inline SVG, with its caption (HTML)."""
    from arena.reports import graphs
    return f"<figure>{graphs.svg_text(fig)}<figcaption>{caption}</figcaption></figure>"
