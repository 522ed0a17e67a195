"""What every `arena` command shares: user errors as one line with exit code 2, and the common options."""
import functools
import json

import click

from arena.text import first_line, printable


class ArenaError(click.ClickException):
    """A user error: printed as one line, exit code 2, no traceback."""
    exit_code = 2


def user_errors(fn):
    """Turns the ValueErrors users can cause (unknown game, agent, parameter, run...) and a damaged
    store into ArenaError."""
    import sqlite3

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as e:
            raise ArenaError(printable(first_line(e)) or type(e).__name__) from None
        except sqlite3.DatabaseError as e:
            raise ArenaError(f"the store cannot be read ({first_line(e)}): it is damaged or not a "
                             f"tournament store") from None
    return wrapper


def open_run(store_path, run_id=None):
    """(store, run id) of RUN in the store, or of its latest run when run_id is None; read-only."""
    from arena.store import Store
    store = Store(store_path, readonly=True)
    return store, store.run(run_id)["run_id"]


def rich_console(stderr=False):
    from rich.console import Console
    console = Console(stderr=stderr, highlight=False)
    if not console.is_terminal:
        # Piped or captured output has no width to respect: do not squeeze the tables into 80 columns.
        console = Console(stderr=stderr, highlight=False, width=150)
    return console


def literal(text):
    """User-provided text (labels, messages) shown literally: "ismcts[iterations=5000]" is not markup."""
    from rich.text import Text
    return Text(printable(text))


def echo_json(value):
    click.echo(json.dumps(value, indent=2))


def json_option(fn):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")(fn)


def store_option(fn):
    from arena.store import DEFAULT_STORE
    return click.option("--store", "store_path", default=DEFAULT_STORE, show_default=True,
                        type=click.Path(dir_okay=False), help="SQLite file of the tournaments.")(fn)


MAX_JOBS = 1024   # local worker processes: more would only exhaust the machine (and overflow a semaphore)


jobs_option = click.option("--jobs", "-j", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
                           help="Local worker processes [default: every core].")
deal_key_option = click.option(
    "--deal-key", default=None, metavar="HEX", envvar="ARENA_DEAL_KEY",
    help="Play the deals of an earlier run's secret deal key (its report and its reproduce line show it); "
         "also read from ARENA_DEAL_KEY [default: a new random key per run and store].")


def refuse_a_store(out):
    """ArenaError when --out names an SQLite file: a tournament store must not be overwritten."""
    try:
        with open(out, "rb") as f:
            header = f.read(16)
    except OSError:
        return
    if header == b"SQLite format 3\x00":
        raise ArenaError(f"--out {printable(out)} is an SQLite database (a tournament store?): give another file")


def play_options(fn):
    """--jobs, --backend, --address, --time-limit and --time-control: where and how fast matches are
    played."""
    from arena.tournament.coordinator import DEFAULT_TIME_LIMIT
    for option in reversed([
            jobs_option,
            click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True),
            click.option("--address", default=None, help="Dask scheduler address, tcp://HOST:PORT."),
            click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIME_LIMIT,
                         show_default=True, help="Seconds per move for submitted agents."),
            time_control_option]):
        fn = option(fn)
    return fn


time_control_option = click.option(
    "--time-control", default=None, metavar="BASE+INC",
    help="A clock per bot, as in chess: BASE seconds a match plus INC seconds after each move, running only "
         "on the bot's own moves (built-in agents too); running out is a timeout fault. A move's deadline is "
         "the smaller of --time-limit and the clock left.  [default: none]")


def sandbox_option(fn):
    return click.option("--sandbox", type=click.Choice(["bwrap", "none"]), default="bwrap", show_default=True,
                        envvar="ARENA_SANDBOX",
                        help="How submitted agents are confined: bubblewrap, or none (only for bots you "
                             "trust; leaderboards and reports then say so); also read from ARENA_SANDBOX.")(fn)
