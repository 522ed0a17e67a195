"""Wizard scenarios (RULES.md 1 and 7.5), information sets and determinization."""
import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engines
from engines.wizard import WizardState

SUITS = "degh"


def deal(players, hands, turn_up=None, dealer=0, rounds=None, **flags):
    """An explicit deal; by default a one-round game of that hand size."""
    rounds = rounds or (len(hands[0].split()),)
    return WizardState.from_deal(players, [h.split() for h in hands], turn_up=turn_up, dealer=dealer,
                                 rounds=rounds, **flags)


def play(state, *moves):
    for m in moves:
        state.apply_action(state.string_to_action(m))


def legal(state):
    return sorted(state.action_to_string(a) for a in state.legal_actions())


def suit_of(card):
    return None if card in ("W", "J") else card[-1]


# ---------------------------------------------------------------- trick play (RULES.md 1.4)

def test_first_wizard_wins():
    """RULES.md 1.4: the first Wizard played wins the trick, even against a later Wizard and trump."""
    s = deal(3, ["W 1d", "5d 2d", "W 13h"], turn_up="3h")
    play(s, "bid 0", "bid 1", "bid 1")          # P1, P2, then the dealer P0
    play(s, "5d", "W", "W")
    assert s.tricks() == [0, 0, 1]
    assert s.current_player() == 2, "the trick winner leads the next trick"


def test_only_jesters_first_jester_wins():
    """RULES.md 1.4: a trick of Jesters only goes to the first Jester played."""
    s = deal(4, ["J 1d", "J 2d", "J 3d", "J 4d"], turn_up="5h", dealer=3)
    play(s, "bid 0", "bid 0", "bid 0", "bid 0")
    assert s.current_player() == 0
    play(s, "J", "J", "J", "J")
    assert s.tricks() == [1, 0, 0, 0]


def test_jester_lead_then_suit_card_sets_the_suit():
    """RULES.md 1.4 and 1.9.3: after a Jester lead the first suited card sets the suit to follow."""
    s = deal(4, ["13d 1g", "J 2g", "3e 4g", "9e 13g"], turn_up="5h")
    play(s, "bid 0", "bid 0", "bid 0", "bid 0")
    play(s, "J", "3e")
    assert legal(s) == ["9e"], "P3 holds an elf and must follow the suit set by the second card"
    play(s, "9e")
    assert "13d" in legal(s) and "1g" in legal(s)
    play(s, "13d")
    assert s.tricks() == [0, 0, 0, 1]
    assert s.voids(0) == "e" and s.voids(3) == "" and s.voids(1) == ""


def test_wizard_lead_frees_everyone():
    """RULES.md 1.4: after a Wizard lead there is no suit to follow, and the Wizard wins."""
    s = deal(3, ["1d 13h", "W 2e", "5d 7e"], turn_up="3h")
    play(s, "bid 1", "bid 0", "bid 1")
    play(s, "W")
    assert legal(s) == ["5d", "7e"]
    play(s, "5d", "13h")
    assert s.tricks() == [0, 1, 0]
    assert s.voids(2) == "" and s.voids(0) == "", "nothing is revealed when no suit was led"


def test_trump_beats_the_led_suit():
    """RULES.md 1.4: the highest trump beats any card of the led suit."""
    s = deal(3, ["12d 2e", "13d 3e", "1h 4e"], turn_up="5h")
    play(s, "bid 1", "bid 0", "bid 1")
    play(s, "13d", "1h", "12d")
    assert s.tricks() == [0, 0, 1]
    assert s.voids(2) == "d"


def test_highest_of_the_led_suit_wins_and_off_suit_loses():
    """RULES.md 1.4: without trump in the trick, the highest card of the led suit wins."""
    s = deal(3, ["12d 2e", "3d 3e", "13g 4e"], turn_up="J")
    assert s.trump() is None, "a turned-up Jester means no trump (RULES.md 1.2)"
    play(s, "bid 1", "bid 0", "bid 1")
    play(s, "3d", "13g", "12d")
    assert s.tricks() == [1, 0, 0]


def test_follow_suit_is_enforced():
    """RULES.md 1.4: holding the led suit you must play it, a Wizard or a Jester; otherwise anything."""
    s = deal(3, ["1d 2d 3d", "5d 7e W", "6e J 9g"], turn_up="3h")
    play(s, "bid 0", "bid 0", "bid 0")
    play(s, "7e")
    assert legal(s) == ["6e", "J"]
    with pytest.raises(ValueError, match="illegal"):
        play(s, "9g")
    play(s, "J")
    assert legal(s) == ["1d", "2d", "3d"], "P0 holds no elf: anything goes"


# ---------------------------------------------------------------- setup and rounds (RULES.md 1.2, 1.7)

