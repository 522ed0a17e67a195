"""Worlds weighed by how likely the other seats' bids are with the hands they hold in them
(agents/world_weights.pyx, engines/wizard.pyx's bid_view): `pimc[inference=weight]` and
`ismcts[inference=learned]`."""
import random

import numpy as np
import pytest
from agents.world_weights import WorldWeights

import agents
import engines
import engines.wizard
from agents import learned

HANDS = [["2d", "3d", "4d", "5d", "6d"], ["7d", "8d", "9d", "J", "J"],
         ["5e", "6e", "7e", "8e", "9e"], ["W", "W", "W", "W", "2h"]]


def bid_round(bids, hands=HANDS):
    """A 5-card round dealt by seat 0 (seat 1 bids first) with `bids` made by seats 1, 2, 3."""
    st = engines.wizard.WizardState.from_deal(4, hands, turn_up="13h", dealer=0, rounds=(5,))
    for b in bids:
        st.apply_action(learned.A_BID + b)
    return st


def shipped_weights():
    return WorldWeights(learned.load(""))


def python_chance(body, view, bid, forbidden=-1):
    """P(bid | the view when it bid) from the model in numpy (agents/learned.py), the bid
    plus_minus_one forbade (>= 0) given none: what the C path must give."""
    probs = learned.bid_probabilities(learned.view_scores(body["model"], [view]), body["bid_temperature"])[0]
    return probs[bid] / (1.0 - (probs[forbidden] if forbidden >= 0 else 0.0))


def test_four_wizards_make_a_bid_of_four_likelier_than_a_bid_of_zero():
    weights = shipped_weights()
    assert weights.weight(bid_round([1, 1, 4]), 0) > 10 * weights.weight(bid_round([1, 1, 0]), 0)


def test_pimc_weighs_a_world_where_four_wizards_bid_zero_less_than_one_where_they_bid_four():
    """Seat 0 has seen seat 3 bid 4: of two worlds that differ in who holds the four Wizards, the
    one where seat 3 holds them weighs more; the weights are the normalized product of the seats'
    bids' chances."""
    st = bid_round([0, 1, 4])
    bot = agents.make("pimc", inference="weight")
    bot.reset("wizard", st.params, 0, 0)
    swapped = [HANDS[0], HANDS[3], HANDS[2], HANDS[1]]     # seat 1 holds the Wizards, seat 3 the Jesters
    other = bid_round([0, 1, 4], swapped)
    weights = bot.world_weights(st, [st, other])
    assert weights[0] > 10 * weights[1] and sum(weights) == pytest.approx(1.0)
    body = learned.load("")
    raw = []
    for world in (st, other):
        bid_time = bid_round([], [w.hand(q) for q, w in enumerate([world] * 4)])
        views = {}
        for q, b in ((1, 0), (2, 1), (3, 4)):
            views[q] = bid_time.observation(q)
            bid_time.apply_action(learned.A_BID + b)
        raw.append(np.prod([python_chance(body, views[q], b) for q, b in ((1, 0), (2, 1), (3, 4))]))
    assert weights == pytest.approx([r / sum(raw) for r in raw])


@pytest.mark.parametrize("params", [{}, {"plus_minus_one": True}, {"hidden_bids": True}, {"secret_bids": True},
                                    {"players": 3}, {"players": 6}])
