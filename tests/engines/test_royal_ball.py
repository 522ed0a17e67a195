"""Royal Ball scenarios from RULES.md sections 5 and 7.4 (and the designer's post, seeds/royal-ball.txt)."""
import itertools
import random

import pytest
from engines.royal_ball import CARD_NAMES, RoyalBallState, card_value, king_counts, score_hand

import engines

TYPES = CARD_NAMES


def play_until(state, rng, stop):
    while not state.is_terminal() and not stop(state):
        state.apply_action(rng.choice(state.legal_actions()))


def all_cards(state):
    """Every card in play by name: hands, the King's pile, the table and the deck."""
    total = dict.fromkeys(TYPES, 0)
    for p in range(state.num_players):
        for name, n in state.hand(p).items():
            total[name] += n
    for name, _ in state.king_pile():
        total[name] += 1
    up, down = state.table()
    for name in up + ([down] if down else []):
        total[name] += 1
    for name, n in state.deck_left().items():
        total[name] += n
    return total


# ---------------------------------------------------------------- the scoring table (RULES.md 5.5.4)

def test_salami_four_cards_score_six():
    """RULES.md 5.5.4 [SEED]: Salami 0, 1, 2, 3: four cards are worth 6."""
    assert [card_value("Salami", n) for n in range(6)] == [0, 0, 1, 3, 6, 10]
    assert score_hand(["Salami"] * 4, {"Salami": 5}, feed=False)[0] == 6


def test_the_three_dog_examples():
    """RULES.md 5.5.4 [SEED]: 1 Dog vs King 0 -> -8; 2 vs 2 -> 0; 1 vs King 2 -> +8."""
    assert score_hand(["Dog"], {})[0] == -8
    assert score_hand(["Dog", "Dog"], {"Dog": 2})[0] == 0
    assert score_hand(["Dog"], {"Dog": 2})[0] == 8
    assert [card_value("Dog", n) for n in range(7)] == [0, 8, 4, 2, 0, 0, 0]


def test_the_apple_examples():
    """RULES.md 5.5.4 [SEED]: (0 Chicken, 3 Apples) -> 0; (3C, 1A) -> 2; (1C, 3A) -> 2."""
    assert card_value("Apple", 3, chickens=0) == 0
    assert card_value("Apple", 1, chickens=3) == 2
    assert card_value("Apple", 3, chickens=1) == 2
    # whole hands: the King holds the same Chickens (0 points) and more Apples (positive sign)
    assert score_hand(["Apple"] * 3, {"Apple": 4})[0] == 0
    assert score_hand(["Chicken"] * 3 + ["Apple"], {"Chicken": 3, "Apple": 2})[0] == 2
    assert score_hand(["Chicken"] + ["Apple"] * 3, {"Chicken": 1, "Apple": 4})[0] == 2


def test_chicken_packs_repeat_and_the_capped_flag():
    """RULES.md 5.5.4 and 5.7.6: packs of 2 = 3 and of 3 = 5, best split; chicken=capped: 5 from 3 on."""
    assert [card_value("Chicken", n) for n in range(11)] == [0, 0, 3, 5, 6, 8, 10, 11, 13, 15, 16]
    assert [card_value("Chicken", n, chicken="capped") for n in range(7)] == [0, 0, 3, 5, 5, 5, 5]
    assert score_hand(["Chicken"] * 4, {"Chicken": 5})[0] == 6
    assert score_hand(["Chicken"] * 4, {"Chicken": 5}, chicken="capped")[0] == 5


def test_carrot_packs_of_three_each_add_one():
    """RULES.md 5.5.4 and 5.7.7: 2 per Carrot, +1 for each complete pack of 3."""
    assert [card_value("Carrot", n) for n in range(8)] == [0, 2, 4, 7, 9, 11, 14, 16]


def test_horse_and_cake_values():
    """RULES.md 5.5.4: Horses 1->0, 2->3, 3->0, 4->6, 5 or more->0; Cake 5 each."""
    assert [card_value("Horse", n) for n in range(8)] == [0, 0, 3, 0, 6, 0, 0, 0]
    assert [card_value("Cake", n) for n in range(4)] == [0, 5, 10, 15]


