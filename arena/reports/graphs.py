"""Matchup graphs: who beats whom, drawn with networkx and matplotlib (Agg, no display needed).
matplotlib is the `[charts]` extra, imported on the first drawing (`pyplot`): the graphs as data
(`matchup_graph`, `graph_json`, `edges_table`), which the web app sends, need networkx only.

An edge a -> b means a scores above 0.50 against b, labelled with that score and its 95% interval
as every view writes it ("0.81 [0.62-0.93]"); it is solid when the whole interval lies above 0.50,
dashed and grey ("not yet") otherwise. Edges on a cycle of confident wins
are red, and so are the borders of their agents.
"""
import functools
import html
import io
import re
import textwrap
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx

from arena.reports.tables import GRAPH_LEGEND
from arena.results import standings
from arena.text import game_title, interval_text

if TYPE_CHECKING:
    from types import ModuleType

    from matplotlib.figure import Figure

FORMATS = ("png", "svg", "html")
CYCLE = "#d62728"
WEAK = "#b0b0b0"
NODE = "#dbe9f6"


@functools.cache
def pyplot() -> "ModuleType":
    """matplotlib.pyplot on the Agg backend (no display), imported on the first drawing."""
    import matplotlib
    matplotlib.use("Agg")
    # Deterministic SVG ids, and text kept as text (searchable, small).
    matplotlib.rcParams["svg.hashsalt"] = "tabletop-arena"
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt
    return plt


def component_name(row: dict[str, Any]) -> str:
    """A row of the components section (arena.gamestats.balance.effects) as text: "Belle Earl Grey,
    Hot (played)"."""
    return f"{row['family']} {row['item']} ({row['how']})"


def matchup_graph(summary: dict[str, Any]) -> nx.DiGraph:
    """The dominance graph of one group's `standings.summary`, nodes best first, its cycles marked.

    Graph attribute: cycles. Node attribute: in_cycle. Edge attributes: those of
    `standings.dominance_graph`, plus in_cycle.
    """
    g0 = summary["graph"]
    g = nx.DiGraph(cycles=summary["cycles"])
    g.add_nodes_from(summary["order"], in_cycle=False)
    g.add_nodes_from(g0.nodes, in_cycle=False)
    on_cycle: set[tuple[str, str]] = set()
    for c in summary["cycles"]:
        on_cycle.update(zip(c, c[1:] + c[:1]))
        for a in c:
            g.nodes[a]["in_cycle"] = True
    for a, b, d in g0.edges(data=True):
        g.add_edge(a, b, **d, in_cycle=(a, b) in on_cycle)
    return g


def matchup_graphs(tallies: Iterable[standings.GroupTally]) -> list[tuple[str, nx.DiGraph]]:
    """[(title, matchup graph)] per game and parameter set (a list of standings.GroupTally)."""
    return [(game_title(t.game_id, t.params, only_changed=True), matchup_graph(t.summary())) for t in tallies]


