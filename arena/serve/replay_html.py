"""HTML replays: a stored match as one self-contained HTML file (`arena replay RUN MATCH --html FILE`),
and a run as an index page beside a folder of such files (`arena replay RUN --html FILE`).

A replay file is the web app's replay page (static/replay.html) with everything it would load put
inside it at the moment it is written: style.css, replay.js and the modules it imports, the match's
game drawing (static/games/<game_id>.js and what it imports), and the match itself. Nothing is
copied elsewhere: a change to the web app's drawing shows in the next replay file written. The
modules are joined into one inline script (each module becomes a function; its imports read the
others' exports), because a page opened from a file may not import modules; replay_html.js stands in
for the server, answering replay.js's requests from the page.

The match is the server's own answers, made by the same functions (arena.serve.views): the match and
every position as each view offered sees it, gzipped JSON in base64. A file made for one seat holds
only that seat's view. A Content-Security-Policy lets the page run its one script (by its hash) and
load nothing at all; everything a bot controls (its label, its fault's message) is shown as text.

This module is part of `serve` because it is the web app's replay frozen in a file: it reads the
web app's static files and views, and nothing below `serve` needs it.
"""
import base64
import gzip
import html
import importlib.resources
import json
import os
import posixpath
import re
import urllib.parse
from collections.abc import Callable, Sequence
from typing import Any

from arena.human_game import stored_match
from arena.results.outcome import faulty_seats
from arena.serve import views
from arena.store import Run, Store
from arena.text import csp_meta, match_result

STATIC_URL = "/static/"   # where the web app serves static/ (arena.serve.app)
PROVIDER = "/replay_html.js"   # beside this module: window.arenaReplay, the match read from the page

_IMPORT = re.compile(r"""^import\s+(?:(?P<what>[^"';]+?)\s+from\s+)?(?P<q>["'])(?P<spec>[^"']+)(?P=q)"""
                     r"""(?:\s+(?:with|assert)\s*\{[^}]*\})?[ \t]*;?""", re.MULTILINE)
_EXPORT_DECLARATION = re.compile(r"^export\s+(?=(?:async\s+)?function\b|class\b|const\b|let\b|var\b)"
                                 r"((?:async\s+)?function\s*\*?\s*|class\s+|const\s+|let\s+|var\s+)([A-Za-z_$][\w$]*)",
                                 re.MULTILINE)
_EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\}[ \t]*;?", re.MULTILINE)
_DYNAMIC_IMPORT = re.compile(r"(?<![\w$.])import\s*\(")
_STYLESHEET = re.compile(r'<link rel="stylesheet" href="/static/([\w./-]+)">')
_MODULE = re.compile(r'<script type="module" src="/static/([\w./-]+)"></script>')
_SERVER_LINK = re.compile(r'<a href="/[^"]*">[^<]*</a>')   # the server's pages (runs, play): none in a file

# What a module's imports become: calls of these two (its static and its dynamic imports).
LOAD, IMPORT = "__arenaLoad", "__arenaImport"
# The bundle's runtime: modules by URL path, each run once, on its first import.
RUNTIME = """const modules = new Map(), done = new Map();
const define = (key, factory) => modules.set(key, factory);
function load(key) {
  if (!done.has(key)) {
    if (!modules.has(key)) throw new Error(`${key} is not in this file`);
    const dynamic = (spec) => Promise.resolve().then(() => load(new URL(spec, `http://replay.invalid${key}`).pathname));
    done.set(key, modules.get(key)(load, dynamic));
  }
  return done.get(key);
}
"""


def _static(name: str) -> str:
    return importlib.resources.files("arena.serve").joinpath("static", *name.split("/")).read_text(encoding="utf-8")


def _has_static(name: str) -> bool:
    return importlib.resources.files("arena.serve").joinpath("static", *name.split("/")).is_file()


def _script_text(text: str) -> str:
    """Text safe inside a <script> element: no `</script` or `<!--` to end or confuse it (both only
    ever appear in strings, comments or regular expressions, where the escapes mean the same)."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE).replace("<!--", "<\\x21--")


def _bindings(what: str, key: str) -> str:
    """`import WHAT from KEY` as constants read from the module's exports."""
    out = []
    default, _, named = what.partition("{")
    default = default.strip().rstrip(",").strip()
    if default.startswith("* as "):
        out.append(f"const {default[5:].strip()} = {LOAD}({json.dumps(key)});")
    elif default:
        out.append(f"const {default} = {LOAD}({json.dumps(key)}).default;")
    if named:
        names = [n.split() for n in named.rstrip().rstrip("}").split(",") if n.strip()]
        pairs = [n[0] if len(n) == 1 else f"{n[0]}: {n[2]}" for n in names]
        out.append(f"const {{ {', '.join(pairs)} }} = {LOAD}({json.dumps(key)});")
    return " ".join(out)


