"""A learned playout policy (agents/move_policy.pyx, `ismcts[playout=FILE]`, `arena train --target
playout`): the engine's move patterns, draws in proportion to the patterns' weights, a fit that
recovers known weights, the search legal and deterministic with it, the default only where it
measured stronger, and model files changed by hand, of another feature version or for another game
refused."""
import json
import math
import random

import numpy as np
import pytest
from agents.move_policy import MovePolicy
from engines.belle_of_the_ball import BelleState
from engines.royal_ball import RoyalBallState

import agents
import engines
from agents import learned
from agents.base import BadAgentParameter
from arena.learn import fit
from tests.support.games import random_games

GAMES = ["insert", "belladone_bluff", "belle_of_the_ball", "royal_ball", "wizard"]
PATTERNED = {"royal_ball", "belle_of_the_ball"}


def pattern(phase, card, mine, king):
    """Royal Ball's pattern of a move (engines/royal_ball.pyx): phase 0 take, 1 keep, 2 give."""
    return ((phase * 8 + card) * 5 + min(mine, 4)) * 5 + min(king, 4)


def test_royal_balls_patterns_are_the_card_and_the_movers_and_the_kings_counts_of_it():
    """RULES.md 5.4 and 5.5.1: in the gift phase, P0 (two Cakes and a Dog) may give either or stop;
    the King's face-up Salami, Dog, Salami leave him one Salami (his Dog ate the second) and one Dog."""
    st = RoyalBallState.position(4, [["Cake", "Cake", "Dog"], ["Apple"], ["Horse"], ["Carrot"]],
                                 king=["Salami", "Dog", "Salami"], marker=0)
    assert st.legal_actions() == [16, 21, 23]   # give Cake, give Dog, stop
    assert st.move_patterns() == [pattern(2, 0, 2, 0), pattern(2, 5, 1, 1), 600]
    assert st.move_pattern_count() == 601


def test_royal_balls_patterns_count_only_the_king_cards_the_mover_knows():
    """RULES.md 5.3 and 5.6: a face-down card given to the King is known to nobody, so it is not in
    the King's count of the next mover's patterns; the face-down card on the table has no counts."""
    st = RoyalBallState.deal(4, ["Dog", "Cake", "Cake", "Cake", "Salami",
                                 "Salami", "Salami", "Salami", "Salami", "Cake"], first=0)
    for _ in range(3):
        st.apply_action(st.string_to_action("take Cake"))
    st.apply_action(st.string_to_action("keep Dog"))       # the face-down Salami goes to the King
    assert st.king_pile() == [("Salami", "down")]
    assert st.current_player() == 2                          # P1 is active: P2 takes first
    assert st.legal_actions() == [3, 7]                      # take Salami, take face-down
    assert st.move_patterns() == [pattern(0, 3, 0, 0), pattern(0, 7, 0, 0)]


def belle_take(k, regrets, match):
    """Belle of the Ball's pattern of taking the Guest at line position k + 1 (engines/belle_of_the_ball.pyx)."""
    return (k * 3 + min(regrets, 2)) * 4 + match


def belle_take_belle(k, regrets, mode):
    return 72 + (k * 3 + min(regrets, 2)) * 3 + mode


def belle_group(phase, cards, match):
    """Placing in one of the mover's groups: phase 0 a taken Guest, 1 a moved one, 2 a Mirth Belle."""
    return 126 + (phase * 4 + cards) * 4 + match


def test_belle_of_the_balls_take_patterns_are_the_cost_the_regrets_and_the_best_match():
    """RULES.md 4.3 step 2: position j costs j - 1 Regrets and the taker gains those beside the
    card. The second Guest shares all three interests with the mover's full-but-one group (Chat,
    Books and Tree among Chat-Books-Fish, Chat-Cake-Fish, Chat-Cake-Tree); the others share two with
    its first group (Chat, Music). Placing it: the match in each group and the group's cards."""
    st = BelleState.from_setup(
        [[["Eye of Anglebottom"], ["Jack of Highmount", "Cape of Dent", "Lord Lance of Craw"], []],
         [[], [], []], [[], [], []]],
        guests=["Drake of Anglebottom", "Lady Quill of Indigum", "Eye of Dent", "Rock of Latesun"],
        belles=["RUSHED", "Earl Grey, Hot", "Loves a Crowd"], regrets=[2, 3, 3],
        guest_regrets=[1, 0, 3], belle_regrets=[0, 2])
    assert st.legal_actions() == [33, 34, 35, 39, 40, 41]
    assert st.move_patterns() == [belle_take(0, 1, 2), belle_take(1, 0, 3), belle_take(2, 3, 2),
                                  belle_take_belle(0, 0, 1), belle_take_belle(1, 2, 0), belle_take_belle(2, 0, 2)]
    st.apply_action(34)                       # take the second Guest: place it
    assert st.legal_actions() == [45, 46, 47]
    assert st.move_patterns() == [belle_group(0, 1, 1), belle_group(0, 3, 3), belle_group(0, 0, 0)]
    assert st.move_pattern_count() == 225


