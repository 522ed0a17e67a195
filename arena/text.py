"""Text shown to people and data written for programs: user and bot text made safe (no control
character reaches a terminal or a page), games and parameter values written as the command line
takes them, and any result as plain JSON data."""
import math


def first_line(e):
    """The first line of an error's (or any value's) text, "" for none."""
    return str(e).splitlines()[0] if str(e) else ""


def printable(text, limit=None, keep="\n\t"):
    """`text` with control characters escaped ("\\x1b"), except those in `keep`; at most `limit` long."""
    text = str(text)[:limit]
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


def format_value(value):
    """A parameter value as --param takes it: a list as "10,9"."""
    return ",".join(str(x) for x in value) if isinstance(value, (list, tuple)) else str(value)


def option_value(value):
    """A parameter value in a command line to copy: as `format_value`, a bool as true/false."""
    return str(value).lower() if isinstance(value, bool) else format_value(value)


def game_title(game_id, params, only_changed=False):
    """"game (name=value, ...)": every parameter that is set, in name order; with only_changed, the
    parameters that differ from the game's defaults (every one, for a game no longer registered)."""
    if only_changed:
        import engines
        try:
            defaults = engines.registry.resolve(game_id)
        except ValueError:
            defaults = {}
        shown = [(k, v) for k, v in params.items()
                 if defaults.get(k) != (tuple(v) if isinstance(v, list) else v)]
    else:
        shown = [(k, v) for k, v in sorted(params.items()) if v not in ("", None, [])]
    text = ", ".join(f"{k}={format_value(v)}" for k, v in shown)
    return f"{game_id} ({text})" if text else game_id


def jsonable(value):
    """Plain JSON data: objects with `as_dict()` (intervals, standings) as their dicts, mappings and
    sequences element by element, numbers of any numeric type as Python numbers (a float that is
    not finite as None), and anything else as its text."""
    if hasattr(value, "as_dict"):
        return jsonable(value.as_dict())
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


# ---- the words every view of a tournament shares (terminal, matchups, graph, report, --help) ----

def _get(iv, key):
    return iv[key] if isinstance(iv, dict) else getattr(iv, "n" if key == "deals" else key)


def interval_text(iv, digits=2):
    """A mean with its 95% interval as every view writes it: "0.90 [0.81-0.97]" ("" for None)."""
    if iv is None:
        return ""
    return f"{_get(iv, 'mean'):.{digits}f} [{_get(iv, 'low'):.{digits}f}-{_get(iv, 'high'):.{digits}f}]"


def metric_column(key):
    """A per-seat game metric's column heading: "bid_accuracy" -> "bid acc. (95%)"."""
    return key.replace("_", " ").replace("accuracy", "acc.") + " (95%)"


INTERVALS = ("[a-b]", "the 95% interval over deals (each deal is played once in every seat rotation); it is wide "
                     "until the deals agree: 3 deals won out of 3 give 1.00 [0.24-1.00]")