def _module(key: str, text: str, needs: Callable[[str], None]) -> str:
    """The module at URL path `key` (its source `text`) as a `define` call; `needs` is told of each
    module it imports."""
    if key.endswith(".json"):
        return f"define({json.dumps(key)}, () => ({{ default: {_script_text(json.dumps(json.loads(text)))} }}));\n"

    def resolve(spec):
        target = spec if spec.startswith("/") else posixpath.normpath(posixpath.join(posixpath.dirname(key), spec))
        needs(target)
        return target

    body = _IMPORT.sub(lambda m: _bindings(m["what"], resolve(m["spec"])) if m["what"]
                       else f"{LOAD}({json.dumps(resolve(m['spec']))});", text)
    exported = [m[2] for m in _EXPORT_DECLARATION.finditer(body)]
    body = _EXPORT_DECLARATION.sub(lambda m: m[1] + m[2], body)
    for m in _EXPORT_LIST.finditer(body):
        for name in filter(str.strip, m[1].split(",")):
            local, _, public = name.strip().partition(" as ")
            exported.append(f"{public.strip()}: {local.strip()}" if public else local.strip())
    body = _EXPORT_LIST.sub("", body)
    if re.search(r"^export\b", body, re.MULTILINE) or "import.meta" in body:
        raise ValueError(f"cannot put static{key[len(STATIC_URL) - 1:]} in an HTML replay: a form of export or "
                         f"import.meta this bundler does not read")
    body = _DYNAMIC_IMPORT.sub(IMPORT + "(", body)
    return (f"define({json.dumps(key)}, ({LOAD}, {IMPORT}) => {{\n{_script_text(body)}\n"
            f"return {{ {', '.join(exported)} }};\n}});\n")


def bundle(entry: str, game_ids: Sequence[str]) -> str:
    """One script with the static module `entry` (e.g. "replay.js"), what it imports, and the drawing
    of each game (the modules common.js imports by the game's id), run in that order after the
    provider that answers for the server."""
    parts, seen = [], set()

    def add(key):
        if key in seen:
            return
        seen.add(key)
        if not key.startswith(STATIC_URL):
            raise ValueError(f"an HTML replay holds only the web app's static files, not {key}")
        parts.append(_module(key, _static(key[len(STATIC_URL):]), add))

    add(STATIC_URL + entry)
    for game_id in game_ids:
        if _has_static(f"games/{game_id}.js"):
            add(f"{STATIC_URL}games/{game_id}.js")
    provider = importlib.resources.files("arena.serve").joinpath(PROVIDER.lstrip("/")).read_text(encoding="utf-8")
    parts.append(_module(PROVIDER, provider, lambda key: None))
    start = (f"const provider = load({json.dumps(PROVIDER)});\nload({json.dumps(STATIC_URL + entry)});\n"
             "provider.linkRun();\n")
    return RUNTIME + "".join(parts) + start


