"""`arena games`, `arena agents` (what is registered), `arena check-agent` and `arena bench`."""
import json
import sys
from typing import Any

import click

from arena.cli.common import (
    ArenaError,
    WholeNumber,
    bot_limit_option,
    echo_json,
    json_option,
    literal,
    rich_console,
    sandbox_option,
    time_control_option,
    user_errors,
)
from arena.cli.layout import TEXT, Column
from arena.defaults import TIME_LIMIT as DEFAULT_TIME_LIMIT
from arena.text import printable

MAX_CHECK_GAMES = 1000   # check-agent matches and bench --arena deals: bounded work, like a run's size
MAX_REPEATS = 100        # bench measurements per case


@click.command()
@json_option
@user_errors
def games(as_json: bool) -> None:
    """List the registered games with their players and parameters."""
    import engines
    from arena.text import format_value
    rows: list[dict[str, Any]] = []
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
        params = ", ".join(f"{k}={format_value(v) or '(none)'}"
                           + (f" ({'|'.join(r['choices'][k])})" if k in r["choices"] else "")
                           for k, v in r["params"].items())
        players = f"{r['min_players']}-{r['max_players']} ({r['default_players']})" \
            if r["min_players"] != r["max_players"] else str(r["min_players"])
        cells.append((r["game_id"], players, literal(params or "-"), literal(r["description"])))
    _print_table("games", [Column("game"), Column("players"),
                           Column("parameters (defaults)", wrap=TEXT, importance=1),
                           Column("description", wrap=TEXT, importance=0)], cells)


@click.command("agents")
@json_option
@user_errors
def agents(as_json: bool) -> None:
    """List the built-in and installed agents with their parameters. A built-in agent that needs a
    library not installed here (the openspiel_* agents need OpenSpiel) is listed as unavailable,
    with what installs it."""
    import agents as agent_registry
    from arena.agent_list import entry_points
    rows: list[dict[str, Any]] = []
    for name in agent_registry.agent_names():
        cls = agent_registry.agent_class(name)
        doc = (cls.__doc__ or "").strip().splitlines()
        rows.append({"name": name, "kind": "builtin", "params": dict(cls.PARAMS),
                     "description": doc[0] if doc else "", "unavailable": cls.missing()})
    for name, target in sorted(entry_points().items()):
        rows.append({"name": name, "kind": "entrypoint", "params": {}, "description": target, "unavailable": None})
    if as_json:
        echo_json(rows)
        return
    _print_table("agents", [Column("agent"), Column("kind", importance=2),
                            Column("parameters (defaults)", wrap=TEXT, importance=1),
                            Column("description", wrap=TEXT, importance=0)],
                 [(r["name"], r["kind"] + ("\n[yellow]unavailable[/]" if r["unavailable"] else ""),
                   literal(", ".join(f"{k}={v}" for k, v in r["params"].items()) or "-"),
                   literal(r["unavailable"] or r["description"])) for r in rows])


def _print_table(title, columns, rows, **options):
    from arena.cli.layout import print_table
    print_table(rich_console(), columns, rows, title=title, **options)


# ---------------------------------------------------------------- check-agent

@click.command("check-agent")
@click.argument("agent")
@click.option("--game", "game_id", required=True, help="Game to check the agent on.")
@click.option("--players", type=int, default=None, help="Players (default: the game's).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter.")
@click.option("--games", type=WholeNumber(min=1, max=MAX_CHECK_GAMES), default=2, show_default=True,
              help="Matches against random agents (each replayed to check determinism).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIME_LIMIT,
              show_default=True, help="Seconds per move.")
