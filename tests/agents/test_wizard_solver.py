"""The Wizard double-dummy solver (agents/wizard_solver.pyx) against plain exhaustive searches."""
import random

import pytest
from agents.wizard_solver import Deal, Solver, plain_value

import engines

SUITS = "degh"


def card_text(c):
    if c < 52:
        return f"{c % 13 + 1}{SUITS[c // 13]}"
    return "W" if c < 56 else "J"


def random_deal(rng, players, cards, trump=None, partial=True):
    """Hands dealt from a shuffled 60-card deck, a trump suit (or none) and, optionally, some
    cards already played (finished tricks and a trick in progress)."""
    deck = list(range(60))
    rng.shuffle(deck)
    hands = [deck[q * cards:(q + 1) * cards] for q in range(players)]
    deal = Deal(hands, trump, rng.randrange(players))
    if partial:
        for _ in range(rng.randrange(players * (cards - 1))):
            deal = deal.play(rng.choice(deal.legal_cards()))
    return deal


def deals(seed, count, players=(3, 4), cards=(3, 4, 5), partial=True):
    rng = random.Random(seed)
    for _ in range(count):
        n, r = rng.choice(players), rng.choice(cards)
        trump = rng.choice([None, 0, 1, 2, 3])
        d = random_deal(rng, n, r, trump, partial)
        p = rng.randrange(n)
        yield d, p, rng.randrange(r + 1), rng.random() < 0.25


def test_deal_holds_wizards_and_jesters():
    """The seeded deals do exercise Wizards, Jesters, trump and no trump."""
    seen = {"W": 0, "J": 0}
    for d, _, _, _ in deals(1, 200, partial=False):
        for q in range(d.players):
            h = d.hand_bits(q)
            seen["W"] += bin(h >> 52 & 0xF).count("1")
            seen["J"] += bin(h >> 56 & 0xF).count("1")
    assert seen["W"] > 50 and seen["J"] > 50


@pytest.mark.slow
def test_solver_equals_plain_search_on_seeded_small_deals():
    """Hundreds of seeded deals, 3-5 cards, 3-4 players, trump and no trump, from the first trick
    and from positions inside the round: the solver's value equals plain minimax's."""
    solver = Solver(16)
    n = 0
    for d, p, bid, opt in deals(7, 400):
        if d.is_over():
            continue
        want, _ = plain_value(d, p, bid, opt)
        assert solver.value(d, p, bid, opt) == want, (p, bid, opt)
        n += 1
    assert n > 350


@pytest.mark.parametrize("options,cards", [
    (dict(merge=False), (3, 4, 5, 6)), (dict(tt=False), (3, 4, 5, 6)), (dict(bounds=False), (3, 4, 5, 6)),
    (dict(ordering=False), (3, 4, 5, 6)), (dict(merge=False, tt=False, bounds=False, ordering=False), (3, 4))])
def test_every_refinement_off_gives_the_same_values(options, cards):
    """Merged equivalent cards give the same results as unmerged; so do the table, the bounds
    and the ordering."""
    full, partial = Solver(16), Solver(16, **options)
    for d, p, bid, opt in deals(11, 150, cards=cards):
        if d.is_over():
            continue
        assert partial.value(d, p, bid, opt) == full.value(d, p, bid, opt)


def test_merging_saves_nodes():
    merged, plain = Solver(16), Solver(16, merge=False)
    for d, p, bid, _ in deals(3, 30, cards=(6,), partial=False):
        merged.value(d, p, bid)
        plain.value(d, p, bid)
    assert merged.nodes < plain.nodes


def test_move_values_are_child_values():
    solver = Solver(16)
    for d, _, bid, opt in deals(5, 60):
        if d.is_over():
            continue
        q = d.to_move
        values = solver.move_values(d, bid, opt)
        for c in d.legal_cards():
            key = c if c < 52 else min(x for x in values if (x < 56) == (c < 56) and x >= 52)
            assert values[key] == plain_value(d.play(c), q, bid, opt)[0]
        assert solver.value(d, q, bid, opt) == max(values.values())


def test_solve_all_and_trick_range():
    solver = Solver(16)
    for d, p, bid, _ in deals(9, 40):
        if d.is_over():
            continue
        bids = [bid] * d.players
        assert solver.solve_all(d, bids) == [plain_value(d, q, bid)[0] for q in range(d.players)]
        lo, hi = solver.trick_range(d, p)
        left = d.cards_left(d.to_move)
        got = d.tricks()[p]
        assert got <= lo <= got + left and got <= hi <= got + left
        assert plain_value(d, p, 0)[0] == (20 if lo == 0 else -10 * lo)
        total = got + left
        assert plain_value(d, p, total)[0] == (20 + 10 * total if hi == total else -10 * (total - hi))


# ---- against the engine itself: plain minimax through WizardState's own rules ----

def engine_round(rng, players, cards):
    """A one-round game dealt explicitly, its bids made; returns (state, bids)."""
    deck = list(range(60))
    rng.shuffle(deck)
    hands = [[card_text(c) for c in deck[q * cards:(q + 1) * cards]] for q in range(players)]
    rest = deck[players * cards:]
    kind = rng.choice(["suit", "jester", "suit"])
    jesters = [c for c in rest if c >= 56]
    if kind == "jester" and jesters:
        turn_up = card_text(jesters[0])
    else:
        turn_up = card_text(next(c for c in rest if c < 52))
    st = engines.wizard.WizardState.from_deal(players, hands, turn_up=turn_up, dealer=rng.randrange(players),
                                             rounds=(cards,))
    bids = [rng.randrange(cards + 1) for _ in range(players)]
    for _ in range(players):
        st.apply_action(st.string_to_action(f"bid {bids[st.current_player()]}"))
    return st, bids


