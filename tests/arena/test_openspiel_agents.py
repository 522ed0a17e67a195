"""OpenSpiel's bots as arena agents (agents/openspiel_bots.py): they play `arena run`, and refuse
every game, with a reason, where OpenSpiel is not importable."""
import sys

import pytest
from click.testing import CliRunner

import agents
import engines
from agents.openspiel_bots import OpenSpielISMCTSAgent, OpenSpielMCTSAgent
from arena.cli import main


def test_without_openspiel_they_refuse_every_game(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)     # `import pyspiel` raises ImportError
    for cls in (OpenSpielMCTSAgent, OpenSpielISMCTSAgent):
        for game_id in engines.game_ids():
            reason = cls.cannot_play(game_id, engines.spec(game_id).default_players)
            assert reason and "pip install open_spiel" in reason


def test_parameters_are_checked_in_the_usual_grammar():
    assert agents.make("openspiel_ismcts", iterations="30", c="1.5", worlds="4").params["worlds"] == 4
    with pytest.raises(agents.BadAgentParameter):
        agents.make("openspiel_mcts", iterations=0)
    with pytest.raises(agents.BadAgentParameter):
        agents.make("openspiel_ismcts", final="best")
    with pytest.raises(agents.BadAgentParameter):
        agents.make("openspiel_mcts", rollout="fast")


@pytest.mark.parametrize("game,agent_list,params", [
    ("insert", "openspiel_mcts[iterations=20],random", []),
    ("insert", "openspiel_ismcts[iterations=20],random", []),
    ("wizard", "openspiel_ismcts[iterations=10,worlds=4],random", ["--param", "hands=2"]),
    ("wizard", "openspiel_ismcts[iterations=30,rollout=engine],random", ["--param", "hands=5,4"]),
    ("royal_ball", "openspiel_mcts[iterations=10,rollout=engine],random", ["--param", "match=single_round"]),
])
def test_an_arena_run_with_an_openspiel_bot_finishes(tmp_path, game, agent_list, params):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install '.[test]')")
    result = CliRunner().invoke(main, ["run", "--game", game, "--agents", agent_list, "--games", "1",
                                       "--jobs", "1", "--store", str(tmp_path / "s.sqlite"), *params])
    assert result.exit_code == 0, result.output
    assert agent_list.split(",")[0] in result.output
