"""`arena analyze`: what the games themselves are like (seat advantage, length, drama, skill), from
seeded games it plays or from a stored run. The figures are computed in arena.gamestats.analyze."""
import click

from arena.cli.common import (ArenaError, echo_json, jobs_option, json_option, literal, refuse_a_store,
                              rich_console, store_option, user_errors)
from arena.tournament.coordinator import DEFAULT_DEALS_ONE_GAME


@click.command(short_help="What a game is like: seats, length, drama, skill.")
@click.argument("game_id", metavar="[GAME]", required=False)
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Game parameter; NAME=a,b (or NAME repeated) plays and compares one variant per value.")
@click.option("--agents", "agents_text", default=None,
              help="Agents, strong first (one agent plays itself).  [default: greedy,random]")
@click.option("--games", "deals", type=click.IntRange(min=1), default=None,
              help=f"Deals per line-up and variant, each played in every seat rotation [default: "
                   f"{DEFAULT_DEALS_ONE_GAME}].")
@click.option("--seed", type=int, default=None, help="Seed of the deals [default: 0].")
@jobs_option
@click.option("--run", "run_ids", multiple=True, metavar="RUN",
              help="Analyze a stored run instead of playing (repeat to compare runs).")
@store_option
@click.option("--out", "out", default=None, type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML page with plots.")
@json_option
@user_errors
def analyze(game_id, params, agents_text, deals, seed, jobs, run_ids, store_path, out, as_json):
    """Play seeded games of GAME (or read --run RUN) and report what the game is like: seat advantage,
    length and tempo, decisiveness and drama, and how much skill matters, each with a 95% interval
    and the number of games behind it."""
    import engines
    from arena.gamestats import analyze as an
    from arena.store import Store

    if game_id is not None:
        engines.spec(game_id)
    if out is not None:
        refuse_a_store(out)
    if run_ids:
        given = [name for name, v in (("--param", params), ("--agents", agents_text), ("--games", deals),
                                      ("--seed", seed), ("--jobs", jobs)) if v not in (None, ())]
        if given:
            raise ArenaError(f"--run reads stored games: {', '.join(given)} cannot change them "
                             f"(leave them out, or play new games without --run)")
        store = Store(store_path, readonly=True)
        run_ids = [store.run(r)["run_id"] for r in run_ids]
    elif game_id is None:
        raise ArenaError("give a GAME to play (e.g. arena analyze insert) or --run RUN to read")
    else:
        an.check(game_id, params, agents_text or "greedy,random")   # before the store is created
        store = Store(store_path)
        err = rich_console(stderr=True)

        def on_plan(plan):
            if not as_json:
                err.print(literal(f"run {plan.run_id}: {len(plan.schedule)} matches, {plan.stored} already "
                                  f"stored, store {store_path}"))
        try:
            run_ids = an.play_variants(store, game_id, params, agents_text or "greedy,random",
                                       deals or DEFAULT_DEALS_ONE_GAME, 0 if seed is None else seed, jobs,
                                       on_plan=on_plan)
        except KeyboardInterrupt:
            raise click.Abort() from None
    result = an.analyze_runs(store, run_ids, game_id)
    if out is not None:
        try:
            an.write_html(result, out)
        except OSError as e:
            raise ArenaError(f"cannot write {out}: {e}") from None
    store.close()
    data = {k: v for k, v in result.items() if not k.startswith("_")}
    if as_json:
        echo_json({**data, "out": out})
        return
    _print(data)
    if out is not None:
        click.echo(f"wrote {out}")


def _print(data):
    from rich import box
    from rich.table import Table
    from arena.gamestats.analyze import BID_VALUE_TITLE, bid_rows, bid_value_rows, fmt

    console = rich_console()

    def table(title, *columns):
        t = Table(title=literal(title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for i, c in enumerate(columns):
            t.add_column(c, justify="left" if i == 0 else "right", no_wrap=i > 0)
        return t

    def add_row(t, *cells):   # cells are plain text: "[one deal: no interval]" is not markup
        t.add_row(*[literal(c) for c in cells])

    def games(iv):
        return "-" if iv is None else str(iv["games"])

    for g in data["groups"]:
        console.print(literal(f"{g['title']} - run {g['run_id']}: {g['matches']} matches on {g['deals']} deals, "
                              f"agents {', '.join(g['agents'])}"
                              + (f"; {g['faulted_matches']} matches ended by a fault left out"
                                 if g["faulted_matches"] else "")), style="bold")
        seat = g["seat"]
        t = table(f"seat advantage (fair win share {seat['fair_share']:.1%}; "
                  f"{'significant' if seat['significant'] else 'not significant'} at 95%)",
                  "seat", "win share [95%]", "score share [95%]", "mean return [95%]", "games", "")
        rows = [(f"seat {r['seat']}", r) for r in seat["seats"]] + \
               [(role.replace("_", " "), r) for role, r in seat["roles"].items()]
        for name, r in rows:
            add_row(t, name, fmt(r["win_share"], True), fmt(r["score_share"], True),
                      fmt(r.get("mean_return")), games(r["win_share"]), r["advantage"])
        console.print(t)
        t = table("length and tempo", "figure", "mean [95%]", "games")
        for k, iv in g["length"].items():
            add_row(t, k.replace("_", " "), fmt(iv), games(iv))
        b = g["branching"]
        add_row(t, "legal moves per decision", fmt(b["mean"]), games(b["mean"]))
        for phase, iv in b["by_phase"].items():
            add_row(t, f"  {phase} third", fmt(iv), games(iv))
        add_row(t, "forced decisions (one legal move)", fmt(b["forced_share"], True), games(b["forced_share"]))
        d = b["distribution"]
        if d["decisions"]:
            add_row(t, f"legal moves over {d['decisions']} decisions: p10 / median / p90 / max",
                      f"{d['p10']} / {d['median']} / {d['p90']} / {d['max']}", "")
        console.print(t)
        t = table("decisiveness and drama" + (" (scores move only at the end: the lead is settled by the "
                                              "last move)" if g["scores_only_at_end"] else ""),
                  "figure", "mean [95%]", "games")
        for k, iv in g["drama"].items():
            pct = k != "lead_changes"
            name = {"winner_leads_for_good": "winner leads for good from (share of the plies)",
                    "decided_last_round": "decided in the last round", "draw_rate": "draws (first place shared)",
                    "tie_rate": "ties at the top score"}.get(k, k.replace("_", " "))
            add_row(t, name, fmt(iv, pct) if iv else "- (one round)" if k == "decided_last_round" else "-", games(iv))
        console.print(t)
        if g["skill"]:
            t = table("skill: the first agent against the second", "agents", "score gap [95%]",
                      "score share [95%]", "games")
            for s in g["skill"]:
                add_row(t, f"{s['first']} vs {s['second']}", fmt(s["score_gap"]), fmt(s["score_share"], True),
                          games(s["score_gap"]))
            console.print(t)
        for name, rows in g["metrics"].items():
            t = table(f"{name.replace('_', ' ')} by seat", "seat", "mean [95%]", "games")
            for r in rows:
                add_row(t, "all seats" if r["seat"] == "all" else f"seat {r['seat']}", fmt(r), str(r["games"]))
            console.print(t)
        for rows_of, title in ((bid_rows, "bid accuracy by hand size (share of rounds bid exactly)"),
                               (bid_value_rows, BID_VALUE_TITLE)):
            table_rows = rows_of(g)
            if table_rows:
                head, rows = table_rows
                t = table(title, *head)
                for r in rows:
                    add_row(t, *r)
                console.print(t)
    for diff in data["differences"]:
        t = table(f"{diff['variant']} minus {diff['base']}", "figure", "base", "variant", "difference [95%]", "")
        for r in diff["figures"]:
            interval = f" [{r['low']:.3f}, {r['high']:.3f}]" if r["low"] is not None else ""
            add_row(t, literal(r["figure"]), f"{r['base']:.3f}", f"{r['variant']:.3f}", f"{r['mean']:+.3f}{interval}",
                      "significant" if r["significant"] else "")
        console.print(t)
    for note in data["notes"]:
        console.print(literal("note: " + note), style="dim")
