"""One self-contained HTML page per tournament: `arena report RUN`.

The page needs nothing but itself: figures are inline SVG, styles are inline, and there are no links
to anything outside it, so it can be mailed or attached to an issue as is. It holds, per game and
rule variant, the leaderboard (with cycles), the head-to-head heatmap, the matchup graph and each
agent's rating over its games; then the faults, with the end of what the faulty matches' bots
printed, and what is needed to reproduce the run. The one
exception: written while `arena serve` runs on the store, its listed matches link to their replays
there.
"""
import datetime
import importlib.metadata
import json
import os
import platform
import re
import shlex
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena import server_address
from arena.reports import graphs
from arena.reports.faults import SHORT_OUTPUT, fault_line, faulted_matches, output_heading, output_text
from arena.reports.html_parts import escape as _e
from arena.reports.html_parts import figure as _figure
from arena.reports.html_parts import table as _table
from arena.reports.sections import run_sections
from arena.reports.tables import GRAPH_LEGEND, INTERVALS, MATCHUPS_LEGEND, leaderboard_columns, legend_lines, level_note
from arena.results import standings
from arena.run_config import TournamentConfig, book_note, time_note
from arena.sandbox import policy_options, unconfined_note
from arena.store import config_json, stored_config
from arena.text import book_text, csp_meta, interval_text, option_value

if TYPE_CHECKING:
    from arena.store import Store


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    """Versions of what produced and reports the run: python, libraries, the project and its commit."""
    out: dict[str, str | None] = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in ("tabletop-arena", "numpy", "trueskill", "networkx", "matplotlib", "click", "Cython"):
        out[dist] = _version(dist)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if out["tabletop-arena"] is None:   # a source checkout that was never pip-installed
        try:
            with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
                found = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), flags=re.M)
            out["tabletop-arena"] = f"{found.group(1)} (source checkout)" if found else None
        except OSError:
            pass
    try:
        out["git_commit"] = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                                           text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        out["git_commit"] = None
    return out


SHOWN_MATCHES = 200   # per game, in the page's list of matches (the store holds every one)
SHOWN_FAULTS = 500
SHOWN_OUTPUTS = 100   # faulty matches whose bots' output the page shows (the end of each)


def run_data(store: "Store", run_id: str, sections: list[dict[str, Any]], summaries: list[dict[str, Any]]
             ) -> dict[str, Any]:
    """The run-level part of the report's data: status, counts, config (as stored) and the notes
    read from it, agents, the first faults."""
    run = store.run(run_id)
    agents = {}
    for summ in summaries:
        agents.update(summ["agents"])
    return {
        "run_id": run_id,
        "status": run.status,
        "created": run.created,
        "finished": sum(s["matches"] for s in sections),
        "total": run.total,
        "config": config_json(run.config, run.imported) if run.config else None,
        "deal_key": run.deal_key,
        "agents": [agents[label] for label in sorted(agents)],
        "sections": sections,
        "fault_count": sum(f["count"] for s in sections for f in s["fault_summary"]),
        "faults": store.faults(run_id, limit=SHOWN_FAULTS),
        "fault_output": [m for m in faulted_matches(store, run_id, limit=SHOWN_OUTPUTS) if m["output"]],
    }