def test_dealer_chooses_trump_after_a_turned_up_wizard():
    """RULES.md 1.2 and 1.9.2: a turned-up Wizard lets the dealer choose a suit (no 'no trump') before bidding."""
    s = deal(4, ["1d", "2d", "3d", "4d"], turn_up="W", dealer=2)
    assert s.phase() == "trump" and s.current_player() == 2
    assert legal(s) == ["trump d", "trump e", "trump g", "trump h"]
    assert s.trump() is None
    play(s, "trump g")
    assert s.trump() == "g" and s.phase() == "bid" and s.current_player() == 3
    assert s.observation(0)["trump"] == "g"


def test_turned_up_suited_card_sets_trump():
    """RULES.md 1.2: a turned-up suited card makes its suit trump, and the player left of the dealer bids first."""
    s = deal(5, ["1d", "2d", "3d", "4d", "5d"], turn_up="7e", dealer=4)
    assert s.trump() == "e" and s.phase() == "bid" and s.current_player() == 0


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_no_trump_in_the_last_round(players):
    """RULES.md 1.2 and 1.9.1: the last round deals all 60 cards, so there is no turn-up and no trump."""
    s = engines.make("wizard", players=players, seed=players)
    rng = random.Random(players)
    last = len(s.rounds()) - 1
    while s.round() < last:
        s.apply_action(rng.choice(s.legal_actions()))
    assert s.cards_this_round() == 60 // players
    assert s.turn_up() is None and s.trump() is None and s.phase() == "bid"
    assert sum(len(s.hand(p)) for p in range(players)) == 60
    with pytest.raises(ValueError, match="no turn-up"):
        WizardState.from_deal(players, [s.hand(p) for p in range(players)], turn_up="W")


