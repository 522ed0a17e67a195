"""The web app of `arena serve` (Starlette): pages and the JSON API they read.

Pages are plain HTML and JavaScript modules from `static/` (no build step, nothing from the network):
the runs of the store (`/`), a run live (`/runs/RUN`), the replay of a match
(`/runs/RUN/matches/MATCH`) and a game against bots (`/play`). The API under `/api/` reads the store
read-only, once per request (SQLite's WAL lets it read while `arena run` writes), and keeps the games
being played in memory. A user error is a JSON `{"error": "one line"}` with a 4xx status.

The bots a game may have are the built-in agents, the installed ones and those the operator offers
(`arena serve --bots`: see arena.serve.sessions), never a file or module a request names.
"""
import asyncio
import contextlib
import functools
import html
import json
import os
import re
import sqlite3
import threading
from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import agents
import engines
from arena import edge
from arena.agent_list import entry_points
from arena.human_game import replay_states
from arena.ladder import uploads
from arena.results.outcome import faulty_seats
from arena.serve import inputs, ladders, views
from arena.serve.sessions import PlayCaps, PlaySession, Sessions, UnknownSession
from arena.store import Store, StoreError
from arena.text import first_line, jsonable, printable, without_paths

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
# docs/RULES.md, shipped with the package: in the checkout a symbolic link to it, in an sdist and a
# wheel the file itself
RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RULES.md")
NOT_FOUND = (StoreError, UnknownSession, engines.registry.UnknownGame)
MATCH_ID_LIMIT = 2 ** 63   # SQLite integers
SWEEP_EVERY = 60           # seconds between two looks for games left alone (Sessions.expire)
MAX_JSON = 64 << 10        # bytes of a JSON request body (a game's settings, a move)
HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^\[\]:]*)(?::[0-9]*)?")   # name or [IPv6], then a port


def _error(request, status, message):
    # no answer shows the server's folders (the store's, the temporary one, the staged bots')
    message = without_paths(printable(first_line(message), limit=500)) or "error"
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    return HTMLResponse(f"<!DOCTYPE html><meta charset=\"utf-8\"><title>arena serve</title>"
                        f"<link rel=\"stylesheet\" href=\"/static/style.css\"><p class=\"error\">"
                        f"{html.escape(message)}</p><p><a href=\"/\">runs</a></p>", status_code=status)


async def _user_error(request, exc):
    return _error(request, 404 if isinstance(exc, NOT_FOUND) else 400, str(exc) or type(exc).__name__)


async def _store_unreadable(request, exc):
    return _error(request, 400, f"the store cannot be read ({first_line(exc)}): it is damaged or not a tournament store")


async def _http_error(request, exc):
    response = _error(request, exc.status_code, exc.detail)
    response.headers.update(exc.headers or {})   # e.g. a 429's Retry-After
    return response


async def _unexpected(request, exc):
    return _error(request, 500, f"internal error: {type(exc).__name__}: {first_line(exc)}")