LEGEND = {
    "mu": ("mu, sigma", "TrueSkill rating (the skill estimate) and its uncertainty; every agent starts at 25 and 8.33"),
    "mu-3σ": ("mu-3σ", "mu - 3 sigma, a rating the agent is very likely above; the table is sorted by it"),
    "games": ("games", "matches played"),
    "W/D/L": ("W/D/L", "matches won (first place alone), drawn (first place shared) and lost; an agent holding "
                       "several seats is placed by their mean placement"),
    "score share (95%)": ("score share", "its seats' score against the other agents' seats (1 for placing above "
                                         "one, 1/2 for a tie), mean per deal: below 1.00 even with every match "
                                         "won when one of its seats placed below an opponent's"),
    "placement (95%)": ("placement", "the mean placement of its seats (1 is first), mean per deal"),
    "faults": ("faults", "matches it lost to its own fault (an exception, an illegal action, a timeout, a crash)"),
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


def legend_items(headers):
    """(term, meaning) for each column shown, in the table's order, then what the intervals mean."""
    out = []
    for h in headers:
        if h in LEGEND:
            out.append(LEGEND[h])
        elif h.endswith(" (95%)"):
            name = next((k for k in METRICS if metric_column(k) == h), None)
            out.append((h[:-len(" (95%)")],
                        METRICS.get(name, "a per-seat measure the game reports") + ", mean per match"))
    return out + [INTERVALS]


def legend_lines(headers):
    """The legend as lines of text, "term: meaning"."""
    return [f"{term}: {text}" for term, text in legend_items(headers)]


def leaderboard_help():
    """The legend as `--help` shows it (click keeps the lines of a paragraph that starts with \\b)."""
    import textwrap
    every = ["mu", "mu-3σ", "games", "W/D/L", "score share (95%)", "placement (95%)", "faults", "dup",
             metric_column("bid_accuracy")]
    lines = [textwrap.fill(line, 76, initial_indent="  ", subsequent_indent="      ")
             for line in legend_lines(every)]
    return "\b\nColumns:\n" + "\n".join(lines)


def is_card_game(game_id):
    import engines
    try:
        return engines.spec(game_id).card_game
    except ValueError:
        return False


def leaderboard_columns(game_id, rows):
    """(headers, cells): one game's leaderboard as every view shows it, from its Standing rows as
    plain data (`jsonable`). faults shows when an agent has any, dup in card games that have it."""
    metric_names = sorted({k for r in rows for k in r["metrics"]})
    any_faults = any(r["faults"] for r in rows)
    duplicate = is_card_game(game_id) and any(r["duplicate_score"] is not None for r in rows)
    headers = (["#", "agent", "mu", "sigma", "mu-3σ", "games", "W/D/L", "score share (95%)", "placement (95%)"]
               + ["faults"] * any_faults + ["dup"] * duplicate + [metric_column(k) for k in metric_names])
    cells = []
    for r in rows:
        dup = r["duplicate_score"]
        cells.append([str(r["rank"]), r["label"], f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['conservative']:.2f}",
                      str(r["games"]), f"{r['wins']}/{r['draws']}/{r['losses']}",
                      interval_text(r["score_share"]), interval_text(r["placement"])]
                     + [str(r["faults"])] * any_faults
                     + [f"{dup:+.2f}" if dup is not None else ""] * duplicate
                     + [interval_text(r["metrics"].get(k)) for k in metric_names])
    return headers, cells


def _round_up(x):
    """A count people read at a glance: 7, 30, 150, 1,200."""
    step = 1 if x < 10 else 5 if x < 100 else 50 if x < 1000 else 500
    return -(-x // step) * step


def verdict(rows, h2h, cycles):
    """One line on who is stronger in one game, from its Standing rows and head-to-head matrix (plain
    data), when the 95% intervals allow it; otherwise how many more deals would likely settle it.
    None for a game with fewer than two agents."""
    from arena.analysis import deals_to_settle
    labels = [r["label"] for r in rows]
    if len(labels) < 2:
        return None

    def cell(a, b):
        return h2h.get(a, {}).get(b)

    def said(a, b):
        iv = cell(a, b)
        return f"{a} scores {interval_text(iv)} against {b} over {_get(iv, 'deals')} deals"

    if cycles:
        return ("no single strongest agent: " + "; ".join(" > ".join(c + c[:1]) for c in cycles)
                + ", each beating the next with 95% confidence")
    for a in labels:
        others = [b for b in labels if b != a and cell(a, b) is not None]
        if not others or not all(_get(cell(a, b), "low") > 0.5 for b in others):
            continue
        closest = min(others, key=lambda b: _get(cell(a, b), "low"))
        if len(labels) == 2:
            return f"{a} is stronger than {closest}: {said(a, closest)} (95% interval above 0.50)"
        rest = [b for b in labels if b != a]
        if all(cell(x, y) is not None and _get(cell(x, y), "low") > 0.5
               for i, x in enumerate(rest) for y in rest[i + 1:]):
            return (f"{' > '.join([a] + rest)}: each beats every agent after it with 95% confidence "
                    f"(closest at the top: {said(a, closest)})")
        return (f"{a} is the strongest: it beats every other agent with 95% confidence (closest: "
                f"{said(a, closest)}); the order below it is not settled")
    top = labels[0]
    pending = []
    for b in labels[1:]:
        iv = cell(top, b)
        if iv is not None and not _get(iv, "low") > 0.5:
            pending.append((b, iv, deals_to_settle(*(float(_get(iv, k)) for k in ("mean", "low", "high", "deals")))))
    if not pending:
        return None
    b, iv, total = max(pending, key=lambda p: float("inf") if p[2] is None else p[2])
    a, o = (top, b) if _get(iv, "mean") >= 0.5 else (b, top)
    text = f"not settled: {said(a, o)}"
    n = int(_get(iv, "deals"))
    if total is None:
        return text + "; they look even, and more deals may never separate them"
    games = _round_up(total)
    return text + f"; about {games - n} more deals would likely settle it (--games {games})"
