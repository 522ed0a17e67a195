"""`arena analyze --out FILE.html`: the analysis as one self-contained HTML page (inline SVG plots),
made of the report's parts (arena.reports.html_parts) and styles."""
from typing import Any

from arena.gamestats import balance
from arena.gamestats.figures import BID_VALUE_TITLE, FIGURE_NAMES, bid_rows, bid_value_rows, fmt
from arena.reports.html_parts import escape as e
from arena.reports.html_parts import figure, table


def _seat_figure(group):
    from arena.reports.graphs import pyplot
    plt = pyplot()
    rows = [(f"seat {r['seat']}", r["win_share"]) for r in group["seat"]["seats"]] + \
           [(role.replace("_", " "), r["win_share"]) for role, r in group["seat"]["roles"].items()]
    rows = [(name, iv) for name, iv in rows if iv is not None]
    fig, ax = plt.subplots(figsize=(6, 2.8))
    xs = range(len(rows))
    means = [iv["mean"] for _, iv in rows]
    ax.bar(xs, means, color="#4c72b0",
           yerr=[[iv["mean"] - iv["low"] for _, iv in rows], [iv["high"] - iv["mean"] for _, iv in rows]], capsize=4)
    ax.axhline(group["seat"]["fair_share"], color="#d62728", linestyle="--", linewidth=1)
    ax.set_xticks(list(xs), [name for name, _ in rows], fontsize=8, rotation=20)
    ax.set_ylabel("win share")
    ax.set_ylim(0, 1)
    return fig


def _branching_figure(group):
    from arena.reports.graphs import pyplot
    plt = pyplot()
    counts = group["branching"]["distribution"]["counts"]
    fig, ax = plt.subplots(figsize=(6, 2.8))
    from matplotlib.ticker import MaxNLocator
    ax.bar([int(k) for k in counts], list(counts.values()), color="#55a868")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("legal moves at a decision")
    ax.set_ylabel("decisions")
    return fig


def _components_html(group):
    """The components section of a group in the HTML page: its table and its forest plot."""
    from arena.reports import graphs
    section = group["components"]
    parts = []
    if section["bid_total_equals_tricks"] is not None:
        parts += ["<h3>Bids</h3>", table(["figure", "mean [95%]", "games"],
                                         [["rounds whose bids add up to the tricks",
                                           e(fmt(section["bid_total_equals_tricks"], True)),
                                           section["bid_total_equals_tricks"]["games"]]])]
    if not section["rows"]:
        return parts
    rows = [[e(f"{r['family']} {r['item']}"), e(r["how"] + ("" if r["paired"] else " (unpaired)")),
             e(balance.effect_text(r)), e(r["flag"]), r["deals"], r["games"]] for r in section["rows"]]
    caption = (f"Each component's effect on the score share of the seat with it, with its 95% interval over deals, "
               f"largest at the top; dotted lines: the margin +/-{section['margin']}; red: flagged after "
               f"{section['correction']}'s correction.")
    return parts + ["<h3>Components</h3>",
                    figure(graphs.forest_figure(group["title"], section["rows"], section["margin"]), e(caption)),
                    table(["component", "how", "effect [95%]", "flag", "deals", "games"], rows)]