def test_the_c_view_and_chance_of_a_bid_are_those_of_the_bidders_own_view_when_it_bid(params):
    """Random games: at each decision, every other seat's view as C rebuilds it from the position
    (its hand with the cards it has played since, the bids before it) has the features of the
    observation that seat had when it bid, and the chance of its bid is numpy's."""
    body = learned.load("")
    weights = WorldWeights(dict(body, params=dict(body["params"], **{k: v for k, v in params.items()
                                                                     if k != "players"})))
    rng = random.Random(7)
    checked = 0
    for seed in range(25):
        st = engines.make("wizard", seed=seed, **params)
        when_bid = {}           # (round, seat): the seat's observation when it bid
        for _ in range(rng.randrange(1, 90)):
            if st.is_terminal():
                break
            if st.phase() == "bid":
                when_bid[st.round(), st.current_player()] = st.observation(st.current_player())
            st.apply_action(rng.choice(st.legal_actions()))
        if st.is_terminal() or st.phase() == "trump":
            continue
        me = st.current_player()
        seen = st.observation(me)["bids"]
        product = 1.0
        for q in range(st.num_players):
            got = weights.bid_view(st, me, q)
            assert (got is not None) == (q != me and isinstance(seen[q], int)), (seed, q, seen)
            if got is None:
                continue
            features, facts = got
            view = when_bid[st.round(), q]
            assert features == learned.bid_features(view), (seed, q)
            assert facts[2] == seen[q]
            product *= python_chance(body, view, seen[q], facts[3])
            checked += 1
        assert weights.weight(st, me) == pytest.approx(product, rel=1e-9)
    assert checked == 0 if params.get("secret_bids") else checked > 20   # secret bids: none seen in the round


def test_the_bid_plus_minus_one_forbade_has_no_chance_and_the_others_share_it():
    body = learned.load("")
    weights = WorldWeights(dict(body, params=dict(body["params"], plus_minus_one=True)))
    hands = HANDS
    st = engines.wizard.WizardState.from_deal(4, hands, turn_up="13h", dealer=0, rounds=(5,), plus_minus_one=True)
    for b in (1, 1, 1):
        st.apply_action(learned.A_BID + b)
    view = st.observation(0)
    st.apply_action(learned.A_BID + 0)          # the dealer may not bid 2 (1 + 1 + 1 + 2 = 5)
    features, facts = weights.bid_view(st, 1, 0)
    assert facts == [0, 5, 0, 2] and features == learned.bid_features(view)
    free = learned.bid_probabilities(learned.view_scores(body["model"], [view]), body["bid_temperature"])[0]
    assert free[2] > 0
    assert weights.weight(st, 1) / weights.weight(bid_round([1, 1, 1]), 1) == pytest.approx(
        free[0] / (1 - free[2]), rel=1e-9)


def test_a_model_without_a_bid_temperature_or_as_a_network_is_refused_in_one_line(tmp_path):
    body = {k: v for k, v in learned.load("").items() if k != "bid_temperature"}
    path = tmp_path / "old.json"
    path.write_text(learned.dumps(body))
    for name, params in (("pimc", {"inference": "weight"}), ("ismcts", {"inference": "learned"})):
        with pytest.raises(agents.BadAgentParameter, match="bid_model.*no bid_temperature.*retrain it") as e:
            agents.make(name, bid_model=str(path), **params)
        assert "\n" not in str(e.value)
    with pytest.raises(learned.BadModel, match="needs trees"):
        WorldWeights(dict(learned.load(""), model={"kind": "network"}))


def test_a_model_whose_classes_are_no_trick_counts_is_refused_in_one_line(tmp_path):
    """A hand-made file with a digest that matches: classes beyond any C integer."""
    body = learned.load("")
    path = tmp_path / "huge.json"
    path.write_text(learned.dumps(dict(body, model=dict(body["model"], classes=[10 ** 20] + body["model"]["classes"][1:]))))
    with pytest.raises(agents.BadAgentParameter, match="bid_model.*classes are not counts of tricks") as e:
        agents.make("ismcts", inference="learned", bid_model=str(path))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("name,params", [("pimc", {"inference": "weight"}), ("ismcts", {"inference": "learned"})])
