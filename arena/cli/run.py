"""`arena run` (play a tournament) and `arena leaderboard` (print a run's standings)."""
import contextlib
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Optional

import click

from arena.cli.common import (
    WholeNumber,
    bot_limit_option,
    deal_key_option,
    deals_option,
    echo_json,
    json_option,
    literal,
    open_run,
    play_options,
    rich_console,
    sandbox_option,
    seeding_option,
    store_option,
    user_errors,
)
from arena.defaults import RUN_MAX_DEALS as DEFAULT_MAX_DEALS
from arena.reports.tables import leaderboard_help

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from arena.match import MatchResult
    from arena.results.settle import Look, StoppingRule
    from arena.tournament.coordinator import Plan



@click.command(short_help="Play a rated tournament; print a leaderboard per game.",
               help="Play a rated tournament and print its leaderboard per game, with a verdict per game "
                    "and a legend. Without --games each game is played until its verdict is settled (every "
                    "two neighbours in its order told apart or shown level, at most 5% of such verdicts "
                    "wrong), or up to --max-deals; with --games N, N deals per line-up.\n\n"
                    + leaderboard_help())
@click.option("--game", "game_id", default=None, help="Game id (default: every registered game).")
@click.option("--players", type=int, default=None, help="Players per match (default: the game's).")
@click.option("--agents", "agents_text", default=None,
              help='Agents, e.g. "ismcts, greedy, ismcts[iterations=5000] as ismcts5k, ./bot.py:MyBot".'
                   "  [default: greedy,random]")
@click.option("--games", "deals", type=WholeNumber(min=1), default=None,
              help="Deals per line-up, each played in every seat rotation [default: until settled; with "
                   "--deals, every deal of the book].")
@click.option("--max-deals", type=WholeNumber(min=1), default=None,
              help=f"Without --games: the most deals per line-up before a game stops unsettled "
                   f"[default: {DEFAULT_MAX_DEALS}].")
@click.option("--seed", type=int, default=0, show_default=True, help="Tournament seed.")
@store_option
@play_options
@click.option("--resume", "resume", default=None, metavar="RUN", help="Continue a stopped run.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter (with --game).")
@sandbox_option
@bot_limit_option
@deal_key_option
@deals_option
@seeding_option
@json_option
@user_errors
def run(game_id: str | None, players: int | None, agents_text: str | None, deals: int | None,
        max_deals: int | None, seed: int, store_path: str, jobs: int | None, backend: str, address: str | None,
        time_limit: float, time_control: str | None, resume: str | None, params: tuple[str, ...], sandbox: str,
        bot_limits: tuple[str, ...], deal_key: str | None, book: str | None, seeding: str | None,
        as_json: bool) -> None:
    from arena import edge
    from arena.tournament import coordinator as tournament

    # The store is opened (made) by the plan, only once the run passed its checks: a refused run makes none.
    plan = edge.plan(store_path, game_id=game_id, players=players, agents=agents_text, deals=deals, max_deals=max_deals,
                     seed=seed, time_limit=time_limit, params=params, sandbox=sandbox, bot_limits=bot_limits,
                     deal_key=deal_key, resume=resume, backend=backend, address=address, time_control=time_control,
                     book=book, seeding=seeding)
    store = plan.store
    assert store is not None
    err = rich_console(stderr=True)
    if not as_json:
        for note in plan.sit_outs():
            err.print(literal(note))
        deals = plan.extends.config.deals if plan.extends and plan.taken else 0
        taken = (f" ({plan.taken} taken from run {plan.extends.run_id}, this run's first "
                 + ("deal)" if deals == 1 else f"{deals} deals)")) if plan.extends and plan.taken else ""
        size = f"{len(plan.schedule)} matches" if plan.rule is None else (
            f"each game until its verdict is settled: {first_look(plan):,} matches to the first look, at most "
            f"{len(plan.schedule):,} ({stop_text(plan.rule)})")
        from rich.markup import escape

        from arena.text import book_text
        dealt = f", the deals of book {escape(book_text(plan.config.book))}" if plan.config.book else ""
        err.print(f"run [bold]{plan.run_id}[/]: {size}, {plan.stored} already stored{taken}{dealt}, "
                  f"store {store_path}" + (" (Ctrl-C stops; the same command resumes)" if plan.todo else ""),
                  highlight=False, markup=True)
    try:
        total = len(plan.schedule) if plan.rule is None else plan.stored + len(plan.todo)
        until = "" if plan.rule is None else " to the next look"   # a look may play more deals
        with progress_bar(total, plan.stored, quiet=as_json or plan.human, until=until) as meter:
            status = tournament.play(store, plan, backend, jobs, address, on_match=meter.advance,
                                     on_look=None if as_json else look_lines(plan, meter))
    except tournament.MatchFailed as e:
        raise click.ClickException(f"{e}; the run stopped (resume with arena run --resume {plan.run_id})") from None
    if status == "interrupted":
        signal.signal(signal.SIGINT, signal.SIG_IGN)   # more Ctrl-Cs would only interrupt these last lines
        stored = len(store.finished_ids(plan.run_id))
        err.print("stopped: the matches in progress were abandoned and will be replayed on resume")
        err.print(f"interrupted: {stored} of {len(plan.schedule)} matches stored. Resume with:\n"
                  f"  arena run --resume {plan.run_id} --store {store_path}")
        store.close()
        sys.exit(130)
    _print_leaderboards(store, plan.run_id, as_json)
    store.close()