def collect(store: "Store", run_id: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(data, summaries): everything the report shows as plain JSON-able data (`arena report
    --json`), and the per-group `GroupTally.summary` values it was made from."""
    run_id = store.run(run_id).run_id
    sections, summaries = run_sections(store, run_id, first_matches=SHOWN_MATCHES)
    # While `arena serve` runs on this store, each listed match links to its replay there.
    server = server_address.running_url(store.path)
    return run_data(store, run_id, sections, summaries) | {"versions": versions(), "server": server}, summaries


# ---- HTML ---------------------------------------------------------------------------------------

def _iv(d):
    return "-" if d is None else _e(interval_text(d))


def leaderboard_html(section: dict[str, Any]) -> str:
    """The leaderboard as `arena leaderboard` prints it: the same columns, figures, verdict, identical-play
    line and legend."""
    head, cells = leaderboard_columns(section["game_id"], section["leaderboard"])
    body = [[f"<b>{_e(c)}</b>" if k == 1 else
             f"<span class=\"bad\">{_e(c)}</span>" if h == "faults" and c != "0" else _e(c)
             for k, (h, c) in enumerate(zip(head, row))] for row in cells]
    cyc = section["cycles"]
    note = ("<p class=\"cycle\">Cycles (each beats the next with 95% confidence, which no single rating "
            "can show): " + "; ".join(_e(standings.format_cycle(c)) for c in cyc) + "</p>") if cyc else \
        "<p>No cycles of confident wins.</p>"
    level = level_note(section["leaderboard"])
    note += f"<p>{_e(level)}</p>" if level else ""
    said = f"<p class=\"verdict\"><b>verdict: {_e(section['verdict'])}</b></p>" if section.get("verdict") else ""
    said += f"<p class=\"identical\">{_e(section['identical_play'])}</p>" if section.get("identical_play") else ""
    legend = "".join(f"<li>{_e(line)}</li>" for line in legend_lines(head))
    return (_table([_e(h) for h in head], body, "leaderboard") + note + said
            + f"<ul class=\"legend\">{legend}</ul>")


def matchups_html(order: Sequence[str], h2h: dict[str, dict[str, Any]]) -> str:
    rows = [[f"<b>{_e(a)}</b>"] + [_iv(h2h.get(a, {}).get(b)) if a != b else "" for b in order]
            for a in order]
    return _table(["agent \\ opponent"] + [_e(b) for b in order], rows, "matrix")


def section_html(k: int, section: dict[str, Any], summ: dict[str, Any]) -> str:
    title, order = section["title"], summ["order"]
    short = section["game_id"]   # the section heading carries the parameters
    graph = graphs.matchup_graph(summ)
    parts = [f"<section id=\"game-{k}\"><h2>{_e(title)}</h2>",
             f"<p>{section['matches']} matches.</p>",
             "<h3>Leaderboard</h3>", leaderboard_html(section),
             "<h3>Head to head</h3>",
             _figure(graphs.heatmap_figure(short, order, summ["head_to_head"]),
                     _e(f"Each cell: the {MATCHUPS_LEGEND}. {INTERVALS[0]}: {INTERVALS[1]}.")),
             "<details><summary>Head-to-head table with 95% intervals</summary>",
             matchups_html(order, section["head_to_head"]), "</details>",
             "<h3>Matchup graph</h3>",
             _figure(graphs.figure([(short, graph)]),
                     _e(GRAPH_LEGEND)),
             "<details><summary>Graph edges</summary>", graphs.edges_table(graph), "</details>",
             "<h3>Rating over games played</h3>",
             _figure(graphs.rating_figure(short, summ["rating_history"]),
                     "TrueSkill mu after each game the agent played, replayed in match order; the band is "
                     "mu &plusmn; sigma."),
             "</section>"]
    return "".join(parts)


def faults_html(data: dict[str, Any]) -> str:
    total = data["fault_count"]
    if not total:
        return "<p>No faults.</p>"
    summary = _table(["game", "agent", "kind", "count"],
                     [[_e(s["game_id"]), _e(f["label"]), _e(f["kind"]), _e(f["count"])]
                      for s in data["sections"] for f in s["fault_summary"]])
    shown = data["faults"]
    detail = _table(["match", "seat", "agent", "kind", "message"],
                    [[_match_link(data, f["match_id"]), _e(f["seat"]), _e(f["label"]), _e(f["kind"]),
                      _e(str(f["message"])[:300])] for f in shown])
    more = f"<p>{total - len(shown)} more faults are in the store.</p>" if total > len(shown) else ""
    title = "Every fault" if total == len(shown) else f"The first {len(shown)} faults"
    return summary + f"<details><summary>{title} (of {total})</summary>{detail}{more}</details>" + fault_output_html(data)


def fault_output_html(data: dict[str, Any]) -> str:
    """What the bots printed in the first faulty matches: the end of each seat's output."""
    if not data["fault_output"]:
        return ""
    parts = ["<h3>What the bots printed</h3>",
             f"<p>The last {SHORT_OUTPUT} characters each submitted agent printed in a faulty match "
             f"(stdout and stderr), of the first {SHOWN_OUTPUTS} faulty matches; "
             f"<code>arena faults {_e(data['run_id'])} MATCH</code> prints all of a match's.</p>"]
    for m in data["fault_output"]:
        faults = "; ".join(fault_line(f) for f in m["faults"])
        printed = "".join(f"<p>{_e(output_heading(o))}</p><pre class=\"output\">"
                          f"{_e(output_text(o['text'], o['cut'], SHORT_OUTPUT))}</pre>" for o in m["output"])
        parts.append(f"<details><summary>match {_match_link(data, m['match_id'])} ({_e(m['game_id'])}): "
                     f"{_e(faults)}</summary>{printed}</details>")
    return "".join(parts)


def reproduction_html(data: dict[str, Any]) -> str:
    agents = _table(["label", "source", "parameters"],
                    [[_e(a["label"]), f"<code>{_e(a['source'])}</code>",
                      _e(", ".join(f"{k}={v}" for k, v in a["params"].items()) or "defaults")]
                     for a in data["agents"]])
    games = _table(["game", "parameters", "matches", "deals", "seeds"],
                   [[_e(s["game_id"]), _e(", ".join(f"{k}={v}" for k, v in sorted(s["game_params"].items()))),
                     _e(s["matches"]), _e(s["deals"]), _seed_range(s["seed_range"], s["deals"])] for s in data["sections"]])
    vers = _table(["component", "version"], [[_e(k), _e(v if v is not None else "not installed")]
                                             for k, v in data["versions"].items()])
    per_match = "".join(
        (f"<p>The first {len(s['first_matches'])} of {s['matches']} matches of {_e(s['title'])}; "
         f"<code>arena replay RUN MATCH</code> shows any match.</p>" if len(s["first_matches"]) < s["matches"] else "")
        + _table(["match", "deal", "seed", "seats", "placements", "returns"],
                 [[_match_link(data, x["match_id"]), _e(x["deal"]), _e(x["seed"]), _e(", ".join(x["seats"])),
                   _e(x["placements"]), _e(x["returns"])] for x in s["first_matches"]]) for s in data["sections"])
    config = _tournament(data)
    command = rerun_command(config, data["deal_key"])
    key = f"BOOK being the file of deal book {book_text(config.book)}" if config and config.book else "the deal key"
    again = (f"<p>To play it again (same schedule, deals and run id; in this store an unfinished run "
             f"resumes, and in another store {_e(key)} gives the same deals):</p>"
             f"<pre>{_e(command)}</pre>") if command else ""
    return (again + "<h3>Agents</h3>" + agents + "<h3>Games</h3>" + games
            + "<h3>Tournament configuration</h3><pre>" + _e(json.dumps(data["config"], indent=2, sort_keys=True))
            + "</pre><h3>Versions (of the report's environment)</h3>" + vers
            + f"<details><summary>The matches: seats, seed and result ({data['finished']})</summary>"
            + per_match + "</details>")


def _tournament(data: dict[str, Any]) -> TournamentConfig | None:
    """The tournament config of the report's data (None for a run that has none that can be read)."""
    config = stored_config(data["config"])[0]
    return config if isinstance(config, TournamentConfig) else None


def rerun_command(config: TournamentConfig | None, deal_key: str = "") -> str | None:
    """The `arena run` command line that schedules this tournament again (the same config and deal
    key, so the same run id, seeds and matches), or None for a run that is not an `arena run`
    tournament (a comparison; None: a game played in `arena serve`, or a config that cannot be read)."""
    if config is None or config.deals is None or config.compare:
        return None
    agents = []
    for a in config.agents:
        params = ",".join(f"{k}={v}" for k, v in a.params)
        item = a.source + (f"[{params}]" if params else "")
        agents.append(item + (f" as {a.label}" if a.label != a.source else ""))
    words = ["arena", "run"]
    if len(config.games) == 1:
        game = config.games[0]
        words += ["--game", game.game_id]
        for k, v in sorted(game.params.items()):
            if k == "players":
                words += ["--players", str(v)]
            elif v not in ("", None, []):
                words += ["--param", f"{k}={option_value(v)}"]
    words += ["--agents", ", ".join(agents), "--games", str(config.deals), "--seed", str(config.seed),
              "--time-limit", str(config.time_limit)]
    if config.time_control is not None:
        words += ["--time-control", str(config.time_control)]
    words += policy_options(config.sandbox)
    if config.book:   # its file is named on the page beside the command
        words += ["--deals", "BOOK"]
    elif deal_key:
        words += ["--deal-key", deal_key]
    return " ".join(shlex.quote(w) for w in words)


def _match_link(data, match_id):
    """A match id, linked to its replay in `arena serve` when one ran on the store."""
    if not data.get("server"):
        return _e(match_id)
    return f"<a href=\"{_e(server_address.replay_url(data['server'], data['run_id'], match_id))}\">{_e(match_id)}</a>"


def _seed_range(seeds, deals):
    """A game's deal seeds as "N seeds, lowest ... highest" (one per deal)."""
    if not seeds:
        return "-"
    low, high = seeds
    return _e(low) if deals == 1 else f"{deals} seeds, {_e(low)} &hellip; {_e(high)}"


SCRIPT = """
window.addEventListener('error', function (e) {
  document.body.setAttribute('data-errors', (document.body.getAttribute('data-errors') || '') + e.message + ';');
});
document.addEventListener('DOMContentLoaded', function () {
  document.body.setAttribute('data-rendered', document.querySelectorAll('svg').length);
});
"""


IMPORTED_NOTE = ("This run was imported from a file (arena import): each match replays legally from its seed, but "
                 "which agent chose its moves, and its faults, are the word of whoever wrote the file.")


def render(data: dict[str, Any], summaries: list[dict[str, Any]]) -> str:
    """The HTML page for `collect`'s results."""
    created = datetime.datetime.fromtimestamp(data["created"], datetime.timezone.utc)
    nav = "".join(f"<li><a href=\"#game-{k}\">{_e(s['title'])}</a></li>" for k, s in enumerate(data["sections"]))
    body = "".join(section_html(k, s, summ) for k, (s, summ) in enumerate(zip(data["sections"], summaries)))
    if not data["sections"]:
        body = "<p>No finished matches yet.</p>"
    config = _tournament(data)
    note = unconfined_note(config.sandbox, config.agents) if config else None
    warning = f"<p class=\"bad\" id=\"unconfined\">{_e(note)}</p>" if note else ""
    clock = time_note(config)
    warning += f"<p class=\"meta\" id=\"time-control\">{_e(clock)}</p>" if clock else ""
    book = book_note(config)
    warning += f"<p class=\"meta\" id=\"deal-book\">{_e(book)}</p>" if book else ""
    warning += f"<p class=\"bad\" id=\"imported\">{_e(IMPORTED_NOTE)}</p>" if stored_config(data["config"])[1] else ""
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"{csp_meta([SCRIPT])}<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>Tournament {_e(data['run_id'])}</title><style>{graphs.CSS}{CSS}</style>"
        f"<script>{SCRIPT}</script></head><body>"
        f"<h1>Tournament {_e(data['run_id'])}</h1>"
        f"<p class=\"meta\">Started {created:%Y-%m-%d %H:%M} UTC &middot; status {_e(data['status'])} "
        f"&middot; {_e(data['finished'])} of {_e(data['total'])} matches finished &middot; "
        f"{len(data['agents'])} agents</p>{warning}<ul class=\"nav\">{nav}<li><a href=\"#faults\">Faults</a></li>"
        f"<li><a href=\"#reproduce\">Reproduction</a></li></ul>"
        f"{body}<section id=\"faults\"><h2>Faults</h2>{faults_html(data)}</section>"
        f"<section id=\"reproduce\"><h2>Reproduction</h2>{reproduction_html(data)}</section>"
        "</body></html>")


CSS = """
h1 { margin-bottom: 0.2em; } .meta { color: #666; margin-top: 0; }
section { border-top: 2px solid #ddd; margin-top: 2em; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.85em; }
figure svg { max-width: 100%; height: auto; }
th, td { text-align: left; } td.num { text-align: right; }
.bad { color: #d62728; font-weight: 600; }
small { color: #666; } pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
pre.output { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 30em; overflow-y: auto; }
ul.nav { list-style: none; padding: 0; } ul.nav li { display: inline; margin-right: 1.2em; }
details { margin: 0.5em 0 1em; }
ul.legend { color: #555; font-size: 0.85em; margin-top: 0.3em; }
"""


def default_path(store_path: str, run_id: str) -> str:
    """report-RUN.html beside the store (results/ for the default store): a folder that exists."""
    return os.path.join(os.path.dirname(store_path), f"report-{run_id}.html")


def write(store: "Store", run_id: str | None, out: str) -> tuple[str, dict[str, Any]]:
    """Writes the report, one self-contained file, to `out` (its folder is never created); returns
    (path, data)."""
    data, summaries = collect(store, run_id)
    page = render(data, summaries)
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)
    return out, data