@pytest.mark.parametrize("players,rounds", [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_rounds_per_player_count(players, rounds):
    """RULES.md 1.2: 60/N rounds, round r deals r cards; the deal passes to the left."""
    s = engines.make("wizard", players=players, seed=1)
    assert s.rounds() == list(range(1, rounds + 1))
    seen, dealers = [], []
    rng = random.Random(2)
    while not s.is_terminal():
        if not seen or seen[-1] != s.round():
            seen.append(s.round())
            dealers.append(s.dealer())
            assert s.cards_this_round() == s.round() + 1
            assert all(len(s.hand(p)) == s.round() + 1 for p in range(players))
        s.apply_action(rng.choice(s.legal_actions()))
    assert seen == list(range(rounds))
    assert all(b == (a + 1) % players for a, b in zip(dealers, dealers[1:]))


@pytest.mark.parametrize("players,sizes", [(3, [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]),
                                           (4, [1, 3, 5, 7, 9, 11, 12, 13, 14, 15]),
                                           (5, [2, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
                                           (6, list(range(1, 11)))])
def test_amigo_tournament_schedule(players, sizes):
    """RULES.md 1.7: Amigo tournament rules play 10 rounds of the listed hand sizes."""
    assert engines.make("wizard", players=players, amigo_tournament=True).rounds() == sizes


def test_five_rounds_deal_everything_without_trump():
    """RULES.md 1.7: 5 rounds, all cards dealt each round, so never a turn-up or trump."""
    s = engines.make("wizard", players=4, seed=3, five_rounds=True)
    assert s.rounds() == [15] * 5
    rng = random.Random(3)
    while not s.is_terminal():
        assert s.turn_up() is None and s.trump() is None and s.phase() != "trump"
        s.apply_action(rng.choice(s.legal_actions()))


def test_hands_parameter_and_bad_parameters():
    """RULES.md 7.5: `hands` plays the given hand sizes; impossible settings are refused."""
    assert engines.make("wizard", players=4, hands="10,9").rounds() == [10, 9]
    with pytest.raises(ValueError):
        engines.make("wizard", players=4, hands=(16,))
    with pytest.raises(ValueError):
        engines.make("wizard", players=4, five_rounds=True, amigo_tournament=True)
    with pytest.raises(ValueError):
        engines.make("wizard", players=7)


# ---------------------------------------------------------------- bidding and scoring (RULES.md 1.3, 1.5)

def test_scoring_both_ways():
    """RULES.md 1.5: exact bid +20 + 10 per trick; otherwise -10 per trick off."""
    s = deal(3, ["13d 13e", "1d 1e", "2d 2e"], turn_up="J", rounds=(2,))
    play(s, "bid 0", "bid 2", "bid 2")          # P1 exact at 0, P2 bids 2 takes 0, P0 exact at 2
    play(s, "1d", "2d", "13d")
    play(s, "13e", "1e", "2e")
    assert s.is_terminal()
    assert s.returns() == [20 + 20, 20, -20]
    assert s.metrics() == {"bid_accuracy": [1.0, 1.0, 0.0]}


def test_round_scoring_is_seen_by_a_round_horizon_rollout():
    """RULES.md 1.5: the points of a round are scored by the action that ends it."""
    s = engines.make("wizard", players=4, seed=5)
    rng = random.Random(5)
    while s.round() < 4:
        s.apply_action(rng.choice(s.legal_actions()))
    before = s.scores()
    s.rollout(seed=9, horizon="round")
    assert s.round() == 5
    for b, a in zip(before, s.scores()):
        gain = a - b
        assert gain != 0 and (gain <= -10 or (gain - 20) % 10 == 0), "every round scores each player"


def test_bid_total_is_free_by_default():
    """RULES.md 1.3 and 7.5: by default the total of the bids may be anything."""
    s = deal(4, ["1d 2d 3d", "4d 5d 6d", "7d 8d 9d", "10d 11d 12d"], turn_up="5h", rounds=(3,))
    play(s, "bid 1", "bid 1", "bid 0")
    assert legal(s) == [f"bid {b}" for b in range(4)]


def test_plus_minus_one_constrains_only_the_last_bidder():
    """RULES.md 1.3: with plus_minus_one the dealer may not make the bids total the tricks available."""
    s = deal(4, ["1d 2d 3d", "4d 5d 6d", "7d 8d 9d", "10d 11d 12d"], turn_up="5h", rounds=(3,),
             plus_minus_one=True)
    for b in ("bid 1", "bid 1", "bid 0"):
        assert legal(s) == [f"bid {k}" for k in range(4)]
        play(s, b)
    assert s.current_player() == 0
    assert legal(s) == ["bid 0", "bid 2", "bid 3"]
    with pytest.raises(ValueError):
        play(s, "bid 1")
    # bids already over the tricks available leave the dealer free
    s = deal(4, ["1d 2d 3d", "4d 5d 6d", "7d 8d 9d", "10d 11d 12d"], turn_up="5h", rounds=(3,),
             plus_minus_one=True)
    play(s, "bid 3", "bid 1", "bid 0")
    assert legal(s) == [f"bid {k}" for k in range(4)]


# ---------------------------------------------------------------- information (RULES.md 1.6)

FOUR = ["1d 2d 3d", "4d 5d 6d", "7d 8d 9d", "10d 11d 12d"]


def test_hidden_bids_are_not_visible_to_other_players():
    """RULES.md 1.6: hidden bids are revealed only when bidding ends."""
    s = deal(4, FOUR, turn_up="5h", hidden_bids=True)
    other = deal(4, FOUR, turn_up="5h", hidden_bids=True)
    play(s, "bid 2")
    play(other, "bid 0")
    assert s.observation(1)["bids"][1] == 2
    assert s.observation(2)["bids"][1] == "?" and s.observation(0)["bids"][1] == "?"
    assert "2" not in str(s.observation(2)["bids"])
    assert s.observation(2) == other.observation(2)
    assert s.information_state_key(2) == other.information_state_key(2)
    assert s.information_state_key(1) != other.information_state_key(1)
    play(s, "bid 1", "bid 1", "bid 0")
    assert s.phase() == "play"
    assert s.observation(2)["bids"] == [0, 2, 1, 1], "revealed when the play starts"


def test_secret_bids_stay_hidden_until_the_round_ends():
    """RULES.md 1.6: secret bids are hidden until the round ends."""
    s = deal(3, ["1d 2d", "4d 5d", "7d 8d"], turn_up="5h", secret_bids=True, rounds=(2, 1))
    play(s, "bid 1", "bid 0", "bid 2")
    play(s, "4d", "7d", "1d")
    assert s.observation(0)["bids"] == [2, "?", "?"]
    assert s.observation(1)["bids"] == ["?", 1, "?"]
    play(s, "8d", "2d", "5d")
    assert s.round() == 1
    assert s.observation(0)["scores"] == [-20, -10, -20]


def test_information_state_key_follows_what_the_player_sees():
    """RULES.md 1.6: own hand private, plays public."""
    a = deal(3, ["1d 2d", "4d 5d", "7d 8d"], turn_up="5h")
    b = deal(3, ["1d 2d", "4d 7d", "5d 8d"], turn_up="5h", seed=99)
    assert a.information_state_key(0) == b.information_state_key(0)
    assert a.information_state_key(1) != b.information_state_key(1)
    play(a, "bid 0")
    assert a.information_state_key(0) != b.information_state_key(0)
    play(b, "bid 0")
    assert a.information_state_key(0) == b.information_state_key(0)


def _unknown(state, me):
    """Every card `me` cannot place: the other hands (the undealt rest is checked via totals)."""
    return sorted(c for q in range(state.num_players) if q != me for c in state.hand(q))


def _play_to(players, seed, plies, **params):
    s = engines.make("wizard", players=players, seed=seed, **params)
    rng = random.Random(seed)
    for _ in range(plies):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def test_determinize_keeps_public_facts_and_respects_voids():
    """RULES.md 1.6: determinization keeps the observer's hand and public facts, and respects voids."""
    checked = voids_seen = 0
    for seed in range(40):
        s = engines.make("wizard", players=4, seed=seed, hands=(13,))
        rng = random.Random(seed)
        while not s.is_terminal():
            me = s.current_player()
            if s.phase() == "play" and rng.random() < 0.3:
                obs = s.observation(me)
                sizes = [len(s.hand(q)) for q in range(4)]
                for k in range(5):
                    d = s.determinize(me, seed=seed * 100 + k)
                    assert d.hand(me) == s.hand(me)
                    assert d.observation(me) == obs
                    assert [len(d.hand(q)) for q in range(4)] == sizes
                    all_cards = Counter(c for q in range(4) for c in d.hand(q))
                    assert all(v == 1 for c, v in all_cards.items() if c not in "WJ")
                    assert all_cards["W"] <= 4 and all_cards["J"] <= 4
                    for q in range(4):
                        assert d.voids(q) == s.voids(q)
                        bad = [c for c in d.hand(q) if suit_of(c) and suit_of(c) in s.voids(q)]
                        assert not bad, f"P{q} is void in {s.voids(q)} but got {bad}"
                        voids_seen += bool(s.voids(q))
                    checked += 1
            s.apply_action(rng.choice(s.legal_actions()))
    assert checked > 200 and voids_seen > 50


def test_determinize_varies_the_other_hands():
    """RULES.md 1.6: the unseen cards are actually resampled, and the future deals change too."""
    s = _play_to(4, 3, 10, hands=(10, 10))
    me = s.current_player()
    others = {tuple(tuple(d.hand(q)) for q in range(4) if q != me)
              for d in (s.determinize(me, seed=k) for k in range(50))}
    assert len(others) >= 45
    futures = set()
    for k in range(20):
        d = s.determinize(me, seed=k)
        d.rollout(seed=1, horizon="round")
        futures.add(tuple(d.hand(me)))
    assert len(futures) > 10, "the next round's deal must follow the reseeded chance"


def _no_void_states():
    """Two moments with no void known: the first bid of a 4-player hand of 10 (as `arena bench`), and
    the first trick of that hand played (a Wizard led, so nothing revealed), with cards gone."""
    s = engines.make("wizard", players=4, seed=0, hands=(10,))
    first_bid = s.clone()
    rng = random.Random(0)
    while s.phase() != "play" or len(s.observation(0)["plays"]) < 4:
        s.apply_action(rng.choice(s.legal_actions()))
    assert not any(s.voids(q) for q in range(4))
    return [first_bid, s]


def _chi_square(counts, probs, n):
    assert set(counts) <= set(probs), "a holder that cannot hold the card"
    return sum((counts[cell] - n * p) ** 2 / (n * p) for cell, p in probs.items())


@pytest.mark.parametrize("moment", [0, 1])
def test_determinize_without_voids_deals_the_unseen_cards_uniformly(moment):
    """RULES.md 1.6: with no void known, hand sizes are the only constraint, so each unseen card is in
    another player's hand q with chance size(q) / unseen (else in the stock), and two cards are
    together in q with chance size(q) (size(q) - 1) / (unseen (unseen - 1)). Chi-square tests, each at
    p = 1e-5 with fixed seeds, of every unseen suited card's holder and of ten pairs' joint holders."""
    s = _no_void_states()[moment]
    me, n = s.current_player(), 6000
    obs = s.observation(me)
    seen = set(obs["hand"]) | {obs["turn_up"]} | {c for _, c in obs["plays"]}
    unseen = [c for c in (f"{r}{x}" for x in SUITS for r in range(1, 14)) if c not in seen]
    k = 60 - len(obs["hand"]) - 1 - len(obs["plays"])
    size = {q: len(s.hand(q)) for q in range(4) if q != me}
    size[-1] = k - sum(size.values())                  # -1: the stock
    singles = {c: Counter() for c in unseen}
    pairs = [(unseen[i], unseen[i + 1]) for i in range(0, 20, 2)]
    joint = {pair: Counter() for pair in pairs}
    for seed in range(n):
        d = s.determinize(me, seed=seed)
        holder = {c: q for q in size if q >= 0 for c in d.hand(q)}
        for c in unseen:
            singles[c][holder.get(c, -1)] += 1
        for a, b in pairs:
            joint[a, b][holder.get(a, -1), holder.get(b, -1)] += 1
    one = {q: size[q] / k for q in size}
    two = {(q, r): size[q] * (size[r] - (q == r)) / (k * (k - 1)) for q in size for r in size}
    worst_single = max(_chi_square(singles[c], one, n) for c in unseen)
    worst_pair = max(_chi_square(joint[pair], two, n) for pair in pairs)
    assert worst_single < 25.90, f"a card's holder is off (chi-square {worst_single:.1f}, 3 degrees of freedom)"
    assert worst_pair < 50.49, f"a pair's joint holders are off (chi-square {worst_pair:.1f}, 15 degrees of freedom)"


def _consistent_deals(state, me):
    """Every assignment of the unknown cards to the other hands, respecting sizes and voids
    (the last round: no undealt cards)."""
    others = [q for q in range(state.num_players) if q != me]
    pool = _unknown(state, me)
    sizes = [len(state.hand(q)) for q in others]
    deals = set()
    for perm in set(itertools.permutations(pool)):
        hands, i = [], 0
        for q, n in zip(others, sizes):
            h = tuple(sorted(perm[i:i + n]))
            i += n
            if any(suit_of(c) and suit_of(c) in state.voids(q) for c in h):
                break
            hands.append(h)
        else:
            deals.add(tuple(hands))
    return deals


@pytest.mark.parametrize("seed", [1, 4, 16, 26])   # 4, 16 and 26 have voids that rule deals out
def test_true_hands_come_back_no_more_often_than_chance(seed):
    """RULES.md 1.6: a resampler that returns the true deal would fail this: every consistent deal
    appears, and the true one about as often as the others."""
    s = engines.make("wizard", players=3, seed=seed, hands=(20,))
    rng = random.Random(seed)
    while not (s.phase() == "play" and s.trick() == [] and len(s.hand(s.current_player())) == 3):
        s.apply_action(rng.choice(s.legal_actions()))
    me = s.current_player()
    others = [q for q in range(3) if q != me]
    deals = _consistent_deals(s, me)
    truth = tuple(tuple(sorted(s.hand(q))) for q in others)
    assert truth in deals and len(deals) >= 3
    n = 200 * len(deals)
    counts = Counter(tuple(tuple(sorted(d.hand(q))) for q in others)
                     for d in (s.determinize(me, seed=seed * 10**6 + k) for k in range(n)))
    assert set(counts) == deals
    assert counts[truth] < 2.0 * n / len(deals)


def test_determinize_cannot_tell_indistinguishable_states_apart():
    """RULES.md 1.6: two states the observer cannot tell apart resample to the very same states,
    so nothing of the true hidden cards or bids leaks through determinization."""
    a = deal(4, ["1d 2d 3d", "4d 5e 6g", "7d 8e 9g", "10h 11e 12g"], turn_up="5h", secret_bids=True)
    b = deal(4, ["1d 2d 3d", "4d 5e 6g", "7d 8e 10h", "9g 11e 12g"], turn_up="5h", secret_bids=True)
    play(a, "bid 1", "bid 0", "bid 2", "bid 1")
    play(b, "bid 3", "bid 1", "bid 0", "bid 1")
    for s in (a, b):
        play(s, "4d", "7d", "11e")
    assert a.information_state_key(0) == b.information_state_key(0)
    truths = 0
    for k in range(30):
        da, db = a.determinize(0, seed=k), b.determinize(0, seed=k)
        assert da == db
        truths += da.hand(2) == a.hand(2)
        assert "d" in da.voids(3) and not any(c.endswith("d") for c in da.hand(3))
    assert truths < 30


def test_determinize_cannot_tell_which_wizard_a_hand_holds():
    """RULES.md 1.1 and 1.6: the four Wizards are alike, so deals that differ only in which Wizard the
    observer holds, and in hidden cards, resample to the very same state."""
    a = deal(4, ["W 1d 2d", "W 5e 6g", "7d 8e 9g", "10h 11e 12g"], turn_up="5h")
    b = deal(4, ["3d 1d 2d", "W 5e 6g", "7d 8e 9g", "10h 11e 12g"], turn_up="5h")
    assert a.information_state_key(1) == b.information_state_key(1)
    for k in range(10):
        assert a.determinize(1, seed=k) == b.determinize(1, seed=k)


def test_determinize_resamples_hidden_bids_but_not_own():
    """RULES.md 1.6: another player's hidden bid is unknown to the observer until revealed."""
    s = deal(4, ["1d 2d 3d 4d 5d", "6d 7d 8d 9d 10d", "11d 12d 13d 1e 2e", "3e 4e 5e 6e 7e"],
             turn_up="5h", secret_bids=True)
    play(s, "bid 3", "bid 1", "bid 0", "bid 4")
    seen = set()
    for k in range(60):
        d = s.determinize(2, seed=k)
        assert d.bids()[2] == 1
        assert d.observation(2) == s.observation(2)
        seen.add(tuple(d.bids()))
    assert len(seen) > 20


def test_plus_minus_one_hidden_dealer_keeps_what_the_denied_bid_told():
    """RULES.md 1.3 and 1.6: the last bidder sees which bid is forbidden, so resampled hidden bids keep it."""
    s = deal(4, ["1d 2d 3d 4d 5d", "6d 7d 8d 9d 10d", "11d 12d 13d 1e 2e", "3e 4e 5e 6e 7e"],
             turn_up="5h", hidden_bids=True, plus_minus_one=True)
    play(s, "bid 1", "bid 2", "bid 0")
    assert s.observation(0)["forbidden_bid"] == 2
    want = s.legal_actions()
    sums = set()
    for k in range(40):
        d = s.determinize(0, seed=k)
        assert d.legal_actions() == want
        sums.add(tuple(d.bids()))
        assert sum(d.bids()[1:]) == 3
    assert len(sums) > 3
    play(s, "bid 1")
    for k in range(40):
        d = s.determinize(2, seed=k)
        assert d.bids()[2] == 2 and sum(d.bids()) != 5


# ---------------------------------------------------------------- evaluation, names, metrics

def test_evaluate_prefers_a_hand_that_can_make_its_bid():
    """RULES.md 1.5: the heuristic is points so far plus what the hand promises against the bid."""
    strong = deal(3, ["W W 13h", "1d 2d 3d", "4d 5d 6d"], turn_up="7h")
    weak = deal(3, ["J J 1e", "1d 2d 3d", "4d 5d 6d"], turn_up="7h")
    for s in (strong, weak):
        play(s, "bid 0", "bid 0", "bid 3")
    assert strong.evaluate(0) > weak.evaluate(0)


def test_action_names_round_trip():
    """Cards print as W, J or rank+suit; bids as 'bid 3'; the trump choice as 'trump h'."""
    s = engines.make("wizard", players=4)
    for a in range(s.num_distinct_actions):
        assert s.string_to_action(s.action_to_string(a)) == a
    assert s.action_to_string(s.string_to_action("13H")) == "13h"
    assert s.action_to_string(s.string_to_action("Bid  3")) == "bid 3"
    with pytest.raises(ValueError):
        s.string_to_action("14h")


# ---------------------------------------------------------------- properties

def _trick_winner(trick, trump):
    """Reference: RULES.md 1.4 precedence on (player, card) pairs in play order."""
    for p, c in trick:
        if c == "W":
            return p
    led = next((suit_of(c) for _, c in trick if c != "J"), None)
    best = None
    for p, c in trick:
        if c == "J":
            continue
        rank, suit = int(c[:-1]), c[-1]
        key = (2 if suit == trump else 1 if suit == led else 0, rank)
        if key[0] and (best is None or key > best[0]):
            best = (key, p)
    return best[1] if best else trick[0][0]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(3, 6), size=st.integers(1, 10))
def test_every_trick_goes_to_the_reference_winner(seed, players, size):
    """RULES.md 1.4: tricks follow the precedence rules, and RULES.md 1.5 scores every round."""
    s = engines.make("wizard", players=players, seed=seed, hands=(size, size))
    rng = random.Random(seed)
    trick = []
    while not s.is_terminal():
        me = s.current_player()
        if s.phase() == "play":
            hand = s.hand(me)
            led = next((suit_of(c) for _, c in s.trick() if c != "J"), None)
            follow = [c for c in hand if led and suit_of(c) == led]
            expect = set(hand) if not follow else set(follow) | ({"W", "J"} & set(hand))
            assert set(legal(s)) == expect
            trump, tricks_before, round_before = s.trump(), s.tricks(), s.round()
            a = rng.choice(s.legal_actions())
            trick.append((me, s.action_to_string(a)))
            scores = s.scores()
            s.apply_action(a)
            if len(trick) == players:
                w = _trick_winner(trick, trump)
                if s.round() == round_before and not s.is_terminal():
                    assert s.tricks()[w] == tricks_before[w] + 1 and s.current_player() == w
                else:
                    assert all(x != y for x, y in zip(scores, s.scores()))
                trick = []
        else:
            s.apply_action(rng.choice(s.legal_actions()))


def _reference_voids(plays, players):
    """RULES.md 1.6 on the public record: in each trick the first non-Jester card sets the led suit
    (none after a Wizard); a later suited card of another suit shows its player void in it."""
    voids = [set() for _ in range(players)]
    for start in range(0, len(plays), players):
        led = None
        for q, c in plays[start:start + players]:
            if led is None:
                if c != "J":
                    led = suit_of(c) or "free"
            elif led != "free" and suit_of(c) and suit_of(c) != led:
                voids[q].add(led)
    return ["".join(sorted(v)) for v in voids]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(3, 6), size=st.integers(4, 10))
def test_voids_follow_the_public_record(seed, players, size):
    """RULES.md 1.6: a suited card of another suit played to a led suit shows a void; Wizards and
    Jesters show nothing; after a Jester lead the first suited card sets the suit; and the hands
    really lack every suit marked void."""
    s = engines.make("wizard", players=players, seed=seed, hands=(size,))
    rng = random.Random(seed)
    while not s.is_terminal():
        if s.phase() == "play":
            plays = s.observation(0)["plays"]
            expect = _reference_voids(plays, players)
            for q in range(players):
                assert "".join(sorted(s.voids(q))) == expect[q]
                assert not [c for c in s.hand(q) if suit_of(c) and suit_of(c) in s.voids(q)]
        s.apply_action(rng.choice(s.legal_actions()))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(3, 6), plies=st.integers(0, 60),
       variant=st.sampled_from([{}, {"hidden_bids": True}, {"secret_bids": True, "plus_minus_one": True}]))
def test_determinize_property(seed, players, plies, variant):
    """RULES.md 1.6: any observer, any moment: own hand, public facts and voids survive resampling."""
    s = _play_to(players, seed, plies, hands=(8, 6), **variant)
    for me in range(players):
        d = s.determinize(me, seed=seed)
        assert d.observation(me) == s.observation(me)
        assert d.information_state_key(me) == s.information_state_key(me)
        for q in range(players):
            assert not [c for c in d.hand(q) if suit_of(c) and suit_of(c) in s.voids(q)]
        d.rollout(seed=seed)
        assert d.is_terminal()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(3, 6), size=st.integers(1, 10),
       pm1=st.booleans())