def first_look(plan: "Plan") -> int:
    """The matches of a run played until settled up to its first look: what it plays at the least
    (a game that does not settle there plays on, up to the cap)."""
    assert plan.rule is not None
    first = plan.rule.looks()[0]
    return sum(1 for spec in plan.schedule if spec.deal < first)


def stop_text(rule: "StoppingRule") -> str:
    """The stopping rule as the run announces it."""
    looks = rule.looks()
    return (f"--max-deals {rule.max_deals} deals per line-up; looks after "
            + ", ".join(str(n) for n in looks[:-1]) + (" and " if len(looks) > 1 else "") + f"{looks[-1]} deals; "
            f"a settled verdict is wrong at most {rule.alpha:.0%} of the time")


def look_lines(plan: "Plan", meter: "_PlainMeter | _BarMeter") -> Callable[[list["Look"], list], None]:
    """The `on_look` of a run played until settled: a line per game whenever it takes a look (or
    when the run starts), and the progress total grown by each new batch."""
    from arena.text import game_title
    shown: dict[tuple[str, str], str] = {}

    def on_look(looks: list["Look"], batch: list) -> None:
        if shown:
            meter.grow(len(batch))
        for now in looks:
            line = (f"{game_title(now.game_id, now.params, only_changed=True)}: "
                    + ("settled" if now.settled else "not settled" if now.looked else "first look")
                    + (f" at the look after {now.looked} deals" if now.looked else "")
                    + (f"; playing to {now.next_look} deals" if now.next_look else
                       "" if now.settled else f"; the cap of {plan.config.deals} deals is reached"))
            key = now.game_id, str(sorted(now.params.items()))
            if shown.get(key) != line:
                shown[key] = line
                meter.say(line)
    return on_look


PROGRESS_EVERY = 10.0   # seconds between plain progress lines when stderr is not a terminal
RATE_WINDOW = 60.0      # seconds of matches the rate (and so the time left) is measured over


