"""`arena analyze`: what the games themselves are like (seat advantage, length, drama, skill, the
balance of their components), from seeded games it plays or from a stored run. The figures are
computed in arena.gamestats.figures (components: arena.gamestats.balance)."""

import click

from arena.cli.common import (
    ArenaError,
    WholeNumber,
    echo_json,
    jobs_option,
    json_option,
    literal,
    out_option,
    rich_console,
    store_option,
    user_errors,
    writing,
)
from arena.defaults import ANALYZE_DEALS as DEFAULT_DEALS


@click.command(short_help="What a game is like: seats, length, drama, skill.")
@click.argument("game_id", metavar="[GAME]", required=False)
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Game parameter; NAME=a,b (or NAME repeated) plays and compares one variant per value.")
@click.option("--agents", "agents_text", default=None,
              help="Agents, strong first (one agent plays itself).  [default: greedy,random]")
@click.option("--games", "deals", type=WholeNumber(min=1), default=None,
              help=f"Deals per line-up and variant, each played in every seat rotation [default: "
                   f"{DEFAULT_DEALS}].")
@click.option("--seed", type=int, default=None, help="Seed of the deals [default: 0].")
@jobs_option
@click.option("--run", "run_ids", multiple=True, metavar="RUN",
              help="Analyze a stored run instead of playing (repeat to compare runs).")
