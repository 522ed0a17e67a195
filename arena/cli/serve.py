"""`arena serve`: the local web app to watch tournaments, replay matches and play against bots."""
import contextlib
import ipaddress
import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from arena import defaults
from arena.cli.common import WholeNumber, sandbox_option, store_option, user_errors

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette


LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]


def offered_bots(ctx: click.Context, param: click.Parameter, paths: Sequence[str]) -> dict[str, str]:
    """The --bots paths as the bots they offer (arena.serve.sessions.find_bots); a bad path is a
    usage error."""
    from arena.serve.sessions import find_bots
    try:
        offered, skipped = find_bots(paths)
    except ValueError as e:
        raise click.BadParameter(str(e), ctx, param) from None
    for line in skipped:
        click.echo(f"warning: --bots: skipped {line}", err=True)
    return offered


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach a server bound to `host`."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command()
@store_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but a loopback address lets the network in.")
@click.option("--port", type=WholeNumber(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@sandbox_option
@click.option("--bots", "bots", multiple=True, metavar="PATH", callback=offered_bots,
              type=click.Path(path_type=str),
              help="Offer the bots of a .py file, or of every *.py file directly in a folder (repeatable): "
                   "each class deriving from an Agent class becomes the bot FILE.py:Class of the play page, "
                   "run in the sandbox. Requests may name only these, the built-in and the installed agents.")
@click.option("--behind-proxy", is_flag=True,
              help="A reverse proxy on this machine forwards the requests: the client's address (which the "
                   "failed token checks are counted by) is the last of X-Forwarded-For. Without it the header "
                   "is ignored and the address is the connection's.")
@click.option("--play-max-time", type=click.FloatRange(min=0, min_open=True), default=defaults.PLAY_MAX_TIME,
              show_default=True, help="Seconds a move a built-in agent of a game in the browser may take (`time`).")
@click.option("--play-max-threads", type=WholeNumber(1, 64), default=defaults.PLAY_MAX_THREADS, show_default=True,
              help="Threads a built-in agent of a game in the browser may use (`threads`).")
@click.option("--play-games", type=WholeNumber(1, 1024), default=defaults.PLAY_GAMES, show_default=True,
              help="Games in the browser whose bots may think at once (a bot move beyond is refused, 429).")
@click.option("--upload-quota", type=WholeNumber(1, 1 << 20), default=defaults.UPLOAD_QUOTA >> 20, show_default=True,
              metavar="MIB", help="MiB of uploaded bots each entrant may keep in a ladder.")
@user_errors
def serve(store_path: str, host: str, port: int, sandbox: str, bots: dict[str, str], behind_proxy: bool,
          play_max_time: float, play_max_threads: int, play_games: int, upload_quota: int) -> None:
    """Watch tournaments and ladders live, replay stored matches and play against bots, in the browser.

    The play page's bots are the built-in agents, the installed ones (entry points) and those offered
    with --bots, read when the server starts: never a file or module a request names. Each submitted
    bot runs in a sandboxed process of its own for one game, killed when the game ends or is dropped;
    at most 8 run at once, and a game starting beyond that stops the bots of the least recently used.
    A built-in agent of a game may ask for at most --play-max-time seconds and --play-max-threads
    threads a move, and its work parameters (iterations, depth, ...) at most their defaults.
    """
    import os
    import socket

    from arena.extras import require
    require("arena serve", "starlette", "uvicorn", "markdown")
    from arena.serve.app import create_app
    from arena.serve.sessions import PlayCaps
    from arena.server_address import announced
    from arena.store import Store

    if os.path.exists(store_path):
        Store(store_path, readonly=True).close()   # a store this arena cannot read is refused now, not per page

    # On a loopback address, only requests naming this machine are answered (see create_app).
    app = create_app(store_path, sandbox, hosts=LOOPBACK_NAMES + [host] if is_loopback(host) else None, bots=bots,
                     caps=PlayCaps(play_max_time, play_max_threads, play_games), behind_proxy=behind_proxy,
                     upload_quota=upload_quota << 20)
    if not is_loopback(host):
        click.echo(f"warning: listening on {host}: anyone on the network can then play and read the store "
                   f"{store_path}, and ladder tokens cross it in clear text: put a TLS proxy in front "
                   f"(docs/ladder-web.md)", err=True)
    # The socket is bound here, so the URL printed and announced names the real port (also for --port 0).
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except (OSError, OverflowError) as e:
        raise ValueError(f"cannot listen on {host}:{port}: {e.strerror if isinstance(e, OSError) else e}") from None
    port = sock.getsockname()[1]
    local = "127.0.0.1" if host in ("0.0.0.0", "") else "::1" if host == "::" else host
    url = f"http://{f'[{local}]' if ':' in local else local}:{port}/"
    click.echo(f"arena serve: {url} (store {store_path}; Ctrl-C stops)")
    if bots:
        click.echo(f"bots offered: {', '.join(bots)}")
    with announced(store_path, url), _terminated_as_exit():
        make_server(app).run(sockets=[sock])


def make_server(app: "Starlette") -> "uvicorn.Server":
    """uvicorn's server for the app. Its proxy headers are off: uvicorn would otherwise take the
    client's address from X-Forwarded-For of any request from 127.0.0.1, which anyone on this
    machine (or a proxy passing the header on) can write; the app reads that header itself, only
    when told it is behind a proxy (--behind-proxy). log_config=None: no handlers bound to this
    moment's stderr; warnings and errors still print."""
    import uvicorn
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None, proxy_headers=False))


@contextlib.contextmanager
def _terminated_as_exit():
    """SIGTERM ends the server as Ctrl-C does, leaving through `finally` (the announcement is
    removed), where Python's default would end the process at once. uvicorn catches the signal
    first, stops serving, then raises it again for this handler."""
    def leave(signum, frame):
        raise SystemExit(128 + signum)
    previous = signal.signal(signal.SIGTERM, leave)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
