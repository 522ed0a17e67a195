"""The tournament config: one typed, frozen value from the command line to the store and back, whose
digest is the run id."""
import dataclasses

import pytest

from arena import edge
from arena.compare import compare
from arena.run_config import TournamentConfig
from arena.store import Store
from arena.tournament import coordinator as tournament

KEY = "5eed" * 8


def test_a_tournament_config_is_the_same_value_after_the_store(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    plan = tournament.plan(store, games=edge.games("wizard", 3, ("hidden_bids=true",)),
                           agents=edge.agents("greedy, random as r, ismcts[iterations=5]"), deals=2, seed=7,
                           time_limit=2.5, sandbox=edge.sandbox_policy("bwrap", ("memory=512",)), deal_key=KEY)
    config = plan.config
    assert isinstance(config, TournamentConfig)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.deals = 3   # type: ignore[misc]
    # the typed fields, as the command line gave them
    assert (config.seed, config.time_limit, config.deals) == (7, 2.5, 2)
    assert isinstance(config.time_limit, float)
    assert [a.label for a in config.agents] == ["greedy", "r", "ismcts[iterations=5]"]
    assert config.games[0].game_id == "wizard" and config.games[0].params["hidden_bids"] is True
    assert config.sandbox.limits_dict()["memory"] == 512
    back = store.run(plan.run_id).config
    assert back == config and back.run_id == plan.run_id
    resumed = tournament.plan(store, resume=plan.run_id)
    assert resumed.config == config and resumed.schedule == plan.schedule
    store.close()


def test_the_run_id_is_the_config_digest(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    a = tournament.plan(store, games=edge.games("insert", None), agents=edge.agents("greedy, random"), deals=2, deal_key=KEY)
    b = tournament.plan(store, games=edge.games("insert", None), agents=edge.agents("greedy, random"), deals=2, time_limit=3.0,
                        deal_key=KEY)
    assert a.run_id == a.config.run_id and a.run_id.startswith("insert-")
    assert b.run_id != a.run_id   # the time limit is part of what a run is
    assert dataclasses.replace(b.config, time_limit=a.config.time_limit).run_id == a.run_id
    store.close()


def test_a_comparison_is_a_config_without_deals(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    plan = compare.plan(store, edge.agent("greedy"), edge.agent("random"), edge.game("royal_ball", None),
                        field=edge.agent_items("random, greedy as g2", "--field"), max_deals=20, deal_key=KEY)
    config = plan.config
    assert config.deals is None and config.compare is not None
    assert (config.compare.candidate, config.compare.baseline, config.compare.field) == ("greedy", "random",
                                                                                         ("random", "g2"))
    assert plan.run_id == config.run_id and plan.run_id.startswith("cmp-royal_ball-")
    assert store.run(plan.run_id).config == config
    with pytest.raises(ValueError, match="arena compare"):
        tournament.plan(store, resume=plan.run_id)
    store.close()


def test_a_config_that_is_not_a_tournament_is_refused_in_one_line():
    with pytest.raises(ValueError, match="arena serve"):
        TournamentConfig.from_json({"kind": "play", "games": []})
    with pytest.raises(ValueError, match="cannot be read"):
        TournamentConfig.from_json({"games": [{"game_id": "insert"}]})