def test_belle_of_the_balls_belle_patterns_are_the_belle_and_the_targets_cards_and_points():
    """RULES.md 4.3 step 1: a Mischief Belle goes into an opponent's group; the group's score is
    the icons whose interest is on another guest too (step 3): Chat and Music twice, 4 points."""
    st = BelleState.from_setup(
        [[["Eye of Anglebottom"], [], []],
         [["Lady Quill of Flappingap", "Rock of Latesun"], [], []], [[], [], []]],
        guests=["Drake of Anglebottom"], hands=[["RUSHED"]], regrets=[3, 3, 3])
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["play RUSHED", "no Belle"]
    assert st.move_patterns() == [190 + 9, 190 + 32]
    st.apply_action(9)
    assert st.legal_actions()[:2] == [48 + 3, 48 + 4]     # player 1, groups 1 and 2
    assert st.move_patterns()[:2] == [174 + 2 * 4 + 2, 174]


@pytest.mark.parametrize("game_id", [g for g in GAMES if g not in PATTERNED])
def test_an_engine_without_patterns_says_so_in_one_line(game_id):
    st = engines.make(game_id)
    assert st.move_pattern_count() == 0
    with pytest.raises(ValueError, match=f"^{game_id} describes its moves by no patterns$"):
        st.move_patterns()


@pytest.mark.parametrize("game_id", sorted(PATTERNED))
def test_every_legal_move_of_random_games_has_a_pattern_in_range(game_id):
    rng = random.Random(0)
    for seed in range(3):
        st = engines.make(game_id, seed=seed)
        while not st.is_terminal():
            patterns = st.move_patterns()
            assert len(patterns) == len(st.legal_actions())
            assert all(0 <= p < st.move_pattern_count() for p in patterns)
            st.apply_action(rng.choice(st.legal_actions()))


def test_the_policy_draws_each_move_in_proportion_to_its_patterns_weight():
    st = engines.make("royal_ball", seed=1)
    logits = np.linspace(-2.0, 2.0, 601)
    policy = MovePolicy(logits)
    weights = [math.exp(logits[p]) for p in st.move_patterns()]
    expected = dict(zip(st.legal_actions(), [w / sum(weights) for w in weights]))
    assert policy.probabilities(st) == pytest.approx(expected)
    draws = [policy.choose(st, seed) for seed in range(4000)]
    for a, chance in expected.items():
        assert draws.count(a) / len(draws) == pytest.approx(chance, abs=0.03)


@pytest.mark.parametrize("logits,problem", [
    ([], "not a list of 1 to"), ([[0.0, 1.0]], "not a list of 1 to"), (["x"], "not numbers"),
    ([0.0, float("nan")], "not all finite"), ([0.0, 1e300], "not all finite"), ([51.0, 0.0], "within"),
])
def test_malformed_logits_are_refused_in_one_line(logits, problem):
    with pytest.raises(ValueError, match=problem):
        MovePolicy(logits)


def test_a_policy_of_another_pattern_count_is_refused_by_the_engine():
    with pytest.raises(ValueError, match="its 5 move patterns are not the 601 of royal_ball's engine"):
        MovePolicy([0.0] * 5).check(engines.make("royal_ball"))


def test_the_fit_recovers_known_weights():
    """Moves drawn from a known softmax over patterns (each move's legal set 2 to 5 random patterns
    of 20) give back the logits, up to the constant a softmax ignores."""
    rng = np.random.default_rng(0)
    truth = rng.normal(0.0, 1.0, 20)
    rows, chosen = [], []
    for _ in range(20000):
        k = int(rng.integers(2, 6))
        legal = rng.choice(20, size=k, replace=False)
        w = np.exp(truth[legal])
        rows.append(list(legal) + [-1] * (5 - k))
        chosen.append(int(rng.choice(k, p=w / w.sum())))
    logits = np.asarray(fit.fit_move_policy(np.asarray(rows), np.asarray(chosen), 20))
    assert logits - logits.mean() == pytest.approx(truth - truth.mean(), abs=0.12)
    figures = fit.validate_move_policy(list(logits), np.asarray(rows), np.asarray(chosen))
    assert figures["moves"] == 20000 and figures["log_loss"] < figures["log_loss_uniform"]


@pytest.fixture(scope="module")
def policy_body():
    """A playout policy for Royal Ball fitted to a few random games, as a model file's body."""
    st = engines.make("royal_ball")
    patterns, chosen = fit.move_table("royal_ball", dict(st.params), random_games("royal_ball", 4))
    logits = fit.fit_move_policy(patterns, chosen, st.move_pattern_count())
    text = fit.model_file({"kind": "logits", "logits": logits}, game_id="royal_ball", params=dict(st.params),
                          teacher="random", data={"games": 4}, validation={"moves": 0}, seed=0, shape={},
                          command="test", target="playout")
    return json.loads(text)