@pytest.mark.parametrize("name,n", [("Cake", 2), ("Carrot", 3), ("Salami", 3), ("Chicken", 2),
                                    ("Dog", 1), ("Horse", 2), ("Apple", 2)])
def test_the_sign_rule_for_each_type(name, n):
    """RULES.md 5.5.4 and 5.7.9: fewer than the King +f(n), equal 0, more than the King -f(n)."""
    hand = [name] * n
    king = {}
    if name == "Apple":          # Apples need Chickens to be worth anything; equal Chickens score 0
        hand += ["Chicken"] * n
        king["Chicken"] = n
    value = card_value(name, n, chickens=n)
    assert value > 0
    for k, sign in ((n + 1, 1), (n, 0), (n - 1, -1)):
        assert score_hand(hand, dict(king, **{name: k}), feed=False)[0] == sign * value


# ---------------------------------------------------------------- the King's pile (RULES.md 5.5.1-2)

def test_eaten_cards_do_not_count():
    """RULES.md 5.5.2 [SEED]: Dogs that ate 2 of 3 Salami leave the King 1 Salami, not 3."""
    k = king_counts(["Dog", "Dog", "Salami", "Salami", "Salami"])
    assert k["Salami"] == 1 and k["Dog"] == 2


def test_the_kings_animals_eat_only_later_cards_in_order():
    """RULES.md 5.5.1 and 5.7.3, 5.7.10: each animal eats one later card of its food, oldest animal first;
    Dogs eat meat only, Horses Carrots and Apples only, Cake and animals are never eaten."""
    pile = ["Salami", "Dog", "Carrot", "Chicken", "Horse", "Apple", "Apple", "Salami", "Cake", "Dog", "Horse"]
    assert king_counts(pile) == {"Cake": 1, "Carrot": 1, "Apple": 1, "Salami": 2, "Chicken": 0,
                                 "Dog": 2, "Horse": 2}
    # two hungry Dogs, two Salami: both eaten; the order of the pile, not its composition, decides
    assert king_counts(["Dog", "Dog", "Salami", "Salami"])["Salami"] == 0
    assert king_counts(["Salami", "Salami", "Dog", "Dog"])["Salami"] == 2
    assert king_counts(["Dog", "Salami", "Salami", "Dog"])["Salami"] == 1


def test_a_hungry_animal_at_the_end_of_the_pile_still_counts():
    """RULES.md 5.5.1-2 [SEED]: a Dog or Horse revealed last goes hungry and counts like a fed one."""
    k = king_counts(["Salami", "Carrot", "Dog", "Horse"])
    assert k == {"Cake": 0, "Carrot": 1, "Apple": 0, "Salami": 1, "Chicken": 0, "Dog": 1, "Horse": 1}


# ---------------------------------------------------------------- players' feeding (RULES.md 5.5.3)

def test_feeding_your_own_dogs_removes_meat_from_your_count():
    """RULES.md 5.5.3 and 5.7.5 [SEED]: 3 Dogs and 3 Salami against a King with 2 Salami: feeding at
    least one avoids the negative Salami points; fed cards no longer count."""
    king = king_counts(["Dog", "Dog", "Salami", "Salami", "Salami", "Salami"])   # 2 Salami left, 2 Dogs
    assert king["Salami"] == 2
    unfed = score_hand(["Dog"] * 3 + ["Salami"] * 3, king, feed=False)[0]
    fed_score, fed = score_hand(["Dog"] * 3 + ["Salami"] * 3, king)
    assert unfed == -2 - 3          # 3 Dogs > 2: -2; 3 Salami > 2: -3
    assert fed_score == -2 and fed.get("Salami", 0) >= 1


def test_feeding_chickens_changes_the_apple_pairs():
    """RULES.md 5.5.4 and 5.7.8: Apples pair with the Chickens left after feeding; the optimiser weighs
    that: 1 Dog, 2 Chicken, 2 Apple against King Chicken 1, Apple 3."""
    score, fed = score_hand(["Dog", "Chicken", "Chicken", "Apple", "Apple"], {"Chicken": 1, "Apple": 3})
    # unfed: -8 -3 +4 = -7; one Chicken fed: -8 + 0 + 2 = -6
    assert (score, fed) == (-6, {"Chicken": 1})


