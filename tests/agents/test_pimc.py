"""The `pimc` agent (agents/pimc.py): legal complete games, determinism, the games it refuses."""
import pytest

import agents
import engines
from agents.registry import agent_class


def play(params, seats, seed, game_seed, rounds=None):
    """One game: seats[q] is (name, params) of seat q's agent; each acts on its determinized view."""
    kw = dict(players=len(seats))
    if rounds:
        kw["hands"] = rounds
    kw.update(params)
    st = engines.make("wizard", seed=game_seed, **kw)
    bots = [agents.make(name, **p) for name, p in seats]
    for q, b in enumerate(bots):
        b.reset("wizard", st.params, q, seed)
    moves = []
    k = 0
    while not st.is_terminal():
        q = st.current_player()
        a = bots[q].act(st.determinize(q, k))
        assert a in st.legal_actions()
        moves.append(a)
        st.apply_action(a)
        k += 1
    return moves, st


SMALL = {"samples": 6, "nodes": 3000}


@pytest.mark.parametrize("players,rounds,params", [
    (4, (1, 3, 5), {}),
    (3, (2, 4), {"plus_minus_one": True}),
    (5, (3,), {"hidden_bids": True}),
    (6, (2,), {"secret_bids": True}),
    (4, None, {"five_rounds": True}),
])
def test_plays_legal_complete_games(players, rounds, params):
    seats = [("pimc", SMALL)] + [("greedy", {})] * (players - 1)
    moves, st = play(params, seats, 1, 2, rounds)
    assert st.is_terminal() and moves


@pytest.mark.parametrize("params", [dict(SMALL, bidding="solver"), dict(SMALL, solve_cards=0),
                                    dict(SMALL, solve_cards=2, bid_samples=30)])
def test_every_mode_plays_legal_complete_games(params):
    seats = [("pimc", params), ("greedy", {}), ("pimc", dict(params, seed=5)), ("random", {})]
    moves, st = play({}, seats, 2, 3, (1, 4, 7))
    assert st.is_terminal() and len(moves) == 4 * 3 + 4 * (1 + 4 + 7)


def test_bids_from_playouts_count_sure_tricks():
    """RULES.md 1.4: Wizards win their tricks. Four Wizards in a 4-card round make 4 tricks in
    every playout; a hand of Jesters and low cards against them bids nothing."""
    import engines.wizard
    st = engines.wizard.WizardState.from_deal(4, [["2d", "3d", "J", "J"], ["W", "W", "W", "W"],
                                                  ["5d", "6d", "7d", "8d"], ["9d", "10d", "11d", "2h"]],
                                            turn_up="13h", dealer=3, rounds=(4,))
    bot = agents.make("pimc", bid_samples=50)
    bot.reset("wizard", st.params, 0, 0)
    assert bot.act(st.determinize(0, 0)) == st.string_to_action("bid 0")
    st.apply_action(st.string_to_action("bid 0"))
    bot.reset("wizard", st.params, 1, 0)
    assert bot.act(st.determinize(1, 0)) == st.string_to_action("bid 4")
    assert bot.last["samples"] == 50


def test_several_pimc_seats_and_a_wizard_turned_up():
    # seeds chosen so that some round turns up a Wizard (the dealer chooses trump)
    seats = [("pimc", SMALL)] * 4
    moves, st = play({}, seats, 3, 5, (2, 4, 6, 8))
    assert st.is_terminal()


def test_deterministic_under_its_seed():
    seats = [("pimc", dict(SMALL, seed=7)), ("greedy", {}), ("pimc", dict(SMALL, seed=8)), ("random", {})]
    first = play({}, seats, 4, 9, (3, 5))[0]
    assert play({}, seats, 4, 9, (3, 5))[0] == first
    # another seed may happen to play the same game (6 samples a decision), so two are tried
    base = play({}, seats, 4, 9, (3, 5, 7))[0]
    assert any(play({}, [("pimc", dict(SMALL, seed=s))] + seats[1:], 4, 9, (3, 5, 7))[0] != base for s in (99, 98))


def test_refuses_games_without_a_solver():
    cls = agent_class("pimc")
    assert cls.cannot_play("wizard", 4) is None
    for game_id in engines.game_ids():
        if game_id != "wizard":
            assert cls.cannot_play(game_id, 2)
            with pytest.raises(ValueError):
                agents.make("pimc").reset(game_id, {"players": 2}, 0, 0)


def test_budgets_are_declared_and_checked():
    from agents.base import BadAgentParameter
    cls = agent_class("pimc")
    assert set(cls.LIMITS) == {"samples", "nodes", "time", "bid_samples", "solve_cards", "seed"}
    for bad in (dict(samples=0), dict(nodes=10), dict(time=-1.0), dict(samples=10**9), dict(bid_samples=0),
                dict(solve_cards=-1), dict(bidding="guess"), dict(blind="some")):
        with pytest.raises(BadAgentParameter):
            agents.make("pimc", **bad)


def test_an_endgame_is_played_to_the_bid():
    """Seat 0 bid 0 and leads with 13d and 1h, no trump: leading 13d wins a trick in every world
    where nobody else holds a Wizard or a higher d; leading 1h loses to any other h or Wizard."""
    import engines.wizard
    st = engines.wizard.WizardState.from_deal(3, [["13d", "1h"], ["2h", "3h"], ["4h", "5h"]],
                                            turn_up="J", dealer=2, rounds=(2,))
    for b in (0, 1, 1):
        st.apply_action(st.string_to_action(f"bid {b}"))
    bot = agents.make("pimc", samples=8, solve_cards=99)
    bot.reset("wizard", st.params, 0, 0)
    assert bot.act(st.determinize(0, 0)) == st.string_to_action("1h")
    assert bot.last["exact"] == 8
    bot = agents.make("pimc", bid_samples=20)      # by playouts
    bot.reset("wizard", st.params, 0, 0)
    assert bot.act(st.determinize(0, 0)) == st.string_to_action("1h")
    assert bot.last["samples"] == 20


def test_bench_rows():
    from arena.bench.pimc import _solver_rows, cases
    assert list(cases(["insert"])) == []
    rows = {r["case"]: r for r in _solver_rows(5, 1)}
    assert set(rows) == {"wizard_solver/hand_5", "wizard_plain/hand_5", "wizard_playout/hand_5", "wizard_horizon2/hand_5"}
    assert rows["wizard_solver/hand_5"]["solved"] == 3
    assert rows["wizard_solver/hand_5"]["nodes_per_hand"] < rows["wizard_plain/hand_5"]["nodes_per_hand"]


@pytest.mark.parametrize("blind,want", [("none", ()), ("self", "me"), ("all", (0, 1, 2, 3)), (None, "me")])
def test_blind_players_in_the_playouts(monkeypatch, blind, want):
    """`blind` names the players who judge sure winners by the cards they cannot see in the
    playouts (Deal.playout's `blind`): nobody, the agent's seat (the default), every seat."""
    import agents.wizard_solver as ws
    seen = []

    class Spy(ws.Deal):
        def playout(self, bids, blind=()):
            seen.append(tuple(blind))
            return super().playout(bids, blind)

    monkeypatch.setattr(ws, "Deal", Spy)
    st = engines.make("wizard", seed=3, players=4, hands=(5,))
    st.apply_action(st.legal_actions()[0])
    me = st.current_player()
    bot = agents.make("pimc", bid_samples=4, **({} if blind is None else {"blind": blind}))
    bot.reset("wizard", st.params, me, 0)
    bot.act(st.determinize(me, 0))
    assert seen and set(seen) == {(me,) if want == "me" else want}