class _PlainMeter:
    """Progress as a plain line every PROGRESS_EVERY seconds: matches done, rate, time left. The rate
    is that of the last RATE_WINDOW seconds: a run's games differ in speed, and a mean since the
    start would promise too little time once slower matches come."""

    def __init__(self, total: int, done: int, clock: Callable[[], float] | None = None, until: str = "") -> None:
        import collections
        import time
        self.clock = clock or time.monotonic
        self.start = self.shown = self.clock()
        self.total, self.done, self.until = total, done, until
        self.samples = collections.deque([(self.start, done)])   # (time, matches done), the oldest first

    def advance(self, result: Optional["MatchResult"] = None) -> None:
        self.done += 1
        now = self.clock()
        self.samples.append((now, self.done))
        while len(self.samples) > 2 and now - self.samples[1][0] >= RATE_WINDOW:
            self.samples.popleft()   # the oldest kept is the last one at least RATE_WINDOW old
        if now - self.shown >= PROGRESS_EVERY or self.done == self.total:
            self.shown = now
            since, then = self.samples[0]
            rate = (self.done - then) / (now - since) if now > since else 0.0
            click.echo(plain_progress(self.done, self.total, now - self.start, rate, self.until), err=True)

    def grow(self, more: int) -> None:
        self.total += more

    def say(self, line: str) -> None:
        click.echo(line, err=True)


class _BarMeter:
    """Progress as a live rich bar, with lines printed above it."""

    def __init__(self, progress: "Progress", task: "TaskID") -> None:
        self.progress, self.task = progress, task

    def advance(self, result: Optional["MatchResult"] = None) -> None:
        self.progress.advance(self.task)

    def grow(self, more: int) -> None:
        self.progress.update(self.task, total=(self.progress.tasks[0].total or 0) + more)

    def say(self, line: str) -> None:
        self.progress.console.print(literal(line), highlight=False)


@contextlib.contextmanager
def progress_bar(total: int, done: int, quiet: bool, until: str = "") -> Iterator["_PlainMeter | _BarMeter"]:
    """A live bar on stderr on a terminal; elsewhere (CI, nohup, a pipe) a plain line every
    PROGRESS_EVERY seconds: matches done, rate, time left (`until`: to what, " to the next look").
    Nothing when quiet. Yields the meter: `advance(result)` after each match, `grow(n)` for n more
    matches to play, `say(line)`."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    console = rich_console(stderr=True)
    if not quiet and not console.is_terminal:
        yield _PlainMeter(total, done, until=until)
        return
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("left" + until), console=console,
                        disable=quiet, transient=False)
    with progress:
        yield _BarMeter(progress, progress.add_task("matches", total=total, completed=done))


def plain_progress(done: int, total: int, seconds: float, rate: float, until: str = "") -> str:
    """"matches 120/560 (21%), 3.2/s after 1m10s, 2m17s left": one line of progress for a log, the
    time left at `rate` (matches a second), `until` saying to what (" to the next look")."""
    eta = ", done" if done >= total else f", {_duration((total - done) / rate)} left{until}" if rate > 0 else ""
    return f"matches {done}/{total} ({done / total:.0%}), {rate:.1f}/s after {_duration(seconds)}{eta}"


def _duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


# ---------------------------------------------------------------- leaderboards

def print_verdict(console: "Console", verdict: str | None) -> None:
    """A game's verdict under its table (leaderboard and matchups say it in the same words)."""
    if verdict:
        console.print(literal("verdict: " + verdict), style="bold")
    console.print()


def print_legend(console: "Console", items: Iterable[tuple[str, str]]) -> None:
    """(term, meaning) pairs under the tables, each meaning wrapped beside its term."""
    from rich.table import Table
    legend = Table.grid(padding=(0, 1))
    legend.add_column(no_wrap=True)
    legend.add_column()
    for term, text in items:
        legend.add_row(literal(term), literal(text))
    console.print(legend, style="dim")