def figure(graphs: Sequence[tuple[str, nx.DiGraph]]) -> "Figure":
    """A matplotlib Figure with one panel per graph, three panels to a row."""
    n = max(1, len(graphs))
    cols = min(n, 3)
    rows = -(-n // cols)
    size = max((g.number_of_nodes() for _, g in graphs), default=2)
    side = min(12.0, 4.0 + 0.6 * size)
    # Two agents sit on one line: a flat picture.
    fig, axes = pyplot().subplots(rows, cols, figsize=(side * cols, (side if size > 2 else 3.0) * rows),
                             squeeze=False)
    panels = [ax for row in axes for ax in row]
    for ax in panels[len(graphs):]:
        ax.set_axis_off()
    boxes = [_draw(ax, textwrap.fill(title, int(side * 8)), g) for ax, (title, g) in zip(panels, graphs)]
    if not graphs:
        panels[0].text(0.5, 0.5, "no finished matches", ha="center", va="center")
    fig.tight_layout()
    for ax, drawn in zip(panels, boxes):   # the layout resized the panels: fit their nodes again
        fit_boxes(ax, drawn)
    return fig


def _draw(ax, title, g):
    """Draws graph `g` in panel `ax`; returns its nodes' label boxes."""
    ax.set_title(title, fontsize=11)
    ax.set_axis_off()
    if g.number_of_nodes() == 0:
        return []
    pos = nx.circular_layout(list(g.nodes)) if g.number_of_nodes() > 1 else {n: (0, 0) for n in g}
    strong = [(a, b) for a, b, d in g.edges(data=True) if d["confident"] and not d["in_cycle"]]
    weak = [(a, b) for a, b, d in g.edges(data=True) if not d["confident"]]
    cyc = [(a, b) for a, b, d in g.edges(data=True) if d["in_cycle"]]
    # Each node is its label in a box, so a label with parameters is never cut by a fixed circle;
    # the panel grows until every box fits inside it.
    boxes = {a: ax.text(*pos[a], node_text(a), ha="center", va="center", fontsize=9, zorder=3,
                        bbox={"boxstyle": "round,pad=0.6", "fc": NODE,
                              "ec": CYCLE if g.nodes[a]["in_cycle"] else "#4a6fa5",
                              "lw": 3.0 if g.nodes[a]["in_cycle"] else 1.2})
             for a in g}
    renderer = ax.figure.canvas.get_renderer()
    fit_boxes(ax, list(boxes.values()))
    points = 72 / ax.figure.dpi
    # An arrow stops at the edge of a circle as wide as its node's box (networkx sizes nodes by area).
    sizes = [(max(e.width, e.height) * points) ** 2 for e in
             (boxes[a].get_bbox_patch().get_window_extent(renderer) for a in g)]
    common = dict(ax=ax, node_size=sizes, arrows=True, arrowstyle="-|>", arrowsize=18)
    nx.draw_networkx_edges(g, pos, edgelist=weak, edge_color=WEAK, style="dashed", width=1.0, **common)
    nx.draw_networkx_edges(g, pos, edgelist=strong, edge_color="#333333", width=1.8, **common)
    nx.draw_networkx_edges(g, pos, edgelist=cyc, edge_color=CYCLE, width=3.0, **common)
    labels = {(a, b): _edge_text(d) for a, b, d in g.edges(data=True)}
    nx.draw_networkx_edge_labels(g, pos, edge_labels=labels, ax=ax, font_size=7, label_pos=0.3,
                                 bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none"})
    cycles = g.graph.get("cycles", [])
    note = ("cycles: " + "; ".join(standings.format_cycle(c) for c in cycles[:3])
            + (f" (+{len(cycles) - 3} more)" if len(cycles) > 3 else "")) if cycles else "no cycles"
    ax.text(0.5, -0.02, "a -> b: a scores above 0.50 against b [95% interval]\nsolid: the interval is above "
            "0.50 (a beats b); dashed: not yet\n" + note,
            transform=ax.transAxes, ha="center", va="top", fontsize=8,
            color=CYCLE if cycles else "#444444")
    return list(boxes.values())


def fit_boxes(ax: Any, boxes: Sequence[Any], pad: float = 0.35) -> None:
    """Sets the panel's limits so that each text box in `boxes` (centred on its node) lies whole
    inside it, at least `pad` beyond the outermost nodes. The boxes keep their size in pixels while
    a wider span shrinks the data's scale, so the pad is solved for: a box half `h` pixels wide, on
    a panel `size` pixels wide over nodes `span` apart, needs pad >= h (span + 2 pad) / size."""
    if not boxes:
        return
    ax.figure.draw_without_rendering()   # a box's frame takes its size from its text when drawn
    renderer = ax.figure.canvas.get_renderer()
    panel = ax.get_window_extent(renderer)
    extents = [t.get_bbox_patch().get_window_extent(renderer) for t in boxes]
    centres = [t.get_position() for t in boxes]
    for axis, size, set_limits in ((0, panel.width, ax.set_xlim), (1, panel.height, ax.set_ylim)):
        half = max((e.width if axis == 0 else e.height) / 2 for e in extents) + 4   # 4 px of air
        at = [c[axis] for c in centres]
        span = max(at) - min(at)
        room = max(size - 2 * half, 1.0)
        need = (half * span / size + 0.05) * size / room
        set_limits(min(at) - max(pad, need), max(at) + max(pad, need))


def node_text(label: str) -> str:
    """An agent's label on lines that fit a node: its name, then its parameters, each wrapped
    ("MyBot[depth=3]" -> "MyBot\n[depth=3]"); the lines joined give the label back."""
    name, bracket, params = label.partition("[")
    lines = textwrap.wrap(name, 16, break_on_hyphens=True, drop_whitespace=False) or [name]
    if bracket:
        parts = ("[" + params).split(",")
        lines += [part + ("," if k < len(parts) - 1 else "") for k, part in enumerate(parts)]
    return "\n".join(lines)


def _edge_text(d):
    return interval_text({"mean": d["win_rate"], "low": d["low"], "high": d["high"]})


def svg_text(fig: "Figure") -> str:
    """The figure as an <svg> element for inlining in HTML (no XML prolog, no metadata); closes it."""
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    finally:
        pyplot().close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    return re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)


def graph_json(title: str, g: nx.DiGraph) -> dict[str, Any]:
    return {
        "title": title,
        "nodes": [{"label": a, **d} for a, d in g.nodes(data=True)],
        "edges": [{"winner": a, "loser": b, **d} for a, b, d in g.edges(data=True)],
        "cycles": g.graph.get("cycles", []),
    }


def edges_table(g: nx.DiGraph) -> str:
    rows = "".join(
        f"<tr class=\"{'cycle' if d['in_cycle'] else ''}\"><td>{html.escape(a)}</td>"
        f"<td>{html.escape(b)}</td><td>{_edge_text(d)}</td><td>{d['games']}</td>"
        f"<td>{'yes' if d['confident'] else 'not yet'}</td></tr>"
        for a, b, d in sorted(g.edges(data=True), key=lambda e: -e[2]["win_rate"]))
    return ("<table><thead><tr><th>winner</th><th>loser</th><th>score [95% interval]</th>"
            "<th>games</th><th>solid (interval above 0.50)</th></tr></thead><tbody>" + rows + "</tbody></table>")


def html_page(run_id: str, graphs: Sequence[tuple[str, nx.DiGraph]]) -> str:
    """A self-contained HTML page: the graph as inline SVG, its edges and cycles as tables."""
    svg = svg_text(figure(graphs))
    parts = []
    for title, g in graphs:
        cyc = g.graph.get("cycles", [])
        items = "".join(f"<li>{html.escape(standings.format_cycle(c))}</li>" for c in cyc)
        parts.append(f"<h2>{html.escape(title)}</h2>"
                     + (f"<p class=\"cycle\">Cycles:</p><ul>{items}</ul>" if cyc else "<p>No cycles.</p>")
                     + edges_table(g))
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Matchup graph: {html.escape(run_id)}</title><style>{CSS}</style></head><body>"
            f"<h1>Matchup graph: {html.escape(run_id)}</h1><div class=\"figure\">{svg}</div>"
            f"<p>{html.escape(GRAPH_LEGEND)}</p>"
            + "".join(parts) + "</body></html>")


CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1.5em; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f2f2f2; } td:first-child, th:first-child { text-align: left; }
.cycle { color: #d62728; font-weight: 600; }
.figure svg { max-width: 100%; height: auto; }
"""


def write(tallies: Iterable[standings.GroupTally], path: str, run_id: str = "run") -> list[tuple[str, nx.DiGraph]]:
    """Writes the matchup graph of each standings.GroupTally to path (.png, .svg or .html) and
    returns the graphs drawn."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext not in FORMATS:
        raise ValueError(f"cannot write a graph to {path!r}: use a .png, .svg or .html file")
    graphs = matchup_graphs(tallies)
    if ext == "html":
        with open(path, "w", encoding="utf-8") as f:
            f.write(html_page(run_id, graphs))
    else:
        fig = figure(graphs)
        try:
            fig.savefig(path, format=ext, dpi=110, bbox_inches="tight",
                        metadata={"Date": None} if ext == "svg" else None)
        finally:
            pyplot().close(fig)
    return graphs


def heatmap_figure(title: str, order: Sequence[str], h2h: dict[str, dict[str, Any]]) -> "Figure":
    """Each row agent's score against each column agent, with its 95% interval (as every view writes it)."""
    n = len(order)
    side = min(14.0, 2.5 + 1.0 * n)
    fig, ax = pyplot().subplots(figsize=(side + 1.2, side))
    grid = [[float("nan")] * n for _ in range(n)]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            cell = h2h.get(a, {}).get(b)
            if cell is not None:
                grid[i][j] = cell.mean
                ax.text(j, i, f"{cell.mean:.2f}\n[{cell.low:.2f}-{cell.high:.2f}]", ha="center", va="center",
                        fontsize=8 if n < 8 else 6,
                        color="white" if abs(cell.mean - 0.5) > 0.3 else "black",
                        fontweight="bold" if cell.low > 0.5 or cell.high < 0.5 else "normal")
    im = ax.imshow(grid, cmap="RdYlGn", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(n), order, rotation=45, ha="right")
    ax.set_yticks(range(n), order)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(textwrap.fill(title, 60) + "\nscore of the row against the column\n"
                 "[95% interval]; bold: the interval excludes 0.50", fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="score")
    fig.tight_layout()
    return fig


def rating_figure(title: str, history: dict[str, list[tuple]]) -> "Figure":
    """Each agent's TrueSkill mu over its games played, with a mu +/- sigma band."""
    from matplotlib.ticker import MaxNLocator
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.8))
    colours = plt.get_cmap("tab10" if len(history) <= 10 else "tab20")
    for k, (label, points) in enumerate(history.items()):
        xs = [p[0] for p in points]
        mus = [p[1] for p in points]
        c = colours(k % colours.N)
        ax.plot(xs, mus, color=c, lw=1.6, label=label)
        ax.fill_between(xs, [p[1] - p[2] for p in points], [p[1] + p[2] for p in points],
                        color=c, alpha=0.15, lw=0)
    ax.set_xlabel("games played")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("TrueSkill mu (band: mu ± sigma)")
    ax.set_title(textwrap.fill(title, 90), fontsize=10)
    ax.grid(alpha=0.3)
    if history:
        ax.legend(fontsize=8, loc="best", ncol=2 if len(history) > 6 else 1)
    fig.tight_layout()
    return fig


