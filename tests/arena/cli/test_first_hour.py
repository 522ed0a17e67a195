"""What a new user sees in the first hour: every leaderboard explains its columns and says who is
stronger (or how many more deals would tell), and the terminal, matchups, graph and report show the
same columns, figures and words. One screen is checked as a person sees it, in tmux."""
import html
import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

import terminal
from arena.cli import main
from arena.reports.tables import INTERVALS, LEGEND, MATCHUPS_LEGEND, legend_items
from arena.results import intervals
from arena.results.verdict import verdict
from arena.text import interval_text
from paths import ROOT


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def flat(text):
    return " ".join(text.split())


@pytest.fixture(scope="module")
def wizard(tmp_path_factory):
    """A small stored Wizard run (3 players, 2 hands, 3 deals): dup and bid accuracy columns too."""
    store = str(tmp_path_factory.mktemp("first-hour") / "arena.sqlite")
    invoke("run", "--game", "wizard", "--players", 3, "--param", "hands=2", "--agents", "greedy,random",
           "--games", 3, "-j", 1, "--store", store)
    return store


# ---- the legend and the verdict ------------------------------------------------------------------

def test_the_leaderboard_explains_its_columns_and_gives_a_verdict(wizard):
    text = invoke("leaderboard", "--store", wizard)
    head = next(line for line in text.splitlines() if "score share (95%)" in line)
    assert head.split() == ["#", "agent", "mu", "sigma", "mu-3σ", "games", "W/D/L", "score", "share", "(95%)",
                            "placement", "(95%)", "dup", "bid", "acc.", "(95%)"]
    verdicts = [line for line in text.splitlines() if line.startswith("verdict: ")]
    assert len(verdicts) == 1
    assert re.match(r"verdict: (greedy is stronger than random: greedy scores \S+ \[\S+\] against random over 3 "
                    r"deals \(95% interval above 0\.50\)|not settled: .* over 3 deals; about \d+ more deals would "
                    r"likely settle it \(--games \d+\))$", verdicts[0]), verdicts[0]
    # Under the table, every column shown is explained, in the table's order, and so are the intervals.
    legend = flat(text[text.index(verdicts[0]) + len(verdicts[0]):])
    terms = ["mu, sigma", "mu-3σ", "games", "W/D/L", "score share", "placement", "dup", "bid acc.", "[a-b]"]
    shown = [(term, meaning) for term, meaning in legend_items(["mu", "mu-3σ", "games", "W/D/L", "score share (95%)",
                                                                "placement (95%)", "dup", "bid acc. (95%)"])]
    assert [term for term, _ in shown] == terms
    at = [legend.index(flat(f"{term} {meaning}")) for term, meaning in shown]
    assert at == sorted(at)
    assert "faults" not in legend   # no agent faulted, so no faults column and no word about it


def test_help_explains_the_columns_and_the_dashed_arrows():
    for command in ("leaderboard", "run"):
        text = flat(invoke(command, "--help"))
        for term, meaning in list(LEGEND.values()) + [INTERVALS]:
            assert flat(f"{term}: {meaning}") in text, (command, term)
        assert "bid acc.: the share of its Wizard rounds" in text
    graph = flat(invoke("graph", "--help"))
    assert "dashed and grey: not yet" in graph and "Solid: the whole interval is above 0.50" in graph
    assert flat(MATCHUPS_LEGEND) in flat(invoke("matchups", "--help"))
    # The command list gives each of these commands whole, not cut short with "...".
    listing = invoke("--help")
    for command in ("run", "leaderboard", "matchups", "graph", "report"):
        line = next(line for line in listing.splitlines() if line.strip().startswith(command + " "))
        assert not line.rstrip().endswith("..."), line


def deals(values, a="greedy", b="random"):
    """The head-to-head matrix and Standing rows (as plain data) of two agents over per-deal scores."""
    iv = intervals.interval(values)
    other = intervals.interval([1 - v for v in values])
    h2h = {a: {b: iv.as_dict()}, b: {a: other.as_dict()}}
    rows = [{"label": a, "rank": 1}, {"label": b, "rank": 2}]
    return rows, h2h, iv


