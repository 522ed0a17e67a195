"""`arena matchups`, `arena graph` and `arena report`: the head-to-head view of a stored tournament.

networkx, matplotlib and rich are imported inside the commands, so that registering these commands
does not slow down every other `arena` command.
"""
import json

import click

from arena.cli.common import (
    echo_json,
    json_option,
    literal,
    open_run,
    out_option,
    rich_console,
    store_option,
    user_errors,
    writing,
)
from arena.reports.tables import GRAPH_LEGEND, INTERVALS, MATCHUPS_LEGEND
from arena.text import interval_text, jsonable

_run = click.argument("run_id", metavar="[RUN]", required=False)


def _cell(iv):
    text = interval_text(iv)
    if iv.low > 0.5:
        return f"[green]{text}[/]"
    if iv.high < 0.5:
        return f"[red]{text}[/]"
    return text


@click.command(short_help="Each agent's score against each other agent.",
               help="Show each agent's score against each other agent with 95% intervals, over deals (each "
                    "played in every seat rotation), and a verdict per game. RUN defaults to the latest tournament."
                    "\n\nA cell: the " + MATCHUPS_LEGEND + ".")
@_run
@store_option
@json_option
@user_errors
def matchups(run_id: str | None, store_path: str, as_json: bool) -> None:
    from arena.cli.layout import LABEL, Column, print_table
    from arena.cli.run import print_legend, print_verdict
    from arena.reports.sections import run_sections
    from arena.results import standings
    from arena.text import game_title
    store, run_id = open_run(store_path, run_id)
    out = [{"game_id": s["game_id"], "game_params": s["game_params"], "order": summ["order"],
            "head_to_head": summ["head_to_head"], "cycles": s["cycles"], "verdict": s["verdict"]}
           for s, summ in zip(*run_sections(store, run_id))]
    if as_json:
        echo_json(jsonable({"run_id": run_id, "groups": out}))
        return
    console = rich_console()
    if not out:
        console.print(f"run {run_id} has no finished matches yet")
    for grp in out:
        # A narrow terminal leaves out the columns of the agents lowest in the leaderboard first.
        order = grp["order"]
        columns = [Column("agent \\ opponent", wrap=LABEL)] + [
            Column(b, justify="right", importance=-k) for k, b in enumerate(order)]
        rows = []
        for a in order:
            row = grp["head_to_head"].get(a, {})
            name = literal(a)
            name.stylize("bold")
            rows.append([name] + ["" if a == b else _cell(row[b]) if b in row else "-" for b in order])
        title = game_title(grp["game_id"], grp["game_params"], only_changed=True)
        print_table(console, columns, rows, title=literal(f"{title} - run {run_id}"), title_justify="left")
        for c in grp["cycles"]:
            line = literal("cycle: " + standings.format_cycle(c))
            line.stylize("red", 0, len("cycle:"))
            console.print(line)
        print_verdict(console, grp["verdict"])
    if out:
        print_legend(console, [("cell", MATCHUPS_LEGEND), INTERVALS])


@click.command(short_help="Draw who beats whom (PNG, SVG or HTML).",
               help="Draw who beats whom, one panel per game. RUN defaults to the latest "
                    "tournament.\n\n" + GRAPH_LEGEND)
@_run
@out_option("Where to draw the graph: FILE.png, FILE.svg or FILE.html (in a folder that exists).",
            required=True)
@store_option
@json_option
@user_errors
def graph(run_id: str | None, out: str, store_path: str, as_json: bool) -> None:
    from arena.extras import require
    require("arena graph", "matplotlib")
    from arena.reports import graphs
    from arena.results import standings, tallies
    store, run_id = open_run(store_path, run_id)
    with writing(out):
        drawn = graphs.write(tallies.read(store, run_id), out, run_id)
    if as_json:
        echo_json(jsonable({"run_id": run_id, "out": out,
                                     "graphs": [graphs.graph_json(t, g) for t, g in drawn]}))
        return
    click.echo(f"wrote {out}")
    for title, g in drawn:
        for c in g.graph["cycles"]:
            click.echo(f"{title}: cycle {standings.format_cycle(c)}")


@click.command(short_help="Write one self-contained HTML page for a run.")
@_run
@out_option("The HTML file to write, in a folder that exists [default: report-RUN.html beside the store].")
@store_option
@json_option
@user_errors
def report(run_id: str | None, out: str | None, store_path: str, as_json: bool) -> None:
    """Write one self-contained HTML page for a tournament: per game the leaderboard (the columns,
    figures, verdict and legend of `arena leaderboard`), the head-to-head heatmap, the matchup graph
    and the ratings over time; then the faults and how to reproduce it. RUN defaults to the latest
    tournament. While `arena serve` runs on the store, the listed matches link to their replays there."""
    from arena.extras import require
    require("arena report", "matplotlib")
    from arena.reports import report as report_mod
    store, run_id = open_run(store_path, run_id)
    out = out or report_mod.default_path(store.path, run_id)
    with writing(out):
        path, data = report_mod.write(store, run_id, out)
    if as_json:
        click.echo(json.dumps({"out": path, **data}, indent=2, default=str))
        return
    click.echo(f"wrote {path}")
    if data["server"]:
        click.echo(f"replays of its matches: {data['server']}runs/{run_id}")
