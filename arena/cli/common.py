"""What every `arena` command shares: user errors as one line with exit code 2, and the common options."""
import contextlib
import functools
import json
import os
import secrets
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click

from arena.text import first_line, printable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from arena.store import Store

P = ParamSpec("P")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


class ArenaError(click.ClickException):
    """A user error: printed as one line, exit code 2, no traceback."""
    exit_code = 2


def user_errors(fn: Callable[P, T]) -> Callable[P, T]:
    """Turns the ValueErrors users can cause (unknown game, agent, parameter, run...) and a damaged
    store into ArenaError."""
    import sqlite3

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except ValueError as e:
            raise ArenaError(printable(first_line(e)) or type(e).__name__) from None
        except sqlite3.DatabaseError as e:
            raise ArenaError(f"the store cannot be read ({first_line(e)}): it is damaged or not a "
                             f"tournament store") from None
    return wrapper


def open_run(store_path: str, run_id: str | None = None, kind: str = "tournament") -> tuple["Store", str]:
    """(store, run id) of RUN in the store, or, when run_id is None, of its latest run of `kind`
    (the reading commands read tournaments: an `arena analyze` or `arena compare` run made since is
    not "the latest run" of `arena replay 0`); read-only."""
    from arena.store import Store
    store = Store(store_path, readonly=True)
    return store, store.run(run_id, kind).run_id


def rich_console(stderr: bool = False) -> "Console":
    from rich.console import Console
    console = Console(stderr=stderr, highlight=False)
    if not console.is_terminal:
        # Piped or captured output has no width to respect: do not squeeze the tables into 80 columns.
        console = Console(stderr=stderr, highlight=False, width=150)
    if not stderr:
        # rich's own hook, replaced on this console: rich would exit 1; the command group exits 0 quietly
        console.on_broken_pipe = _raise_broken_pipe  # type: ignore[method-assign]
    return console


def _raise_broken_pipe():
    raise BrokenPipeError


def stdout_is_closed() -> bool:
    """Whether the reader of stdout has gone (`arena games | head -1`); after that, output is dropped."""
    import select
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        closed = any(events & select.POLLERR for _, events in poll.poll(0))
    except (AttributeError, OSError, ValueError):   # not a real file (a test's captured output)
        return False
    if closed:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # the final flush must not fail
    return closed


def literal(text: object) -> "Text":
    """User-provided text (labels, messages) shown literally: "ismcts[iterations=5000]" is not markup."""
    from rich.text import Text
    return Text(printable(text))


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2))


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")(fn)


def store_option(fn: F) -> F:
    from arena.store import DEFAULT_STORE
    return click.option("--store", "store_path", default=DEFAULT_STORE, show_default=True,
                        type=click.Path(dir_okay=False), help="SQLite file of the tournaments.")(fn)


class WholeNumber(click.IntRange):
    """click's IntRange, with its error in plain words: "'abc' is not a valid whole number"."""
    name = "whole number"


MAX_JOBS = 1024   # local worker processes: more would only exhaust the machine (and overflow a semaphore)


jobs_option = click.option("--jobs", "-j", type=WholeNumber(min=1, max=MAX_JOBS), default=None,
                           help="Local worker processes [default: every core].")
deal_key_option = click.option(
    "--deal-key", default=None, metavar="HEX", envvar="ARENA_DEAL_KEY",
    help="Play the deals of an earlier run's secret deal key (its report and its reproduce line show it); "
         "also read from ARENA_DEAL_KEY [default: a new random key per run and store].")


def seeding_option(fn: F) -> F:
    from arena.seeds import SEEDINGS
    return click.option(
        "--seeding", type=click.Choice(SEEDINGS), default=None,
        help="coupled: every match of a deal gives a seat's agent the same seeds and every move the same "
             "view, so agents that decide alike play alike (common random numbers); independent: the "
             "seeds of each match are its own, as in runs made before coupling. A resumed run keeps its "
             "own.  [default: coupled for a new run]")(fn)


deals_option = click.option(
    "--deals", "book", default=None, metavar="BOOK",
    help="Play the deals of a deal book (`arena deals make`): its game and parameters, the same deals on "
         "any machine and store.")


def out_option(help: str, required: bool = False, flag: str = "--out") -> Callable[[F], F]:
    """--out FILE (or `flag` FILE), checked as click reads it, before anything is played or read: its
    folder must exist (it is never created, and nothing is written outside it), and it must not be an
    SQLite file (a tournament store must not be overwritten)."""
    def check(ctx, param, out):
        if out is None:
            return None
        if not out.strip():
            raise click.BadParameter("give a file name", ctx, param)
        folder = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(folder):
            raise click.BadParameter(f"no folder {printable(folder)}: create it first, or name a file in an "
                                     f"existing folder", ctx, param)
        try:
            with open(out, "rb") as f:
                header = f.read(16)
        except OSError:
            header = b""
        if header == b"SQLite format 3\x00":
            raise click.BadParameter(f"{printable(out)} is an SQLite database (a tournament store?): give "
                                     f"another file", ctx, param)
        return out
    # No explicit default: click (8.3 and later) would take default=None as a value given, and not
    # enforce required=True.
    return click.option(flag, "out", required=required, type=click.Path(dir_okay=False), callback=check,
                        help=help)


@contextlib.contextmanager
def writing(out: str) -> Iterator[None]:
    """Turns a failure to write `out` (no permission, a full disk) into one line."""
    try:
        yield
    except OSError as e:
        raise ArenaError(f"cannot write {printable(out)}: {e.strerror or first_line(e)}") from None


@contextlib.contextmanager
def replacing(out: str) -> Iterator[Any]:
    """A text file written beside `out` and renamed over it once whole: a reader (a tournament's
    worker loading a model) sees the old file or the new one, never a part of it, and a failure (a
    full disk, Ctrl-C) leaves the old one as it was. A failure to write is one line (`writing`)."""
    tmp = os.path.join(os.path.dirname(os.path.abspath(out)), f".{os.path.basename(out)}.{secrets.token_hex(8)}.tmp")
    with writing(out):
        # O_EXCL: a new file, never one already there (a symlink planted in a shared folder)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "w") as f:
                yield f
            os.replace(tmp, out)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def play_options(fn: F) -> F:
    """--jobs, --backend, --address, --time-limit and --time-control: where and how fast matches are
    played."""
    from arena.defaults import TIME_LIMIT as DEFAULT_TIME_LIMIT
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


bot_limit_option = click.option(
    "--bot-limit", "bot_limits", multiple=True, metavar="NAME=VALUE",
    help="A resource limit per submitted bot process: memory (MiB, default 2048), cpu "
         "(s, 3600), processes (32), file_size (MiB, 16), disk (MiB, 256), open_files (64).")


def sandbox_option(fn: F) -> F:
    return click.option("--sandbox", type=click.Choice(["bwrap", "none"]), default="bwrap", show_default=True,
                        envvar="ARENA_SANDBOX",
                        help="How submitted agents are confined: bubblewrap, or none (only for bots you "
                             "trust; leaderboards and reports then say so); also read from ARENA_SANDBOX.")(fn)
