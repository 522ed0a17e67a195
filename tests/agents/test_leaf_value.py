"""A learned leaf value for ismcts (agents/leaf.pyx, `ismcts[value=FILE]`, `arena train --target
value`): the features computed in C, the value walked in C equal to scikit-learn's prediction, the
search legal and deterministic with it, and model files for another game, another feature version or
changed by hand refused."""
import json
import random

import numpy as np
import pytest
from agents.forest import Forest
from agents.leaf import LEAF_FEATURES_VERSION, leaf_feature_names, leaf_features, leaf_value

import agents
import engines
from agents import learned
from agents.base import BadAgentParameter
from tests.support.games import random_games

GAMES = ["insert", "belladone_bluff", "belle_of_the_ball", "royal_ball", "wizard"]


@pytest.fixture(scope="module")
def insert_model():
    """A leaf value for Insert fitted to a few random games: (regressor, model file body)."""
    pytest.importorskip("sklearn")
    from sklearn.ensemble import GradientBoostingRegressor

    from arena.learn import fit
    st = engines.make("insert")
    x, y = fit.value_table("insert", dict(st.params), random_games("insert", 40))
    reg = GradientBoostingRegressor(n_estimators=15, max_depth=3, min_samples_leaf=5, random_state=0).fit(x, y)
    text = fit.model_file(fit.export_trees(reg), game_id="insert", params=dict(st.params), teacher="random",
                          data={"games": 40}, validation={"rows": 0}, seed=0, shape={"stages": 15}, command="test",
                          target="value")
    return reg, json.loads(text)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_features_are_the_round_the_mover_and_each_seats_lead_in_points_and_evaluation(game_id):
    st = engines.make(game_id, seed=2)
    rng = random.Random(2)
    for _ in range(25):
        st.apply_action(rng.choice(st.legal_actions()))
    n = st.num_players
    for seat in range(n):
        row = [st.round(), (st.current_player() - seat) % n]
        scores, evals = st.scores(), [st.evaluate(q) for q in range(n)]
        for k in range(n):
            q = (seat + k) % n
            row += [scores[q], evals[q], scores[q] - sum(scores) / n, evals[q] - sum(evals) / n]
        assert leaf_features(st, seat) == pytest.approx(row)
        assert len(row) == len(leaf_feature_names(n))


def test_the_value_walked_in_c_is_scikit_learns_prediction(insert_model):
    reg, body = insert_model
    forest = Forest(body["model"], len(leaf_feature_names(2)))
    checked = 0
    for game in random_games("insert", 5, seed=7):
        st = engines.make("insert", seed=game["seed"])
        for a in game["actions"]:
            for p in range(2):
                assert leaf_value(st, forest, p) == pytest.approx(
                    reg.predict(np.asarray([leaf_features(st, p)]))[0], abs=1e-12)
                checked += 1
            st.apply_action(a)
    assert checked > 50


def test_the_score_share_is_the_pairwise_placement():
    from arena.learn import fit
    assert fit.score_shares([10.0, 5.0, 5.0, 0.0]) == [1.0, 0.5, 0.5, 0.0]
    assert fit.score_shares([1.0, -1.0]) == [1.0, 0.0]


def write(path, body, reseal=True):
    path.write_text(learned.dumps(body) if reseal else json.dumps(body))
    return str(path)


def play(game_id, bots, seed):
    st = engines.make(game_id, seed=seed)
    for q, b in enumerate(bots):
        b.reset(game_id, st.params, q, seed)
    moves = []
    while not st.is_terminal():
        q = st.current_player()
        a = bots[q].act(st.determinize(q, len(moves)))
        assert a in st.legal_actions()
        moves.append(a)
        st.apply_action(a)
    return moves


def test_ismcts_with_a_leaf_value_plays_legal_games_deterministic_under_its_seed(insert_model, tmp_path):
    path = write(tmp_path / "v.json", insert_model[1])
    games = [play("insert", [agents.make("ismcts", iterations=300, value=path), agents.make("greedy")], 4)
             for _ in range(2)]
    ranked = [play("insert", [agents.make("ismcts", iterations=300, value=path, value_reward="ranked"),
                              agents.make("greedy")], 4) for _ in range(2)]
    assert ranked[0] == ranked[1]
    threaded = [play("insert", [agents.make("ismcts", iterations=300, value=path, threads=2),
                                agents.make("greedy")], 4) for _ in range(2)]
    assert threaded[0] == threaded[1]
    assert games[0] == games[1]
    plain = play("insert", [agents.make("ismcts", iterations=300), agents.make("greedy")], 4)
    assert plain != games[0]     # the value, not the play-outs, scored the leaves


@pytest.mark.parametrize("reward,mean", [("share", 0.25), ("ranked", 0.5)])
def test_the_search_reads_the_value_not_playouts(insert_model, tmp_path, reward, mean):
    """A value that rates every position the same (0.25) leaves every root child's mean at that
    value, or ranked, at a tie's 0.5."""
    body = dict(insert_model[1])
    trees = dict(body["model"], value=[0.0] * len(body["model"]["value"]), init=[0.25])
    path = write(tmp_path / "flat.json", dict(body, model=trees))
    st = engines.make("insert", seed=1)
    bot = agents.make("ismcts", iterations=200, value=path, value_mix=1.0, cutoff=0, solver=False, value_reward=reward)
    bot.reset("insert", st.params, 0, 0)
    bot.act(st)
    means = [m for _, _, m in bot.last_stats()["children"].values()]
    assert means and all(m == pytest.approx(mean) for m in means)


