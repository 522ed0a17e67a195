"""The `arena` command line."""
import contextlib
import json
import os
import sys

if __name__ == "__main__":
    # `python -m arena.cli` (an older spelling of `python -m arena`): run the importable module, not
    # this __main__ copy, so the command modules registered at the end share one `main` group.
    from arena.__main__ import main as _main
    sys.exit(_main())

import signal  # noqa: E402

import click  # noqa: E402

from arena.cli_common import (ArenaError, echo_json, first_line, json_option, literal,  # noqa: E402
                              open_run, rich_console, sandbox_option, store_option, user_errors)
from arena.tournament import DEFAULT_DEALS_EVERY_GAME, DEFAULT_DEALS_ONE_GAME, DEFAULT_TIME_LIMIT  # noqa: E402


MAX_JOBS = 1024   # local worker processes: more would only exhaust the machine (and overflow a semaphore)
MAX_CHECK_GAMES = 1000   # check-agent matches and bench --arena deals: bounded work, like a run's size
MAX_REPEATS = 100        # bench measurements per case


class Interrupted(click.ClickException):
    """Ctrl-C or SIGTERM outside a tournament's own handling: one line, exit code 130."""
    exit_code = 130


class _Group(click.Group):
    """The command group: a usage error prints one line (not click's usage block), and an unexpected
    error prints one line, not a traceback (ARENA_DEBUG=1 shows it)."""

    def parse_args(self, ctx, args):
        # `arena --nosuch`: one line too (`arena` alone still shows the help).
        try:
            return super().parse_args(ctx, args)
        except getattr(click.exceptions, "NoArgsIsHelpError", ()):   # click >= 8.2
            raise
        except click.UsageError as e:
            raise ArenaError(e.format_message() + " (arena -h for help)") from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            command = f" (arena {e.ctx.info_name} -h for help)" if e.ctx and e.ctx.parent else ""
            raise ArenaError(e.format_message() + command) from None
        except (KeyboardInterrupt, click.Abort):
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # a second Ctrl-C must not interrupt the exit
            raise Interrupted("interrupted") from None
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as e:
            if os.environ.get("ARENA_DEBUG"):
                raise
            raise click.ClickException(f"internal error: {type(e).__name__}: {first_line(e)} "
                                       f"(ARENA_DEBUG=1 shows the traceback)") from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tabletop-arena")
def main():
    """Tabletop Arena: fast game engines, search agents and rated bot tournaments."""


# ---------------------------------------------------------------- arena run

@main.command()
@click.option("--game", "game_id", default=None, help="Game id (default: every registered game).")
@click.option("--players", type=int, default=None, help="Players per match (default: the game's).")
@click.option("--agents", "agents_text", default=None,
              help='Agents, e.g. "ismcts, greedy, ismcts[iterations=5000] as ismcts5k, ./bot.py:MyBot".'
                   "  [default: greedy,random]")
@click.option("--games", "deals", type=click.IntRange(min=1), default=None,
              help=f"Deals per line-up, each played in every seat rotation "
                   f"[default: {DEFAULT_DEALS_ONE_GAME} with --game, {DEFAULT_DEALS_EVERY_GAME} without].")
@click.option("--seed", type=int, default=0, show_default=True, help="Tournament seed.")
@store_option
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
              help="Local worker processes [default: every core].")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--address", default=None, help="Dask scheduler address, tcp://HOST:PORT.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIME_LIMIT,
              show_default=True, help="Seconds per move for submitted agents.")
@click.option("--resume", "resume", default=None, metavar="RUN", help="Continue a stopped run.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter (with --game).")
@sandbox_option
@click.option("--bot-limit", "bot_limits", multiple=True, metavar="NAME=VALUE",
              help="A resource limit per submitted bot process: memory (MiB, default 2048), cpu "
                   "(s, 3600), processes (32), file_size (MiB, 16), open_files (64).")
@click.option("--deal-key", default=None, metavar="HEX", envvar="ARENA_DEAL_KEY",
              help="Reuse the secret deal key of an earlier run (as its report shows) to play the same "
                   "deals; also read from ARENA_DEAL_KEY [default: a new random key per run and store].")
