"""`arena runs` (the runs of a store) and `arena matches` (the matches of a run, with the numbers
`arena replay` takes)."""
import json
import time
from typing import Any

import click

from arena.cli.common import echo_json, json_option, literal, open_run, rich_console, store_option, user_errors
from arena.text import match_result, printable


@click.command(short_help="List the runs of a store: kind, status, matches, games, agents.")
@store_option
@json_option
@user_errors
def runs(store_path: str, as_json: bool) -> None:
    """List the runs of a store, oldest first: the run id, its kind (tournament of `arena run`,
    compare, analyze, play: a game played in `arena serve`, ladder), its status (finished; running;
    interrupted: stopped part-way, `arena run --resume RUN` continues a tournament; idle: a ladder
    that no `arena ladder run` plays now), the matches played of those planned (a comparison plans
    its most deals and may decide sooner; a ladder plans none ahead: its matches played), its games and
    agents (a ladder's: its active entries), and when it was created. The reading commands (leaderboard, matchups, graph, report,
    matches, replay) take a RUN and default to the latest tournament."""
    from arena.ladder import store as ladders
    from arena.store import Store
    store = Store(store_path, readonly=True)
    played = store.played()
    entered = ladders.active_names(store)   # a ladder's agents are its active entries
    rows: list[dict[str, Any]] = []
    for run in store.runs():
        rows.append({"run_id": run.run_id, "kind": run.kind, "status": run.status,
                     "played": played.get(run.run_id, 0),
                     "planned": None if run.kind == "ladder" else run.total,   # a ladder plans no end
                     "games": list(run.game_ids), "agents": entered.get(run.run_id, list(run.labels)),
                     "created": run.created, "book": run.book and dict(run.book)})
    store.close()
    if as_json:
        echo_json(rows)
        return
    from rich import box
    from rich.table import Table
    console = rich_console()
    if not rows:
        console.print(literal(f"no run in {store_path} yet: start one with `arena run`"))
        return
    from arena.text import book_text
    books = any(r["book"] for r in rows)   # a column only for a store where a deal book was played
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for name in ("run", "kind", "status", "matches", "games", "agents", "created") + (("deal book",) if books else ()):
        table.add_column(name, justify="right" if name == "matches" else "left",
                         no_wrap=name in ("run", "matches", "created"))
    for r in rows:
        matches = f"{r['played']}" if r["planned"] is None else f"{r['played']}/{r['planned']}"
        table.add_row(literal(r["run_id"]), r["kind"], r["status"], matches,
                      literal(", ".join(r["games"])), literal(", ".join(r["agents"])),
                      time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created"])),
                      *([literal(book_text(r["book"])) if r["book"] else "-"] if books else []))
    console.print(table)


def match_row(match: dict[str, Any], title: str) -> dict[str, Any]:
    """A stored match as `arena matches` lists it: its line-up, result and faults."""
    from arena.results.outcome import faulty_seats
    labels = [s["label"] for s in match["seats"]]
    faulty = faulty_seats(match)
    # seats (a label may hold two); by the fault rule, a seat that faulted never won
    winners = [seat for seat, place in enumerate(match["placements"]) if place == 1 and seat not in faulty]
    return {"match_id": match["match_id"], "game": title, "game_id": match["game_id"],
            "game_params": match["game_params"], "deal": match["deal"], "seed": match["seed"],
            "seats": labels, "returns": match["returns"], "placements": match["placements"], "winners": winners,
            "lost_by_fault": faulty,
            "faults": [{"seat": f["seat"], "label": f["label"], "kind": f["kind"], "message": f["message"]}
                       for f in match["faults"]]}


def _cells(row):
    """The text columns of a match_row: match, game, line-up, result, faults."""
    result = match_result(row["seats"], row["placements"], row["returns"], row["lost_by_fault"])
    faults = "; ".join(f"seat {f['seat']} {f['label']}: {f['kind']}" for f in row["faults"]) or "-"
    return tuple(printable(c, keep="") for c in (
        str(row["match_id"]), row["game"], ", ".join(f"{i}: {label}" for i, label in enumerate(row["seats"])),
        result, faults))


@click.command(short_help="List a run's matches: number, game, line-up, result, faults.")
@click.argument("run_id", metavar="[RUN]", required=False)
@store_option
@json_option
@user_errors
def matches(run_id: str | None, store_path: str, as_json: bool) -> None:
    """List the stored matches of a run in match order: the match number (`arena replay [RUN]
    MATCH` steps through it), the game, the line-up (seat: agent), the result (the winning seat,
    each seat's return) and the faults; --json gives the winners as seat numbers. RUN defaults to the latest tournament (`arena runs` lists the runs)."""
    from arena.text import game_title
    store, run_id = open_run(store_path, run_id)
    titles = {}

    def rows():
        for m in store.results(run_id):
            key = json.dumps(m["game_params"], sort_keys=True)
            if (m["game_id"], key) not in titles:
                titles[m["game_id"], key] = game_title(m["game_id"], m["game_params"], only_changed=True)
            yield match_row(m, titles[m["game_id"], key])

    total = store.run(run_id).total
    if as_json:
        # Written as it is read: a run of a million matches is listed without holding it in memory.
        click.echo(f'{{"run_id": {json.dumps(run_id)}, "total": {total}, "matches": [', nl=False)
        for i, row in enumerate(rows()):
            click.echo(("," if i else "") + "\n  " + json.dumps(row), nl=False)
        click.echo("\n]}")
        store.close()
        return
    played = store.count(run_id)
    if not played:
        click.echo(f"run {run_id} has no finished match yet")
        store.close()
        return
    # Two passes over the store (the columns' widths, then the lines): any run fits, aligned.
    head = ("match", "game", "line-up", "result", "faults")
    widths = [len(h) for h in head]
    for row in rows():
        widths = [max(w, len(c)) for w, c in zip(widths, _cells(row))]

    def line(cells):
        return "  ".join(c.rjust(w) if i == 0 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    numbers = store.match_numbers(run_id)
    click.echo(f"run {run_id}: {played} of {total} matches" + (f", numbered {numbers}" if "," in numbers else ""))
    click.echo(line(head))
    for row in rows():
        click.echo(line(_cells(row)))
    store.close()