@time_control_option
@sandbox_option
@bot_limit_option
@json_option
@user_errors
def check_agent(agent: str, game_id: str, players: int | None, params: tuple[str, ...], games: int, seed: int,
                time_limit: float, time_control: str | None, sandbox: str, bot_limits: tuple[str, ...],
                as_json: bool) -> None:
    """Check a submitted agent (FILE.py:Class, module:Class, exec:PATH) before a tournament.

    The agent plays --games matches against random agents, each replayed with the same seeds, in
    its sandbox. Each check is ok, FAILED (with the first problem: the match, the move and the
    fault, one of exception, illegal, timeout or crash), or "not run": the checks stop at the first
    failure, and the checks after it, and a check that nothing tested (determinism before a match
    was played and replayed to its end), are never reported as passed. --json lists the checks
    that ran under "checks" and the others under "not_run". An exec:PATH bot also has the
    protocol's checks (docs/protocol.md): its hello, its replies, a legal move in every phase of the
    game, its stderr, and determinism only when its bot.toml says deterministic = true (else not
    run, and not required).

    Exit code 0 when every required check ran and passed, 1 when one failed or did not run, 2 when
    the agent could not be checked at all (an unknown agent, a bad parameter, a failed build).
    """
    from arena import edge
    from arena.text import game_title
    from arena.tournament import schedule as sched
    from arena.tournament.checks import check_agent as run_checks
    from arena.tournament.checks import check_names, not_required, not_run
    time_limit = edge.time_limit(time_limit)
    clock = edge.time_control(time_control)
    policy = edge.sandbox_policy(sandbox, bot_limits)
    spec = edge.agent(agent, policy)
    setting = edge.game(game_id, players, params, command="check-agent")
    game = setting.game_id
    sched.check_can_play([spec], game, setting.params)
    full = json.loads(json.dumps(setting.params))
    results = run_checks(spec, game, full, games=games, seed=seed, time_limit=time_limit, policy=policy,
                         time_control=clock)
    exec_agent = spec.kind == "exec"
    missing = not_run(results, exec_agent)
    optional = not_required(spec)
    ok = all(r["ok"] for r in results) and not set(missing) - set(optional)
    if as_json:
        echo_json({"agent": spec.label, "game_id": game, "params": full, "ok": ok, "checks": results,
                   "not_run": missing})
    else:
        why = "the checks stopped at the first failure" if not all(r["ok"] for r in results) \
            else "the agent had no move"
        names = check_names(exec_agent)
        reasons = {name: "its bot.toml does not say deterministic = true" for name in optional}
        if exec_agent and all(r["ok"] for r in results):
            reasons[names["phases"]] = "a phase of the game was not reached"
        rows = [(r["check"], "[green]ok[/]" if r["ok"] else "[red]FAILED[/]", literal(r["detail"]))
                for r in results] + [(name, "[yellow]not run[/]", reasons.get(name, why)) for name in missing]
        order = {name: i for i, name in enumerate(names.values())}
        _print_table(literal(f"{spec.label} on {game_title(game, full, only_changed=True)}"),
                     [Column("check", wrap=TEXT), Column("result"), Column("detail", wrap=TEXT)],
                     sorted(rows, key=lambda row: order[row[0]]), title_justify="left")
        printed = next((r["output"] for r in results if r.get("output")), None)
        if printed:
            from arena.reports.faults import quoted
            click.echo(f"what {printable(spec.label, keep='')} printed in that match:")
            click.echo("\n".join(quoted(printed["text"], printed["cut"])))
    if not ok:
        sys.exit(1)


# ---------------------------------------------------------------- bench

MAX_REPORT_STORE = 10_000_000


def _sizes(text):
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or not all(100 <= n <= MAX_REPORT_STORE for n in sizes):
        raise ArenaError(f"--reports-sizes takes store sizes from 100 to {MAX_REPORT_STORE:,} matches, "
                         f"separated by commas, not {text!r}")
    return sizes


@click.command()
@click.option("--game", "game_ids", multiple=True, help="Game id (repeatable; default: every game).")
@click.option("--repeats", type=WholeNumber(min=1, max=MAX_REPEATS), default=5, show_default=True)
@click.option("--search/--no-search", default=True, show_default=True,
              help="Include the search agents' benchmarks.")
@click.option("--arena", "with_arena", is_flag=True, help="Also measure the arena's games/s at 1 and 2 "
              "workers against a bare loop.")
@click.option("--arena-agents", default="greedy, random", show_default=True,
              help="The agents of the --arena measurement; a submitted one (exec:PATH, FILE.py:Class) is "
                   "measured in moves/s beside a Python file bot that plays random, as no bare loop plays it.")
@click.option("--arena-games", type=WholeNumber(min=1, max=MAX_CHECK_GAMES), default=None,
              help="Deals of the --arena measurement, each played in every seating "
                   "[default: about two seconds of bare play].")
@click.option("--reports", "with_reports", is_flag=True,
              help="Only the reporting benchmark: leaderboard, matchups, report and graph on synthetic stores "
                   "(time and peak memory beside SQLite counting the rows).")
@click.option("--reports-sizes", default="10000,100000,1000000", show_default=True, metavar="N,N,...",
              help="The store sizes (matches) of --reports.")
@click.option("--verdict", "with_verdict", is_flag=True,
              help="Only the time to a verdict: deals and CPU seconds `arena compare` needs to decide on fixed "
                   "pairs (an agent against itself, ismcts against half its iterations, against minimax), with "
                   "independent and with coupled seeds, and the per-deal sd of each (arena.bench.verdict).")
@click.option("--verdict-iterations", type=WholeNumber(min=2, max=100000), default=100, show_default=True,
              help="The ismcts iterations of --verdict's pairs.")