def flat_value(insert_model, tmp_path, share=0.25):
    """A value file that rates every position `share`."""
    body = dict(insert_model[1])
    trees = dict(body["model"], value=[0.0] * len(body["model"]["value"]), init=[share])
    return write(tmp_path / "flat.json", dict(body, model=trees))


def searched(state, **params):
    bot = agents.make("ismcts", solver=False, **params)
    bot.reset(state.game_id, state.params, state.current_player(), 0)
    return bot.act(state), bot.last_stats()["children"]


@pytest.mark.parametrize("cutoff", [0, 4])
@pytest.mark.parametrize("mix", [0.25, 0.5, 0.9])
def test_a_mixed_leaf_is_valued_and_played_out_and_the_rewards_weighted(insert_model, tmp_path, cutoff, mix):
    """One iteration expands one child and scores it once: its mean is the value's share (0.25)
    weighted by `value_mix` plus the play-out's reward (the same world and rollout as the search
    without a value) weighted by the rest."""
    path = flat_value(insert_model, tmp_path)
    for seed in range(5):
        st = engines.make("insert", seed=seed)
        plain = searched(st, iterations=1, cutoff=cutoff)[1]
        mixed = searched(st, iterations=1, cutoff=cutoff, value=path, value_mix=mix)[1]
        assert plain.keys() == mixed.keys() and len(plain) == 1
        (a, (visits, _, mean)), = mixed.items()
        assert visits == 1 and mean == pytest.approx(mix * 0.25 + (1 - mix) * plain[a][2])


def test_a_mix_of_nothing_plays_as_the_search_without_a_value(insert_model, tmp_path):
    path = flat_value(insert_model, tmp_path)
    for game_id in ("insert", "belle_of_the_ball"):
        st = engines.make(game_id, seed=3)
        value = path if game_id == "insert" else "shipped"
        assert searched(st, iterations=300, value=value, value_mix=0.0) == searched(st, iterations=300, value="none")
        assert searched(st, iterations=300, value=value, value_mix=0.5) != searched(st, iterations=300, value="none")


@pytest.mark.parametrize("game_id", GAMES)
def test_the_default_search_mixes_the_shipped_value_only_in_the_games_it_won(game_id):
    """`value=default`: the shipped value, mixed half and half with the play-out, in the games of
    LEAF_VALUES (where it measured stronger at equal time); elsewhere the play-outs alone."""
    from agents.ismcts import LEAF_VALUES
    st = engines.make(game_id, seed=4)
    default = searched(st, iterations=300)
    if game_id in LEAF_VALUES:
        assert default == searched(st, iterations=300, value="shipped", value_mix=0.5)
        assert default != searched(st, iterations=300, value="none")
    else:
        assert default == searched(st, iterations=300, value="none")


@pytest.mark.parametrize("params", [{"players": 4}, {"score_on_final_turn": True}])
def test_the_default_leaves_out_a_value_not_trained_for_the_players_or_the_variant(params):
    """The shipped Belle of the Ball value was trained at 3 players and the default rules: at 4, or
    with another rule, the default plays without it, where `value=shipped` is refused."""
    st = engines.make("belle_of_the_ball", seed=4, **params)
    assert searched(st, iterations=300) == searched(st, iterations=300, value="none")
    with pytest.raises(BadAgentParameter, match="parameter 'value'"):
        searched(st, iterations=300, value="shipped")


def test_a_value_changed_by_hand_is_refused(insert_model, tmp_path):
    body = insert_model[1]
    changed = dict(body, model=dict(body["model"], init=[0.9]))
    path = write(tmp_path / "changed.json", changed, reseal=False)
    with pytest.raises(BadAgentParameter, match="parameter 'value' of agent ismcts: .*digest does not match"):
        agents.make("ismcts", value=path)


def test_a_value_of_another_feature_version_is_refused(insert_model, tmp_path):
    body = insert_model[1]
    path = write(tmp_path / "old.json", dict(body, features=dict(body["features"], version=LEAF_FEATURES_VERSION + 1)))
    with pytest.raises(BadAgentParameter, match="version 3; this arena computes 'leaf' version 2: retrain it"):
        agents.make("ismcts", value=path)
    assert learned.LEAF_FEATURES_VERSION == LEAF_FEATURES_VERSION


def test_a_value_for_another_game_is_refused_at_the_table(insert_model, tmp_path):
    path = write(tmp_path / "insert.json", insert_model[1])
    bot = agents.make("ismcts", value=path)
    st = engines.make("belladone_bluff")
    with pytest.raises(BadAgentParameter, match="built for insert, not belladone_bluff"):
        bot.reset("belladone_bluff", st.params, 0, 0)


def test_a_bidder_is_not_a_leaf_value_nor_a_leaf_value_a_bidder(insert_model, tmp_path):
    with pytest.raises(BadAgentParameter, match="not of 'leaf'"):
        agents.make("ismcts", value=learned.shipped_path())
    with pytest.raises(BadAgentParameter, match="bid_model.*not of 'wizard-bid'"):
        agents.make("pimc", bidding="learned", bid_model=write(tmp_path / "v.json", insert_model[1]))


def test_a_value_with_two_outputs_is_refused(insert_model, tmp_path):
    body = insert_model[1]
    trees = dict(body["model"], columns=2, init=[0.0, 0.0])
    trees["roots"] = trees["roots"][: len(trees["roots"]) // 2 * 2]
    with pytest.raises(BadAgentParameter, match="one output"):
        agents.make("ismcts", value=write(tmp_path / "two.json", dict(body, model=trees)))