def test_c_rollout_plays_only_legal_moves(seed, players, size, pm1):
    """RULES.md 1.3 and 1.4: the C-level rollout's moves, replayed through the checked Python face,
    are all legal and give the very same final state."""
    start = engines.make("wizard", players=players, seed=seed, hands=(size,), plus_minus_one=pm1)
    fast = start.clone()
    fast.rollout(seed=seed)
    assert fast.is_terminal()
    obs = fast.observation(0)
    replay = start.clone()
    if replay.phase() == "trump":
        play(replay, f"trump {obs['trump']}")
    for i in range(players):
        play(replay, f"bid {obs['bids'][(start.dealer() + 1 + i) % players]}")
    for _, card in obs["plays"]:
        play(replay, card)
    assert replay == fast


def test_c_rollout_picks_uniformly_among_legal_moves():
    """RULES.md 1.4: the C-level rollout's move is uniform over the legal moves (following suit too)."""
    hands = ["1d 5d 9d 13d 2e 6e 10g W J", "2d 3d 4d 6d 7d 8d 10d 11d 12d", "1e 3e 4e 5e 7e 8e 9e 11e 12e"]
    leading = deal(3, hands, turn_up="13h", dealer=2)
    play(leading, "bid 1", "bid 0", "bid 3")
    following = deal(3, hands, turn_up="13h", dealer=1)
    play(following, "bid 1", "bid 0", "bid 3", "1e")
    assert legal(following) == ["2e", "6e", "J", "W"]
    for s, index in ((leading, 0), (following, 1)):
        counts = Counter()
        n = 300 * len(legal(s))
        for seed in range(n):
            r = s.clone()
            r.rollout(seed=seed)
            counts[r.observation(0)["plays"][index][1]] += 1
        assert set(counts) == set(legal(s))
        assert all(220 <= c <= 380 for c in counts.values()), counts


