"""`arena ladder ...` (a persistent league: new, add, retire, run, show, history, list, simulate)
and `arena ladders` (the same as `arena ladder list`)."""
import signal
import sys
from typing import TYPE_CHECKING, Any

import click

from arena.cli.common import (
    WholeNumber,
    bot_limit_option,
    deal_key_option,
    deals_option,
    echo_json,
    jobs_option,
    json_option,
    literal,
    rich_console,
    sandbox_option,
    store_option,
    time_control_option,
    user_errors,
)
from arena.defaults import TIME_LIMIT as DEFAULT_TIME_LIMIT

if TYPE_CHECKING:
    from arena.store import Store


@click.group(short_help="A persistent league that bots join, version after version.",
             help="A ladder: a league kept in the store that plays on as long as you let it. Entries join "
                  "and leave at any time; a new version of a bot (the same label, other code) becomes a new "
                  "entry, its previous version retired unless --keep. `run` plays the line-ups that tell "
                  "most, each as a duplicate deal in every seat rotation, and resumes where it stopped. "
                  "docs/ladder.md describes it.")
def ladder() -> None:
    pass


THINNED = 40   # points at most of `history`'s table (--json: every point)


def _writable(store_path: str) -> "Store":
    from arena.store import Store
    return Store(store_path)


def _readonly(store_path: str) -> "Store":
    from arena.store import Store
    return Store(store_path, readonly=True)


@ladder.command(short_help="Start a ladder of one game.")
@click.argument("name")
@click.option("--game", "game_id", default=None, help="Game id (with --deals: the book's).")
@click.option("--players", type=int, default=None, help="Players per match (default: the game's).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter.")
@click.option("--seed", type=int, default=0, show_default=True, help="Ladder seed (deals, matchmaking ties).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIME_LIMIT,
              show_default=True, help="Seconds per move for submitted agents.")
@time_control_option
@sandbox_option
@bot_limit_option
@deal_key_option
@deals_option
@store_option
@user_errors
def new(name: str, game_id: str | None, players: int | None, params: tuple[str, ...], seed: int,
        time_limit: float, time_control: str | None, sandbox: str, bot_limits: tuple[str, ...],
        deal_key: str | None, book: str | None, store_path: str) -> None:
    """Start the ladder NAME of one game (with its players and parameters), empty. With --deals
    BOOK it plays the book's deals in order (the book's game; --game may be left out) and stops
    when they are all played."""
    from arena import edge
    from arena.ladder import store as ladders
    if game_id is None and book is None:
        raise click.UsageError("give --game GAME (or --deals BOOK)")
    policy = edge.sandbox_policy(sandbox, bot_limits)
    deal_book = edge.book(book, deal_key, seed)
    game = edge.game(game_id, players, params, deal_book, "ladder new")
    store = _writable(store_path)
    made = ladders.create(store, name, game=game, seed=seed, time_limit=time_limit,
                          time_control=edge.time_control(time_control), sandbox=policy,
                          deal_key=edge.deal_key(deal_key), book=deal_book)
    click.echo(f"ladder {made.name}: {made.game_id}, {made.players} players{_book_words(made)}, matches stored as "
               f"run {made.run_id}; add entries with `arena ladder add {made.name} AGENT`")
    store.close()


@ladder.command(short_help="Enter an agent (a new version of a label retires the old one).")
@click.argument("name")
@click.argument("agent")
@click.option("--keep", is_flag=True, help="Keep the label's previous version playing beside the new one.")
@store_option
@user_errors
def add(name: str, agent: str, keep: bool, store_path: str) -> None:
    """Enter AGENT in the ladder NAME: any one item `arena run --agents` takes (a built-in with
    parameters, FILE.py:Class, package.module:Class, exec:PATH), optionally "as LABEL". The same
    label with other code is a new version: a new entry, the previous version retired unless --keep."""
    from arena import edge
    from arena.ladder import store as ladders
    store = _writable(store_path)
    spec = edge.one_agent(agent, "arena ladder add", ladders.get(store, name).config.sandbox)
    e = ladders.add(store, name, spec, keep=keep, item=agent)
    parent = next((p for p in ladders.entries(store, name) if p.entry == e.parent), None)
    line = f"{e.name}: entry {e.entry} of ladder {name}"
    if parent is not None:
        line += f", version {e.version} of {e.label} after {parent.name} ({parent.status})"
    click.echo(line)
    store.close()


