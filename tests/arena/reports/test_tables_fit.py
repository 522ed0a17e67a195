"""Every terminal table fits its terminal without cutting a number or a label: in real tmux panes of
80x24 and 120x40, the leaderboard of every game shows each figure whole and the same as `arena
leaderboard --json`, names its short headings and the columns it left out; a wider terminal shows
more. Agents that no result separates share a rank, written 2=, with a note under the table."""
import io
import json
import re
import shlex
import sys

import pytest
from click.testing import CliRunner
from rich.console import Console

from arena.cli import main
from arena.results import intervals, standings
from arena.text import interval_text
from terminal import screen

AGENTS = "greedy, random, ismcts[iterations=20]"


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def arena(*args):
    return " ".join(shlex.quote(str(a)) for a in (sys.executable, "-m", "arena", *args))


@pytest.fixture(scope="module")
def run_on_80_columns(tmp_path_factory):
    """A one-deal run of every game, played in an 80x24 pane: (its store, what the pane showed)."""
    store = tmp_path_factory.mktemp("fit") / "arena.sqlite"
    shown = screen(arena("run", "--games", 1, "--agents", AGENTS, "-j", 1, "--store", store), 80, 24)
    return store, shown


# ---- what the JSON says each table holds ---------------------------------------------------------

def expected_table(board, card_game):
    """[(header, cell of each row)] of a leaderboard in full, from its --json rows."""
    rows = board["rows"]
    ranks = [r["rank"] for r in rows]
    columns = [("#", [f"{k}=" if ranks.count(k) > 1 else str(k) for k in ranks]),
               ("agent", [r["label"] for r in rows]),
               ("mu", [f"{r['mu']:.2f}" for r in rows]),
               ("sigma", [f"{r['sigma']:.2f}" for r in rows]),
               ("mu-3σ", [f"{r['conservative']:.2f}" for r in rows]),
               ("games", [str(r["games"]) for r in rows]),
               ("W/D/L", [f"{r['wins']}/{r['draws']}/{r['losses']}" for r in rows]),
               ("score share (95%)", [interval_text(r["score_share"]) for r in rows]),
               ("placement (95%)", [interval_text(r["placement"]) for r in rows])]
    if any(r["faults"] for r in rows):
        columns.append(("faults", [str(r["faults"]) for r in rows]))
    if card_game and any(r["duplicate_score"] is not None for r in rows):
        columns.append(("dup", [f"{r['duplicate_score']:+.2f}" if r["duplicate_score"] is not None else ""
                                for r in rows]))
    for k in sorted({k for r in rows for k in r["metrics"]}):
        columns.append((k.replace("_", " ").replace("accuracy", "acc.") + " (95%)",
                        [interval_text(r["metrics"].get(k)) for r in rows]))
    return columns


# ---- what the screen shows -----------------------------------------------------------------------

def tables_on(text):
    """{game_id: {"header", "rows", "short", "left_out"}}: each leaderboard as the screen shows it, and
    what the note under it says: the short headings ({short: full}) and the columns left out."""
    lines = text.splitlines()
    out = {}
    for k, line in enumerate(lines):
        title = re.fullmatch(r"(\w+) - run \S+", line.strip())
        if not title:
            continue
        header = lines[k + 2]
        assert set(lines[k + 3].strip()) == {"─"}, lines[k:k + 4]
        end = lines.index("", k + 4)
        note = []
        for below in lines[end + 1:]:
            if not below.strip() or re.match(r"(level|verdict|cycle)", below):
                break
            note.append(below.strip())
        note = " ".join(note)
        short = re.search(r"short headings: (.*?)(;|$)", note)
        left_out = re.search(r"left out to fit \d+ columns: (.*) \(a wider terminal or --json shows (it|them)\)",
                             note)
        out[title[1]] = {"header": header, "rows": lines[k + 4:end],
                         "short": dict(pair.split(" = ") for pair in short[1].split(", ")) if short else {},
                         "left_out": left_out[1].split(", ") if left_out else []}
    return out


