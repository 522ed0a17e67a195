"""The words every view of a tournament shares (the terminal's tables, matchups, the graph, the
HTML report, `--help`): the leaderboard's columns and cells, and the legend of each column."""
from collections import Counter
from collections.abc import Iterable
from typing import Any

from arena.text import interval_text


def metric_column(key: str) -> str:
    """A per-seat game metric's column heading: "bid_accuracy" -> "bid acc. (95%)"."""
    return key.replace("_", " ").replace("accuracy", "acc.") + " (95%)"


INTERVALS = ("[a-b]", "the 95% interval over deals (each deal is played once in every seat rotation); it is wide "
                     "until the deals agree: 3 deals won out of 3 give 1.00 [0.24-1.00]")
LEGEND = {
    "#": ("#", "rank, 1 + the number of agents surely above it (one that beats it with 95% confidence, or beats "
               "one that does); agents no result separates are level and share a rank, written 1=; an agent that "
               "lost every match to its own fault is below all that did not"),
    "mu": ("mu, sigma", "TrueSkill rating (the skill estimate) and its uncertainty; every agent starts at 25 and 8.33"),
    "mu-3σ": ("mu-3σ", "mu - 3 sigma, a rating the agent is very likely above; the table is sorted by rank, "
                       "then by it"),
    "games": ("games", "matches played"),
    "W/D/L": ("W/D/L", "matches won (first place alone), drawn (first place shared) and lost; an agent holding "
                       "several seats is placed by their mean placement"),
    "score share (95%)": ("score share", "its seats' score against the other agents' seats (1 for placing above "
                                         "one, 1/2 for a tie), mean per deal: below 1.00 even with every match "
                                         "won when one of its seats placed below an opponent's"),
    "placement (95%)": ("placement", "the mean placement of its seats (1 is first), mean per deal"),
    "faults": ("faults", "matches it lost to its own fault (an exception, an illegal action, a timeout, a crash); "
                         "the others' results in them are the game played out with a stand-in in its seats"),
    "dup": ("dup", "duplicate score, its mean return minus its table's on the same deals over every seat "
                   "rotation, in the game's points, so the luck of the deal cancels out (card games)"),
}
METRICS = {
    "bid_accuracy": "the share of its Wizard rounds in which the bid was met exactly",
}
MATCHUPS_LEGEND = ("score of the row agent against the column agent (1 for placing above it, 1/2 for a tie), "
                   "mean per deal [95% interval]; green: surely above 0.50, red: surely below")
GRAPH_LEGEND = ("An arrow a -> b means a scores above 0.50 against b, labelled with that score and its 95% "
                "interval. Solid: the whole interval is above 0.50 (a beats b); dashed and grey: not yet (a "
                "leads, but the interval still includes 0.50, and more deals may settle it). Red: a cycle of "
                "confident wins (a beats b beats c beats a), which no single rating can show.")


def legend_items(headers: Iterable[str]) -> list[tuple[str, str]]:
    """(term, meaning) for each column shown, in the table's order, then what the intervals mean."""
    out = []
    for h in headers:
        if h in LEGEND:
            out.append(LEGEND[h])
        elif h.endswith(" (95%)"):
            name = next((k for k in METRICS if metric_column(k) == h), None)
            out.append((h[:-len(" (95%)")],
                        METRICS.get(name or "", "a per-seat measure the game reports") + ", mean per match"))
    return out + [INTERVALS]


def legend_lines(headers: Iterable[str]) -> list[str]:
    """The legend as lines of text, "term: meaning"."""
    return [f"{term}: {text}" for term, text in legend_items(headers)]


def leaderboard_help() -> str:
    """The legend as `--help` shows it (click keeps the lines of a paragraph that starts with \\b)."""
    import textwrap
    every = ["#", "mu", "mu-3σ", "games", "W/D/L", "score share (95%)", "placement (95%)", "faults", "dup",
             metric_column("bid_accuracy")]
    lines = [textwrap.fill(line, 76, initial_indent="  ", subsequent_indent="      ")
             for line in legend_lines(every)]
    return "\b\nColumns:\n" + "\n".join(lines)


def is_card_game(game_id: str) -> bool:
    import engines
    try:
        return engines.spec(game_id).card_game
    except ValueError:
        return False


def leaderboard_columns(game_id: str, rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """(headers, cells): one game's leaderboard as every view shows it, from its Standing rows as
    plain data (`jsonable`). faults shows when an agent has any, dup in card games that have it."""
    metric_names = sorted({k for r in rows for k in r["metrics"]})
    any_faults = any(r["faults"] for r in rows)
    duplicate = is_card_game(game_id) and any(r["duplicate_score"] is not None for r in rows)
    headers = (["#", "agent", "mu", "sigma", "mu-3σ", "games", "W/D/L", "score share (95%)", "placement (95%)"]
               + ["faults"] * any_faults + ["dup"] * duplicate + [metric_column(k) for k in metric_names])
    shared = Counter(r["rank"] for r in rows)
    cells = []
    for r in rows:
        dup = r["duplicate_score"]
        rank = f"{r['rank']}=" if shared[r["rank"]] > 1 else str(r["rank"])   # 2=: level with another agent
        cells.append([rank, r["label"], f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['conservative']:.2f}",
                      str(r["games"]), f"{r['wins']}/{r['draws']}/{r['losses']}",
                      interval_text(r["score_share"]), interval_text(r["placement"])]
                     + [str(r["faults"])] * any_faults
                     + [f"{dup:+.2f}" if dup is not None else ""] * duplicate
                     + [interval_text(r["metrics"].get(k)) for k in metric_names])
    return headers, cells


def level_note(rows: list[dict[str, Any]]) -> str | None:
    """The line under a leaderboard naming the agents that share a rank, or None when none do."""
    shared = Counter(r["rank"] for r in rows)
    groups = [f"{rank}= " + ", ".join(r["label"] for r in rows if r["rank"] == rank)
              for rank in sorted(k for k, n in shared.items() if n > 1)]
    if not groups:
        return None
    return ("level: " + "; ".join(groups) + " (no result puts one of them above another with 95% confidence; "
            "more deals may separate them)")


# A narrow terminal shows these short headings, and leaves columns out in this order, the least
# telling first (a game's metric columns where "metrics" stands); "#", "agent" and "mu-3σ", the
# order of the table, always stay.
SHORT_HEADINGS = {"sigma": "σ", "games": "n", "score share (95%)": "share", "placement (95%)": "place"}
LEFT_OUT_FIRST = ("placement (95%)", "sigma", "dup", "mu", "games", "metrics", "W/D/L", "faults",
                  "score share (95%)")


def short_heading(header: str) -> str | None:
    """"score share (95%)" -> "share", "bid acc. (95%)" -> "bid acc.": the heading a narrow terminal
    shows, or None when it keeps the whole one."""
    short = SHORT_HEADINGS.get(header, header.removesuffix(" (95%)"))
    return short if short != header else None


def importance(header: str) -> int | None:
    """How long a narrow terminal keeps the column: None for always, otherwise higher is kept longer."""
    key = header if header in LEFT_OUT_FIRST or not header.endswith(" (95%)") else "metrics"
    return LEFT_OUT_FIRST.index(key) if key in LEFT_OUT_FIRST else None