def write_html(result: dict[str, Any], path: str) -> str:
    """A self-contained HTML page of `analyze_runs`' result (inline SVG plots), written to `path`."""
    from arena.reports import graphs, report

    def iv(d):
        return "-" if d is None else e(fmt(d, True))

    def num(d):
        return "-" if d is None else e(fmt(d))

    parts = []
    for k, g in enumerate(result["groups"]):
        seat = g["seat"]
        seat_rows = [[f"seat {r['seat']}", iv(r["win_share"]), iv(r["score_share"]), num(r["mean_return"]),
                      r["win_share"]["games"] if r["win_share"] else "-", e(r["advantage"])] for r in seat["seats"]]
        seat_rows += [[e(role.replace("_", " ")), iv(r["win_share"]), iv(r["score_share"]), "-",
                       r["win_share"]["games"] if r["win_share"] else "-", e(r["advantage"])]
                      for role, r in seat["roles"].items()]
        length = [[e(name.replace("_", " ")), num(v), v["games"] if v else "-"] for name, v in g["length"].items()]
        b = g["branching"]
        length += [["legal moves per decision", num(b["mean"]), b["mean"]["games"] if b["mean"] else "-"]]
        length += [[f"&nbsp;&nbsp;{p} third", num(v), v["games"] if v else "-"] for p, v in b["by_phase"].items()]
        length += [["forced decisions", iv(b["forced_share"]), b["forced_share"]["games"] if b["forced_share"] else "-"]]
        drama_rows = [[e(FIGURE_NAMES[name]), (num if name == "lead_changes" else iv)(v), v["games"] if v else "-"]
                      for name, v in g["drama"].items()]
        skill_rows = [[e(f"{s['first']} vs {s['second']}"), num(s["score_gap"]), iv(s["score_share"]),
                       s["score_gap"]["games"]] for s in g["skill"]]
        metric_rows = [[e(name.replace("_", " ")), "all seats" if r["seat"] == "all" else f"seat {r['seat']}", num(r),
                        r["games"]]
                       for name, rows in g["metrics"].items() for r in rows]
        parts += [f"<section id=\"group-{k}\"><h2>{e(g['title'])}</h2>",
                  f"<p>Run {e(g['run_id'])}: {g['matches']} matches on {g['deals']} deals; agents "
                  f"{e(', '.join(g['agents']))}; {g['faulted_matches']} matches ended by a fault left out.</p>",
                  f"<h3>Seat advantage ({'significant' if seat['significant'] else 'not significant'} at 95%; "
                  f"fair win share {seat['fair_share']:.1%})</h3>",
                  table(["seat", "win share [95%]", "score share [95%]", "mean return [95%]", "games", ""], seat_rows),
                  figure(_seat_figure(g), "Win share by seat and role with 95% intervals; the dashed "
                                                  "line is the fair share."),
                  "<h3>Length and tempo</h3>", table(["figure", "mean [95%]", "games"], length),
                  figure(_branching_figure(g), "Legal moves at every decision of every game."),
                  "<h3>Decisiveness and drama</h3>"
                  + ("<p>Scores move only at the end in this game: the lead is settled by the last move.</p>"
                     if g["scores_only_at_end"] else ""),
                  table(["figure", "mean [95%]", "games"], drama_rows)]
        if skill_rows:
            parts += ["<h3>Skill</h3>", table(["first vs second", "score gap [95%]", "score share [95%]", "games"],
                                              skill_rows)]
        if metric_rows:
            parts += ["<h3>Engine metrics by seat</h3>", table(["metric", "seat", "mean [95%]", "games"], metric_rows)]
        bid_table = bid_rows(g)
        if bid_table:
            head, rows = bid_table
            parts += ["<h3>Bid accuracy by hand size (share of rounds bid exactly, 95%)</h3>",
                      table([e(h) for h in head], [[e(c) for c in r] for r in rows])]
        bid_value_table = bid_value_rows(g)
        if bid_value_table:
            head, rows = bid_value_table
            parts += [f"<h3>{e(BID_VALUE_TITLE)}</h3>",
                      table([e(h) for h in head], [[e(c) for c in r] for r in rows])]
        parts += _components_html(g)
        parts.append("</section>")
    for d in result["differences"]:
        rows = [[e(r["figure"]), f"{r['base']:.3f}", f"{r['variant']:.3f}",
                 f"{r['mean']:+.3f}" + (f" <small>[{r['low']:.3f}, {r['high']:.3f}]</small>" if r["low"] is not None else ""),
                 "significant" if r["significant"] else ""] for r in d["figures"]]
        parts += [f"<section><h2>{e(d['variant'])} minus {e(d['base'])}</h2>",
                  table(["figure", "base", "variant", "difference [95%]", ""], rows), "</section>"]
    notes = "".join(f"<li>{e(n)}</li>" for n in result["notes"])
    page = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Game analysis {e(', '.join(result['runs']))}</title>"
            f"<style>{graphs.CSS}{report.CSS}</style></head><body>"
            f"<h1>Game analysis</h1><p class=\"meta\">Runs {e(', '.join(result['runs']))}</p>"
            + "".join(parts) + f"<section><h2>How the figures are made</h2><ul>{notes}</ul></section></body></html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return path