def _bid_views(state, observer):
    return {state.action_to_string(a): state.action_view(observer, a) for a in state.legal_actions()}


def test_a_hidden_bid_is_seen_as_a_bid():
    """RULES.md 1.6, 1.7: under hidden_bids another player's bid is seen as "a bid" until the last,
    which reveals them all; under secret_bids every bid stays "a bid"; with the base rules, and for
    the bidder itself, a bid is seen whole, and so is every card played."""
    s = deal(4, FOUR, turn_up="5h", hidden_bids=True)
    assert s.current_player() == 1
    for o in (0, 2, 3):
        assert len(set(_bid_views(s, o).values())) == 1
    assert _bid_views(s, 1) == {f"bid {b}": s.string_to_action(f"bid {b}") for b in range(4)}
    play(s, "bid 2", "bid 1", "bid 1")
    assert s.current_player() == 0
    assert len(set(_bid_views(s, 1).values())) == 4, "the last hidden bid reveals them all"
    s = deal(4, FOUR, turn_up="5h", secret_bids=True)
    play(s, "bid 2", "bid 1", "bid 1")
    assert len(set(_bid_views(s, 1).values())) == 1, "secret bids stay hidden until the round ends"
    play(s, "bid 0")
    assert all(s.action_view(o, a) == a for o in range(4) for a in s.legal_actions())
    s = deal(4, FOUR, turn_up="5h")
    assert all(s.action_view(o, a) == a for o in range(4) for a in s.legal_actions())


