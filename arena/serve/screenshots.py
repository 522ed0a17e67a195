"""The games' drawings in a real browser: a real engine position becomes the view JSON the drawing
modules receive (arena/serve/static/games/<game>.js, `draw(container, view)`), rendered in chromium
through Playwright with the static directory served under /static/ as the app serves it, by request
routing (no server, no network).

`python -m arena.serve.screenshots OUTDIR` writes `<game>-<position>.png` for every game whose drawing
module exists, at its start, middle and end, and refreshes `belle_of_the_ball.cards.json` (the guest
interests and Belle texts that drawing reads, taken from the engine's card data).
"""
from __future__ import annotations

import importlib
import json
import mimetypes
import random
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engines
from arena.serve.views import move_label, position_view, step_notes
from engines.core import GameState

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright, ViewportSize

STATIC = Path(__file__).parent / "static"
ORIGIN = "http://drawings.test"
BELLE_CARDS = STATIC / "games" / "belle_of_the_ball.cards.json"
VIEWPORT: ViewportSize = {"width": 1000, "height": 700}
SEED = 7
# (position name, the fraction of a whole random game played)
POSITIONS = (("start", 0.0), ("middle", 0.5), ("end", 1.0))
# the app's own style sheet, when there is one, so the drawings are seen as the app shows them
_STYLE = '<link rel=stylesheet href="/static/style.css">' if (STATIC / "style.css").is_file() else ""
_PAGE = f"""<!doctype html><meta charset=utf-8><title>drawing</title>{_STYLE}
<body style="margin:0;padding:0;background:#f4f6f8"><div id=root></div></body>"""


def played_position(game_id: str, seed: int, moves: int | None, players: int | None = None,
                    **params: Any) -> GameState:
    """A real position: the deal of `seed`, then `moves` random legal moves (None: to the end)."""
    state = engines.make(game_id, players=players, seed=seed, **params)
    rng = random.Random(seed)
    while not state.is_terminal() and (moves is None or len(state.history()) < moves):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def view_of(state: GameState, viewer: int | None, names: list[str]) -> dict:
    """The view the server sends of `state` to `viewer` (None: everything), built by the server's own
    `position_view`, the last move labelled as `viewer` saw it."""
    last_move, notes = None, []
    if state.history():
        before = state.clone()
        action = before.undo_action()
        last_move = move_label(before, action, viewer, names)
        notes = [step_notes(before, action, state, viewer)]   # a trick it completed stays drawn
    return position_view(state, viewer, names, last_move, notes)


def seat_names(players: int, viewer: int | None) -> list[str]:
    return [f"seat {p} (you)" if p == viewer else f"seat {p} (random)" for p in range(players)]


def chromium() -> str:
    """Debian's chromium (Playwright's own browser download is not available here)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if exe := shutil.which(name):
            return exe
    raise ValueError("no chromium binary to draw with: apt-get install -y chromium")


def launch(playwright: Playwright) -> Browser:
    # --no-sandbox: CI runs as root, where chromium's own sandbox refuses to start.
    return playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])


def _serve_static(route) -> None:
    path = route.request.url.removeprefix(ORIGIN).split("?")[0]
    if path == "/":
        route.fulfill(status=200, content_type="text/html", body=_PAGE)
        return
    file = (STATIC / path.removeprefix("/static/")).resolve()
    if STATIC.resolve() not in file.parents or not file.is_file():
        route.fulfill(status=404, body="not found")
        return
    kind = "text/javascript" if file.suffix == ".js" else mimetypes.guess_type(file.name)[0] or "text/plain"
    route.fulfill(status=200, content_type=kind, body=file.read_bytes())


def open_page(browser: Browser) -> Any:   # a Page, with the `errors` it records
    """A page on the routed origin that records console errors and uncaught exceptions in `page.errors`."""
    page: Any = browser.new_page(viewport=VIEWPORT)   # given an `errors` list below
    page.errors = []
    page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.route(f"{ORIGIN}/**", _serve_static)
    page.goto(f"{ORIGIN}/")
    return page


def render(page: Any, view: dict) -> list[str]:
    """Draws `view` with its game's module into the page's #root; returns the console errors raised."""
    page.errors.clear()
    page.evaluate("""async (view) => {
        const {draw} = await import(`/static/games/${view.game_id}.js`);
        draw(document.getElementById('root'), view);
    }""", view)
    return list(page.errors)


def drawn_games() -> list[str]:
    return [g for g in engines.game_ids() if (STATIC / "games" / f"{g}.js").is_file()]


def belle_cards() -> dict:
    """What the Belle of the Ball drawing shows of each card beyond its name, from the engine's data."""
    belle = importlib.import_module("engines.belle_of_the_ball")
    guests = {g["name"]: {"interests": g["interests"], "honorific": g.get("honorific", "")} for g in belle.GUESTS}
    belles = {b["name"]: {"mode": b["mode"], "effect": _belle_effect(b)} for b in belle.BELLES}
    return {"guests": guests, "belles": belles}


def _belle_effect(card: dict) -> str:
    points = card.get("points", 0)
    short = {"per_icon": f"{points:+d} per {card.get('icon')} icon", "per_noble": f"{points:+d} per Lord/Lady",
             "flat": f"{points:+d} points", "match_all": "every icon matches", "full": "group is full",
             "halve": "score halved", "per_belle_in_parties": f"{points:+d} per Belle in all parties",
             "steal_guest": "steal an opponent's guest", "move_own_guest": "move one of your guests",
             "take_regrets": f"take {card.get('count', 1)} Regret from each opponent",
             "discard_guest": "discard any guest", "next_please": "discard the first Guest in line",
             "switch_with_line": "swap a guest with the line's first", "points": f"{points:+d} points",
             "per_noble_in_party": f"{points:+d} per Lord/Lady in your party"}
    return short[card["effect"]]


def write_screenshots(outdir: Path, browser: Browser) -> list[Path]:
    """PNGs of every drawn game at each of POSITIONS, seen by seat 0 until the end and by everyone at it."""
    outdir.mkdir(parents=True, exist_ok=True)
    page = open_page(browser)
    written = []
    for game_id in drawn_games():
        length = len(played_position(game_id, SEED, None).history())
        for position, fraction in POSITIONS:
            state = played_position(game_id, SEED, round(length * fraction))
            viewer = None if state.is_terminal() else 0
            errors = render(page, view_of(state, viewer, seat_names(state.num_players, viewer)))
            if errors:
                raise ValueError(f"{game_id} {position}: the drawing failed: {errors[0]}")
            path = outdir / f"{game_id}-{position}.png"
            page.locator("#root").screenshot(path=str(path))
            written.append(path)
    page.close()
    return written


def main(argv: list[str] | None = None) -> None:
    from playwright.sync_api import sync_playwright
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python -m arena.serve.screenshots OUTDIR")
    BELLE_CARDS.write_text(json.dumps(belle_cards(), indent=1, sort_keys=True) + "\n")
    with sync_playwright() as playwright:
        browser = launch(playwright)
        for path in write_screenshots(Path(args[0]), browser):
            print(path)
        browser.close()


if __name__ == "__main__":
    main()
