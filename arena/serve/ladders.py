"""The ladders of `arena serve`: their pages, the JSON they read, and bots added and retired over HTTP.

Pages: a ladder's live standings and recent matches (`/ladders/NAME`), an entry's rating history and
head-to-heads (`/ladders/NAME/entries/ENTRY`), and the upload form (`/ladders/NAME/upload`).

Writing takes an entrant token (arena.ladder.tokens) in `Authorization: Bearer TOKEN`, never a
cookie: a page of another site can neither send that header without the browser asking first
(CORS, never granted here) nor read the token, so the form needs no CSRF token. Errors are JSON
`{"error": "one line"}`: 401 without a valid token, 403 for another entrant's bot, 404 for an
unknown ladder or entry, 409 past the bots an entrant may have, 413 for an upload too big, 422 for
a bot that is not one or fails check-agent (arena.ladder.uploads), 429 for a client address with
too many failed token checks (TokenChecks).
"""
import collections
import contextlib
import email.parser
import email.policy
import math
import os
import threading
import time
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from arena.ladder import store as ladders
from arena.ladder import tokens, uploads
from arena.serve import inputs
from arena.store import Store
from arena.text import without_paths

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
MAX_BODY = uploads.MAX_UPLOAD + (64 << 10)   # the file and the form's few short fields
MAX_FIELD = 200                               # characters of a text field
MAX_PARTS = 8                                 # parts of the form (it has three fields)
RECENT = 30                                   # matches on a ladder's page
HISTORY = 400                                 # points at most of an entry's rating history
MAX_FAILED = 10                               # failed token checks of one client address ...
FAILED_WINDOW = 60.0                          # ... within this many seconds, then 429 until one expires
MAX_CLIENTS = 4096                            # client addresses remembered at most