def _print_leaderboards(store, run_id, as_json, game_id=None):
    """Each game's leaderboard, its verdict, and once under the last one the legend of its columns
    (arena.reports.tables holds the columns and legend every view shares, arena.results.verdict
    the verdict)."""
    from rich import box

    from arena.cli.layout import LABEL, TEXT, Column, print_table
    from arena.reports.sections import run_sections
    from arena.reports.tables import importance, leaderboard_columns, legend_items, level_note, short_heading
    from arena.results import standings
    from arena.run_config import book_note, time_note
    from arena.sandbox import unconfined_note
    from arena.text import game_title, jsonable

    run_row = store.run(run_id)
    # Per game and rule variant: ratings with 95% intervals, and the cycles a single rating hides.
    sections = run_sections(store, run_id, game_id)[0]
    boards = [{"game_id": s["game_id"], "params": s["game_params"], "rows": s["leaderboard"], "cycles": s["cycles"],
               "verdict": s["verdict"], "settled": s["settled"], "identical_deals": s["identical_deals"],
               "deals_compared": s["deals_compared"], "identical_play": s["identical_play"]}
              for s in sections]
    config = run_row.tournament
    if config and config.compare:
        from arena.compare.compare import stored_verdict
        said = stored_verdict(store, run_id)   # a comparison plays one game: one verdict for its boards
        for board in boards:
            board["verdict"] = said
    seeding = config.seeding if config else "independent"
    fault_summary = [f for s in sections for f in s["fault_summary"]]
    matches = sum(s["matches"] for s in sections)
    if as_json:
        echo_json({"run_id": run_id, "store": store.path, "status": run_row.status,
                   "sandbox": config.sandbox.mode if config else "bwrap",
                   "time_limit": config.time_limit if config else None,
                   "time_control": config.time_control.to_json() if config and config.time_control else None,
                   "book": dict(config.book) if config and config.book else None, "seeding": seeding,
                   "matches": matches, "total": run_row.total,
                   "leaderboards": jsonable(boards), "faults": store.faults(run_id, game_id)})
        return
    console = rich_console()
    for note in (time_note(config), book_note(config)):
        if note:
            console.print(literal(note))
    if not boards:
        console.print(f"run {run_id} has no finished match{f' of {game_id}' if game_id else ''} yet")
    shown = []
    for group in boards:
        headers, cells = leaderboard_columns(group["game_id"], group["rows"])
        columns = [Column(h, justify="left" if h == "agent" else "right", wrap=LABEL if h == "agent" else 0,
                          short=short_heading(h), importance=importance(h)) for h in headers]
        title = literal(f"{game_title(group['game_id'], group['params'], only_changed=True)} - run {run_id}")
        printed = print_table(console, columns, [[literal(c) for c in row] for row in cells], title=title,
                              title_justify="left", box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
        shown += [h for h in printed if h not in shown]
        level = level_note(group["rows"])
        if level:
            console.print(literal(level))
        for cycle in group["cycles"]:
            console.print(literal("cycle (each beats the next with 95% confidence; one rating hides this): "
                                  + standings.format_cycle(cycle)))
        print_verdict(console, group["verdict"])
        if group["identical_play"]:
            console.print(literal(group["identical_play"]))
    if boards:
        print_legend(console, legend_items(shown))
    note = unconfined_note(config.sandbox, config.agents) if config else None
    if note:
        console.print(literal(note), style="bold red")
    if fault_summary:
        # One line per agent and kind of fault, with the first occurrence as an example.
        columns = [Column("game"), Column("agent", wrap=LABEL), Column("kind"), Column("matches", justify="right"),
                   Column("first (match: message)", wrap=TEXT)]
        rows = [[f["first"]["game_id"], literal(f["label"]), f["kind"], str(f["count"]),
                 literal(f"{f['first']['match_id']}: {f['first']['message']}")] for f in fault_summary]
        print_table(console, columns, rows, title="faults (the faulty agent lost each of these matches)",
                    title_justify="left")


@click.command(short_help="Print a tournament's leaderboards again (default: the latest).",
               help="Print a run's leaderboards again from the store (RUN defaults to the latest tournament), each "
                    "with its verdict (who is stronger, or how many more deals would likely tell), and a "
                    "legend under them.\n\n" + leaderboard_help())
@click.argument("run_id", required=False, metavar="[RUN]")
@click.option("--game", "game_id", default=None, help="Only this game's leaderboards.")
@store_option
@json_option
@user_errors
def leaderboard(run_id: str | None, game_id: str | None, store_path: str, as_json: bool) -> None:
    if game_id is not None:
        import engines
        engines.spec(game_id)   # an unknown game is an error, not an empty leaderboard
    store, run_id = open_run(store_path, run_id)
    _print_leaderboards(store, run_id, as_json, game_id)
    store.close()