def test_inference_needs_a_model_for_this_game_and_these_players(name, params):
    bot = agents.make(name, **params)
    with pytest.raises(agents.BadAgentParameter, match="players=4, not players=5") as e:
        bot.reset("wizard", engines.registry.resolve("wizard", players=5), 0, 0)
    assert "\n" not in str(e.value)
    bot.reset("wizard", engines.registry.resolve("wizard", players=4, hands=(5,)), 0, 0)   # the rounds' sizes: fine
    if name == "ismcts":
        with pytest.raises(agents.BadAgentParameter, match="bid_model.*built for wizard, not insert"):
            bot.reset("insert", engines.registry.resolve("insert"), 0, 0)


def test_the_temperature_fitted_is_the_one_of_highest_likelihood():
    """Bids made by the rule itself at temperature 8 give back a temperature near 8."""
    body = learned.load("")
    rng = np.random.default_rng(0)
    rows = []
    for seed in range(300):
        st = engines.make("wizard", players=4, seed=seed, hands=(5,))
        if st.phase() == "trump":
            st.apply_action(st.legal_actions()[0])
        view = st.observation(st.current_player())
        probs = learned.bid_probabilities(learned.view_scores(body["model"], [view]), 8.0)[0]
        rows.append({"obs": view, "bid": int(rng.choice(len(probs), p=probs))})
    fitted = learned.fit_temperature(body["model"], rows)
    assert 5.0 < fitted["temperature"] < 12.0 and fitted["log_loss"] < fitted["uniform_log_loss"], fitted


def test_the_search_draws_its_worlds_by_weight():
    """Seat 0 has seen seat 3 bid 4 and seats 1 and 2 bid 0: few of the worlds drawn explain that
    (the effective number of worlds is far below those drawn), and none when every world is alike."""
    st = bid_round([0, 0, 4])
    bot = agents.make("ismcts", inference="learned", iterations=200, worlds=300)
    bot.reset("wizard", st.params, 0, 0)
    bot.act(st.determinize(0, 0))
    assert bot.last_stats()["iterations"] == 200 and bot.last_stats()["worlds"] == 300
    assert 1.0 <= bot.last_stats()["effective_worlds"] < 100
    first = engines.wizard.WizardState.from_deal(4, HANDS, turn_up="13h", dealer=1, rounds=(5,))  # seat 2 bids first
    bot.reset("wizard", first.params, 2, 0)
    bot.act(first.determinize(2, 0))
    assert bot.last_stats()["effective_worlds"] == pytest.approx(300)     # no bid seen: every world alike


@pytest.mark.parametrize("rounds", [(1, 4, 7), (2, 3)])
@pytest.mark.parametrize("name,params", [
    ("pimc", {"inference": "weight", "samples": 4, "bid_samples": 8, "nodes": 2000}),
    ("ismcts", {"inference": "learned", "iterations": 60, "worlds": 20})])
def test_plays_legal_complete_games_and_is_deterministic_under_its_seed(rounds, name, params):
    seats = [(name, params), ("greedy", {}), (name, dict(params, seed=3)), ("random", {})]

    def play():
        st = engines.make("wizard", players=4, seed=7, hands=rounds)
        bots = [agents.make(n, **p) for n, p in seats]
        for q, b in enumerate(bots):
            b.reset("wizard", st.params, q, 1)
        moves = []
        while not st.is_terminal():
            q = st.current_player()
            a = bots[q].act(st.determinize(q, len(moves)))
            assert a in st.legal_actions()
            if name == "pimc" and seats[q][0] == "pimc" and bots[q].last.get("samples"):
                assert 1.0 <= bots[q].last["effective_worlds"] <= 8.0
            moves.append(a)
            st.apply_action(a)
        return moves
    assert play() == play()


def test_worlds_without_learned_inference_is_refused_in_one_line():
    """`worlds` counts the worlds inference=learned weighs: without it the search would ignore it."""
    with pytest.raises(agents.BadAgentParameter, match="'worlds' of agent ismcts is for inference=learned") as e:
        agents.make("ismcts", worlds=50)
    assert "\n" not in str(e.value)
    assert agents.make("ismcts", inference="learned", worlds=50).params["worlds"] == 50