class TokenChecks:
    """Token checks as a server runs them. Each costs an scrypt hash (16 MiB, tens of milliseconds),
    so a client sending wrong tokens could otherwise keep every thread of the server hashing: at
    most one check per core runs at a time, and a client address with MAX_FAILED failures within
    FAILED_WINDOW seconds is refused (429, with Retry-After) before any hashing, until the oldest
    of them is older than the window. A client's address is what the server can trust of it
    (inputs.client_address): the socket's peer, or behind a reverse proxy (`arena serve
    --behind-proxy`) the address the proxy adds to X-Forwarded-For."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.running = threading.BoundedSemaphore(os.cpu_count() or 1)
        self.lock = threading.Lock()
        self.failed: dict[str, collections.deque[float]] = {}

    def entrant(self, store: Store, ladder: str, token: str | None, client: str) -> str:
        """The entrant of `token` (tokens.entrant_of); HTTPException 429 for a client past its
        failures, 401 for a token refused (which counts as a failure of `client`)."""
        self._refuse_if_over(client)
        try:
            with self.running:
                return tokens.entrant_of(store, ladder, token)
        except tokens.TokenRefused as e:
            self._fail(client)
            raise HTTPException(401, str(e)) from None

    def _refuse_if_over(self, client):
        with self.lock:
            now, times = self.clock(), self.failed.get(client)
            while times and times[0] <= now - FAILED_WINDOW:
                times.popleft()
            if times is not None and len(times) >= MAX_FAILED:
                wait = max(1, math.ceil(times[0] + FAILED_WINDOW - now))
                raise HTTPException(429, f"too many failed token checks from this address: try again in {wait} s",
                                    headers={"Retry-After": str(wait)})

    def _fail(self, client):
        with self.lock:
            now = self.clock()
            if client not in self.failed and len(self.failed) >= MAX_CLIENTS:
                self.failed = {c: t for c, t in self.failed.items() if t and t[-1] > now - FAILED_WINDOW}
                if len(self.failed) >= MAX_CLIENTS:   # a flood from many addresses: forget the oldest half
                    by_last = sorted(self.failed, key=lambda c: self.failed[c][-1])
                    for c in by_last[:len(by_last) // 2]:
                        del self.failed[c]
            self.failed.setdefault(client, collections.deque(maxlen=MAX_FAILED)).append(now)


def routes(store_path: str, reading: Callable[[], contextlib.AbstractContextManager[Store]],
           checks: TokenChecks | None = None, behind_proxy: bool = False,
           upload_quota: int = uploads.QUOTA) -> list[Route]:
    """The ladder routes of the app on the store at `store_path`; `reading()` opens it read-only
    (StoreError, a 404, when there is none: arena.serve.app.create_app); `behind_proxy`: whether
    X-Forwarded-For names the client (inputs.client_address); `upload_quota`: bytes of uploaded
    bots each entrant may keep in a ladder."""
    checks = checks or TokenChecks()

    def ladder_of(store, name):
        try:
            return ladders.get(store, name)
        except ValueError as e:
            raise HTTPException(404, str(e)) from None

    def entry_of(store, name, label):
        try:
            return ladders.entry(store, name, label)
        except ValueError as e:
            raise HTTPException(404, str(e)) from None

    def page(name, check=None):
        async def endpoint(request):
            if check:
                await run_in_threadpool(check, request.path_params)
            return FileResponse(os.path.join(STATIC, name))
        return endpoint

    def known_ladder(params):
        with reading() as store:
            ladder_of(store, params["name"])

    def known_entry(params):
        with reading() as store:
            entry_of(store, params["name"], params["label"])

    # ---- reading ----
    async def api_ladders(request):
        inputs.only(request)
        def read():
            if not os.path.isfile(store_path):
                return []
            with reading() as store:
                return ladders.ladders(store)
        return JSONResponse({"ladders": await run_in_threadpool(read)})

    async def api_ladder(request):
        inputs.only(request)
        name = request.path_params["name"]

        def read():
            with reading() as store:
                ladder = ladder_of(store, name)
                count = ladders.stored(store, ladder)
                return {"name": ladder.name, "run_id": ladder.run_id, "game_id": ladder.game_id,
                        "params": ladder.params, "matches": count,
                        "book": dict(ladder.config.book) if ladder.config.book else None,
                        "standings": _public(ladders.standings(store, name, include_retired=True)),
                        "recent": [{"match_id": m["match_id"], "seats": [s["label"] for s in m["seats"]],
                                    "placements": m["placements"], "faults": len(m["faults"]),
                                    "replay": f"/runs/{ladder.run_id}/matches/{m['match_id']}"}
                                   for m in ladders.recent(store, ladder, RECENT)]}
        return JSONResponse(await run_in_threadpool(read))

    async def api_entry(request):
        inputs.only(request)
        name, label = request.path_params["name"], request.path_params["label"]

        def read():
            with reading() as store:
                ladder_of(store, name)
                entry = entry_of(store, name, label)
                row = next(r for r in _public(ladders.standings(store, name, include_retired=True))
                           if r["entry"] == entry.entry)
                return {"ladder": name, "entry": row, "history": ladders.history(store, name, entry.name, HISTORY),
                        "head_to_head": ladders.head_to_head(store, name, entry.name)}
        return JSONResponse(await run_in_threadpool(read))

    # ---- writing ----
    def entrant(request, name):
        """The entrant of the request's bearer token for the ladder `name` (404 for an unknown
        ladder, 401 without a valid token, 429 for a client with too many failed checks)."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        with reading() as store:
            ladder_of(store, name)
            return checks.entrant(store, name, token.strip() if scheme.lower() == "bearer" else None,
                                  inputs.client_address(request, behind_proxy))

    async def api_upload(request):
        inputs.only(request)   # a token in the query string is refused, not taken nor silently ignored
        name = request.path_params["name"]
        who = await run_in_threadpool(entrant, request, name)
        fields, files = await _form(request)
        if "file" not in files:
            raise HTTPException(422, "the form has no file: send the bot as the field `file`")
        filename, data = files["file"]

        def add():
            with contextlib.closing(Store(store_path)) as store:
                return uploads.submit(store, name, who, data, filename, fields.get("label") or None,
                                      fields.get("class") or None, quota=upload_quota)
        try:
            added = await run_in_threadpool(add)
        except uploads.UploadRefused as e:
            raise HTTPException(e.status, str(e)) from None
        return JSONResponse({"ladder": name, "entrant": who, "name": added.name, "label": added.label,
                             "version": added.version, "entry": added.entry,
                             "page": f"/ladders/{name}/entries/{added.name}"}, status_code=201)

    async def api_retire(request):
        inputs.only(request)
        name, label = request.path_params["name"], request.path_params["label"]

        def retire():
            who = entrant(request, name)
            with contextlib.closing(Store(store_path)) as store:
                found = [e for e in ladders.entries(store, name, active=True) if label in (e.label, e.name)]
                if not found:
                    raise HTTPException(404, f"ladder {name} has no active bot {label!r}")
                if any(e.entrant != who for e in found):
                    raise HTTPException(403, f"the bot {label} of ladder {name} is another entrant's: only its "
                                             f"owner may retire it")
                return [e.name for e in uploads.retire(store, name, label, entrant=who)]
        return JSONResponse({"ladder": name, "retired": await run_in_threadpool(retire)})

    return [
        Route("/ladders/{name}", page("ladder.html", known_ladder)),
        Route("/ladders/{name}/upload", page("ladder-upload.html", known_ladder)),
        Route("/ladders/{name}/entries/{label}", page("ladder-entry.html", known_entry)),
        Route("/api/ladders", api_ladders),
        Route("/api/ladders/{name}", api_ladder),
        Route("/api/ladders/{name}/entries/{label}", api_entry),
        Route("/api/ladders/{name}/bots", api_upload, methods=["POST"]),
        Route("/api/ladders/{name}/bots/{label}/retire", api_retire, methods=["POST"]),
    ]