@json_option
@user_errors
def run(game_id, players, agents_text, deals, seed, store_path, jobs, backend, address, time_limit,
        resume, params, sandbox, bot_limits, deal_key, as_json):
    """Play a rated tournament and print its leaderboard per game."""
    from arena import tournament
    from arena.store import Store

    store = Store(store_path)
    plan = tournament.plan(store, game_id, players, agents_text, deals, seed, time_limit, params, sandbox,
                           bot_limits, deal_key, resume, backend, address)
    err = rich_console(stderr=True)
    if not as_json:
        for note in plan.sit_outs():
            err.print(literal(note))
        err.print(f"run [bold]{plan.run_id}[/]: {len(plan.schedule)} matches, {plan.stored} already stored, "
                  f"store {store_path}" + (" (Ctrl-C stops; the same command resumes)" if plan.todo else ""),
                  highlight=False, markup=True)
    try:
        with progress_bar(len(plan.schedule), plan.stored, quiet=as_json or plan.human) as advance:
            status = tournament.play(store, plan, backend, jobs, address, on_match=advance)
    except tournament.MatchFailed as e:
        raise click.ClickException(f"{e}; the run stopped (resume with arena run --resume {plan.run_id})")
    if status == "interrupted":
        stored = len(store.finished_ids(plan.run_id))
        err.print("stopped: the matches in progress were abandoned and will be replayed on resume")
        err.print(f"interrupted: {stored} of {len(plan.schedule)} matches stored. Resume with:\n"
                  f"  arena run --resume {plan.run_id} --store {store_path}")
        store.close()
        sys.exit(130)
    _print_leaderboards(store, plan.run_id, as_json)
    store.close()


@contextlib.contextmanager
def progress_bar(total, done, quiet):
    """A live bar on stderr (on a terminal, unless quiet); yields the function that advances it."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)
    console = rich_console(stderr=True)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(), console=console,
                        disable=quiet or not console.is_terminal, transient=False)
    with progress:
        task = progress.add_task("matches", total=total, completed=done)
        yield lambda result: progress.advance(task)


def _share(iv):
    return "" if iv is None else f"{iv.mean:.2f} [{iv.low:.2f}-{iv.high:.2f}]"


# ---------------------------------------------------------------- leaderboards

def _is_card_game(game_id):
    import engines
    try:
        return engines.spec(game_id).card_game
    except ValueError:
        return False


def _print_leaderboards(store, run_id, as_json, game_id=None):
    from arena import analysis
    from arena.sandbox import unconfined_note
    from arena.text import game_title, jsonable
    from rich import box
    from rich.table import Table

    run_row = store.run(run_id)
    matches = store.matches(run_id, game_id)
    # Per game and rule variant: ratings with 95% intervals, and the cycles a single rating hides.
    boards = []
    for g, params, ms in analysis.groups(matches):
        summary = analysis.summary(ms)
        boards.append({"game_id": g, "params": params, "rows": summary["leaderboard"], "cycles": summary["cycles"]})
    fault_list = analysis.faults(matches)
    if as_json:
        echo_json({"run_id": run_id, "store": store.path, "status": run_row["status"],
                   "sandbox": run_row["config"].get("sandbox", {}).get("mode", "bwrap"),
                    "matches": len(matches), "total": run_row["total"],
                    "leaderboards": jsonable(boards), "faults": fault_list})
        return
    console = rich_console()
    if not boards:
        console.print(f"run {run_id} has no finished match{f' of {game_id}' if game_id else ''} yet")
    for group in boards:
        metric_names = sorted({k for r in group["rows"] for k in r.metrics})
        table = Table(title=literal(f"{game_title(group['game_id'], group['params'], only_changed=True)} - run {run_id}"), title_justify="left",
                      box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
        table.add_column("#", justify="right")
        table.add_column("agent", no_wrap=True, min_width=min(30, max(len(r.label) for r in group["rows"])))
        any_faults = any(r.faults for r in group["rows"])
        duplicate = _is_card_game(group["game_id"]) and any(r.duplicate_score is not None for r in group["rows"])
        # Numbers never wrap or shrink: narrow terminals cut the table's right edge instead.
        for name in ["mu", "sigma", "mu-3σ", "games", "wins", "draws", "losses", "score share (95%)"] + \
                ["faults"] * any_faults + ["dup"] * duplicate + \
                [m.replace("_", " ").replace("accuracy", "acc.") for m in metric_names]:
            table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
        for r in group["rows"]:
            dup = r.duplicate_score
            table.add_row(str(r.rank), literal(r.label), f"{r.mu:.2f}", f"{r.sigma:.2f}",
                          f"{r.conservative:.2f}", str(r.games), str(r.wins), str(r.draws),
                          str(r.losses), _share(r.score_share),
                          *[str(r.faults) if r.faults else ""] * any_faults,
                          *[f"{dup:+.2f}" if dup is not None else ""] * duplicate,
                          *[f"{r.metrics[k].mean:.3f}" if k in r.metrics else "" for k in metric_names])
        console.print(table)
        for cycle in group["cycles"]:
            console.print(literal("cycle (each beats the next with 95% confidence; one rating hides this): "
                                  + analysis.format_cycle(cycle)))
    note = unconfined_note(run_row["config"])
    if note:
        console.print(literal(note), style="bold red")
    if fault_list:
        # One line per agent and kind of fault, with the first occurrence as an example.
        summary = {}
        for f in fault_list:
            key = (f["game_id"], f["label"], f["kind"])
            if key not in summary:
                summary[key] = [0, f]
            summary[key][0] += 1
        table = Table(title="faults (the faulty agent lost each of these matches)", title_justify="left")
        for name in ("game", "agent", "kind", "matches", "first (match: message)"):
            table.add_column(name, justify="right" if name == "matches" else "left")
        for (game, label, kind), (count, f) in summary.items():
            table.add_row(game, literal(label), kind, str(count), literal(f"{f['match_id']}: {f['message']}"))
        console.print(table)


@main.command()
@click.argument("run_id", required=False, metavar="[RUN]")
@click.option("--game", "game_id", default=None, help="Only this game's leaderboards.")
@store_option
@json_option
@user_errors
def leaderboard(run_id, game_id, store_path, as_json):
    """Print a run's leaderboards again from the store (default: the latest run)."""
    if game_id is not None:
        import engines
        engines.spec(game_id)   # an unknown game is an error, not an empty leaderboard
    store, run_id = open_run(store_path, run_id)
    _print_leaderboards(store, run_id, as_json, game_id)
    store.close()


