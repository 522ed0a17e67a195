"""`arena store migrate`: a store written by an older arena brought to this arena's schema version."""
import click

from arena.cli.common import store_option, user_errors


@click.group("store", short_help="Look after a store: migrate it to this arena's schema version.")
def store() -> None:
    """Commands on a store file itself (docs/store.md describes its tables and versions)."""


@store.command(short_help="Bring a store written by an older arena to this arena's schema version.")
@store_option
@user_errors
def migrate(store_path: str) -> None:
    """Upgrade the store to this arena's schema version, in one transaction: a kill or a failure
    leaves it as it was, and nothing in it is lost. A store already at this version is left alone.
    Until it is migrated, an older store can be read by every reporting command but not written."""
    from arena.store import migrate as upgrade
    before, after = upgrade(store_path)
    if before == after:
        click.echo(f"{store_path} is at schema version {after} already: nothing to do")
    else:
        click.echo(f"{store_path} migrated from schema version {before} to {after}")
