"""`arena serve`: the local web app to watch tournaments, replay matches and play against bots."""
import ipaddress

import click

from arena.cli.common import sandbox_option, store_option, user_errors


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
    import uvicorn

    from arena.serve.app import create_app

    app = create_app(store_path, sandbox)
    if not is_loopback(host):
        click.echo(f"warning: listening on {host}: anyone on the network can then play and read the store "
                   f"{store_path}", err=True)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"arena serve: http://{shown}:{port}/ (store {store_path}; Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