class HostCheck:
    """Answers only requests whose Host header is one of `hosts` (port aside); others get a JSON 400."""

    def __init__(self, app, hosts):
        self.app, self.hosts = app, set(hosts)

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host", "")
            parsed = HOST.fullmatch(host)
            if not parsed or parsed[1] not in self.hosts:
                response = JSONResponse({"error": f"this server does not answer for the host {printable(host, limit=100)!r}"},
                                        status_code=400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _viewer(request, players, allow_all=True):
    """The `viewer` query parameter: a seat number, or "all" / absent for everything."""
    text = request.query_params.get("viewer", "all")
    if text == "all" and allow_all:
        return None
    if not (text.isascii() and text.isdigit()) or int(text) >= players:
        raise ValueError(f"viewer must be a seat from 0 to {players - 1}" + (" or all" if allow_all else ""))
    return int(text)


def _int_param(request, name, default, limit):
    text = request.query_params.get(name, str(default))
    if not (text.isascii() and text.isdigit()) or int(text) > limit:
        raise ValueError(f"{name} must be a whole number from 0 to {limit}")
    return int(text)


async def _body(request):
    # Only JSON: a page of another site cannot send it without the browser asking first (CORS), and
    # this server never says yes, so no other site can start games or move for you.
    inputs.only(request)
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise HTTPException(415, "send the request body as JSON (Content-Type: application/json)")
    body = await inputs.read_body(request, MAX_JSON, f"a request body is at most {MAX_JSON >> 10} KiB")
    try:
        data = json.loads(body)
    except RecursionError:
        raise ValueError("the request body is JSON nested too deep") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def create_app(store_path: str, sandbox: str = "bwrap", hosts: Sequence[str] | None = None,
               bots: dict[str, str] | None = None, caps: PlayCaps | None = None,
               behind_proxy: bool = False, upload_quota: int = uploads.QUOTA) -> Starlette:
    """The app on the store at `store_path`; `sandbox` confines the submitted bots people play against;
    `hosts` (when given) are the only Host headers answered, which keeps other sites' pages from
    reaching a server on 127.0.0.1 through a name of theirs (DNS rebinding); `bots` are the bots
    offered besides the built-in and installed agents ({name: "/path/FILE.py:Class"}, from
    arena.serve.sessions.find_bots); `caps` what a game in the browser may ask (PlayCaps);
    `behind_proxy`: the client's address is the last of X-Forwarded-For (a reverse proxy's),
    else the socket's peer; `upload_quota`: bytes of uploaded bots each entrant may keep."""
    policy = edge.sandbox_policy(sandbox)
    offered = dict(bots or {})
    caps = caps or PlayCaps()
    sessions = Sessions()
    thinking = threading.BoundedSemaphore(caps.games)   # bots of web games thinking at once
    summary_lock = threading.Lock()
    summaries: dict = {}

    @contextlib.contextmanager
    def reading():
        store = Store(store_path, readonly=True)
        try:
            yield store
        finally:
            store.close()

    def progress(store, run_id):
        run = store.run(run_id)
        return {"run_id": run.run_id, "status": run.status, "created": run.created,
                "finished": store.count(run.run_id), "total": run.total}

    @functools.lru_cache(maxsize=16)
    def stored_match(run_id, match_id):
        """(match, states, names) of a stored match (it never changes once stored)."""
        if match_id >= MATCH_ID_LIMIT:
            raise StoreError(f"run {run_id!r} has no finished match {match_id}")
        with reading() as store:
            match = store.match(run_id, match_id)
        names = [f"seat {p} ({s['label']})" for p, s in enumerate(match["seats"])]
        return match, replay_states(match), names

    @functools.lru_cache(maxsize=64)
    def replay_moves(run_id, match_id, viewer):
        match, states, names = stored_match(run_id, match_id)
        return [views.move_label(states[k].clone(), action, viewer, names) for k, action in enumerate(match["actions"])]

    @functools.lru_cache(maxsize=64)
    def replay_notes(run_id, match_id, viewer):
        """The step_notes of each move of a stored match, as `viewer` saw them."""
        match, states, _ = stored_match(run_id, match_id)
        return [views.step_notes(states[k], action, states[k + 1], viewer) for k, action in enumerate(match["actions"])]

    # ---- pages ----
    def page(name):
        async def endpoint(request):
            return FileResponse(os.path.join(STATIC, name))
        return endpoint

    def run_page(request):
        with reading() as store:
            store.run(request.path_params["run_id"])
        return FileResponse(os.path.join(STATIC, "run.html"))

    @functools.lru_cache(maxsize=1)
    def rules_html():
        import markdown
        with open(RULES, encoding="utf-8") as f:
            body = markdown.markdown(f.read(), extensions=["toc", "tables"])
        return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>The rules</title>"
                f"<link rel=\"stylesheet\" href=\"/static/style.css\"></head><body class=\"doc\">{body}</body></html>")

    def rules_page(request):
        """The docs' rules page (docs/RULES.md), which the games' rules panels link to."""
        if not os.path.isfile(RULES):
            raise StoreError("the rules page is not installed here: see docs/RULES.md in the project")
        return HTMLResponse(rules_html())

    def replay_page(request):
        stored_match(request.path_params["run_id"], request.path_params["match_id"])
        return FileResponse(os.path.join(STATIC, "replay.html"))

    # ---- tournaments ----
    def api_runs(request):
        inputs.only(request)
        if not os.path.isfile(store_path):
            return JSONResponse({"store": os.path.basename(store_path), "runs": []})
        with reading() as store:
            return JSONResponse({"store": os.path.basename(store_path), "runs": [
                views.run_row(run) | {"finished": store.count(run.run_id)} for run in store.runs()]})

    def api_progress(request):
        inputs.only(request)
        with reading() as store:
            return JSONResponse(progress(store, request.path_params["run_id"]))

    def api_run(request):
        inputs.only(request)
        run_id = request.path_params["run_id"]
        with summary_lock, reading() as store:
            now = progress(store, run_id)
            key = (now["finished"], now["status"])
            if summaries.get(run_id, (None,))[0] != key:
                if len(summaries) > 32:
                    summaries.clear()
                summaries[run_id] = (key, views.run_summary(store, run_id))
            return JSONResponse(summaries[run_id][1] | now)

    def api_matches(request):
        inputs.only(request, "offset", "limit")
        offset = _int_param(request, "offset", 0, MATCH_ID_LIMIT)
        limit = _int_param(request, "limit", 100, 1000)
        with reading() as store:
            run_id = store.run(request.path_params["run_id"]).run_id
            count, rows = store.count(run_id), store.listing(run_id, offset, limit)
        return JSONResponse({"run_id": run_id, "count": count, "offset": offset, "matches": [
            {"match_id": m["match_id"], "game_id": m["game_id"], "deal": m["deal"],
             "seats": [s["label"] for s in m["seats"]], "placements": m["placements"], "returns": m["returns"],
             "faults": len(m["faults"]), "lost_by_fault": faulty_seats(m), "moves": m["moves"]} for m in rows]})

    def api_match(request):
        inputs.only(request, "viewer")
        run_id, match_id = request.path_params["run_id"], request.path_params["match_id"]
        match, _, names = stored_match(run_id, match_id)
        viewer = _viewer(request, len(names))
        return JSONResponse(views.match_view(run_id, match, names, replay_moves(run_id, match_id, viewer),
                                             replay_notes(run_id, match_id, viewer), viewer))

    def api_step(request):
        inputs.only(request, "viewer")
        run_id, match_id, k = (request.path_params[p] for p in ("run_id", "match_id", "step"))
        _, states, names = stored_match(run_id, match_id)
        viewer = _viewer(request, len(names))
        if k >= len(states):
            raise ValueError(f"step must be from 0 to {len(states) - 1}")
        return JSONResponse(views.step_view(states[k].clone(), viewer, names, replay_moves(run_id, match_id, viewer),
                                            replay_notes(run_id, match_id, viewer), k))

    # ---- playing ----
    def api_games(request):
        inputs.only(request)
        games = []
        for game_id in engines.game_ids():
            spec = engines.spec(game_id)
            games.append({"game_id": game_id, "description": spec.description, "min_players": spec.min_players,
                          "max_players": spec.max_players, "default_players": spec.default_players,
                          "params": jsonable(spec.params), "choices": jsonable(spec.choices),
                          "perfect_information": spec.perfect_information})
        return JSONResponse({"games": games, "agents": [a for a in agents.agent_names() if a != "human"],
                             "bots": list(offered) + sorted(entry_points())})

    async def api_new_game(request):
        data = await _body(request)
        game_id, bots, params = data.get("game_id"), data.get("agents"), data.get("params", {})
        seat, seed = data.get("seat", 0), data.get("seed")
        if isinstance(seed, str) and seed.isascii() and seed.isdigit():
            seed = int(seed)   # a page sends a long seed as text: JavaScript numbers stop at 2**53
        if not isinstance(game_id, str) or not isinstance(bots, str) or not isinstance(params, dict):
            raise ValueError('give {"game_id": GAME, "agents": "AGENT, AGENT...", "params": {...}, "seat": N}')
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ValueError("seat must be a whole number")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63):
            raise ValueError("seed must be a whole number from 0 to 2**63-1")
        engines.spec(game_id)
        specs = await run_in_threadpool(edge.web_agents, bots, offered)
        session = await run_in_threadpool(PlaySession, game_id, params, specs, seat, seed, policy, caps)
        return JSONResponse(session.view(await run_in_threadpool(sessions.open, session)))

    def api_game(request):
        inputs.only(request)
        session_id = request.path_params["session"]
        return JSONResponse(sessions.get(session_id).view(session_id))

    async def api_move(request):
        session_id = request.path_params["session"]
        session = sessions.get(session_id)
        action = (await _body(request)).get("action")
        await run_in_threadpool(session.human_move, action)
        return JSONResponse(session.view(session_id))

    async def api_bot(request):
        session_id = request.path_params["session"]
        session = sessions.get(session_id)
        await _body(request)
        if not thinking.acquire(blocking=False):
            raise HTTPException(429, f"the bots of {caps.games} games are thinking already, the most this server "
                                     f"runs at once (arena serve --play-games): try again in a moment",
                                headers={"Retry-After": "1"})
        try:
            await run_in_threadpool(session.bot_move)
        finally:
            thinking.release()
        return JSONResponse(session.view(session_id))

    async def api_save(request):
        session_id = request.path_params["session"]
        session = sessions.get(session_id)
        await _body(request)
        run_id = await run_in_threadpool(session.save, store_path)
        return JSONResponse(session.view(session_id) | {"replay": f"/runs/{run_id}/matches/0"})

    async def api_end(request):
        await _body(request)
        await run_in_threadpool(sessions.end, request.path_params["session"])
        return JSONResponse({"ended": request.path_params["session"]})

    routes = [
        Route("/", page("index.html")),
        Route("/play", page("play.html")),
        Route("/rules", rules_page),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/runs/{run_id}", run_page),
        Route("/runs/{run_id}/matches/{match_id:int}", replay_page),
        Route("/api/runs", api_runs),
        Route("/api/runs/{run_id}", api_run),
        Route("/api/runs/{run_id}/progress", api_progress),
        Route("/api/runs/{run_id}/matches", api_matches),
        Route("/api/runs/{run_id}/matches/{match_id:int}", api_match),
        Route("/api/runs/{run_id}/matches/{match_id:int}/steps/{step:int}", api_step),
        Route("/api/games", api_games),
        Route("/api/play", api_new_game, methods=["POST"]),
        Route("/api/play/{session}", api_game),
        Route("/api/play/{session}/end", api_end, methods=["POST"]),
        Route("/api/play/{session}/move", api_move, methods=["POST"]),
        Route("/api/play/{session}/bot", api_bot, methods=["POST"]),
        Route("/api/play/{session}/save", api_save, methods=["POST"]),
        *ladders.routes(store_path, reading, ladders.TokenChecks(), behind_proxy, upload_quota),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {ValueError: _user_error, sqlite3.DatabaseError: _store_unreadable,
                HTTPException: _http_error, Exception: _unexpected}

    async def sweep():
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            await run_in_threadpool(sessions.expire)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        sweeper = asyncio.get_running_loop().create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            sessions.close()   # the bots of the games still in progress

    middleware = [Middleware(HostCheck, hosts=hosts)] if hosts else []
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan, middleware=middleware)
    app.state.sessions = sessions
    return app
