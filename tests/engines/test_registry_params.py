"""Game parameters are declared in the registry only: every engine's constructor reads its defaults,
player counts and choices from engines/registry.py (`engine_params`), so a state made without the
registry gets the same parameters as one from `engines.make`, and a changed declaration reaches the
engine."""
import dataclasses

import pytest

import engines
from engines.registry import GAMES, engine_params


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_a_state_made_directly_has_the_registry_s_parameters(game_id):
    cls = GAMES[game_id].state_class()
    made = engines.make(game_id, seed=3)
    direct = cls({}, 3)
    assert direct.params == made.params == engines.registry.resolve(game_id)
    assert direct.num_players == GAMES[game_id].default_players
    assert direct == made


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_player_counts_are_the_registry_s(game_id):
    spec = GAMES[game_id]
    cls = spec.state_class()
    for n in (spec.min_players, spec.max_players):
        assert cls({"players": n}, 0).num_players == n
    for n in (spec.min_players - 1, spec.max_players + 1):
        with pytest.raises(engines.BadParameter, match=f"{spec.min_players} to {spec.max_players} players"):
            cls({"players": n}, 0)


def test_a_declaration_changed_in_the_registry_reaches_the_engine(monkeypatch):
    spec = GAMES["royal_ball"]
    monkeypatch.setitem(GAMES, "royal_ball", dataclasses.replace(
        spec, default_players=3, params={**spec.params, "match": "single_round"}))
    state = spec.state_class()({}, 0)
    assert state.num_players == 3 and state.params["match"] == "single_round"
    state.rollout(seed=1)
    assert state.is_terminal() and sorted(state.returns()) in ([0, 0, 1], [0, 1, 1], [1, 1, 1])


def test_choices_and_types_are_checked_as_the_registry_declares():
    cls = GAMES["royal_ball"].state_class()
    with pytest.raises(engines.BadParameter, match="random, dog, horse"):
        cls({"players": 3, "removed_animal": "cat"}, 0)
    assert GAMES["wizard"].state_class()({"players": "5", "plus_minus_one": "on"}, 0).params["plus_minus_one"] is True


def test_an_engine_refuses_more_players_than_it_holds():
    with pytest.raises(engines.BadParameter, match="holds at most 3 players, not 4"):
        engine_params("royal_ball", {"players": 4}, 3)
