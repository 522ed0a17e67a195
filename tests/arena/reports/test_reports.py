"""Leaderboards, matchup matrices, graphs and HTML reports, on synthetic rock-paper-scissors runs.

The tournaments are written straight into a store with `Store.record`, so these tests need no engine:
three biased players (each throws its favourite 80% of the time) form the cycle
rock > scissors > paper > rock, and a uniform player sits in the middle of it.
"""
import html
import json
import os
import random
import re
import struct
import subprocess

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.reports import graph, matchups
from arena.cli.reports import report as report_cmd
from arena.match import AgentSpec, Fault, MatchResult, MatchSpec
from arena.reports import graphs, report
from arena.results import intervals, standings
from arena.run_config import TournamentConfig
from arena.store import Store
from browser import chromium
from configs import a_config

THROWS = "RPS"
FAVOURITE = {"rock": "R", "paper": "P", "scissors": "S"}
BEATS = {("R", "S"), ("S", "P"), ("P", "R")}
AGENTS = (AgentSpec("rock", "tests:Biased", (("favourite", "R"), ("bias", 0.8))),
          AgentSpec("paper", "tests:Biased", (("favourite", "P"), ("bias", 0.8))),
          AgentSpec("scissors", "tests:Biased", (("favourite", "S"), ("bias", 0.8))),
          AgentSpec("uniform", "random", ()))


def throw(label, rng):
    fav = FAVOURITE.get(label)
    if fav is not None and rng.random() < 0.8:
        return fav
    return rng.choice(THROWS)


def rps_store(path, deals, run_id="rps-1", seed=7, faulty_every=0):
    """A round robin of duplicate deals: each pair plays each deal twice with the seats swapped."""
    store = Store(str(path))
    params = {"players": 2}
    store.create_run(run_id, a_config("rps", params, AGENTS, seed=seed, deals=deals), total=deals * 12)
    match_id = deal = 0
    for _ in range(deals):
        for a, b in [(x, y) for i, x in enumerate(AGENTS) for y in AGENTS[i + 1:]]:
            deal_seed = seed * 100003 + deal
            for seats in ((a, b), (b, a)):
                rng = random.Random(deal_seed)
                t0, t1 = throw(seats[0].label, rng), throw(seats[1].label, rng)
                if (t0, t1) in BEATS:
                    returns, places = [1, -1], [1, 2]
                elif (t1, t0) in BEATS:
                    returns, places = [-1, 1], [2, 1]
                else:
                    returns, places = [0, 0], [1, 1]
                faults = []
                if faulty_every and match_id % faulty_every == 0 and seats[1].label == "uniform":
                    faults = [Fault(seat=1, label="uniform", kind="timeout", message="no move within 1.0 s")]
                    returns, places = [1, -1], [1, 2]
                spec = MatchSpec(run_id, match_id, "rps", tuple(params.items()), deal_seed, seats, deal)
                loyal = [float(t == FAVOURITE.get(s.label, "R")) for t, s in zip((t0, t1), seats)]
                store.record(spec, MatchResult(match_id, returns, places, [THROWS.index(t0), THROWS.index(t1)],
                                               faults, {"favourite_rate": loyal}))
                match_id += 1
            deal += 1
    store.set_status(run_id, "finished")
    return store


CYCLE = ["paper", "rock", "scissors"]   # paper beats rock beats scissors beats paper


@pytest.fixture(scope="module")
def rps(tmp_path_factory):
    path = tmp_path_factory.mktemp("rps") / "arena.sqlite"
    store = rps_store(path, 40, faulty_every=17)
    yield str(path), store.matches("rps-1")
    store.close()