def test_a_verdict_when_the_interval_allows_one():
    rows, h2h, iv = deals([1.0] * 30 + [0.5] * 6 + [0.0] * 4)
    assert iv.low > 0.5
    assert verdict(rows, h2h, []) == (f"greedy is stronger than random: greedy scores {interval_text(iv)} "
                                      f"against random over 40 deals (95% interval above 0.50)")
    # Rated first or not, the agent that beats the other with 95% confidence is named.
    assert verdict(rows[::-1], h2h, []).startswith("greedy is stronger than random")


def test_otherwise_how_many_more_deals_would_likely_settle_it():
    observed = [1.0, 1.0, 0.5, 0.0, 1.0, 0.5, 1.0, 0.0]
    rows, h2h, iv = deals(observed)
    assert iv.low < 0.5 < iv.mean
    said = verdict(rows, h2h, [])
    found = re.fullmatch(rf"not settled: greedy scores {re.escape(interval_text(iv))} against random over 8 "
                         r"deals; about (\d+) more deals would likely settle it \(--games (\d+)\)", said)
    assert found, said
    more, total = int(found[1]), int(found[2])
    assert total == 8 + more
    # Deals like these, as many as it says, do settle it; a quarter as many do not.
    assert intervals.interval(observed * (total // 8 + 1)).low > 0.5
    assert intervals.interval(observed * max(1, total // 32)).low < 0.5
    # The agent below in the table that leads head to head is the one named first.
    rows, h2h, _ = deals([1 - v for v in observed])
    assert verdict(rows, h2h, []).startswith("not settled: random scores ")
    # Agents that look even: no promise.
    rows, h2h, _ = deals([1.0, 0.0] * 10)
    assert verdict(rows, h2h, []).endswith("they look even, and more deals may never separate them")


def test_more_than_two_agents_and_cycles():
    labels = ["a", "b", "c"]
    strong = intervals.interval([1.0] * 20).as_dict()
    weak = intervals.interval([0.0] * 20).as_dict()
    h2h = {x: {y: strong if labels.index(x) < labels.index(y) else weak for y in labels if y != x} for x in labels}
    rows = [{"label": x} for x in labels]
    assert verdict(rows, h2h, []).startswith("a > b > c: each beats every agent after it with 95% confidence")
    assert verdict(rows, h2h, [["a", "b", "c"]]) == ("no single strongest agent: a > b > c > a, each beating "
                                                    "the next with 95% confidence")
    assert verdict(rows[:1], {}, []) is None


# ---- one truth across views ----------------------------------------------------------------------

def cells_of(page, cls):
    table = re.search(rf'<table class="{cls}">(.*?)</table>', page, flags=re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
    return [[html.unescape(re.sub(r"<[^>]*>", "", c)).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, flags=re.S)]
            for r in rows]


def test_the_terminal_and_the_report_show_the_same_numbers_and_words(wizard, tmp_path):
    text = invoke("leaderboard", "--store", wizard)
    out = tmp_path / "r.html"
    data = json.loads(invoke("report", "--store", wizard, "--out", out, "--json"))
    board = json.loads(invoke("leaderboard", "--store", wizard, "--json"))["leaderboards"][0]
    section = data["sections"][0]
    assert section["leaderboard"] == board["rows"] and section["verdict"] == board["verdict"]
    page = out.read_text()
    head, *rows = cells_of(page, "leaderboard")
    lines = text.splitlines()
    header = next(line for line in lines if "score share (95%)" in line)
    # The same columns in the same order, and in each row the same figures in the same order.
    assert flat(header) == " ".join(head)
    for row in rows:
        line = next(line for line in lines if line.split()[:2] == row[:2])
        assert line.split() == " ".join(row).split(), (row, line)
    # The same verdict and the same legend, word for word.
    assert f"verdict: {board['verdict']}" in text
    assert html.escape(f"verdict: {board['verdict']}") in page
    legend = re.findall(r"<li>(.*?)</li>", re.search(r'<ul class="legend">(.*?)</ul>', page).group(1))
    assert [html.unescape(x) for x in legend] == [f"{t}: {m}" for t, m in legend_items(head)]
    for term, meaning in legend_items(head):
        assert flat(f"{term} {meaning}") in flat(text)
    # matchups, the report's matrix and its heatmap write each score with its interval, the same way.
    matrix = json.loads(invoke("matchups", "--store", wizard, "--json"))["groups"][0]
    cell = interval_text(matrix["head_to_head"]["greedy"]["random"])
    assert cell in invoke("matchups", "--store", wizard) and cell in page
    heatmap = page[page.index("<h3>Head to head</h3>"):page.index("<h3>Matchup graph</h3>")]
    mean, interval = cell.split(" ")
    assert f">{mean}<" in heatmap and f">{interval}<" in heatmap and "±" not in heatmap
    assert matrix["verdict"] == board["verdict"]


def test_the_graph_labels_its_arrows_with_the_same_figures(wizard, tmp_path):
    out = tmp_path / "g.svg"
    data = json.loads(invoke("graph", "--store", wizard, "--out", out, "--json"))
    edge = data["graphs"][0]["edges"][0]
    svg = out.read_text()
    assert interval_text({"mean": edge["win_rate"], "low": edge["low"], "high": edge["high"]}) in svg
    assert "dashed: not yet" in svg


def test_a_tournament_in_a_pipe_reports_progress(tmp_path):
    run = subprocess.run([sys.executable, "-m", "arena", "run", "--game", "insert", "--agents", "greedy,random",
                          "--games", "2", "-j", "1", "--store", str(tmp_path / "s.sqlite")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"matches 4/4 \(100%\), [0-9.]+/s after \d+s, done", last), run.stderr


@pytest.mark.slow
def test_the_quick_start_ends_with_a_settled_verdict_on_the_games(tmp_path):
    """The README's first command, on every game, with ISMCTS on 50 iterations a move instead of its
    default 10,000 and a cap of 30 deals (the same agents and rule, a test's budget; fixed deals)."""
    with open(os.path.join(ROOT, "README.md")) as f:
        [agents] = re.findall(r"&& arena run --agents (\S+)\n", f.read())
    assert agents == "ismcts,greedy"
    out = json.loads(invoke("run", "--agents", agents.replace("ismcts", "ismcts[iterations=50]"), "--max-deals", 30,
                            "--deal-key", "9a" * 16, "--store", tmp_path / "s.sqlite", "--json"))
    boards = out["leaderboards"]
    assert len(boards) == 5
    assert sum(b["settled"] for b in boards) >= 4, [b["verdict"] for b in boards]
    for b in boards:
        assert b["verdict"].startswith("settled after " if b["settled"] else "not settled at the cap of 30 deals")


# ---- the screen, as a person sees it -------------------------------------------------------------

def test_the_leaderboard_on_a_120_column_terminal(wizard, tmp_path):
    screen = terminal.screen(f"{sys.executable} -m arena leaderboard --store {wizard}", 120, 40)
    lines = screen.splitlines()
    assert all(len(line) <= 120 for line in lines)
    board = json.loads(invoke("leaderboard", "--store", wizard, "--json"))["leaderboards"][0]
    # Every column fits: the header ends with the last column's name, each row with its last figure.
    header = next(line for line in lines if "score share (95%)" in line)
    assert header.rstrip().endswith("bid acc. (95%)"), header
    for row in board["rows"]:
        line = next(line for line in lines if line.split()[1:2] == [row["label"]])
        assert line.rstrip().endswith(interval_text(row["metrics"]["bid_accuracy"])), line
        assert f"{row['wins']}/{row['draws']}/{row['losses']}" in line.split()
    # The verdict, whole (wrapped if long), and the legend beside its terms, below the table.
    below = flat("\n".join(lines[lines.index(header):]))
    assert flat("verdict: " + board["verdict"]) in below
    for term, meaning in legend_items(["mu", "mu-3σ", "W/D/L", "score share (95%)", "dup"]):
        assert flat(f"{term} {meaning}") in below, term
    assert re.search(r"^mu-3σ +mu - 3 sigma, a rating the agent is very likely above", screen, flags=re.M)