def check_every_figure_whole(text, store, width):
    """Each game's table on the screen: every figure whole and equal to the --json one, each column
    either shown whole or named as left out. Returns {game_id: the full headers shown}."""
    assert "…" not in text
    assert all(len(line) <= width for line in text.splitlines())
    boards = json.loads(invoke("leaderboard", "--store", store, "--json"))["leaderboards"]
    card_games = {g["game_id"] for g in json.loads(invoke("games", "--json")) if g["card_game"]}
    shown = tables_on(text)
    assert sorted(shown) == sorted(b["game_id"] for b in boards) and len(boards) == 5
    out = {}
    for board in boards:
        table, columns = shown[board["game_id"]], expected_table(board, board["game_id"] in card_games)
        headers = [h for h, _ in columns]
        assert set(table["left_out"]) <= set(headers) - {"#", "agent", "mu-3σ"}, table
        kept = [(h, cells) for h, cells in columns if h not in table["left_out"]]
        full = {full: short for short, full in table["short"].items()}
        assert table["header"].split() == [w for h, _ in kept for w in full.get(h, h).split()], table
        assert len(table["rows"]) == len(board["rows"])
        for k, line in enumerate(table["rows"]):
            assert line.split() == [w for _, cells in kept for w in cells[k].split()], (line, kept)
        out[board["game_id"]] = [h for h, _ in kept]
    return out


@pytest.mark.slow
def test_arena_run_on_80_columns_shows_every_figure_whole(run_on_80_columns):
    store, text = run_on_80_columns
    shown = check_every_figure_whole(text, store, 80)
    # The rank, the agent, the sort key and Wizard's bid accuracy stay; what is left out is said.
    assert all(h[:2] == ["#", "agent"] and "mu-3σ" in h for h in shown.values())
    assert "bid acc. (95%)" in shown["wizard"]
    assert "placement (95%)" not in shown["wizard"] and "(a wider terminal or --json shows them)" in text


@pytest.mark.slow
def test_a_wider_terminal_shows_more(run_on_80_columns):
    store, narrow = run_on_80_columns
    text = screen(arena("leaderboard", "--store", store), 120, 40)
    wide = check_every_figure_whole(text, store, 120)
    narrow = check_every_figure_whole(narrow, store, 80)
    assert all(set(narrow[g]) <= set(wide[g]) for g in wide)
    assert sum(map(len, wide.values())) > sum(map(len, narrow.values()))
    assert {"sigma", "dup"} <= set(wide["wizard"]) - set(narrow["wizard"])


@pytest.mark.slow
def test_the_other_tables_fit_80_columns_too(run_on_80_columns):
    """arena games, agents, matchups and analyze on 80 columns: no figure, name or word cut into "…"."""
    store, _ = run_on_80_columns
    run_id = json.loads(invoke("leaderboard", "--store", store, "--json"))["run_id"]
    text = screen(" && ".join([arena("games"), arena("agents"), arena("matchups", "--store", store),
                               arena("analyze", "--run", run_id, "--store", store)]), 80, 24)
    assert "…" not in text
    words = text.split()
    assert all(g["game_id"] in words for g in json.loads(invoke("games", "--json")))
    assert all(a["name"] in words for a in json.loads(invoke("agents", "--json")))
    for group in json.loads(invoke("matchups", "--store", store, "--json"))["groups"]:
        assert f"{group['game_id']} - run {run_id}" in text


# ---- any table, any width ------------------------------------------------------------------------

def printed(width, columns, rows):
    from arena.cli.layout import print_table
    console = Console(file=io.StringIO(), width=width, color_system=None)
    shown = print_table(console, columns, rows, title="figures")
    return console.file.getvalue(), shown