@click.option("--verdict-deals", type=WholeNumber(min=1, max=100000), default=30, show_default=True,
              help="--verdict: the most deals of a comparison before it stops undecided.")
@click.option("--verdict-sd-deals", type=WholeNumber(min=2, max=100000), default=20, show_default=True,
              help="--verdict: the deals each comparison is completed to for its per-deal sd.")
@click.option("--verdict-seeds", type=WholeNumber(min=1, max=1000), default=1, show_default=True,
              help="--verdict: comparisons per game, pair and seeding, each on other deals.")
@click.option("--verdict-pairs", default="identical,halved,minimax", show_default=True, metavar="NAME,...",
              help="--verdict: the pairs to play.")
@click.option("--verdict-replays", type=WholeNumber(min=0, max=100), default=4, show_default=True,
              help="--verdict: replays per deal of the corrected arm (coupled, scored by the mean over replays "
                   "from the divergence); 0 leaves that arm out.")
@click.option("--instructions", "with_instructions", is_flag=True,
              help="Only instruction counts per playout and per search iteration, under valgrind's callgrind "
                   "(they repeat on a busy machine, where seconds do not).")
@json_option
@user_errors
def bench(game_ids: tuple[str, ...], repeats: int, search: bool, with_arena: bool, arena_agents: str,
          arena_games: int | None, with_reports: bool, reports_sizes: str, with_verdict: bool,
          verdict_iterations: int, verdict_deals: int, verdict_sd_deals: int, verdict_seeds: int, verdict_pairs: str,
          verdict_replays: int, with_instructions: bool, as_json: bool) -> None:
    """Measure playouts, clones and apply+undo per second (and more), each beside its baseline: a
    table, or with --json one JSON object per line (a row as soon as it is measured)."""
    import shutil

    import engines
    from arena import bench as b
    for g in game_ids:
        engines.spec(g)
    games = list(game_ids) or engines.game_ids()
    sizes = _sizes(reports_sizes)
    if with_reports:
        from arena.extras import require
        require("arena bench --reports", "matplotlib")

    pairs = [p.strip() for p in verdict_pairs.split(",") if p.strip()]
    if with_verdict:
        from arena.bench import verdict
        known = [name for name, _, _ in verdict.pairs(verdict_iterations)]
        if not pairs or set(pairs) - set(known):
            raise ArenaError(f"--verdict-pairs takes some of {', '.join(known)}, not {verdict_pairs!r}")

    def rows():
        if with_verdict:
            yield from verdict.rows([g for g in games if g in verdict.GAMES], verdict_iterations, verdict_deals,
                                    verdict_sd_deals, verdict_seeds, which=pairs, replays=verdict_replays)
            return
        if with_instructions:
            from arena.bench import instructions
            yield from instructions.rows(games, search)
            return
        if with_reports:
            from arena.bench import reports
            yield from reports.rows(sizes, repeats=min(repeats, 3))
            return
        for g in games:
            yield from b.engine_rows(g, repeats=repeats)
        if search:
            yield from b.search_rows(games)
        if with_arena:
            for g in games:
                yield from b.arena_rows(g, repeats=min(repeats, 3), deals=arena_games, agents=arena_agents)
            if shutil.which("bwrap"):
                yield from b.sandbox_rows(repeats=min(repeats, 3))

    if as_json:
        for r in rows():
            click.echo(json.dumps(r))
        return
    if with_verdict:
        _print_table("arena bench --verdict", [Column("case", wrap=TEXT), Column("deals", justify="right"),
                                               Column("sd", justify="right"), Column("CPU s", justify="right")],
                     [_verdict_cells(r) for r in rows()])
        return
    figure = "instructions" if with_instructions else "median_per_s"
    cells = [[literal(r["case"]), literal(r["unit"]), f"{r[figure]:,.0f}",
              f"x{r.get('speedup') or r.get('ratio')}" if r.get("speedup") or r.get("ratio") else ""] for r in rows()]
    _print_table("arena bench", [Column("case", wrap=TEXT), Column("unit", wrap=TEXT, importance=0),
                                 Column("count" if with_instructions else "median/s", justify="right"),
                                 Column("vs baseline", justify="right")], cells)


def _verdict_cells(r):
    """A --verdict row as table cells: a comparison's, or a summary's (independent -> coupled)."""
    if "pair" in r:
        a, b = r["independent"], r["coupled"]
        return [literal(r["case"]), f"{a['median_deals']:g} -> {b['median_deals']:g}", f"{a['sd']} -> {b['sd']}",
                f"{a['median_cpu_s']} -> {b['median_cpu_s']}"]
    return [literal(r["case"]), f"{r['deals']} ({r['decision'] or 'undecided'})", f"{r['sd']}", f"{r['cpu_s']}"]
