"""The C play loop (agents.playloop) against the referee's loop: the same actions, returns and
placements on every game, for random and greedy in every seating."""
import dataclasses

import pytest

import engines
from arena.match import AgentSpec, MatchSpec
from arena.tournament import runner

RANDOM = AgentSpec("random", "random", (), "builtin", "random")
GREEDY = AgentSpec("greedy", "greedy", (), "builtin", "greedy")


def specs(game_id, lineup, deals=3):
    params = tuple(sorted(engines.registry.resolve(game_id).items()))
    players = dict(params)["players"]
    for deal in range(deals):
        seats = tuple(lineup[(deal + i) % len(lineup)] for i in range(players))
        # seeds beyond 2**32 too: random.Random seeds with two 32-bit words then
        yield MatchSpec("loop", 7 * deal + 1, game_id, params, 0x9E3779B97F4A7C15 * (deal + 1) % 2**63, seats, deal)


@pytest.mark.parametrize("game_id", engines.game_ids())
@pytest.mark.parametrize("lineup", [(RANDOM,), (GREEDY, RANDOM), (GREEDY,)], ids=["random", "mixed", "greedy"])
def test_the_c_loop_plays_the_referees_moves(game_id, lineup, monkeypatch):
    refereed_loop = runner.play_refereed

    def declined(spec, started=None):
        raise AssertionError(f"the C loop declined match {spec.match_id}")

    for spec in specs(game_id, lineup):
        refereed = refereed_loop(spec)
        with monkeypatch.context() as m:
            m.setattr(runner, "play_refereed", declined)
            fast = runner.play_match(spec)
        assert refereed.actions and not refereed.faults
        fast.duration = refereed.duration = 0.0
        assert dataclasses.asdict(fast) == dataclasses.asdict(refereed)


def test_other_agents_and_clocks_go_through_the_referee():
    spec = next(specs("insert", (RANDOM,)))
    assert runner.loop_kinds(dataclasses.replace(spec, seats=(RANDOM, AgentSpec("a", "alphabeta")))) is None
    assert runner.loop_kinds(dataclasses.replace(spec, seats=(RANDOM, dataclasses.replace(
        GREEDY, params=(("seed", 1),))))) is None
    from arena.match import TimeControl
    assert runner.loop_kinds(dataclasses.replace(spec, time_control=TimeControl(10.0))) is None