def forest_figure(title: str, rows: Sequence[dict[str, Any]], margin: float) -> "Figure":
    """Each component's effect on its seat's score share with its 95% interval, ordered from the
    largest effect down (rows as arena.gamestats.balance.effects gives them; those without an
    interval are left out). Flagged rows are red; dotted lines mark the margin of the flags."""
    shown = sorted((r for r in rows if r["low"] is not None), key=lambda r: r["mean"])
    fig, ax = pyplot().subplots(figsize=(7.5, 1.2 + 0.22 * max(1, len(shown))))
    ys = range(len(shown))
    for y, r in zip(ys, shown):
        colour = CYCLE if r["flag"] else "#4c72b0"
        ax.plot([r["low"], r["high"]], [y, y], color=colour, lw=1.4)
        ax.plot([r["mean"]], [y], "o", color=colour, ms=4 if r["paired"] else 5, mfc=colour if r["paired"] else "white")
    ax.axvline(0.0, color="#333333", lw=0.8)
    for x in (-margin, margin):
        ax.axvline(x, color="#888888", lw=0.8, linestyle=":")
    ax.set_yticks(list(ys), [component_name(r) + ("" if r["paired"] else " *") for r in shown], fontsize=7)
    ax.set_xlabel("effect on the seat's score share [95% interval over deals]; * unpaired; red: flagged")
    ax.set_title(textwrap.fill(title, 80) + ("" if shown else "\nno component has an interval yet"), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