def test_feeding_optimiser_matches_brute_force():
    """RULES.md 5.5.3: the automatic feeding is the best of every legal choice (one card per animal)."""
    rng = random.Random(5)
    for _ in range(250):
        hand = {t: rng.randint(0, 5) for t in TYPES}
        king = {t: rng.randint(0, 6) for t in TYPES}
        best = None
        d, h = hand["Dog"], hand["Horse"]
        for se, ce, re_, ae in itertools.product(*(range(hand[t] + 1) for t in ("Salami", "Chicken",
                                                                               "Carrot", "Apple"))):
            if se + ce > d or re_ + ae > h:
                continue
            left = dict(hand, Salami=hand["Salami"] - se, Chicken=hand["Chicken"] - ce,
                        Carrot=hand["Carrot"] - re_, Apple=hand["Apple"] - ae)
            v = score_hand(left, king, feed=False)[0]
            best = v if best is None else max(best, v)
        assert score_hand(hand, king)[0] == best, (hand, king)


# ---------------------------------------------------------------- setup and the draft (RULES.md 5.2, 5.3)

@pytest.mark.parametrize("players,removed,expected", [
    (4, "dog", {t: 15 for t in TYPES}),
    (3, "dog", dict({t: 15 for t in TYPES}, Cake=13, Dog=0)),
    (3, "horse", dict({t: 15 for t in TYPES}, Cake=13, Horse=0)),
    (2, "dog", dict({t: 12 for t in TYPES}, Dog=0)),
    (2, "horse", dict({t: 12 for t in TYPES}, Horse=0)),
])
def test_deck_composition_per_player_count(players, removed, expected):
    """RULES.md 5.2: 105 cards at 4; 88 at 3 (an animal type and 2 Cakes out); 72 at 2 (an animal type
    out, 12 of each other type). The removed animal is public; at 4 players nothing is removed."""
    s = engines.make("royal_ball", players=players, removed_animal=removed, seed=4)
    assert s.deck_composition() == expected
    assert sum(expected.values()) == {4: 105, 3: 88, 2: 72}[players]
    assert all_cards(s) == expected
    assert s.observation(0)["removed_animal"] == (None if players == 4 else removed.capitalize())