def write(path, body, reseal=True):
    path.write_text(learned.dumps(body) if reseal else json.dumps(body))
    return str(path)


def searched(state, **params):
    bot = agents.make("ismcts", **params)
    bot.reset(state.game_id, state.params, state.current_player(), 0)
    return bot.act(state), bot.last_stats()["children"]


def test_ismcts_with_a_playout_policy_is_deterministic_under_its_seed_and_plays_by_it(policy_body, tmp_path):
    path = write(tmp_path / "p.json", policy_body)
    rng = random.Random(5)
    st = engines.make("royal_ball", seed=5)
    for _ in range(40):
        st.apply_action(rng.choice(st.legal_actions()))
    first = searched(st, iterations=400, playout=path)
    assert first[0] in st.legal_actions()
    assert searched(st, iterations=400, playout=path) == first
    assert searched(st, iterations=400, playout=path, threads=2) == searched(st, iterations=400, playout=path, threads=2)
    assert searched(st, iterations=400, playout="none") != first   # the policy, not uniform draws, played out


def shipped_players(game_id):
    """The player counts a playout policy is shipped for (agents/models/playout-GAME-Np.json)."""
    from importlib import resources
    spec = engines.spec(game_id)
    return [n for n in range(spec.min_players, spec.max_players + 1)
            if (resources.files("agents") / "models" / learned.playout_model_name(game_id, n)).is_file()]


@pytest.mark.parametrize("game_id", GAMES)
def test_the_default_search_plays_out_by_the_shipped_policy_only_in_the_games_it_won(game_id):
    """`playout=default`: the shipped policy in the games of PLAYOUT_POLICIES (where it measured
    stronger at equal time), at the player count it was shipped for; elsewhere uniformly random
    play-outs."""
    from agents.ismcts import PLAYOUT_POLICIES
    assert PLAYOUT_POLICIES == {"royal_ball", "belle_of_the_ball"}
    for players in shipped_players(game_id) if game_id in PLAYOUT_POLICIES else [None]:
        st = engines.make(game_id, seed=4, players=players)
        default = searched(st, iterations=300)
        if game_id in PLAYOUT_POLICIES:
            assert default == searched(st, iterations=300, playout="shipped")
            assert default != searched(st, iterations=300, playout="none")
        else:
            assert default == searched(st, iterations=300, playout="none")


@pytest.mark.parametrize("game_id", ["royal_ball", "belle_of_the_ball"])
def test_the_default_leaves_out_a_policy_not_trained_for_the_players(game_id):
    st = engines.make(game_id, seed=4, players=3)
    assert searched(st, iterations=300) == searched(st, iterations=300, playout="none")
    with pytest.raises(BadAgentParameter, match="parameter 'playout'"):
        searched(st, iterations=300, playout="shipped")


def test_a_policy_changed_by_hand_is_refused(policy_body, tmp_path):
    changed = dict(policy_body, model=dict(policy_body["model"], logits=[0.0] * 601))
    with pytest.raises(BadAgentParameter, match="parameter 'playout' of agent ismcts: .*digest does not match"):
        agents.make("ismcts", playout=write(tmp_path / "changed.json", changed, reseal=False))


def test_a_policy_of_another_feature_version_is_refused(policy_body, tmp_path):
    features = dict(policy_body["features"], version=learned.MOVE_PATTERNS_VERSION + 1)
    with pytest.raises(BadAgentParameter, match="version 2; this arena computes 'move-patterns' version 1: retrain it"):
        agents.make("ismcts", playout=write(tmp_path / "old.json", dict(policy_body, features=features)))


def test_a_policy_whose_logits_do_not_fit_its_patterns_is_refused(policy_body, tmp_path):
    short = dict(policy_body, model={"kind": "logits", "logits": [0.0] * 600})
    with pytest.raises(BadAgentParameter, match="its logits do not fit its move patterns"):
        agents.make("ismcts", playout=write(tmp_path / "short.json", short))


def test_a_policy_for_another_game_is_refused_at_the_table(policy_body, tmp_path):
    bot = agents.make("ismcts", playout=write(tmp_path / "rb.json", policy_body))
    st = engines.make("insert")
    with pytest.raises(BadAgentParameter, match="built for royal_ball, not insert"):
        bot.reset("insert", st.params, 0, 0)


def test_a_leaf_value_is_not_a_playout_policy():
    with pytest.raises(BadAgentParameter, match="parameter 'playout'.*not of 'move-patterns'"):
        agents.make("ismcts", playout=learned.shipped_path(learned.value_model_name("royal_ball", 4)))
