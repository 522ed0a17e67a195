"""`arena ladder token`, `revoke` and `tokens`: the entrant tokens that let people add and retire
their own bots of a ladder over HTTP (`arena serve`; arena.ladder.tokens, docs/ladder-web.md)."""
import datetime
import re
import time

import click

from arena.cli.common import echo_json, json_option, store_option, user_errors

ENTRANT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,39}")


def _entrant(ctx: click.Context, param: click.Parameter, name: str) -> str:
    if not ENTRANT.fullmatch(name):
        raise click.BadParameter("an entrant's name is 1 to 40 letters, digits and _ . - (not starting with . -)",
                                 ctx, param)
    return name


def _when(seconds):
    return datetime.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M") if seconds else "-"


@click.command(short_help="Print a new upload token for an entrant of a ladder.")
@click.argument("name")
@click.argument("entrant", callback=_entrant)
@click.option("--expires", "days", type=click.FloatRange(min=0, min_open=True), default=None, metavar="DAYS",
              help="Days the token is valid [default: until revoked].")
@store_option
@user_errors
def token(name: str, entrant: str, days: float, store_path: str) -> None:
    """Print a new token for ENTRANT of the ladder NAME: with it, `arena serve`'s upload page and
    API add and retire ENTRANT's own bots. It is shown once; the store keeps only its hash. An
    entrant may hold several tokens; `arena ladder revoke` ends them all."""
    from arena.ladder import store as ladders
    from arena.ladder import tokens
    from arena.store import Store
    store = Store(store_path)
    try:
        ladders.get(store, name)
        secret = tokens.issue(store, name, entrant, days)
    finally:
        store.close()
    valid = f"for {days:g} days" if days else "until revoked"
    click.echo(f"token for {entrant} on ladder {name}, valid {valid}; shown once, keep it secret:", err=True)
    click.echo(secret)


@click.command(short_help="Revoke every token of an entrant of a ladder.")
@click.argument("name")
@click.argument("entrant", callback=_entrant)
@store_option
@user_errors
def revoke(name: str, entrant: str, store_path: str) -> None:
    """Revoke every live token of ENTRANT of the ladder NAME (their bots stay; `arena ladder
    retire` takes a bot out)."""
    from arena.ladder import store as ladders
    from arena.ladder import tokens
    from arena.store import Store
    store = Store(store_path)
    try:
        ladders.get(store, name)
        count = tokens.revoke(store, name, entrant)
    finally:
        store.close()
    click.echo(f"revoked {count} token{'s' * (count != 1)} of {entrant} on ladder {name}")


@click.command("tokens", short_help="List a ladder's tokens (never their secrets).")
@click.argument("name")
@store_option
@json_option
@user_errors
def tokens_(name: str, store_path: str, as_json: bool) -> None:
    """List the tokens of the ladder NAME: id, entrant, created, expires, revoked."""
    from arena.ladder import store as ladders
    from arena.ladder import tokens
    from arena.store import Store
    store = Store(store_path, readonly=True)
    try:
        ladders.get(store, name)
        rows = tokens.tokens(store, name)
    finally:
        store.close()
    if as_json:
        echo_json(rows)
        return
    now = time.time()
    for r in rows:
        state = f"revoked {_when(r['revoked'])}" if r["revoked"] else "live" if not r["expires"] else \
            f"{'expired' if r['expires'] <= now else 'expires'} {_when(r['expires'])}"
        click.echo(f"{r['token_id']}  {r['entrant']}  created {_when(r['created'])}  {state}")


COMMANDS = (token, revoke, tokens_)