# ---------------------------------------------------------------- what is registered

@main.command()
@json_option
@user_errors
def games(as_json):
    """List the registered games with their players and parameters."""
    import engines
    from arena.text import format_value
    rows = []
    for g in engines.game_ids():
        s = engines.spec(g)
        rows.append({"game_id": g, "min_players": s.min_players, "max_players": s.max_players,
                     "default_players": s.default_players, "params": dict(s.params),
                     "choices": {k: list(v) for k, v in s.choices.items()}, "card_game": s.card_game,
                     "perfect_information": s.perfect_information, "description": s.description})
    if as_json:
        echo_json(rows)
        return
    cells = []
    for r in rows:
        params = ", ".join(f"{k}={format_value(v)}" + (f" ({'|'.join(r['choices'][k])})" if k in r["choices"] else "")
                           for k, v in r["params"].items())
        players = f"{r['min_players']}-{r['max_players']} ({r['default_players']})" \
            if r["min_players"] != r["max_players"] else str(r["min_players"])
        cells.append((r["game_id"], players, literal(params or "-"), literal(r["description"])))
    _print_table("games", ("game", "players", "parameters (defaults)", "description"), cells)


@main.command("agents")
@json_option
@user_errors
def agents_cmd(as_json):
    """List the built-in and installed agents with their parameters."""
    import agents as agent_registry
    from arena.agent_list import entry_points
    rows = []
    for name in agent_registry.agent_names():
        cls = agent_registry.agent_class(name)
        doc = (cls.__doc__ or "").strip().splitlines()
        rows.append({"name": name, "kind": "builtin", "params": dict(cls.PARAMS),
                     "description": doc[0] if doc else ""})
    for name, target in sorted(entry_points().items()):
        rows.append({"name": name, "kind": "entrypoint", "params": {}, "description": target})
    if as_json:
        echo_json(rows)
        return
    _print_table("agents", ("agent", "kind", "parameters (defaults)", "description"),
                 [(r["name"], r["kind"], literal(", ".join(f"{k}={v}" for k, v in r["params"].items()) or "-"),
                   literal(r["description"])) for r in rows])


def _print_table(title, columns, rows, **options):
    from rich.table import Table
    table = Table(title=title, **options)
    for c in columns:
        table.add_column(c)
    for r in rows:
        table.add_row(*r)
    rich_console().print(table)


# ---------------------------------------------------------------- check-agent