def test_a_table_leaves_out_its_least_important_columns_and_says_so():
    from arena.cli.layout import Column
    columns = [Column("name", wrap=12), Column("a figure", justify="right", short="fig.", importance=2),
               Column("interval", justify="right", importance=1), Column("note", wrap=20, importance=0)]
    rows = [["a name of several words", "1234.5678", "0.50 [0.00-1.00]", "a long note " * 8],
            ["x", "-0.25", "0.25 [0.10-0.40]", ""]]
    text, shown = printed(120, columns, rows)
    assert shown == [c.header for c in columns] and "left out" not in text and "short" not in text
    # The name wraps (down to 12 columns), and so does the note (down to 20); the figures never do.
    for width, kept in ((72, 4), (50, 3), (30, 2), (20, 1)):
        text, shown = printed(width, columns, rows)
        assert "…" not in text and all(len(line) <= width for line in text.splitlines()), text
        assert shown == [c.header for c in columns[:kept]], text
        said = " ".join(text.split())
        # A table that fits keeps its headings; one that does not takes the short ones.
        assert ("short headings: fig. = a figure" in said) == (1 < kept < 4)
        assert (f"left out to fit {width} columns: {', '.join(c.header for c in columns[kept:])} (a wider "
                f"terminal or --json shows {'it' if kept == 3 else 'them'})" in said) == (kept < 4), text
        assert ("1234.5678" in text) == (kept > 1) and ("0.50 [0.00-1.00]" in text) == (kept > 2)


# ---- level agents --------------------------------------------------------------------------------

def h2h_of(beats, labels):
    """A head-to-head matrix: 20 deals won for each (a, b) in beats, even deals for the other pairs."""
    won, even = intervals.interval([1.0] * 20), intervals.interval([1.0, 0.0] * 10)
    lost = intervals.interval([0.0] * 20)
    return {a: {b: won if (a, b) in beats else lost if (b, a) in beats else even for b in labels if b != a}
            for a in labels}


@pytest.mark.parametrize("beats, ranks", [
    (set(), {"a": 1, "b": 1, "c": 1}),                                    # nothing separates them
    ({("a", "b"), ("b", "c"), ("a", "c")}, {"a": 1, "b": 2, "c": 3}),      # a clear order
    ({("a", "c")}, {"a": 1, "b": 1, "c": 2}),                             # b is level with both
    ({("a", "b"), ("b", "c")}, {"a": 1, "b": 2, "c": 3}),                 # above through a chain
    ({("a", "b"), ("b", "c"), ("c", "a")}, {"a": 1, "b": 1, "c": 1}),      # a cycle: none is above
    ({("d", "a"), ("d", "b"), ("d", "c"), ("a", "b"), ("b", "c"), ("c", "a")},
     {"d": 1, "a": 2, "b": 2, "c": 2}),
])
def test_agents_that_no_result_separates_share_a_rank(beats, ranks):
    assert standings.separated_ranks(h2h_of(beats, sorted(ranks))) == ranks


def test_level_agents_are_shown_level(tmp_path):
    store = tmp_path / "s.sqlite"
    invoke("run", "--game", "wizard", "--players", 3, "--agents", "greedy, random, random as random_two",
           "--games", 6, "-j", 1, "--deal-key", "5eed" + "0" * 28, "--store", store)
    rows = json.loads(invoke("leaderboard", "--store", store, "--json"))["leaderboards"][0]["rows"]
    assert [(r["label"], r["rank"]) for r in rows][0] == ("greedy", 1)
    assert [r["rank"] for r in rows[1:]] == [2, 2]
    text = invoke("leaderboard", "--store", store)
    lines = {line.split()[1]: line.split()[0] for line in text.splitlines() if line[:4].strip() in ("1", "2=")}
    assert lines == {"greedy": "1", "random": "2=", "random_two": "2="}, text
    level = " ".join(text[text.index("level: "):].split())
    assert level.startswith(f"level: 2= {rows[1]['label']}, {rows[2]['label']} (no result puts one of them above "
                            f"another with 95% confidence"), level