def test_the_dealer_sees_the_total_it_may_not_bid():
    """RULES.md 1.3 (plus_minus_one) with hidden bids: from the bid before its own the dealer learns
    the others' total (the bid it may not make), so that bid is seen as the total, up to cards + 1."""
    s = deal(4, FOUR, turn_up="5h", hidden_bids=True, plus_minus_one=True)
    play(s, "bid 2", "bid 1")
    assert s.current_player() == 3
    v = _bid_views(s, 0)
    assert [v[f"bid {b}"] for b in range(4)] == [s.string_to_action(f"bid {min(3 + b, 4)}") for b in range(4)]
    assert len(set(_bid_views(s, 1).values())) == 1


# ---------------------------------------------------------------- the playout policy (c_policy_action)

def test_the_playout_policy_chases_the_bid():
    """RULES.md 1.4 decides the trick. A player short of its bid takes the trick with its cheapest
    winner when it plays last, with its strongest when others follow; at its bid it plays its
    strongest card that loses the trick as it stands."""
    def after_two(dealer_bid, p2_bid=0):
        s = deal(3, ["3d 8d 12d", "9d 1g 2g", "10d 13d 2e"], turn_up="5h")
        play(s, "bid 0", f"bid {p2_bid}", f"bid {dealer_bid}")      # P1, P2, then the dealer P0
        play(s, "9d")
        return s

    s = after_two(0, p2_bid=1)
    assert s.action_to_string(s.policy_action()) == "13d", "P2 short, P0 still to play: strongest winner"
    s = after_two(1)
    play(s, "10d")
    assert s.action_to_string(s.policy_action()) == "12d", "P0 short and last: cheapest winner"
    s = after_two(0)
    play(s, "10d")
    assert s.action_to_string(s.policy_action()) == "8d", "P0 at its bid: strongest loser"


