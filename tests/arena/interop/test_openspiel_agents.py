"""OpenSpiel's bots as arena agents (agents/openspiel_bots.py): they play `arena run`, and refuse
every game, with a reason, where OpenSpiel is not importable."""
import json
import os
import sys

import pytest
from click.testing import CliRunner

import agents
import engines
from agents.openspiel_bots import OpenSpielISMCTSAgent, OpenSpielMCTSAgent
from arena.cli import main
from paths import FIXTURES


def test_without_openspiel_they_refuse_every_game(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)     # `import pyspiel` raises ImportError
    for cls in (OpenSpielMCTSAgent, OpenSpielISMCTSAgent):
        for game_id in engines.game_ids():
            reason = cls.cannot_play(game_id, engines.spec(game_id).default_players)
            assert reason and "pip install 'tabletop-arena[openspiel]'" in reason


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


FACTORY = os.path.join(FIXTURES, "interop_bots.py") + ":make_extreme_bot"


def test_a_bot_factory_takes_its_parameters_in_the_agent_grammar(monkeypatch):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install '.[test]')")
    agent = agents.make("openspiel_bot", factory=FACTORY, pick="first", skip="1")
    assert agent.params == {"seed": 0, "pick": "first", "skip": 1, "factory": FACTORY}
    state = engines.make("wizard", players=4, hands=(3,), seed=2)
    while len(state.legal_actions()) < 3:
        state.apply_action(state.legal_actions()[0])
    agent.reset("wizard", dict(state.params), state.current_player(), 7)
    assert agent.act(state.clone()) == sorted(state.legal_actions())[1] and agent.bot.steps == 1
    monkeypatch.syspath_prepend(FIXTURES)
    by_module = agents.make("openspiel_bot", factory="interop_bots:make_extreme_bot")
    by_module.reset("wizard", dict(state.params), state.current_player(), 7)
    assert by_module.act(state.clone()) == max(state.legal_actions())
    default = agents.make("openspiel_bot", seed=3)       # OpenSpiel's uniformly random bot
    default.reset("wizard", dict(state.params), state.current_player(), 7)
    assert default.act(state.clone()) in state.legal_actions()
    # asked for every seat in turn (as tests and tools may), each seat gets a bot of its own: OpenSpiel's
    # C++ bots crash when stepped on another player's turn
    insert = engines.make("insert", seed=3)
    default.reset("insert", dict(insert.params), 0, 7)
    for _ in range(4):
        insert.apply_action(default.act(insert.clone()))
    assert sorted(default.bots) == [0, 1]


@pytest.mark.parametrize("params,words", [
    ({"factory": "nosuch_module_x:make"}, "No module named 'nosuch_module_x'"),
    ({"factory": FACTORY.replace("make_extreme_bot", "missing")}, "has no attribute 'missing'"),
    ({"factory": "agents.openspiel_bots:DEFAULT_FACTORY"}, "not callable"),
    ({"factory": "agents.openspiel_bots:load_factory"}, "must take (game, player, seed"),
    ({"factory": FACTORY.replace("make_extreme_bot", "needs_a_default")}, "'depth' needs a default"),
    ({"factory": "no colon"}, "expected package.module:function"),
    ({"factory": FACTORY, "depth": "2"}, "unknown parameter 'depth'"),
    ({"factory": FACTORY, "skip": "x"}, "parameter 'skip' of agent openspiel_bot must be"),
    ({"factory": "./nowhere/bots.py:make"}, "no file"),
])
def test_a_bad_factory_is_a_one_line_error(params, words):
    with pytest.raises(agents.BadAgentParameter) as err:
        agents.make("openspiel_bot", **params)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_bad_factory_in_arena_run_is_one_line_and_exit_2(tmp_path):
    result = CliRunner().invoke(main, ["run", "--game", "insert", "--agents", "openspiel_bot[factory=nosuch_mod:f], random",
                                       "--games", "1", "--sandbox", "none", "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 2 and "nosuch_mod" in result.output


@pytest.mark.parametrize("game,params", [("insert", []), ("wizard", ["--param", "hands=3"])])
def test_an_arena_run_with_a_bot_factory_finishes(tmp_path, game, params):
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install '.[test]')")
    item = f"openspiel_bot[factory={FACTORY},pick=first] as extreme"
    args = ["run", "--game", game, "--agents", f"{item}, random", "--games", "2", "--jobs", "1",
            "--store", str(tmp_path / "s.sqlite"), *params]
    # The factory's code would run in the arena's own process: only where nothing is sandboxed.
    refused = CliRunner().invoke(main, args + ["--sandbox", "bwrap"])
    assert refused.exit_code == 2 and "outside the sandbox: only with --sandbox none" in refused.output
    assert refused.output.count("\n") == 1
    result = CliRunner().invoke(main, args + ["--sandbox", "none"])
    assert result.exit_code == 0, result.output
    assert "extreme" in result.output
    faults = CliRunner().invoke(main, ["faults", "--store", str(tmp_path / "s.sqlite"), "--json"])
    assert faults.exit_code == 0 and not json.loads(faults.output)["matches"], faults.output
    assert "ran unconfined" in result.output


@pytest.mark.parametrize("command", [["run", "--game", "insert", "--agents", "{bot}, random"],
                                     ["play", "insert", "--vs", "{bot}"],
                                     ["compare", "{bot}", "random", "--game", "insert"],
                                     ["check-agent", "{bot}", "--game", "insert"]])
def test_a_factory_is_never_loaded_where_a_sandbox_is_on(tmp_path, command):
    """A factory file's code would run as soon as it is imported: refused before that, in every
    command that plays agents under a sandbox."""
    marker = tmp_path / "ran"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef f(game, player, seed):\n    pass\n")
    bot = f"openspiel_bot[factory={tmp_path / 'evil.py'}:f]"
    args = [a.replace("{bot}", bot) for a in command] + ["--sandbox", "bwrap"]
    if command[0] != "check-agent" and command[0] != "play":
        args += ["--store", str(tmp_path / "s.sqlite")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "outside the sandbox" in result.output, result.output
    assert not marker.exists()


def test_the_head_to_head_bench_plays_each_deal_in_both_seatings():
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install '.[test]')")
    from experiments.openspiel_h2h import run, seatings
    assert seatings(2) == ["AB", "BA"] and seatings(4) == ["ABAB", "BABA"]
    with pytest.raises(ValueError, match="even number"):
        seatings(3)
    out = run("insert", "ismcts[iterations=20]", "openspiel_ismcts[iterations=10,rollout=engine]", deals=2)
    assert (out["deals"], out["games"], out["share_a"]["deals"]) == (2, 4, 2)
    assert 0 <= out["share_a"]["low"] <= out["share_a"]["mean"] <= out["share_a"]["high"] <= 1
    assert out["decisions_a"] > 0 and out["decisions_b"] > 0 and out["points_a"] == -out["points_b"]
    with pytest.raises(ValueError, match="unknown agent"):
        run("insert", "nosuch", "random", deals=1)
