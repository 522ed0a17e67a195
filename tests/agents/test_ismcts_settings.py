"""The ismcts search's settings: SearchSettings validates and resolves them into the C struct the
search phases read, and a search with them plays as `Search.search` with the same arguments."""
import pytest
from agents.ismcts import ISMCTSAgent, Search, SearchSettings, score_span

import engines

MAX_ITERATIONS = ISMCTSAgent.LIMITS["iterations"][1]


def test_the_per_state_defaults_are_resolved():
    insert = engines.make("insert", seed=0)
    cfg = SearchSettings(insert, 10, pom=True, opponents="policy", root="halving").config
    # Insert: the solver is sound, so it is on, and it turns off what it cannot go with
    assert cfg["solver"] and not cfg["pom"] and not cfg["opponent_policy"] and not cfg["halving"]
    wizard = engines.make("wizard", seed=0)
    cfg = SearchSettings(wizard, 10, pom=True, opponents="policy", root="halving", expand="eval").config
    assert not cfg["solver"] and cfg["pom"] and cfg["opponent_policy"] and cfg["halving"] and cfg["expand_eval"]
    assert cfg["span"] == score_span(wizard, "round") and cfg["iterations"] == 10


def test_a_time_budget_lifts_the_iterations_and_stops_halving():
    cfg = SearchSettings(engines.make("wizard", seed=0), 10, seconds=0.5, root="halving").config
    assert cfg["iterations"] == MAX_ITERATIONS and cfg["seconds"] == 0.5 and not cfg["halving"]


def test_invalid_settings_raise_before_any_search():
    state = engines.make("royal_ball", seed=0)
    with pytest.raises(ValueError, match="horizon"):
        SearchSettings(state, 10, horizon="trick")
    with pytest.raises(ValueError, match="iterations"):
        SearchSettings(state, 0)


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_search_with_settings_plays_as_search(game_id):
    state = engines.make(game_id, seed=4)
    kwargs = {"cutoff": 3, "mast": 0.3, "bias": 0.5}
    a, b = Search(), Search()
    a.seed(9)
    b.seed(9)
    assert a.search(state, 200, **kwargs) == b.search_with(state, SearchSettings(state, 200, **kwargs))
    assert a.root_edges() == b.root_edges()


def test_the_agent_gives_the_search_its_resolved_settings():
    state = engines.make("insert", seed=0)
    agent = ISMCTSAgent(iterations=300)
    agent.reset("insert", {}, 0, 1)
    cfg = agent._settings(state, None, 300).config
    # the per-game tables: Insert's cutoff, epsilon, decisive rollouts and evaluated expansion
    assert (cfg["cutoff"], cfg["epsilon"], cfg["decisive"], cfg["expand_eval"]) == (4, 0.2, 1, True)