@main.command("check-agent")
@click.argument("agent")
@click.option("--game", "game_id", required=True, help="Game to check the agent on.")
@click.option("--players", type=int, default=None, help="Players (default: the game's).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter.")
@click.option("--games", type=click.IntRange(min=1, max=MAX_CHECK_GAMES), default=2, show_default=True,
              help="Matches against random agents (each replayed to check determinism).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIME_LIMIT,
              show_default=True, help="Seconds per move.")
@sandbox_option
@json_option
@user_errors
def check_agent(agent, game_id, players, params, games, seed, time_limit, sandbox, as_json):
    """Check a submitted agent (FILE.py:Class, module:Class) before a tournament."""
    from arena import schedule as sched
    from arena.agent_list import param_options, parse_agent
    from arena.checks import check_agent as run_checks
    from arena.sandbox import make_policy
    from arena.text import game_title
    from arena.tournament import check_time_limit
    time_limit = check_time_limit(time_limit)
    spec = parse_agent(agent)
    (game, full), = sched.resolve_games(game_id, players, param_options(params))
    if spec.kind == "builtin":
        import agents as agent_registry
        reason = agent_registry.agent_class(spec.source).cannot_play(game, full["players"])
        if reason:
            raise ArenaError(f"{spec.label} cannot play {game} with {full['players']} players: {reason}")
    full = json.loads(json.dumps(full))
    results = run_checks(spec, game, full, games=games, seed=seed, time_limit=time_limit,
                         policy=make_policy(sandbox))
    ok = all(r["ok"] for r in results)
    if as_json:
        echo_json({"agent": spec.label, "game_id": game, "params": full, "ok": ok, "checks": results})
    else:
        _print_table(literal(f"{spec.label} on {game_title(game, full, only_changed=True)}"),
                     ("check", "result", "detail"),
                     [(r["check"], "[green]ok[/]" if r["ok"] else "[red]FAILED[/]", literal(r["detail"]))
                      for r in results], title_justify="left")
    if not ok:
        sys.exit(1)


# ---------------------------------------------------------------- bench

@main.command()
@click.option("--game", "game_ids", multiple=True, help="Game id (repeatable; default: every game).")
@click.option("--repeats", type=click.IntRange(min=1, max=MAX_REPEATS), default=5, show_default=True)
@click.option("--search/--no-search", default=True, show_default=True,
              help="Include the search agents' benchmarks.")
@click.option("--arena", "with_arena", is_flag=True, help="Also measure the arena's games/s at 1 and 2 "
              "workers against a bare loop.")
@click.option("--arena-agents", default="greedy, random", show_default=True,
              help="The agents of the --arena measurement.")
@click.option("--arena-games", type=click.IntRange(min=1, max=MAX_CHECK_GAMES), default=None,
              help="Deals of the --arena measurement, each played in every seating "
                   "[default: about two seconds of bare play].")
@json_option
@user_errors
def bench(game_ids, repeats, search, with_arena, arena_agents, arena_games, as_json):
    """Measure playouts, clones and apply+undo per second (and more), as JSON rows."""
    import shutil

    import engines
    from arena import bench as b
    for g in game_ids:
        engines.spec(g)
    game_ids = list(game_ids) or engines.game_ids()

    def rows():
        for g in game_ids:
            yield from b.engine_rows(g, repeats=repeats)
        if search:
            yield from b.search_rows(game_ids)
        if with_arena:
            for g in game_ids:
                yield from b.arena_rows(g, repeats=min(repeats, 3), deals=arena_games, agents=arena_agents)
            if shutil.which("bwrap"):
                yield from b.sandbox_rows(repeats=min(repeats, 3))

    if as_json:
        for r in rows():
            click.echo(json.dumps(r))
        return
    from rich.table import Table
    table = Table(title="arena bench")
    for c, j in (("case", "left"), ("unit", "left"), ("median/s", "right"), ("vs baseline", "right")):
        table.add_column(c, justify=j)
    console = rich_console()
    for r in rows():
        ratio = r.get("speedup", r.get("ratio"))
        table.add_row(r["case"], r["unit"], f"{r['median_per_s']:,.0f}", f"x{ratio}" if ratio else "")
    console.print(table)


# ---------------------------------------------------------------- other engineers' command modules
# Add one import and one `main.add_command(...)` line per module below (reports, play/replay).
from arena.cli_reports import graph, matchups, report  # noqa: E402
from arena.cli_play import play, replay  # noqa: E402
for _command in (matchups, graph, report, play, replay):
    main.add_command(_command)


if __name__ == "__main__":
    main()
