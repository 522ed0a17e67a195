"""Coupled seeds (arena.seeds): every match of a deal gives a seat's agent the same seeds and every
move the same view, so equal agents play a deal's matches identically, in `arena compare` and in the
rotations of a round robin; a run records its seeding and resumes with it."""
import json

import pytest
from click.testing import CliRunner

from arena import edge
from arena.cli import main
from arena.compare import compare
from arena.run_config import TournamentConfig
from arena.store import Store
from arena.tournament import schedule as sched
from arena.tournament.runner import play_match

# Every game at a small budget: (game, players, parameters).
GAMES = [("belladone_bluff", 4, ()), ("belle_of_the_ball", 3, ()), ("insert", 2, ()), ("royal_ball", 2, ()),
         ("wizard", 4, ("hands=3",))]
AGENT = "ismcts[iterations=20]"


@pytest.mark.parametrize("game, players, params", GAMES)
def test_equal_agents_differ_by_exactly_zero_on_every_deal(tmp_path, game, players, params):
    store = Store(str(tmp_path / "c.sqlite"))
    plan = compare.plan(store, edge.agent(AGENT), edge.agent(f"{AGENT} as twin"), edge.game(game, players, params),
                        max_deals=3, seed=4)
    status, outcome = compare.play(store, plan, jobs=1)
    assert status == "finished" and outcome.deals == 3 and outcome.identical == 3
    steps = 2 * (players - 1)
    middle = 2 if players == 2 else steps   # the grid index of a pair score of 1, or a share difference of 0
    assert outcome.counts[middle] == 3 and outcome.points["mean"] == 0 and outcome.points["high"] == 0


@pytest.mark.parametrize("game, players, params", GAMES)
def test_equal_agents_play_every_rotation_of_a_deal_alike(game, players, params):
    specs = edge.agents(f"{AGENT}, {AGENT} as twin")
    full = edge.game(game, players, params).params
    matches = sched.game_schedule("r", game, full, specs, 1, 9, 10.0, deal_key="ab" * 16)
    assert len(matches) >= 2 and len({m.seats for m in matches}) == len(matches)   # the rotations
    results = [play_match(m) for m in matches]
    assert all(r.actions == results[0].actions and r.returns == results[0].returns for r in results)


def test_independent_seeds_part_equal_agents(tmp_path):
    store = Store(str(tmp_path / "i.sqlite"))
    plan = compare.plan(store, edge.agent(AGENT), edge.agent(f"{AGENT} as twin"), edge.game("belladone_bluff", 4),
                        max_deals=3, seed=4, seeding="independent")
    _, outcome = compare.play(store, plan, jobs=1)
    assert outcome.identical < 3 and plan.config.seeding == "independent"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_run_records_its_seeding_and_resumes_only_with_it(tmp_path):
    store_path = str(tmp_path / "s.sqlite")
    base = ("run", "--game", "insert", "--agents", "greedy,random", "--games", 1, "--jobs", 1, "--store", store_path,
            "--json")
    coupled = json.loads(invoke(*base).output)
    independent = json.loads(invoke(*base, "--seeding", "independent").output)
    assert coupled["run_id"] != independent["run_id"]
    store = Store(store_path)
    assert store.run(coupled["run_id"]).config.to_json()["seeding"] == "coupled"
    assert "seeding" not in store.run(independent["run_id"]).config.to_json()   # as every run stored before coupling
    store.close()
    for run_id, other in ((independent["run_id"], "coupled"), (coupled["run_id"], "independent")):
        result = invoke("run", "--resume", run_id, "--seeding", other, "--store", store_path)
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
        assert f"not {other}" in result.output
        assert invoke("run", "--resume", run_id, "--store", store_path).exit_code == 0
    result = invoke(*base, "--seeding", "shared")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    with pytest.raises(ValueError, match="--seeding must be one of coupled, independent"):
        edge.seeding("shared")


def test_a_run_stored_before_coupling_is_independent_with_its_run_id():
    old = {"games": [{"game_id": "insert", "params": {"players": 2}}], "agents": [], "seed": 3, "time_limit": 10.0,
           "sandbox": {"mode": "bwrap", "limits": {}}, "agent_defaults": {}, "code": "abc", "deals": 2}
    old["sandbox"] = TournamentConfig.from_json(old).to_json()["sandbox"]   # every limit, as a run stores it
    config = TournamentConfig.from_json(old)
    assert config.seeding == "independent" and config.to_json() == old   # so its run id, a digest of it, too
    with pytest.raises(ValueError, match="seeding"):
        TournamentConfig.from_json({**old, "seeding": "shared"})


def test_the_leaderboard_says_on_how_many_deals_play_was_identical(tmp_path):
    store = str(tmp_path / "l.sqlite")
    for agents, alike in (("greedy, greedy as twin", 3), ("greedy, random", 0)):
        result = invoke("run", "--game", "insert", "--agents", agents, "--games", 3, "--jobs", 1, "--store", store,
                        "--json")
        run_id = json.loads(result.output)["run_id"]
        board = json.loads(invoke("leaderboard", run_id, "--store", store, "--json").output)
        assert board["seeding"] == "coupled"
        assert (board["leaderboards"][0]["identical_deals"], board["leaderboards"][0]["deals_compared"]) == (alike, 3)
        text = invoke("leaderboard", run_id, "--store", store).output
        assert f"identical play on {alike} of 3 deals: every match of the deal played the same moves" in text


def test_a_new_ladder_plays_coupled_and_an_old_one_independent(tmp_path):
    from arena.ladder import play
    from arena.ladder import store as ladders
    store = Store(str(tmp_path / "ladder.sqlite"))
    ladders.create(store, "ins", game=edge.game("insert", None), seed=1)
    ladder = ladders.get(store, "ins")
    assert ladder.config.seeding == "coupled"
    for agent in ("greedy", "random"):
        ladders.add(store, "ins", edge.agent(agent))
    assert play.plan_batch(store, ladder) > 0
    assert {s.seeding for s in play.planned(store, ladders.get(store, "ins"))} == {"coupled"}
    old = {k: v for k, v in ladder.config.to_json().items() if k != "seeding"}
    store.db.execute("UPDATE ladders SET config = ? WHERE name = 'ins'", (json.dumps(old),))
    assert {s.seeding for s in play.planned(store, ladders.get(store, "ins"))} == {"independent"}