def _public(rows: list[dict]) -> list[dict]:
    """Standings rows as the web shows them: an uploaded bot's agent without the server's folders."""
    return [row | {"agent": without_paths(row["agent"])} for row in rows]


async def _form(request) -> tuple[dict[str, str], dict[str, tuple[str, bytes]]]:
    """The multipart form of the request: ({field: text}, {field: (filename, bytes)}), read with the
    standard library's email parser (python-multipart is not a dependency) outside the event loop;
    413 past MAX_BODY, counted as the body arrives; 422 past MAX_PARTS parts."""
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "multipart/form-data":
        raise HTTPException(422, "send the bot as multipart/form-data with the field `file`")
    body = await inputs.read_body(request, MAX_BODY, f"an upload is at most {uploads.MAX_UPLOAD >> 20} MiB")
    return await run_in_threadpool(_parse_form, content_type.encode("latin-1", "replace"), body)


def _parse_form(content_type: bytes, body: bytes) -> tuple[dict[str, str], dict[str, tuple[str, bytes]]]:
    head = b"Content-Type: " + content_type + b"\r\n\r\n"
    boundary = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head).get_boundary()
    # the parser's time grows with the parts: count them first (a delimiter more than the parts)
    if boundary and body.count(b"--" + boundary.encode("latin-1", "replace")) > MAX_PARTS + 1:
        raise HTTPException(422, f"the form has more than {MAX_PARTS} parts: send the file, the label and the class")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not message.is_multipart():
        raise HTTPException(422, "the form cannot be read as multipart/form-data")
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        content = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if not isinstance(name, str):
            continue
        if name in fields or name in files:   # which one counts would depend on the reader
            raise HTTPException(422, f"the form has the field {name[:40]!r} twice")
        if filename is not None:
            files[name] = (str(filename), content)
            continue
        text = content.decode("utf-8", "replace").strip()
        if len(text) > MAX_FIELD:
            raise HTTPException(422, f"the form's field {name[:40]!r} is longer than {MAX_FIELD} characters")
        fields[name] = text
    return fields, files