@store_option
@out_option("Also write a self-contained HTML page with plots (in a folder that exists).")
@json_option
@user_errors
def analyze(game_id: str | None, params: tuple[str, ...], agents_text: str | None, deals: int | None,
            seed: int | None, jobs: int | None, run_ids: tuple[str, ...], store_path: str, out: str | None,
            as_json: bool) -> None:
    """Play seeded games of GAME (or read --run RUN) and report what the game is like: seat advantage,
    length and tempo, decisiveness and drama, how much skill matters, and the balance of its
    components (each card, tile or animal: the effect on the score share of the seat that plays or
    holds it), each with a 95% interval and the number of games behind it."""
    import engines
    from arena import edge
    from arena.gamestats import figures, page, variants
    from arena.store import Store

    if out is not None:
        from arena.extras import require
        require("arena analyze --out", "matplotlib")
    if game_id is not None:
        engines.spec(game_id)
    if run_ids:
        given = [name for name, v in (("--param", params), ("--agents", agents_text), ("--games", deals),
                                      ("--seed", seed), ("--jobs", jobs)) if v not in (None, ())]
        if given:
            raise ArenaError(f"--run reads stored games: {', '.join(given)} cannot change them "
                             f"(leave them out, or play new games without --run)")
        store = Store(store_path, readonly=True)
        analyzed = [store.run(r).run_id for r in run_ids]
    elif game_id is None:
        raise ArenaError("give a GAME to play (e.g. arena analyze insert) or --run RUN to read")
    else:
        games = edge.game_variants(game_id, params)   # read before the store is created
        agents = edge.self_play(agents_text or edge.DEFAULT_AGENTS)
        store = Store(store_path)
        err = rich_console(stderr=True)

        def on_plan(plan):
            if not as_json:
                err.print(literal(f"run {plan.run_id}: {len(plan.schedule)} matches, {plan.stored} already "
                                  f"stored, store {store_path}"))
        try:
            analyzed = variants.play_variants(store, games, agents, deals or DEFAULT_DEALS, 0 if seed is None else seed,
                                       jobs, on_plan=on_plan)
        except KeyboardInterrupt:
            raise click.Abort() from None
    result = figures.analyze_runs(store, analyzed, game_id)
    if out is not None:
        with writing(out):
            page.write_html(result, out)
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

    from arena.cli.layout import LABEL, Column, print_table
    from arena.gamestats.figures import BID_VALUE_TITLE, bid_rows, bid_value_rows, fmt

    console = rich_console()

    def show(title, columns, rows):
        """A table of figures: its first column names them; the further right a column, the sooner a
        narrow terminal leaves it out, the games behind a figure first."""
        columns = [Column(c, justify="left" if i == 0 else "right", wrap=LABEL if i == 0 else 0,
                          importance=None if i == 0 else -len(columns) if c == "games" else -i)
                   for i, c in enumerate(columns)]
        # cells are plain text: "[one deal: no interval]" is not markup
        print_table(console, columns, [[literal(c) for c in row] for row in rows], title=literal(title),
                    title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)

    def games(iv):
        return "-" if iv is None else str(iv["games"])

    for g in data["groups"]:
        console.print(literal(f"{g['title']} - run {g['run_id']}: {g['matches']} matches on {g['deals']} deals, "
                              f"agents {', '.join(g['agents'])}"
                              + (f"; {g['faulted_matches']} matches ended by a fault left out"
                                 if g["faulted_matches"] else "")), style="bold")
        seat = g["seat"]
        rows = [(f"seat {r['seat']}", r) for r in seat["seats"]] + \
               [(role.replace("_", " "), r) for role, r in seat["roles"].items()]
        show(f"seat advantage (fair win share {seat['fair_share']:.1%}; "
             f"{'significant' if seat['significant'] else 'not significant'} at 95%)",
             ["seat", "win share [95%]", "score share [95%]", "mean return [95%]", "games", "advantage"],
             [[name, fmt(r["win_share"], True), fmt(r["score_share"], True), fmt(r.get("mean_return")),
               games(r["win_share"]), r["advantage"]] for name, r in rows])
        rows = [[k.replace("_", " "), fmt(iv), games(iv)] for k, iv in g["length"].items()]
        b = g["branching"]
        rows.append(["legal moves per decision", fmt(b["mean"]), games(b["mean"])])
        rows += [[f"  {phase} third", fmt(iv), games(iv)] for phase, iv in b["by_phase"].items()]
        rows.append(["forced decisions (one legal move)", fmt(b["forced_share"], True), games(b["forced_share"])])
        d = b["distribution"]
        if d["decisions"]:
            rows.append([f"legal moves over {d['decisions']} decisions: p10 / median / p90 / max",
                         f"{d['p10']} / {d['median']} / {d['p90']} / {d['max']}", ""])
        show("length and tempo", ["figure", "mean [95%]", "games"], rows)
        rows = []
        for k, iv in g["drama"].items():
            pct = k != "lead_changes"
            name = {"winner_leads_for_good": "winner leads for good from (share of the plies)",
                    "decided_last_round": "decided in the last round", "draw_rate": "draws (first place shared)",
                    "tie_rate": "ties at the top score"}.get(k, k.replace("_", " "))
            rows.append([name, fmt(iv, pct) if iv else "- (one round)" if k == "decided_last_round" else "-",
                         games(iv)])
        show("decisiveness and drama" + (" (scores move only at the end: the lead is settled by the last move)"
                                         if g["scores_only_at_end"] else ""), ["figure", "mean [95%]", "games"], rows)
        if g["skill"]:
            show("skill: the first agent against the second",
                 ["agents", "score gap [95%]", "score share [95%]", "games"],
                 [[f"{s['first']} vs {s['second']}", fmt(s["score_gap"]), fmt(s["score_share"], True),
                   games(s["score_gap"])] for s in g["skill"]])
        for name, rows in g["metrics"].items():
            show(f"{name.replace('_', ' ')} by seat", ["seat", "mean [95%]", "games"],
                 [["all seats" if r["seat"] == "all" else f"seat {r['seat']}", fmt(r), str(r["games"])]
                  for r in rows])
        for rows_of, title in ((bid_rows, "bid accuracy by hand size (share of rounds bid exactly)"),
                               (bid_value_rows, BID_VALUE_TITLE)):
            table_rows = rows_of(g)
            if table_rows:
                head, rows = table_rows
                show(title, head, rows)
        _print_components(show, g["components"])
    for diff in data["differences"]:
        rows = []
        for r in diff["figures"]:
            interval = f" [{r['low']:.3f}, {r['high']:.3f}]" if r["low"] is not None else ""
            rows.append([r["figure"], f"{r['base']:.3f}", f"{r['variant']:.3f}", f"{r['mean']:+.3f}{interval}",
                         "significant" if r["significant"] else ""])
        show(f"{diff['variant']} minus {diff['base']}", ["figure", "base", "variant", "difference [95%]", "at 95%"], rows)
    for note in data["notes"]:
        console.print(literal("note: " + note), style="dim")


def _print_components(show, section):
    from arena.gamestats.balance import effect_text
    from arena.gamestats.figures import fmt

    if section["bid_total_equals_tricks"] is not None:
        show("bids", ["figure", "mean [95%]", "games"],
             [["rounds whose bids add up to the tricks", fmt(section["bid_total_equals_tricks"], True),
               str(section["bid_total_equals_tricks"]["games"])]])
    if section["rows"]:
        show(f"components: effect on the seat's score share [95%], flagged beyond +/-{section['margin']} after "
             f"{section['correction']}" + ("" if section["duplicate"] else " (not duplicate deals: unpaired)"),
             ["component", "how", "effect [95%]", "flag", "deals", "games"],
             [[f"{r['family']} {r['item']}", r["how"] + ("" if r["paired"] else " (unpaired)"), effect_text(r),
               r["flag"], str(r["deals"]), str(r["games"])] for r in section["rows"]])
