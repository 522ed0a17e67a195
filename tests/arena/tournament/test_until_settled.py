"""`arena run` without --games plays each game until its verdict is settled, with --games N a fixed
number of deals; a run until settled killed half-way and run again ends as if never stopped."""
import json
import os
import signal

import pytest
from click.testing import CliRunner

from arena import edge
from arena.cli import main
from arena.store import Store
from arena.tournament import coordinator as tournament
from arena_processes import start, wait_for_matches

KEY = "5e" * 16


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_without_games_a_run_stops_at_the_look_that_settles_it_and_games_n_plays_n_deals(tmp_path):
    args = ["run", "--game", "insert", "--agents", "greedy, random", "-j", 1, "--deal-key", KEY, "--json"]
    settled = json.loads(invoke(*args, "--store", tmp_path / "a.sqlite"))
    [board] = settled["leaderboards"]
    assert board["settled"] is True and board["verdict"].startswith("settled after ")
    deals = int(board["verdict"].split()[2])
    # Two seatings a deal, nothing past the look; the run's total is then what it played.
    assert deals in (8, 12, 18) and settled["matches"] == settled["total"] == 2 * deals
    fixed = json.loads(invoke(*args, "--games", 3, "--store", tmp_path / "b.sqlite"))
    assert fixed["matches"] == fixed["total"] == 6
    assert fixed["leaderboards"][0]["settled"] is None and "settled after" not in fixed["leaderboards"][0]["verdict"]


def test_a_run_that_reaches_its_cap_says_so(tmp_path):
    out = json.loads(invoke("run", "--game", "insert", "--agents", "random as a, random as b", "-j", 1,
                            "--max-deals", 9, "--store", tmp_path / "s.sqlite", "--json"))
    [board] = out["leaderboards"]
    assert out["matches"] == out["total"] == 18 and board["settled"] is False
    assert board["verdict"].startswith("not settled at the cap of 9 deals: ")
    # A higher cap takes the stored deals and plays on to its own next look (12 deals).
    store = Store(str(tmp_path / "s.sqlite"))
    more = tournament.plan(store, games=edge.games("insert", None), agents=edge.agents("random as a, random as b"), max_deals=12,
                           deal_key=store.runs()[0].deal_key)
    assert (more.taken, len(more.todo)) == (18, 6)
    assert tournament.play(store, more, jobs=1) == "finished" and len(store.finished_ids(more.run_id)) == 24


def test_max_deals_with_games_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["run", "--game", "insert", "--games", 2, "--max-deals", 5,
                                       "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 2 and "give it or --games, not both" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_a_run_until_settled_killed_half_way_resumes_to_the_same_verdict_without_duplicates(tmp_path):
    # Two close built-in agents (no sandbox), slow enough to be killed inside the second batch.
    args = ["--game", "insert", "--agents", "ismcts[iterations=1000] as a, ismcts[iterations=1000,c=1.4] as b",
            "--max-deals", 12, "-j", 1, "--deal-key", KEY]
    store = tmp_path / "killed.sqlite"
    proc = start(args + ["--store", store], tmp_path)
    wait_for_matches(store, 18, proc)    # past the first look (8 deals, 16 matches), inside the next batch
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    resumed = json.loads(invoke("run", *args, "--store", store, "--json"))
    whole = json.loads(invoke("run", *args, "--store", tmp_path / "whole.sqlite", "--json"))
    assert resumed["run_id"] == whole["run_id"]
    assert resumed["leaderboards"][0]["verdict"] == whole["leaderboards"][0]["verdict"]
    assert resumed["leaderboards"][0]["settled"] is not None
    played = [[(m["match_id"], m["deal"], m["placements"]) for m in Store(str(s), readonly=True).matches(resumed["run_id"])]
              for s in (store, tmp_path / "whole.sqlite")]
    assert played[0] == played[1] and len({m[0] for m in played[0]}) == len(played[0]) == resumed["matches"]
