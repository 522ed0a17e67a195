"""Where a running `arena serve` answers for a store, so that `arena report` can link each match to
its replay: while the server runs, a file beside the store (`STORE.serve`) holds its URL and
process id. Only this module reads or writes that file (and it imports nothing of the web app)."""
import contextlib
import json
import os
import tempfile
import urllib.parse
from collections.abc import Iterator


def _path(store_path):
    return os.path.abspath(store_path) + ".serve"


@contextlib.contextmanager
def announced(store_path: str, url: str) -> Iterator[None]:
    """Says, while this lasts, that the server at `url` serves the store; best effort (a store in a
    folder this user cannot write is served all the same, unannounced)."""
    path, mine = _path(store_path), False
    try:
        # A fresh temporary file (never one that is already there, a symlink say), then renamed.
        with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), prefix=".serve-", delete=False,
                                         encoding="utf-8") as f:
            json.dump({"url": url, "pid": os.getpid()}, f)
        os.replace(f.name, path)
        mine = True
    except OSError:
        pass
    try:
        yield
    finally:
        if mine and running_url(store_path, pid=os.getpid()) == url:
            with contextlib.suppress(OSError):
                os.remove(path)


def running_url(store_path: str, pid: int | None = None) -> str | None:
    """The URL of the server announced for the store, or None when none runs (no file, a dead
    process, or a file that does not hold an http URL)."""
    try:
        with open(_path(store_path), encoding="utf-8") as f:
            data = json.load(f)
        url, owner = data["url"], int(data["pid"])
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or owner <= 0 or \
                (pid is not None and owner != pid):
            return None
        os.kill(owner, 0)
    except (OSError, ValueError, TypeError, KeyError, RecursionError):   # RecursionError: nested too deep
        return None
    return url


def replay_url(server: str, run_id: str, match_id: int) -> str:
    return f"{server}runs/{urllib.parse.quote(run_id, safe='')}/matches/{int(match_id)}"