def test_random_removed_animal_is_dog_or_horse():
    """RULES.md 5.2 [INF]: removed_animal=random picks Dog or Horse by chance, publicly."""
    seen = {engines.make("royal_ball", players=3, seed=seed).removed_animal() for seed in range(30)}
    assert seen == {"Dog", "Horse"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_drafts_empty_the_deck_into_equal_hands(players):
    """RULES.md 5.2-5.3: deck / (N+1) drafts; each player and the King receive one card per draft."""
    s = engines.make("royal_ball", players=players, seed=players)
    play_until(s, random.Random(players), lambda st: st.phase() == "gift")
    rounds = {4: 21, 3: 22, 2: 24}[players]
    assert [sum(s.hand(p).values()) for p in range(players)] == [rounds] * players
    assert len(s.king_pile()) == rounds and s.deck_left() == {}
    # the gifts begin with the marker holder, the player after the last active one
    assert s.current_player() == s.active_player()


def test_a_draft_step_by_step():
    """RULES.md 5.3: N+1 cards, the last face down; the players left of the active one take one each,
    then the active player keeps one and the other goes to the King as it lay; the marker moves on."""
    s = RoyalBallState.deal(3, ["Cake", "Carrot", "Apple", "Salami", "Horse", "Horse", "Cake", "Chicken"],
                            first=0, removed_animal="dog")
    assert s.table() == (["Cake", "Carrot", "Apple"], "Salami")
    assert s.current_player() == 1
    assert [s.action_to_string(a) for a in s.legal_actions()] == [
        "take Cake", "take Carrot", "take Apple", "take face-down"]
    s.apply_action(s.string_to_action("take face-down"))
    s.apply_action(s.string_to_action("take Cake"))
    assert s.current_player() == 0
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["keep Carrot", "keep Apple"]
    s.apply_action(s.string_to_action("keep Carrot"))
    assert s.king_pile() == [("Apple", "up")]
    assert s.active_player() == 1 and s.current_player() == 2
    assert s.table() == (["Cake", "Horse", "Horse"], "Chicken")
    s.apply_action(s.string_to_action("take Horse"))
    s.apply_action(s.string_to_action("take Horse"))
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["keep Cake", "keep face-down"]
    s.apply_action(s.string_to_action("keep Cake"))
    assert s.king_pile() == [("Apple", "up"), ("Chicken", "down")]
    assert [s.hand(p) for p in range(3)] == [{"Carrot": 1, "Horse": 1}, {"Salami": 1, "Cake": 1},
                                              {"Cake": 1, "Horse": 1}]
    obs = s.observation(2)
    assert obs["king"] == ["Apple", "face-down"]
    assert obs["players"][1] == {"took_face_up": {"Cake": 1}, "took_face_down": 1, "gifts": 0, "hand_size": 2}
    assert obs["hand"] == {"Cake": 1, "Horse": 1}


# ---------------------------------------------------------------- information (RULES.md 5.6)

def test_the_face_down_card_is_known_only_to_who_takes_it():
    """RULES.md 5.6 and 5.7.2: nobody, the active player included, sees the face-down card on the
    table; once taken, only the taker knows it."""
    a = RoyalBallState.deal(3, ["Cake", "Carrot", "Apple", "Salami"], first=0, removed_animal="dog")
    b = RoyalBallState.deal(3, ["Cake", "Carrot", "Apple", "Chicken"], first=0, removed_animal="dog")
    for p in range(3):
        assert a.information_state_key(p) == b.information_state_key(p)
        assert a.observation(p) == b.observation(p)
    for st in (a, b):
        st.apply_action(st.string_to_action("take face-down"))
    assert a.information_state_key(1) != b.information_state_key(1)
    assert a.observation(1) != b.observation(1)
    for p in (0, 2):
        assert a.information_state_key(p) == b.information_state_key(p)
        assert a.observation(p) == b.observation(p)


def test_worlds_the_observer_cannot_tell_apart_resample_identically():
    """RULES.md 5.6: a determinization depends only on what the observer knows: two deals that differ
    only in a face-down card nobody but its taker saw give the very same world for one seed."""
    worlds = []
    for hidden in ("Salami", "Chicken"):
        s = RoyalBallState.deal(3, ["Cake", "Carrot", "Apple", hidden, "Horse", "Horse", "Cake", "Chicken"
                                    if hidden == "Salami" else "Salami"], first=0, removed_animal="dog")
        for move in ("take face-down", "take Cake", "keep Carrot", "take Horse", "take Horse", "keep Cake"):
            s.apply_action(s.string_to_action(move))
        worlds.append(s)
    a, b = worlds
    for p in (0, 2):
        assert a.information_state_key(p) == b.information_state_key(p)
        for seed in range(4):
            assert a.determinize(p, seed=seed).snapshot() == b.determinize(p, seed=seed).snapshot()


def test_gifts_are_known_only_to_the_giver():
    """RULES.md 5.4, 5.6 and 5.7.11: gifts go face down, starting with the marker holder; the others
    see only how many; after two gifts the turn passes on."""
    hands = [["Cake", "Salami"], ["Dog", "Salami", "Cake"], ["Carrot"]]
    a = RoyalBallState.position(3, hands, king=["Apple"], marker=1, removed_animal="horse")
    b = RoyalBallState.position(3, hands, king=["Apple"], marker=1, removed_animal="horse")
    assert a.current_player() == 1
    assert [a.action_to_string(x) for x in a.legal_actions()] == ["give Cake", "give Salami", "give Dog", "stop"]
    a.apply_action(a.string_to_action("give Dog"))
    a.apply_action(a.string_to_action("give Salami"))
    b.apply_action(b.string_to_action("give Cake"))
    b.apply_action(b.string_to_action("give Salami"))
    assert a.current_player() == b.current_player() == 2
    for p in (0, 2):
        assert a.information_state_key(p) == b.information_state_key(p)
        assert a.observation(p) == b.observation(p)
    assert a.observation(1)["king"] == ["Apple", "Dog (your gift)", "Salami (your gift)"]
    assert a.observation(0)["king"] == ["Apple", "gift by 1", "gift by 1"]
    assert a.information_state_key(1) != b.information_state_key(1)


def test_determinize_keeps_what_the_observer_saw_and_varies_the_rest():
    """RULES.md 5.6: re-deal the unseen cards (others' face-down takes, the King's face-down cards,
    the deck, others' gifts) within the deck composition; keep the observer's cards and all public ones."""
    s = engines.make("royal_ball", players=3, removed_animal="horse", seed=9)
    rng = random.Random(9)
    play_until(s, rng, lambda st: len(st.king_pile()) >= 12 and st.phase() == "take")
    for me in range(3):
        variants = set()
        for seed in range(12):
            d = s.determinize(me, seed=seed)
            assert d.hand(me) == s.hand(me)
            assert d.observation(me) == s.observation(me)
            assert d.information_state_key(me) == s.information_state_key(me)
            assert d.evaluate(me) == s.evaluate(me)
            assert all_cards(d) == s.deck_composition()
            for (dn, dhow), (sn, show) in zip(d.king_pile(), s.king_pile()):
                assert dhow == show and (dhow == "down" or dn == sn)
            pub = s.observation(me)["players"]
            for q in range(3):
                assert sum(d.hand(q).values()) == sum(s.hand(q).values())
                assert all(d.hand(q).get(name, 0) >= n for name, n in pub[q]["took_face_up"].items())
            variants.add((tuple(tuple(sorted(d.hand(q).items())) for q in range(3) if q != me),
                          tuple(d.king_pile()), tuple(sorted(d.deck_left().items()))))
        assert len(variants) > 1
    # in the gift phase, others' gifts are re-drawn from their own cards
    play_until(s, rng, lambda st: st.phase() == "gift" and sum(o["gifts"] for o in st.observation(0)["players"]) >= 3)
    me = s.current_player()
    gifts = {}
    for seed in range(20):
        d = s.determinize(me, seed=seed)
        assert d.observation(me) == s.observation(me) and d.legal_actions() == s.legal_actions()
        assert all_cards(d) == s.deck_composition()
        gifts[seed] = tuple(n for n, how in d.king_pile() if how.startswith("gift by") and how != f"gift by {me}")
    assert len(set(gifts.values())) > 1


# ---------------------------------------------------------------- resolution, favours, match (5.5, 7.4)

def test_round_resolution_uses_the_kings_pile_and_the_gifts_in_order():
    """RULES.md 5.5 and 5.7.10: a Dog gifted to the King eats meat gifted after it; each hand is scored
    against the King's uneaten counts with the best feeding."""
    hands = [["Cake", "Cake", "Salami"], ["Dog", "Salami", "Salami", "Cake"], ["Carrot", "Chicken", "Dog"], []]
    king = ["Salami", "Horse", "Carrot", "Cake"]
    s = RoyalBallState.position(4, hands, king=king, marker=1, match="single_round")
    for name in ("give Dog", "give Salami", "stop", "stop", "give Cake", "stop"):
        s.apply_action(s.string_to_action(name))
    assert s.is_terminal()
    pile = king + ["Dog", "Salami", "Cake"]
    assert s.last_king_counts() == king_counts(pile)
    assert king_counts(pile)["Salami"] == 1          # the gifted Dog ate the gifted Salami
    final = [["Cake", "Salami"], ["Salami", "Cake"], ["Carrot", "Chicken", "Dog"], []]
    expected = [score_hand(h, king_counts(pile))[0] for h in final]
    assert s.last_round_scores() == expected
    best = max(expected)
    assert s.favours() == [int(v == best) for v in expected]


def test_a_tie_for_the_best_score_gives_each_a_favour():
    """RULES.md 5.7.12 and 7.4: tied best scores each get a favour; tie_favour=none gives none."""
    hands = [["Cake", "Salami"], ["Salami", "Cake"]]
    s = RoyalBallState.position(2, hands, king=["Cake", "Cake"], match="single_round")
    s.apply_action(s.string_to_action("stop"))
    s.apply_action(s.string_to_action("stop"))
    assert s.is_terminal() and s.last_round_scores() == [5, 5]
    assert s.favours() == [1, 1] and s.returns() == [1.0, 1.0] and s.placements() == [1, 1]
    n = RoyalBallState.position(2, hands, king=["Cake", "Cake"], match="single_round", tie_favour="none")
    n.apply_action(n.string_to_action("stop"))
    n.apply_action(n.string_to_action("stop"))
    assert n.is_terminal() and n.favours() == [0, 0]


def test_a_match_ends_when_one_player_reaches_three_favours():
    """RULES.md 5.5.6 and 5.7.12: the match ends after a round in which one player alone has the most
    favours, at least 3."""
    hands = [["Cake"], ["Cake", "Cake", "Cake"], []]
    s = RoyalBallState.position(3, hands, king=["Cake", "Cake"], favours=[2, 2, 0])
    for _ in range(3):
        s.apply_action(s.string_to_action("stop"))
    assert s.last_round_scores() == [5, -15, 0]
    assert s.is_terminal() and s.returns() == [3.0, 2.0, 0.0] and s.placements() == [1, 2, 3]


def test_a_tie_at_three_favours_plays_on():
    """RULES.md 5.7.12: if several players reach 3 favours together and stay tied, the match continues;
    the next round is dealt at once, the marker holder first."""
    s = RoyalBallState.position(2, [["Cake"], ["Cake"]], king=["Cake", "Cake"], marker=1, favours=[2, 2])
    s.apply_action(s.string_to_action("stop"))
    s.apply_action(s.string_to_action("stop"))
    assert s.favours() == [3, 3] and not s.is_terminal()
    assert s.round() == 1 and s.phase() == "take" and s.active_player() == 1
    assert all_cards(s) == s.deck_composition() and s.king_pile() == []
    s.rollout(seed=3)
    f = s.favours()
    assert s.is_terminal() and max(f) >= 4 and f.count(max(f)) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_matches_end_with_one_player_on_three_or_more(players):
    """RULES.md 5.5.6 and 7.4: a match is played to three favours, over several rounds."""
    for seed in range(5):
        s = engines.make("royal_ball", players=players, seed=seed)
        s.rollout(seed=seed)
        f = s.favours()
        assert s.is_terminal() and max(f) >= 3 and f.count(max(f)) == 1
        assert s.round() >= 3 and s.returns() == [float(x) for x in f]


def test_round_horizon_stops_after_one_round():
    """RULES.md 5.5.5-6: rounds are the match's units: a round-horizon rollout stops at the favours."""
    s = engines.make("royal_ball", players=3, seed=2)
    s.rollout(seed=2, horizon="round")
    assert s.round() == 1 and not s.is_terminal() and sum(s.favours()) >= 1
    assert s.phase() == "take" and s.king_pile() == []


def test_single_round_match_ends_after_one_round():
    """RULES.md 5.5.6 and 7.4: match=single_round plays one round."""
    s = engines.make("royal_ball", players=4, match="single_round", seed=6)
    play_until(s, random.Random(6), lambda st: False)
    assert s.round() == 1 and sum(s.favours()) >= 1
    best = max(s.last_round_scores())
    assert s.favours() == [int(v == best) for v in s.last_round_scores()]


def test_evaluation_scores_the_hand_against_the_known_king():
    """RULES.md 5.5.4: in the gift phase with every King card known, the evaluation is the round score
    (plus 100 per favour); giving away two surplus Cakes turns -15 into +5."""
    s = RoyalBallState.position(2, [["Cake"] * 3, ["Carrot"]], king=["Cake"], favours=[1, 0])
    assert s.evaluate(0) == 100 - 15
    s.apply_action(s.string_to_action("give Cake"))
    s.apply_action(s.string_to_action("give Cake"))
    assert s.current_player() == 1 and s.evaluate(0) == 100 + 5


def test_cards_and_actions_print_as_names():
    """RULES.md 5.1: the seven card types by name; actions print and parse as text."""
    s = engines.make("royal_ball", players=3, seed=1)
    text = str(s)
    assert "table:" in text and any(name in text for name in TYPES)
    names = [s.action_to_string(a) for a in range(s.num_distinct_actions)]
    assert names[:8] == [f"take {t}" for t in TYPES] + ["take face-down"]
    assert names[23] == "stop" and names[15] == "keep face-down" and names[16] == "give Cake"
    assert [s.string_to_action(n) for n in names] == list(range(24))
    assert s.string_to_action("give saliami") == 16 + 3
    with pytest.raises(ValueError):
        s.string_to_action("eat Cake")
    with pytest.raises(ValueError):
        RoyalBallState.deal(3, ["Dragon"], removed_animal="dog")
    with pytest.raises(ValueError):
        RoyalBallState.deal(3, ["Dog"], removed_animal="dog")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_benchmark_loops_play_fresh_matches_and_leave_the_prototype_alone(players):
    """RULES.md 5.2-5.3: each reset is a new match that plays out; the first active player is random."""
    from engines.core import run_apply_undo, run_clones, run_rollouts
    for match in ("single_round", "three_favours"):
        s = engines.make("royal_ball", players=players, match=match, seed=1)
        before = s.snapshot()
        run_rollouts(s, 200, 9)
        run_clones(s, 100)
        run_apply_undo(s, 100, 9)
        assert s.snapshot() == before
    firsts = {engines.make("royal_ball", players=players, seed=seed).active_player() for seed in range(40)}
    assert firsts == set(range(players))


def test_a_gift_is_seen_as_a_gift_until_the_last_reveals_the_pile():
    """RULES.md 5.4, 5.6: a gift goes face down, so the others see "a gift"; the gift phase's last
    decision resolves the King's pile at once (5.5), so it is seen whole; the giver sees its own."""
    hands = [["Cake", "Salami"], ["Dog", "Salami", "Cake"], ["Carrot"]]
    a = RoyalBallState.position(3, hands, king=["Apple"], marker=1, removed_animal="horse")
    for o in (0, 2):
        v = {a.action_to_string(x): a.action_view(o, x) for x in a.legal_actions()}
        assert v["give Cake"] == v["give Salami"] == v["give Dog"] != v["stop"]
    assert all(a.action_view(1, x) == x for x in a.legal_actions())
    a.apply_action(a.string_to_action("give Dog"))
    a.apply_action(a.string_to_action("stop"))      # player 2 next, then player 0, the last giver
    a.apply_action(a.string_to_action("give Carrot"))
    a.apply_action(a.string_to_action("stop"))
    assert a.current_player() == 0
    v = {a.action_to_string(x): a.action_view(1, x) for x in a.legal_actions()}
    assert v["give Cake"] == v["give Salami"], "a first gift: more may follow"
    a.apply_action(a.string_to_action("give Cake"))
    v = {a.action_to_string(x): a.action_view(1, x) for x in a.legal_actions()}
    assert len(set(v.values())) == len(v), "the last decision: the pile is revealed at once"


def test_events_of_the_kings_dog_and_a_players_dog_fed():
    """RULES.md 5.5.1: a King's Dog eats the next meat revealed after it; 5.5.3: a player feeds their own
    Dog one meat card when that scores better (here 2 Chickens, more than the King's none, are -3; 1 is 0)."""
    from engines.events import Event
    hands = [["Dog", "Chicken", "Chicken", "Cake"], ["Cake"]]
    s = RoyalBallState.position(2, hands, king=["Dog", "Salami", "Cake"], match="single_round",
                                removed_animal="horse")
    assert s.apply_with_events(s.string_to_action("stop")) == []
    events = s.apply_with_events(s.string_to_action("stop"))
    fed = [e for e in events if e.kind == "animal_fed"]
    assert fed == [Event("animal_fed", -1, "Dog", "Salami"), Event("animal_fed", 0, "Dog", "Chicken")]
    assert Event("king_count", -1, "Salami", "0") in events and Event("hand_scored", 0, "Chicken", "2") in events
    assert [e for e in events if e.kind == "round_scored"] == [
        Event("round_scored", q, str(v), "round 1") for q, v in enumerate(s.last_round_scores())]
