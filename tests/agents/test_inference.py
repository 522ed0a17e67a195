"""pimc[inference=weight]: sampled worlds weighted by how likely the other seats' bids are with
the hands they hold in them (agents/learned.py's BidLikelihood, agents/pimc.py's world_weights)."""
import numpy as np
import pytest

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


def test_four_wizards_make_a_bid_of_zero_unlikely_and_a_bid_of_four_likely():
    likelihood = learned.BidLikelihood(learned.load(""))
    for bid, other in ((0, 4), (4, 0)):
        view = learned.bid_time_view(bid_round([1, 1, bid]).observation(3), hidden=False)
        assert view["hand"].count("W") == 4 and view["bids"] == [None, 1, 1, None]
        p = likelihood.of([view, view], [bid, other])
        assert (p[0] > p[1]) == (bid == 4), p


def test_a_world_where_four_wizards_bid_zero_weighs_less_than_one_where_they_bid_four():
    """Seat 0 has seen seat 3 bid 4: of two worlds that differ in who holds the four Wizards, the
    one where seat 3 holds them weighs more, and the weights are a normalized product."""
    st = bid_round([0, 1, 4])
    bot = agents.make("pimc", inference="weight")
    bot.reset("wizard", st.params, 0, 0)
    swapped = [HANDS[0], HANDS[3], HANDS[2], HANDS[1]]     # seat 1 holds the Wizards, seat 3 the Jesters
    other = engines.wizard.WizardState.from_deal(4, swapped, turn_up="13h", dealer=0, rounds=(5,))
    for b in (0, 1, 4):
        other.apply_action(learned.A_BID + b)
    weights = bot.world_weights(st, [st, other])
    assert weights[0] > 10 * weights[1] and sum(weights) == pytest.approx(1.0)
    likelihood = bot._likelihood
    raw = [np.prod([likelihood.of([learned.bid_time_view(w.observation(q), False)], [b])[0]
                    for q, b in ((1, 0), (2, 1), (3, 4))]) for w in (st, other)]
    assert weights == pytest.approx([r / sum(raw) for r in raw])


def test_the_view_when_it_bid_gets_back_the_cards_played_since():
    st = bid_round([1, 1, 1])
    st.apply_action(st.legal_actions()[0])          # seat 0 bids
    for _ in range(3):                              # seats 1, 2, 3 play a card each
        st.apply_action(st.legal_actions()[0])
    view = learned.bid_time_view(st.observation(2), hidden=False)
    assert sorted(view["hand"]) == sorted(HANDS[2]) and view["bids"] == [None, 1, None, None]
    assert learned.bid_time_view(st.observation(2), hidden=True)["bids"] == [None, "?", None, None]


def test_inference_needs_a_model_for_this_game_and_these_players():
    bot = agents.make("pimc", inference="weight")
    with pytest.raises(agents.BadAgentParameter, match="players=4, not players=5") as e:
        bot.reset("wizard", engines.registry.resolve("wizard", players=5), 0, 0)
    assert "\n" not in str(e.value)
    bot.reset("wizard", engines.registry.resolve("wizard", players=4, hands=(5,)), 0, 0)   # the rounds' sizes: fine


def test_a_model_without_a_bid_temperature_is_refused_in_one_line(tmp_path):
    body = {k: v for k, v in learned.load("").items() if k != "bid_temperature"}
    path = tmp_path / "old.json"
    path.write_text(learned.dumps(body))
    with pytest.raises(agents.BadAgentParameter, match="bid_model.*no bid_temperature.*retrain it") as e:
        agents.make("pimc", inference="weight", bid_model=str(path))
    assert "\n" not in str(e.value)


def test_the_temperature_fitted_is_the_one_of_highest_likelihood():
    """Bids made by the rule itself at temperature 8 give back a temperature near 8."""
    body = learned.load("")
    likelihood = learned.BidLikelihood(dict(body, bid_temperature=8.0))
    rng = np.random.default_rng(0)
    rows = []
    for seed in range(300):
        st = engines.make("wizard", players=4, seed=seed, hands=(5,))
        if st.phase() == "trump":
            st.apply_action(st.legal_actions()[0])
        view = st.observation(st.current_player())
        probs = learned.bid_probabilities(likelihood.scores([view]), 8.0)[0]
        rows.append({"obs": view, "bid": int(rng.choice(len(probs), p=probs))})
    fitted = learned.fit_temperature(body["model"], rows)
    assert 5.0 < fitted["temperature"] < 12.0 and fitted["log_loss"] < fitted["uniform_log_loss"], fitted


@pytest.mark.parametrize("rounds", [(1, 4, 7), (2, 3)])
def test_plays_legal_complete_games_and_is_deterministic_under_its_seed(rounds):
    params = {"inference": "weight", "samples": 4, "bid_samples": 8, "nodes": 2000}
    seats = [("pimc", params), ("greedy", {}), ("pimc", dict(params, seed=3)), ("random", {})]

    def play():
        st = engines.make("wizard", players=4, seed=7, hands=rounds)
        bots = [agents.make(name, **p) for name, p in seats]
        for q, b in enumerate(bots):
            b.reset("wizard", st.params, q, 1)
        moves = []
        while not st.is_terminal():
            q = st.current_player()
            a = bots[q].act(st.determinize(q, len(moves)))
            assert a in st.legal_actions()
            if seats[q][0] == "pimc" and bots[q].last.get("samples"):
                assert 1.0 <= bots[q].last["effective_worlds"] <= 8.0
            moves.append(a)
            st.apply_action(a)
        return moves
    assert play() == play()
