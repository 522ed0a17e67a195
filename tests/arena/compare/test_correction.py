"""arena.compare.correction: the corrected score, replays of a coupled pair from the move after its divergence."""
import json

import pytest
from click.testing import CliRunner

from arena import edge
from arena.cli import main
from arena.compare import compare, correction
from arena.results.divergence import divergence
from arena.store import Store

PAIR = ("ismcts[iterations=40]", "ismcts[iterations=20]")


def played(tmp_path, candidate, baseline, deals, **kw):
    store = Store(str(tmp_path / "c.sqlite"))
    plan = edge.plan_comparison(store, candidate, baseline, "wizard", 3, ["hands=2"], sandbox="none", max_deals=deals,
                                sprt_text="elo0=0,elo1=1000", deal_key="0" * 32, **kw)
    compare.play(store, plan, jobs=1)
    return store, plan, store.matches(plan.run_id)


def test_a_deal_that_played_identically_is_exact_and_not_replayed(tmp_path):
    store, plan, matches = played(tmp_path, "ismcts[iterations=20]", "ismcts[iterations=20] as twin", 10)
    fixed = correction.correct(plan, matches, 10, replays=3)
    assert fixed.replayed == 0 and fixed.values == fixed.raw == [0.5] * 10


def test_replays_start_after_the_divergence_on_fresh_seeds_the_two_matches_share(tmp_path):
    store, plan, matches = played(tmp_path, *PAIR, 6)
    by_id = {m["match_id"]: m for m in matches}
    parted = [d for d in range(6) if not divergence(by_id[2 * d]["actions"], by_id[2 * d + 1]["actions"]).identical]
    assert parted
    differs = 0
    for d in parted:
        first, second = by_id[2 * d], by_id[2 * d + 1]
        start = divergence(first["actions"], second["actions"]).first + 1
        for spec, match in zip(plan.deal_specs(d), (first, second)):
            again = correction.continuation(spec, match["actions"][:start], 1)
            assert again["actions"][:start] == match["actions"][:start]
            assert again == correction.continuation(spec, match["actions"][:start], 1)   # keyed, deterministic
            # a whole game given as the prefix is the stored match itself
            assert correction.continuation(spec, match["actions"], 1)["placements"] == match["placements"]
            differs += again["actions"] != match["actions"] or \
                correction.continuation(spec, match["actions"][:start], 2)["actions"] != again["actions"]
    assert differs   # the replays' seeds are not the stored match's, nor each other's
    fixed = correction.correct(plan, matches, 6, replays=2)
    assert fixed.replayed == len(parted) and fixed.raw == [plan.values[compare.observation(
        plan, d, by_id[2 * d], by_id[2 * d + 1])[0]] for d in range(6)]
    grid = correction.grid(plan.values, 2)
    assert all(grid[correction.grid_index(grid, v)] == pytest.approx(v) for v in fixed.values)


def test_the_sequential_test_on_corrected_observations_plays_the_comparisons_deals(tmp_path):
    store, plan, _ = played(tmp_path, *PAIR, 1)
    outcome = correction.play(store, plan, replays=1)
    assert outcome.deals == plan.max_deals == 1 and outcome.decision is None
    other = Store(str(tmp_path / "other.sqlite"))
    plan2 = edge.plan_comparison(other, *PAIR, "wizard", 3, ["hands=2"], sandbox="none", max_deals=8,
                                 sprt_text="elo0=0,elo1=1000", deal_key="0" * 32)
    outcome = correction.play(other, plan2, replays=1)
    assert outcome.deals == len(outcome.corrected.values) and outcome.deals <= 8
    assert {m["match_id"] for m in other.matches(plan2.run_id)} >= set(range(2 * outcome.deals))


def invoke(*args):
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def test_compare_reports_the_corrected_score_beside_the_raw_one(tmp_path):
    store = tmp_path / "c.sqlite"
    args = (*PAIR, "--game", "wizard", "--players", 3, "--param", "hands=2", "--sprt", "elo0=0,elo1=1000",
            "--max-deals", 6, "--jobs", 1, "--sandbox", "none", "--store", store)
    data = json.loads(invoke(*args, "--replays", 2, "--json").output)
    c = data["corrected"]
    assert c["replays"] == 2 and c["deals"] == data["deals"] and c["replayed_deals"] == data["deals"] - data["identical_deals"]
    assert set(c) == {"replays", "deals", "replayed_deals", "score", "raw_score", "sd", "raw_sd"}
    assert json.loads(invoke(*args, "--json").output)["corrected"] is None   # off unless asked for
    text = invoke(*args, "--replays", 2).output
    assert f"corrected score {c['score']['mean']:.3f}" in text and f"against {c['raw_sd']:.3f} raw" in text


@pytest.mark.parametrize("extra, words", [(("--seeding", "independent"), "needs coupled seeds"),
                                          (("--time-control", "10+1"), "without a clock"),
                                          (("--replays", -1), "-1")])
def test_a_comparison_that_cannot_be_corrected_is_one_line_and_exit_2(tmp_path, extra, words):
    result = invoke("greedy", "random", "--game", "insert", "--replays", 2, *extra, "--store", tmp_path / "c.sqlite")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert words in result.output
    assert not (tmp_path / "c.sqlite").exists()   # refused before anything is stored


def test_a_submitted_agent_is_not_replayed(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("from agents import Agent\n\nclass Bot(Agent):\n    name = 'bot'\n\n"
                   "    def act(self, state):\n        return state.legal_actions()[0]\n")
    result = invoke(f"{bot}:Bot", "random", "--game", "insert", "--replays", 2, "--sandbox", "none",
                    "--store", tmp_path / "c.sqlite")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "built-in agents only, not Bot" in result.output
    assert not (tmp_path / "c.sqlite").exists()