def _json_in_html(data: Any) -> str:
    """JSON for a data block in a page: no `<`, `>` or `&` that HTML could read."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_views(run_id: str, match: dict[str, Any], viewers: Sequence[int | None]) -> dict[str, Any]:
    """{viewer ("all" or a seat): {"match": the match, "steps": every position}} as the server's
    /api/runs/RUN/matches/MATCH and .../steps/K answer them for that viewer."""
    states, names, _ = stored_match(match)
    out = {}
    for viewer in viewers:
        moves = [views.move_label(states[k].clone(), action, viewer, names) for k, action in enumerate(match["actions"])]
        notes = [views.step_notes(states[k], action, states[k + 1], viewer) for k, action in enumerate(match["actions"])]
        out["all" if viewer is None else str(viewer)] = {
            "match": views.match_view(run_id, match, names, moves, notes, viewer),
            "steps": [views.step_view(state.clone(), viewer, names, moves, notes, k) for k, state in enumerate(states)]}
    return out


def match_page(run_id: str, match: dict[str, Any], seat: int | None = None,
               run_href: str | None = None) -> str:
    """The HTML replay of a stored match: everything and every seat's view, or with `seat` that seat's
    view alone; `run_href` links its run's index (none without). The page is static/replay.html with
    its stylesheet inlined, its module (and what it imports) bundled, the server's links removed, the
    policy, the title and the match put in."""
    players = len(match["seats"])
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"--seat must be between 0 and {players - 1}")
    page = _static("replay.html")
    entries = _MODULE.findall(page)
    if len(entries) != 1 or '<meta charset="utf-8">' not in page or "</body>" not in page:
        raise ValueError("the web app's replay page has changed shape: arena/serve/replay_html.py must follow it")
    script = bundle(entries[0], [match["game_id"]])
    viewers = [None, *range(players)] if seat is None else [seat]
    head = {"run_id": run_id, "match_id": match["match_id"], "run_href": run_href,
            "viewers": ["all" if v is None else str(v) for v in viewers]}
    packed = base64.b64encode(gzip.compress(json.dumps({"views": replay_views(run_id, match, viewers)},
                                                       separators=(",", ":")).encode(), 9, mtime=0)).decode()
    title = f"{match['game_id']}, match {match['match_id']} of run {run_id}"
    policy = csp_meta([script])
    page = _STYLESHEET.sub(lambda m: f"<style>\n{_static(m[1])}\n</style>", page)
    page = _MODULE.sub(lambda m: f'<script type="module">{script}</script>', page)
    page = _SERVER_LINK.sub("", page)
    page = re.sub(r"<title>.*?</title>", lambda m: f"<title>{html.escape(title)}</title>", page, count=1)
    page = page.replace('<meta charset="utf-8">', f'<meta charset="utf-8">{policy}', 1)
    return page.replace("</body>", f'<script type="application/json" id="replay-head">{_json_in_html(head)}</script>\n'
                                   f'<script type="application/gzip+base64" id="replay-data">{packed}</script>\n'
                                   "</body>", 1)


def index_page(run: Run, rows: Sequence[dict[str, Any]], folder: str) -> str:
    """The run's index: one row per match (as store.listing gives them), linked to its replay in
    `folder` (relative to the index)."""
    def cells(m):
        labels = [seat["label"] for seat in m["seats"]]
        faults = "; ".join(f"seat {f['seat']} ({f['label']}) {f['kind']}: {f['message']}" for f in m["faults"])
        return [m["game_id"], m["deal"], ", ".join(f"{p}: {label}" for p, label in enumerate(labels)),
                match_result(labels, m["placements"], m["returns"], faulty_seats(m)), faults or "-", m["moves"]]

    lines = []
    for m in rows:
        number = html.escape(str(m["match_id"]))   # an integer, but the store may come from anywhere
        href = html.escape(f"{urllib.parse.quote(folder)}/match-{urllib.parse.quote(str(m['match_id']))}.html")
        lines.append(f'<tr data-match="{number}"><td class="num"><a href="{href}">{number}</a></td>'
                     + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells(m)) + "</tr>")
    games = ", ".join(dict.fromkeys(m["game_id"] for m in rows))
    title = html.escape(f"run {run.run_id}")
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            + csp_meta([]) +
            f"<title>{title}</title>\n<style>\n{_static('style.css')}\n</style></head>\n<body>\n"
            f"<header><h1>{title}</h1></header>\n"
            f"<p>{html.escape(run.kind)}, {html.escape(run.status)}: {len(rows)} of {html.escape(str(run.total))} matches "
            f"({html.escape(games)}). Each match opens its replay, a page of its own in "
            f"{html.escape(folder)}/.</p>\n<table class=\"matches\"><thead><tr><th>match</th><th>game</th>"
            f"<th>deal</th><th>line-up</th><th>result</th><th>faults</th><th>moves</th></tr></thead>\n<tbody>\n"
            + "\n".join(lines) + "\n</tbody></table>\n</body></html>\n")


def files_folder(path: str) -> str:
    """The folder of a run's match files beside its index `path`: run.html -> run_files."""
    return os.path.splitext(path)[0] + "_files"


def write_run(store: Store, run_id: str, path: str,
              progress: Callable[[int, int], None] = lambda done, total: None) -> tuple[int, int]:
    """Writes the run's index to `path` and each stored match's replay to files_folder(path)/
    match-N.html (each file on its own: a run of a thousand matches is a thousand small files, not
    one the browser must hold at once); returns (matches, bytes written). `progress(done, total)`
    after each match."""
    run = store.run(run_id)
    folder = files_folder(path)
    os.makedirs(folder, exist_ok=True)
    back = "../" + urllib.parse.quote(os.path.basename(path))
    rows = store.listing(run_id, 0, store.count(run_id))
    size = 0
    for done, row in enumerate(rows, 1):
        text = match_page(run_id, store.match(run_id, row["match_id"]), run_href=back)
        if type(row["match_id"]) is not int:   # a file name is made of it
            raise ValueError(f"run {run_id} holds a match whose id is not a whole number: the store is damaged")
        with open(os.path.join(folder, f"match-{row['match_id']}.html"), "w", encoding="utf-8") as f:
            f.write(text)
        size += len(text.encode())
        progress(done, len(rows))
    text = index_page(run, rows, os.path.basename(folder))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return len(rows), size + len(text.encode())
