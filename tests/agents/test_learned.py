"""Learned models (agents/learned.py), `pimc[bidding=learned]` and `ismcts[bidding=learned]`: the
model file's checks, the shipped bidder's bids, and the agents' contract (legal complete games,
deterministic under a seed)."""
import json
import os

import pytest

import agents
import engines
import engines.wizard
from agents import learned


def write(path, body):
    path.write_text(learned.dumps(body))
    return str(path)


def shipped():
    return learned.load("")


def test_the_shipped_model_loads_and_fits_the_default_four_player_game():
    body = shipped()
    learned.check_for(body, "wizard", engines.registry.resolve("wizard", players=4))
    assert body["digest"] == learned.digest(body)
    assert body["teacher"] and body["command"].startswith("arena train") and body["data"]["games"] >= 1


def test_four_wizards_bid_at_least_four():
    st = engines.wizard.WizardState.from_deal(4, [["W", "W", "W", "W", "2d"], ["3d", "4d", "5d", "J", "J"],
                                                  ["5e", "6e", "7e", "8e", "9e"], ["9d", "10d", "11d", "2h", "3h"]],
                                              turn_up="13h", dealer=3, rounds=(5,))
    obs = st.observation(0)
    bid = learned.bidder().bid(obs, st.legal_actions()) - learned.A_BID
    assert bid >= 4, learned.bidder().distribution(obs)


def test_a_model_changed_by_hand_is_refused(tmp_path):
    text = learned.dumps(shipped())
    body = json.loads(text)
    body["model"]["value"][0] += 1.0
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(body))
    with pytest.raises(learned.BadModel, match="digest does not match") as e:
        learned.load(str(path))
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="digest"):
        agents.make("pimc", bidding="learned", bid_model=str(path))


def test_a_model_for_another_game_or_other_parameters_is_refused(tmp_path):
    other_game = write(tmp_path / "insert.json", dict(shipped(), game="insert"))
    bot = agents.make("pimc", bidding="learned", bid_model=other_game)   # the file itself is sound
    with pytest.raises(agents.BadAgentParameter, match="'bid_model' .* built for insert, not wizard"):
        bot.reset("wizard", engines.registry.resolve("wizard", players=4), 0, 0)
    bot = agents.make("pimc", bidding="learned")
    with pytest.raises(agents.BadAgentParameter, match="players=4, not players=5"):
        bot.reset("wizard", engines.registry.resolve("wizard", players=5), 0, 0)
    with pytest.raises(agents.BadAgentParameter, match="plus_minus_one=False, not plus_minus_one=True"):
        bot.reset("wizard", engines.registry.resolve("wizard", players=4, plus_minus_one=True), 0, 0)


def test_a_model_of_another_feature_version_is_refused(tmp_path):
    body = shipped()
    path = write(tmp_path / "v0.json", dict(body, features=dict(body["features"], version=learned.BID_FEATURES_VERSION + 1)))
    with pytest.raises(learned.BadModel, match="version 2; this arena computes 'wizard-bid' version 1: retrain"):
        learned.load(path)


@pytest.mark.parametrize("content,words", [
    (None, "no such file"),
    ("not json at all", "not a model file"),
    ("[1, 2]", "not a model file"),
    ('{"format": 1}', "not a model file"),
    ("[" * 100_000, "not a model file"),   # nested deeper than the decoder's stack
])
def test_a_missing_path_or_a_file_that_is_no_model_is_one_line(tmp_path, content, words):
    path = tmp_path / "model.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(learned.BadModel, match=words) as e:
        learned.load(str(path))
    assert "\n" not in str(e.value)