def test_the_playout_policy_bids_the_hand_s_estimate():
    """Bids follow the evaluation's estimate of the hand's tricks, clear hands both ways."""
    strong = deal(3, ["W W 13h", "1d 2d 3d", "4d 5d 6d"], turn_up="7h", dealer=2)
    assert strong.action_to_string(strong.policy_action()) == "bid 3"
    weak = deal(3, ["1d 2e 3g", "W 13h 12h", "4d 5d 6d"], turn_up="7h", dealer=2)
    assert weak.action_to_string(weak.policy_action()) == "bid 0"


def test_plausibility_weighs_a_world_by_the_others_bids():
    """A world in which an opponent's bid is far from what its dealt hand promises (two Wizards
    bid 0) is less plausible than one in which it is near (no Wizard, no trump, bid 0); cards it
    has already played still count as dealt to it; hidden bids weigh nothing."""
    def bid_zero_with(p1_hand, **flags):
        s = deal(3, ["1d 2e 3g", p1_hand, "4d 5d 6d"], turn_up="7h", dealer=0, **flags)
        play(s, "bid 0", "bid 0", "bid 0")        # P1, P2, P0
        return s

    honest, bluffing = bid_zero_with("1e 2g 3e"), bid_zero_with("W W 13h")
    assert 0.9 < honest.plausibility(0) <= 1.0
    assert bluffing.plausibility(0) < 0.2
    play(bluffing, "W")                           # P1 leads a Wizard: still dealt to it
    assert bluffing.plausibility(0) < 0.2
    assert bid_zero_with("W W 13h", hidden_bids=True).plausibility(0) == 1.0


