"""`arena serve`: the local web app to watch tournaments, replay matches and play against bots."""
import ipaddress

import click

from arena.cli.common import sandbox_option, store_option, user_errors


LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]


def is_loopback(host):
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
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@sandbox_option
@user_errors
def serve(store_path, host, port, sandbox):
    """Watch tournaments live, replay stored matches and play against bots, in the browser."""
    import socket

    import uvicorn

    from arena.serve.address import announced
    from arena.serve.app import create_app

    # On a loopback address, only requests naming this machine are answered (see create_app).
    app = create_app(store_path, sandbox, hosts=LOOPBACK_NAMES + [host] if is_loopback(host) else None)
    if not is_loopback(host):
        click.echo(f"warning: listening on {host}: anyone on the network can then play and read the store "
                   f"{store_path}", err=True)
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
    # log_config=None: no handlers bound to this moment's stderr; warnings and errors still print.
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None))
    with announced(store_path, url):
        server.run(sockets=[sock])