def engine_minimax(st, p, optimistic):
    if st.is_terminal():
        return st.returns()[p]
    mx = optimistic or st.current_player() == p
    best = None
    for a in st.legal_actions():
        st.apply_action(a)
        v = engine_minimax(st, p, optimistic)
        st.undo_action()
        if best is None or (v > best if mx else v < best):
            best = v
    return best


def test_solver_equals_minimax_over_the_engine():
    """The solver's rules are the engine's: equal values to plain minimax through WizardState."""
    import engines.wizard  # noqa: F401
    rng = random.Random(23)
    solver = Solver(16)
    for i in range(60):
        players, cards = rng.choice([(3, 3), (4, 3), (3, 4), (4, 2)])
        st, bids = engine_round(rng, players, cards)
        for _ in range(rng.randrange(players + 1)):
            st.apply_action(rng.choice(st.legal_actions()))
        p = rng.randrange(players)
        opt = i % 4 == 0
        d = Deal.from_state(st)
        assert solver.value(d, p, bids[p], opt) == engine_minimax(st, p, opt)


# ---- the bid-chasing playout (Deal.playout, Deal.policy_card) ----

def test_playout_follows_the_engine_rules():
    """The playout's card choices, replayed through WizardState, give the engine's trick counts;
    every trick goes to someone and every choice is legal (with and without blind players)."""
    import engines.wizard  # noqa: F401
    rng = random.Random(31)
    for i in range(60):
        players, cards = rng.choice([(3, 5), (4, 7), (5, 4), (4, 10), (6, 3)])
        st, bids = engine_round(rng, players, cards)
        d = Deal.from_state(st)
        blind = [q for q in range(players) if i % 3 and rng.random() < 0.5]
        want = d.playout(bids, blind)
        while not st.is_terminal():
            c = d.policy_card(bids, blind)
            assert c in d.legal_cards()
            d = d.play(c)
            st.apply_action(c if c < 52 else (52 if c < 56 else 53))
        assert st.tricks() == want == d.tricks()
        assert sum(want) == cards


def test_policy_card_chases_the_bid():
    """RULES.md 1.4, highest of the led suit wins: last to play to 5d, short of its bid, seat 2
    takes it with its cheapest winner (7d), and at its bid sheds its highest loser (4d). Leading
    (it sees every hand), short of its bid it plays its cheapest card nobody can beat (13d: 4d
    loses to 5d), at its bid its lowest card."""
    d = Deal([["1h", "2h"], ["3h", "4h"], ["4d", "7d", "13d"]], None, trick=[(0, "5d"), (1, "2d")])
    assert d.policy_card([0, 0, 1]) == 6        # 7d
    assert d.policy_card([0, 0, 0]) == 3        # 4d
    lead = Deal([["5d", "1h"], ["3h", "4h"], ["4d", "13d"]], None, to_move=2)
    assert lead.policy_card([0, 0, 2]) == 12    # 13d
    assert lead.policy_card([0, 0, 0]) == 3     # 4d
    assert Deal([["W", "1h"], ["3h", "4h"], ["4d", "13d"]], None, to_move=2).policy_card([0, 0, 1]) == 3


def test_a_blind_player_judges_sure_winners_by_the_cards_it_cannot_see():
    """RULES.md 1.4: trump beats the led suit, unless the player holds the led suit and must
    follow. Seat 2 leads, short of its bid: seeing every hand it knows both others must follow d,
    so 7d is its cheapest sure winner; judging by the cards it cannot see (2h and 3h are trumps
    that a void player could play), only its Wizard is sure. Another seat's blindness changes
    nothing for seat 2; a blind seat must be a seat."""
    d = Deal([["5d", "2h"], ["6d", "3h"], ["7d", "W"]], "h", to_move=2)
    assert d.policy_card([0, 0, 1]) == 6                     # 7d
    assert d.policy_card([0, 0, 1], blind=(2,)) == 52        # the Wizard
    assert d.policy_card([0, 0, 1], blind=(0, 1)) == 6
    with pytest.raises(ValueError):
        d.playout([0, 0, 1], blind=(7,))


def test_a_blind_leader_short_of_its_bid_leads_its_strongest_card():
    """RULES.md 1.4: a trump beats the led suit when the player is void in it. Seat 2 leads, short
    of its bid, with 7d and 13d, hearts trump: seeing that both others must follow d, 7d is its
    cheapest sure winner; blind, the unseen 2h and 3h make neither card sure, and it leads its
    strongest card (13d) rather than its lowest, as a player who wants a trick leads at the table."""
    d = Deal([["5d", "2h"], ["6d", "3h"], ["7d", "13d"]], "h", to_move=2)
    assert d.policy_card([0, 0, 1]) == 6                     # 7d
    assert d.policy_card([0, 0, 1], blind=(2,)) == 12        # 13d
    assert d.policy_card([0, 0, 0], blind=(2,)) == 6         # at its bid: its lowest card