@pytest.fixture(scope="module")
def report_file(rps, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    result = CliRunner().invoke(report_cmd, ["--store", rps[0], "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


# ---- statistics ---------------------------------------------------------------------------------

def test_interval_is_t_with_two_pseudo_observations():
    iv = intervals.interval([0.0, 1.0] * 5)
    assert (iv.mean, iv.n) == (0.5, 10)
    assert iv.high - 0.5 == pytest.approx(2.201 * (12 * 0.25 / 11 / 12) ** 0.5)
    # Five wins out of five: a wide interval below 1, not a certainty.
    five = intervals.interval([1.0] * 5)
    assert five.mean == 1.0 and five.high == 1.0 and 0.45 < five.low < 0.6
    assert intervals.interval([1.0] * 50).low > five.low
    assert intervals.interval([]) is None
    placement = intervals.interval([1, 2, 3, 4], lo=1.0, hi=4.0)
    assert placement.mean == 2.5 and 1.0 <= placement.low < 2.5 < placement.high <= 4.0


def test_duplicate_deals_are_the_unit():
    """A game the first seat always wins: each duplicate deal (seats swapped) is an even split."""
    a, b = AgentSpec("a", "random"), AgentSpec("b", "random")
    matches = []
    for deal in range(12):
        for k, seats in enumerate(((a, b), (b, a))):
            matches.append({"match_id": 2 * deal + k, "game_id": "g", "game_params": {"players": 2},
                            "deal": deal, "seed": 1000 + deal, "seats": [s.as_dict() for s in seats],
                            "placements": [1, 2], "returns": [1, 0], "faults": [], "metrics": {}})
    cell = standings.head_to_head(matches)["a"]["b"]
    assert (cell.mean, cell.n, cell.games) == (0.5, 12, 24)
    assert standings.cycles(matches) == []


@pytest.mark.slow
def test_intervals_shrink_as_games_are_added(tmp_path):
    widths = []
    for deals in (5, 20, 80):
        store = rps_store(tmp_path / f"rps{deals}.sqlite", deals)
        ms = store.matches("rps-1")
        h2h = standings.head_to_head(ms)
        rows = standings.standings(ms)
        cells = {(a, b): c for a, row in h2h.items() for b, c in row.items()}
        assert len(cells) == 12 and all(c.n == deals and c.games == 2 * deals for c in cells.values())
        widths.append(({k: c.width for k, c in cells.items()},
                       {r.label: (r.score_share.width, r.placement.width) for r in rows}))
        store.close()
    for (cells0, rows0), (cells1, rows1) in zip(widths, widths[1:]):
        assert all(cells1[k] < cells0[k] for k in cells0)
        assert all(rows1[a][0] < rows0[a][0] and rows1[a][1] < rows0[a][1] for a in rows0)


# ---- the cycle, in analysis, leaderboard, graph and report --------------------------------------

@pytest.mark.slow
def test_rps_cycle_found_everywhere(rps, report_file):
    path, ms = rps
    assert standings.cycles(ms) == [{"game_id": "rps", "game_params": {"players": 2}, "cycle": CYCLE}]
    summ = standings.summary(ms)
    assert summ["cycles"] == [CYCLE]
    g = graphs.matchup_graph(summ)
    assert {(a, b) for a, b, d in g.edges(data=True) if d["in_cycle"]} == \
        {("paper", "rock"), ("rock", "scissors"), ("scissors", "paper")}
    assert not g.nodes["uniform"]["in_cycle"] and not any(d["confident"] for _, _, d in g.in_edges("uniform", data=True))
    # The rating history ends on the leaderboard's ratings.
    for row in summ["leaderboard"]:
        last = summ["rating_history"][row.label][-1]
        assert last == (row.games, pytest.approx(row.mu), pytest.approx(row.sigma))
        assert row.score_share.low < 0.5 < row.score_share.high
    text = report_file.read_text()
    assert "Cycles (each beats the next" in text and "paper &gt; rock &gt; scissors &gt; paper" in text
    out = CliRunner().invoke(matchups, ["--store", path])
    assert out.exit_code == 0 and "cycle: paper > rock > scissors > paper" in out.output
    out = CliRunner().invoke(main, ["leaderboard", "--store", path])
    assert out.exit_code == 0, out.output
    assert "one rating hides this): paper > rock > scissors > paper" in out.output
    assert "score share (95%)" in out.output
    board = json.loads(CliRunner().invoke(main, ["leaderboard", "--store", path, "--json"]).output)
    assert board["leaderboards"][0]["cycles"] == [CYCLE]


def test_leaderboard_rows_carry_intervals_faults_and_metrics(rps):
    rows = {r.label: r for r in standings.leaderboard(rps[1])}
    assert rows["uniform"].faults > 0 and rows["rock"].faults == 0
    loyal = rows["rock"].metrics["favourite_rate"]
    assert 0.8 < loyal.mean < 0.95 and loyal.low < loyal.mean < loyal.high
    assert rows["uniform"].metrics["favourite_rate"].mean < 0.5


# ---- pictures -----------------------------------------------------------------------------------

def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_graph_images_have_content(rps, tmp_path):
    path, _ = rps
    png, svg = tmp_path / "g.png", tmp_path / "g.svg"
    for out in (png, svg):
        result = CliRunner().invoke(graph, ["--store", path, "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert "cycle paper > rock > scissors > paper" in result.output
    width, height = png_size(png)
    assert width > 300 and height > 300 and png.stat().st_size > 10_000
    import xml.etree.ElementTree as ET
    root = ET.parse(svg).getroot()
    tags = [el.tag.rsplit("}", 1)[-1] for el in root.iter()]
    assert tags.count("path") >= 12   # nodes, edges, arrow heads
    texts = " ".join(el.text or "" for el in root.iter() if el.tag.endswith("text"))
    assert all(label in texts for label in ("rock", "paper", "scissors", "uniform"))


def test_graph_json_and_html(rps, tmp_path):
    path, _ = rps
    out = tmp_path / "g.html"
    result = CliRunner().invoke(graph, ["--store", path, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["graphs"][0]["cycles"] == [CYCLE]
    edge = next(e for e in data["graphs"][0]["edges"] if (e["winner"], e["loser"]) == ("rock", "scissors"))
    assert edge["confident"] and edge["in_cycle"] and 0.7 < edge["win_rate"] < 1
    page = out.read_text()
    assert "<svg" in page and "paper &gt; rock &gt; scissors &gt; paper" in page
    assert_self_contained(page)


def test_graph_refuses_unknown_format_and_run(rps, tmp_path):
    result = CliRunner().invoke(graph, ["--store", rps[0], "--out", str(tmp_path / "g.jpg")])
    assert result.exit_code == 2 and ".png, .svg or .html" in result.output
    result = CliRunner().invoke(matchups, ["nope", "--store", rps[0]])
    assert result.exit_code == 2 and "no run 'nope'" in result.output


def test_matchups_json_and_latest_run(tmp_path):
    path = tmp_path / "two.sqlite"
    rps_store(path, 3, run_id="older").close()
    rps_store(path, 6, run_id="newer").close()
    data = json.loads(CliRunner().invoke(matchups, ["--store", str(path), "--json"]).output)
    assert data["run_id"] == "newer"
    cell = data["groups"][0]["head_to_head"]["rock"]["scissors"]
    assert cell["deals"] == 6 and cell["games"] == 12 and cell["low"] <= cell["mean"] <= cell["high"]
    older = json.loads(CliRunner().invoke(matchups, ["older", "--store", str(path), "--json"]).output)
    assert older["groups"][0]["head_to_head"]["rock"]["scissors"]["deals"] == 3


# ---- the report ---------------------------------------------------------------------------------

def assert_self_contained(page):
    links = re.findall(r"""(?:\bsrc|\bhref)\s*=\s*["']?([^"'\s>]*)""", page, flags=re.I)
    assert all(v.startswith(("#", "data:")) for v in links), \
        [v for v in links if not v.startswith(("#", "data:"))]
    assert not re.search(r"<script[^>]*\bsrc\b|<link\b|@import|url\(\s*['\"]?(?:https?:)?//|<iframe|<img",
                         page, flags=re.I)


def test_report_is_self_contained_and_complete(report_file):
    page = report_file.read_text()
    assert_self_contained(page)
    assert page.count("<svg") == 3    # heatmap, graph, rating history
    for needle in ("Leaderboard", "Head to head", "Matchup graph", "Rating over games played", "Faults",
                   "timeout", "no move within 1.0 s", "Reproduction", "tests:Biased", "favourite=R",
                   "favourite rate (95%)", "700021", "trueskill", "numpy", "python"):
        assert needle in page, needle


def test_report_json_and_default_path(rps, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(report_cmd, ["--store", rps[0], "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["out"] == os.path.join(os.path.dirname(rps[0]), "report-rps-1.html")   # beside the store
    assert os.path.getsize(data["out"]) > 10_000
    section = data["sections"][0]
    assert section["cycles"] == [CYCLE] and section["matches"] == 480
    assert [r["label"] for r in section["leaderboard"]] == [r.label for r in standings.leaderboard(rps[1])]
    assert len(data["faults"]) == sum(len(m["faults"]) for m in rps[1]) > 0
    assert {"python", "numpy", "trueskill", "tabletop-arena"} <= set(data["versions"])
    # The page lists the first matches of each game (the store holds them all), and every deal's seed range.
    assert len(section["first_matches"]) == report.SHOWN_MATCHES and section["first_matches"][0]["seed"] == 700021
    assert section["deals"] == len({(m["deal"], m["seed"]) for m in rps[1]})
    assert section["seed_range"] == [min(m["seed"] for m in rps[1]), max(m["seed"] for m in rps[1])]


@pytest.mark.slow
def test_report_renders_in_headless_browser(report_file, tmp_path):
    exe = chromium()
    if exe is None:
        pytest.skip("no chromium binary (apt-get install -y chromium) to render the report with")
    flags = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             # Nothing may be fetched: every host resolves to nowhere.
             "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp_path / 'profile'}"]
    url = report_file.as_uri()
    dom = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", dom.stdout).group(1)
    assert 'data-rendered="3"' in body and "data-errors" not in body, body
    shot = tmp_path / "report.png"
    run = subprocess.run(flags + ["--window-size=1280,2400", f"--screenshot={shot}", url],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert png_size(shot) == (1280, 2400) and shot.stat().st_size > 50_000


def test_agent_holding_several_seats():
    """Fewer agents than seats (a b a): an agent never scores against its own seats."""
    seats = [{"label": x, "source": "random", "params": {}} for x in "aba"]
    matches = [{"match_id": k, "game_id": "g", "game_params": {"players": 3}, "deal": k, "seed": k,
                "seats": seats, "placements": [1, 2, 3] if k % 2 else [3, 2, 1], "returns": [0, 0, 0],
                "faults": [], "metrics": {}} for k in range(8)]
    h2h = standings.head_to_head(matches)
    assert set(h2h) == {"a", "b"} and "a" not in h2h["a"]
    assert h2h["a"]["b"].mean == 0.5 and h2h["a"]["b"].games == 8
    rows = {r.label: r for r in standings.standings(matches)}
    assert rows["a"].games == 8 and rows["a"].placement.mean == 2.0
    assert rows["b"].score_share.mean == 0.5 and rows["b"].placement.mean == 2.0


def test_commands_are_registered_on_arena(rps, tmp_path):
    from arena.cli import main
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["report", "rps-1", "--store", rps[0], "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 10_000 and {"matchups", "graph", "report"} <= set(main.commands)


def test_report_after_a_real_tournament_gives_the_command_that_replays_it(tmp_path):
    """The README's first command, then `arena report`; the page's command schedules the same run."""
    import shlex

    from arena.cli import main
    store = str(tmp_path / "arena.sqlite")
    first = CliRunner().invoke(main, ["run", "--game", "insert", "--agents", "random,greedy", "--games", "2",
                                      "-j", "1", "--store", store])
    assert first.exit_code == 0, first.output
    out = tmp_path / "insert.html"
    result = CliRunner().invoke(main, ["report", "--store", store, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["finished"] == data["total"] == 4 and data["sections"][0]["game_id"] == "insert"
    page = out.read_text()
    assert_self_contained(page)
    command = report.rerun_command(TournamentConfig.from_json(data["config"]))
    assert command is not None and html.escape(command) in page
    again = CliRunner().invoke(main, shlex.split(command)[1:] + ["-j", "1", "--store", store])
    assert again.exit_code == 0 and f"run {data['run_id']}: 4 matches, 4 already stored" in again.output


def test_the_terminal_json_and_report_show_the_same_rows(tmp_path):
    store = str(tmp_path / "arena.sqlite")
    assert CliRunner().invoke(main, ["run", "--game", "wizard", "--players", "3", "--param", "hands=2",
                                     "--agents", "random,greedy", "--games", "3", "-j", "1", "--store", store]).exit_code == 0
    board = json.loads(CliRunner().invoke(main, ["leaderboard", "--json", "--store", store]).output)
    rows = board["leaderboards"][0]["rows"]
    data = json.loads(CliRunner().invoke(main, ["report", "--json", "--store", store,
                                                "--out", str(tmp_path / "r.html")]).output)
    assert data["sections"][0]["leaderboard"] == rows
    text = CliRunner().invoke(main, ["leaderboard", "--store", store]).output
    for row in rows:
        line = next(line for line in text.splitlines() if f" {row['label']} " in line)
        share = row["score_share"]
        for figure in (f"{row['mu']:.2f}", f"{row['sigma']:.2f}", f"{row['conservative']:.2f}",
                       f"{share['mean']:.2f} [{share['low']:.2f}-{share['high']:.2f}]",
                       f"{row['metrics']['bid_accuracy']['mean']:.2f} [{row['metrics']['bid_accuracy']['low']:.2f}-"):
            assert figure in line, (figure, line)


def test_two_agents_score_shares_add_up_to_one_whatever_seats_they_hold():
    """Belle of the Ball at three seats with two agents: A B A and B A B on each deal."""
    seatings = (["a", "b", "a"], ["b", "a", "b"])
    results = ([1, 2, 3], [2, 1, 3])   # a wins one seat of two in the first, a's one seat wins the second
    matches = []
    for k in range(12):
        for n, labels in enumerate(seatings):
            places = results[n] if k % 2 else results[n][::-1]
            matches.append({"match_id": 2 * k + n, "game_id": "g", "game_params": {"players": 3}, "deal": k,
                            "seed": k, "seats": [{"label": x} for x in labels], "placements": places,
                            "returns": [0.0] * 3, "faults": [], "metrics": {}})
    rows = {r.label: r for r in standings.standings(matches)}
    assert rows["a"].score_share.mean + rows["b"].score_share.mean == pytest.approx(1.0)


@pytest.mark.parametrize("agents, alike", [("greedy, greedy as twin", 3), ("greedy, random", 0)])
def test_the_report_says_on_how_many_deals_play_was_identical_as_the_terminal_does(tmp_path, agents, alike):
    store = str(tmp_path / "arena.sqlite")
    assert CliRunner().invoke(main, ["run", "--game", "insert", "--agents", agents, "--games", "3", "-j", "1",
                                     "--store", store]).exit_code == 0
    line = f"identical play on {alike} of 3 deals: every match of the deal played the same moves (coupled seeds)"
    assert line in CliRunner().invoke(main, ["leaderboard", "--store", store]).output
    out = tmp_path / "r.html"
    data = json.loads(CliRunner().invoke(main, ["report", "--json", "--store", store, "--out", str(out)]).output)
    assert data["sections"][0]["identical_play"] == line
    assert f"<p class=\"identical\">{line}</p>" in out.read_text()