@ladder.command(short_help="Take an entry out of a ladder.")
@click.argument("name")
@click.argument("label")
@store_option
@user_errors
def retire(name: str, label: str, store_path: str) -> None:
    """Retire LABEL (its active versions) or one version LABEL@N from the ladder NAME: it plays no
    more (a batch already chosen is played out) and leaves the standings; its matches stay."""
    from arena.ladder import uploads
    store = _writable(store_path)
    for e in uploads.retire(store, name, label):
        click.echo(f"{e.name}: retired from ladder {name}")
    store.close()


@ladder.command(short_help="Play a ladder until stopped; the same command resumes.")
@click.argument("name")
@click.option("--matches", type=WholeNumber(min=1), default=None,
              help="Stop after at least this many more matches (at the end of a batch) [default: until stopped].")
@click.option("--until-settled", is_flag=True, help="Stop when every active entry's place is settled.")
@store_option
@jobs_option
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--address", default=None, help="Dask scheduler address, tcp://HOST:PORT.")
@json_option
@user_errors
def run(name: str, matches: int | None, until_settled: bool, store_path: str, jobs: int | None, backend: str,
        address: str | None, as_json: bool) -> None:
    """Play the ladder NAME batch after batch, each chosen where a game tells most, until Ctrl-C,
    --matches or --until-settled (or its deal book's last deal); then print its standings. Ctrl-C
    and kill -9 lose nothing: the same command resumes with the very matches an uninterrupted run
    would play. (The time rules are the ladder's, set by `arena ladder new`.)"""
    from arena.ladder import play
    from arena.ladder import store as ladders
    store = _writable(store_path)

    def batch_line(played):
        if not as_json:
            click.echo(f"ladder {name}: {played} matches played by this command", err=True)
    outcome = play.run(store, name, backend=backend, jobs=jobs, address=address, matches=matches,
                       until_settled=until_settled, on_batch=batch_line)
    if outcome["book_done"]:
        made = ladders.get(store, name)
        click.echo(f"ladder {name} has played all {made.config.deals} deals of its deal book; it stops here", err=True)
    if outcome["status"] == "interrupted":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        click.echo(f"interrupted after {outcome['played']} matches; the matches in progress were abandoned and "
                   f"are played again by: arena ladder run {name} --store {store_path}", err=True)
        store.close()
        sys.exit(130)
    if as_json:
        echo_json({**outcome, "standings": _standings(store, name)})
    else:
        click.echo(f"{outcome['played']} matches in {outcome['batches']} batches; coordinator peak memory "
                   f"{outcome['peak_rss_mib']} MiB", err=True)
        _print_standings(store, name, False)
    store.close()


def _book_words(made: Any) -> str:
    """", the deals of deal book NAME (sha256 ...)" for a ladder of a deal book, else ""."""
    from arena.text import book_text
    return f", the deals of deal book {book_text(made.config.book)}" if made.config.book else ""


def _standings(store, name, include_retired=False):
    from arena.ladder import store as ladders
    from arena.text import jsonable
    return jsonable(ladders.standings(store, name, include_retired))


def _print_standings(store: "Store", name: str, include_retired: bool) -> None:
    from rich import box

    from arena.cli.layout import LABEL, Column, print_table
    from arena.ladder import store as ladders
    from arena.text import game_title, interval_text
    made = ladders.get(store, name)
    rows = ladders.standings(store, name, include_retired)
    console = rich_console()
    title = literal(f"ladder {name}: {game_title(made.game_id, made.params, only_changed=True)}, "
                    f"{ladders.folded(store, made)} matches{_book_words(made)}")
    if not rows:
        console.print(title)
        console.print(literal(f"no entries yet: add some with `arena ladder add {name} AGENT`"))
        return
    columns = [Column("#", justify="right"), Column("entry", wrap=LABEL), Column("rating (95%)", justify="right",
                                                                              short="rating"),
               Column("deals", justify="right", importance=5), Column("games", justify="right", importance=2),
               Column("score", justify="right", importance=4), Column("form", importance=3),
               Column("place", importance=6), Column("after", wrap=LABEL, importance=1)]
    cells = []
    for r in rows:
        score = r["score"]
        cells.append([str(r["rank"] or "-"), literal(r["name"] + (" ?" if r["provisional"] else "")),
                      interval_text({"mean": r["mu"], "low": r["low"], "high": r["high"]}, digits=1),
                      str(r["deals"]), str(r["games"]), interval_text(score) or "-",
                      r["form"] or "-", "settled" if r["settled"] else "retired" if r["status"] != "active" else "open",
                      literal(r["parent"] or "")])
    print_table(console, columns, cells, title=title, title_justify="left", box=box.SIMPLE_HEAD,
                collapse_padding=True, pad_edge=False)
    console.print(literal("rating: TrueSkill mu, one update per deal (every seat rotation of a line-up), "
                          "[a-b] its 95% interval, mu +- 1.96 sigma; ? provisional (sigma above 2.5); score: share of "
                          "opponents beaten per deal, 95% interval over deals; form: last deals, W D L latest "
                          "last; place settled: told apart from both neighbours (or level); after: the "
                          "version it replaced"), style="dim")