def test_a_path_that_is_no_regular_file_is_refused_at_once(tmp_path):
    """A FIFO would wait for a writer for ever (in `arena models`, on a file left in models/ beside
    the store), /dev/zero never ends, a folder holds no model."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        with pytest.raises(learned.BadModel, match=f"^model {path}: not a model file \\(not a regular file\\)$"):
            learned.load(path)


def test_a_model_whose_network_does_not_fit_is_refused(tmp_path):
    n = len(learned.bid_feature_names())
    body = dict(shipped(), model=constant_net(n, list(range(6)), 2))
    learned.load(write(tmp_path / "network.json", body))   # a network is a model too
    net = dict(body["model"], mean=body["model"]["mean"][:-1])
    with pytest.raises(learned.BadModel, match="standardisation does not fit"):
        learned.load(write(tmp_path / "short.json", dict(body, model=net)))
    net = dict(body["model"], classes=body["model"]["classes"] + [99])
    with pytest.raises(learned.BadModel, match="outputs do not fit"):
        learned.load(write(tmp_path / "classes.json", dict(body, model=net)))
    trees = dict(shipped()["model"])
    trees["classes"] = trees["classes"] + [99]
    with pytest.raises(learned.BadModel, match="outputs do not fit"):
        learned.load(write(tmp_path / "tree-classes.json", dict(body, model=trees)))


def test_bid_model_needs_bidding_learned():
    with pytest.raises(ValueError, match="bid_model.*bidding=learned"):
        agents.make("pimc", bid_model="x.json")


# ---- the agent's contract: legal complete games, deterministic under a seed -----------------------

LEARNED = {"bidding": "learned", "bid_samples": 5}
LEARNED_SEARCH = {"bidding": "learned", "iterations": 50}


def play(seats, game_seed, agent_seed=0):
    st = engines.make("wizard", players=4, seed=game_seed)
    bots = [agents.make(name, **p) for name, p in seats]
    for q, b in enumerate(bots):
        b.reset("wizard", st.params, q, agent_seed)
    moves = []
    while not st.is_terminal():
        q = st.current_player()
        a = bots[q].act(st.determinize(q, len(moves)))
        assert a in st.legal_actions()
        moves.append(a)
        st.apply_action(a)
    return moves, st


@pytest.mark.parametrize("name,params", [("pimc", LEARNED), ("ismcts", LEARNED_SEARCH)])
def test_plays_legal_complete_games_and_is_deterministic_under_its_seed(name, params):
    seats = [(name, params), ("greedy", {}), (name, dict(params, seed=3)), ("random", {})]
    moves, st = play(seats, 11)
    assert st.is_terminal() and len(moves) == 4 * 15 + 4 * sum(range(1, 16)) + sum(
        1 for a in moves if a >= 75)   # bids, cards and the dealer's trump choices
    assert play(seats, 11)[0] == moves


@pytest.mark.parametrize("seed", range(6))
def test_bids_come_from_the_model_not_from_playouts_or_the_search(seed):
    st = engines.make("wizard", players=4, seed=seed, hands=[5])
    pimc, search = agents.make("pimc", **LEARNED), agents.make("ismcts", **LEARNED_SEARCH)
    for bot in (pimc, search):
        bot.reset("wizard", st.params, st.current_player(), 0)
    while st.phase() != "bid":
        st.apply_action(st.legal_actions()[0])
    me = st.current_player()
    view, legal = st.observation(me), st.legal_actions()
    assert pimc.act(st.determinize(me, 0)) == learned.bidder().bid(view, legal) and pimc.last == {"samples": 0}
    ismcts_bidder = learned.bidder(learned.shipped_path(learned.SHIPPED_ISMCTS))   # learned from its own play
    assert search.act(st.determinize(me, 0)) == ismcts_bidder.bid(view, legal)
    assert search.last_stats()["iterations"] == 0


def test_the_search_still_plays_the_cards_and_bids_unless_told_to_learn():
    st = engines.make("wizard", players=4, seed=2, hands=[5])
    bot = agents.make("ismcts", **LEARNED_SEARCH)
    bot.reset("wizard", st.params, 0, 0)
    while st.phase() != "play" or st.current_player() != 0:
        st.apply_action(st.legal_actions()[0])
    bot.act(st.determinize(0, 0))
    assert bot.last_stats()["iterations"] == 50
    plain = agents.make("ismcts", iterations=50)
    plain.reset("wizard", st.params, 0, 0)
    st = engines.make("wizard", players=4, seed=2, hands=[5])
    while st.phase() != "bid":
        st.apply_action(st.legal_actions()[0])
    plain.act(st.determinize(st.current_player(), 0))
    assert plain.last_stats()["iterations"] == 50


@pytest.mark.parametrize("params,problem", [
    (dict(bid_model="x.json"), "bid_model.*is for bidding=learned"),
    (dict(bidding="learned", bid_model="/no/such/model.json"), "bid_model.*no such file"),
    (dict(bidding="learned", bid_model=learned.shipped_path("value-wizard-4p.json")), "not of 'wizard-bid'"),
    (dict(bidding="guess"), "bidding"),
])
def test_the_searchs_bidder_is_refused_in_one_line_when_it_cannot_bid(params, problem):
    with pytest.raises(agents.BadAgentParameter, match=problem) as e:
        agents.make("ismcts", **params)
    assert "\n" not in str(e.value)


def test_the_searchs_bidder_is_refused_at_another_game_or_other_parameters():
    for name in ("", "shipped"):
        bot = agents.make("ismcts", bidding="learned", bid_model=name)
        with pytest.raises(agents.BadAgentParameter, match="bid_model.*built for wizard, not insert"):
            bot.reset("insert", engines.registry.resolve("insert"), 0, 0)
        with pytest.raises(agents.BadAgentParameter, match="players=4, not players=5"):
            bot.reset("wizard", engines.registry.resolve("wizard", players=5), 0, 0)


def constant_net(inputs, classes, favourite):
    """A network that ignores its inputs and gives `favourite` almost all the weight."""
    return {"mean": [0.0] * inputs, "scale": [1.0] * inputs, "classes": classes,
            "layers": [{"weights": [[0.0] * len(classes)] * inputs,
                        "bias": [20.0 if c == favourite else 0.0 for c in classes]}]}


def test_the_given_bid_network_moves_the_bid_by_one_at_most():
    """The marginal network says 2 tricks; the network given the bid says 5 whatever the bid: the
    bid moves from 2 to 3, not to 5 (bids the teacher rarely made are guesses)."""
    n = len(learned.bid_feature_names())
    body = {"model": constant_net(n, list(range(6)), 2), "given_bid": constant_net(n + 1, list(range(6)), 5)}
    st = engines.wizard.WizardState.from_deal(4, [["2d", "3d", "4d", "5d", "6d"], ["7d", "8d", "9d", "J", "J"],
                                                  ["5e", "6e", "7e", "8e", "9e"], ["10d", "11d", "12d", "2h", "3h"]],
                                              turn_up="13h", dealer=3, rounds=(5,))
    obs = st.observation(0)
    assert learned.WizardBidder({"model": body["model"]}).bid(obs, st.legal_actions()) - learned.A_BID == 2
    assert learned.WizardBidder(body).bid(obs, st.legal_actions()) - learned.A_BID == 3