# ---- events (engines/events.py) ----

def test_events_of_a_wizard_led_and_the_trick_it_takes():
    """RULES.md 1.4: a Wizard led leaves no suit to follow and the first Wizard played takes the
    trick (a later Wizard and a trump lose); 1.5: exact bid +20 + 10 per trick, else -10 per trick off."""
    from engines.events import Event
    s = deal(3, ["W", "13h", "W"], turn_up="5h", dealer=2)
    events = [s.apply_with_events(s.string_to_action(m)) for m in ("bid 1", "bid 1", "bid 0", "W", "13h", "W")]
    r = "round 1"
    assert events[0] == [Event("turn_up", 2, "5h", r), Event("trump_suit", 2, "h", r), Event("bid", 0, "1", r)]
    assert events[3] == [Event("card_played", 0, "W", r), Event("card_led", 0, "W", r)]
    assert events[4] == [Event("card_played", 1, "13h", r)]
    assert events[5] == [Event("card_played", 2, "W", r), Event("trick_won", 0, "W", r),
                         Event("round_scored", 0, "30", r), Event("round_scored", 1, "-10", r),
                         Event("round_scored", 2, "20", r)]
    assert s.returns() == [30, -10, 20]


def test_events_of_a_trump_chosen_after_a_wizard_turn_up():
    """RULES.md 1.2: a Wizard turned up lets the dealer choose trump after seeing their hand."""
    from engines.events import Event
    s = deal(3, ["5d", "6d", "7e"], turn_up="W", dealer=1)
    assert s.apply_with_events(s.string_to_action("trump e")) == [
        Event("turn_up", 1, "W", "round 1"), Event("trump_suit", 1, "e", "round 1")]
    assert s.apply_with_events(s.string_to_action("bid 0")) == [Event("bid", 2, "0", "round 1")]