@ladder.command(short_help="Print a ladder's standings.")
@click.argument("name")
@click.option("--all", "include_retired", is_flag=True, help="Also the retired entries, after the active ones.")
@store_option
@json_option
@user_errors
def show(name: str, include_retired: bool, store_path: str, as_json: bool) -> None:
    """The standings of the ladder NAME, best first: rating with its 95% interval, deals and games
    played, score, recent form, whether its place is settled, the version it replaced."""
    store = _readonly(store_path)
    if as_json:
        from arena.ladder import store as ladders
        made = ladders.get(store, name)
        echo_json({"ladder": name, "run_id": made.run_id, "game_id": made.game_id, "params": made.params,
                   "matches": ladders.folded(store, made),
                   "book": dict(made.config.book) if made.config.book else None,
                   "standings": _standings(store, name, include_retired)})
    else:
        _print_standings(store, name, include_retired)
    store.close()


@ladder.command(short_help="One entry's rating over time.")
@click.argument("name")
@click.argument("label")
@store_option
@json_option
@user_errors
def history(name: str, label: str, store_path: str, as_json: bool) -> None:
    """The rating of LABEL (its latest version) or LABEL@N in the ladder NAME after each deal it
    played, from its prior on."""
    from arena.cli.layout import Column, print_table
    from arena.ladder import store as ladders
    store = _readonly(store_path)
    points = ladders.history(store, name, label, None if as_json else THINNED)
    e = ladders.entry(store, name, label)
    store.close()
    if as_json:
        echo_json({"ladder": name, "entry": e.name, "history": points})
        return
    columns = [Column("deals", justify="right"), Column("ladder deal", justify="right"),
               Column("rating", justify="right"), Column("sigma", justify="right")]
    print_table(rich_console(), columns,
                [[str(p["deals"]), "-" if p["deal"] is None else str(p["deal"]), f"{p['mu']:.2f}", f"{p['sigma']:.2f}"]
                 for p in points], title=literal(f"{e.name} in ladder {name}"), title_justify="left")


def _list(store_path: str, as_json: bool) -> None:
    from arena.cli.layout import Column, print_table
    from arena.ladder import store as ladders
    store = _readonly(store_path)
    rows = ladders.ladders(store)
    store.close()
    if as_json:
        from arena.text import jsonable
        echo_json(jsonable(rows))
        return
    if not rows:
        click.echo(f"no ladder in {store_path}: start one with `arena ladder new NAME --game GAME`")
        return
    columns = [Column("ladder"), Column("game"), Column("active", justify="right"),
               Column("entries", justify="right"), Column("matches", justify="right"), Column("status")]
    print_table(rich_console(), columns, [[literal(r["name"]), r["game_id"], str(r["active"]), str(r["entries"]),
                                           str(r["matches"]), r["status"]] for r in rows])


@ladder.command("list", short_help="List the store's ladders (as `arena ladders`).")
@store_option
@json_option
@user_errors
def list_(store_path: str, as_json: bool) -> None:
    """The store's ladders: game, active entries, entries ever, matches, status."""
    _list(store_path, as_json)


@click.command(short_help="List the store's ladders (as `arena ladder list`).")
@store_option
@json_option
@user_errors
def ladders(store_path: str, as_json: bool) -> None:
    """The store's ladders: game, active entries, entries ever, matches, status."""
    _list(store_path, as_json)
