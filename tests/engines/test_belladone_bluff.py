"""Belladone Bluff scenarios (RULES.md sections 3 and 7.2) on explicit deals."""
import random
from collections import Counter

import pytest
from engines.belladone_bluff import BelladoneBluffState, card_name, parse_card

import engines


def deal(hands, deck="", preps=("P+1", "P+2", "P+3"), **kw):
    """hands: one space-separated string per player; deck: top first; preps: three rows from position 1."""
    return BelladoneBluffState.from_deal([h.split() for h in hands], deck.split(), [p.split() for p in preps], **kw)


def play(state, *moves):
    for m in moves:
        state.apply_action(state.string_to_action(m))


def legal(state):
    return sorted(state.action_to_string(a) for a in state.legal_actions())


# a row of six whose 6th card is blue: face up P+1 P+2 P+3, face down B+1 B+2 B+3 (sum 12)
SIX_BLUE = "P+1 B+1 P+2 B+2 P+3 B+3"
FILLER = "Y+1 Y+2 Y+3 Y+4 Y+5 Y+6 P-4 P-5 P-6"


def test_card_names_round_trip():
    """RULES.md 3.1: 5 colours x (-6..-1, +1..+6, Reverse, Target, Jar, Eye) = 80 distinct cards."""
    names = [card_name(c) for c in range(80)]
    assert len(set(names)) == 80
    assert [parse_card(n) for n in names] == list(range(80))
    assert {"R-3", "B+5", "G-eye", "Y-rev", "P-target", "R-jar"} <= set(names)
    with pytest.raises(ValueError):
        parse_card("Q+1")
    with pytest.raises(ValueError, match="twice"):
        deal(["R+1", "R+1"])


def test_fresh_deal_components():
    """RULES.md 3.2: hands of 5, three rows started by a non-special card, the rest in the deck."""
    for n in (2, 3, 4):
        s = engines.make("belladone_bluff", players=n, seed=n)
        assert all(len(s.hand(q)) == 5 for q in range(n))
        for r in range(3):
            row = s.preparation(r)
            assert len(row) == 1 and parse_card(row[0]) % 16 < 12
        cards = sum((s.hand(q) for q in range(n)), []) + sum((s.preparation(r) for r in range(3)), [])
        cards += s.deck() + s.discards()
        assert sorted(parse_card(c) for c in cards) == list(range(80))
        assert all(parse_card(c) % 16 >= 12 for c in s.discards())


def test_positions_and_faces():
    """RULES.md 3.3: odd positions face up, even face down, fixed by position; the placer knows its
    face-down values, others see only the colour; a face-down special is inactive."""
    s = deal(["R+1 R+2 R-target B-1 B-2", "G+1 G+2 G+3 G+4 G+5"], deck=FILLER)
    play(s, "play R-target on I", "play R+2 on I", "play R+1 on I")
    assert s.preparation(0) == ["P+1", "R-target", "R+2", "R+1"]
    assert s.observation(1)["preparations"][0] == [
        "P+1", {"card": "R?", "seen_by": [0]}, "R+2", {"card": "R?", "seen_by": [0]}]
    assert s.observation(0)["preparations"][0][1] == {"card": "R-target", "seen_by": [0]}
    assert s.observation(1)["hands"][0] == {"colours": "BBYYY", "known": [], "seen_by": [[0]] * 5}
    assert "legal" not in s.observation(0) and "legal" in s.observation(1)
    assert s.target_row() is None            # the Target lies face down at position 2
    assert s.current_player() == 1
    assert {a.split()[-1] for a in legal(s)} == {"I", "II", "III"}
    # the turn ended by itself (no red left) and the player drew 3: back to 5 cards
    assert s.hand(0) == ["B-1", "B-2", "Y+1", "Y+2", "Y+3"]


def test_single_colour_turn():
    """RULES.md 3.4.1: one row per turn, cards of a single colour, in the order the player chooses;
    at least one card, and the player may stop after any card."""
    s = deal(["R+1 R+2 R+3 B-1 G-2", "G+1 G+2 G+3 G+4 G+5"], deck=FILLER)
    assert "end turn" not in legal(s)
    play(s, "play R+3 on II")
    assert legal(s) == ["end turn", "play R+1 on II", "play R+2 on II"]
    play(s, "play R+1 on II", "end turn")
    assert s.preparation(1) == ["P+2", "R+3", "R+1"]
    assert s.current_player() == 1
    assert s.hand(0) == ["B-1", "G-2", "R+2", "Y+1", "Y+2"]


def test_seventh_card_matches_the_sixth():
    """RULES.md 3.4.2: the 7th card has the colour of the 6th; other rows take any colour."""
    s = deal(["R+1 R+2 B+4 G+1 G+2", "G+3 G+4 G+5 G+6 R+3"], deck=FILLER, preps=(SIX_BLUE, "P+4", "P+5"))
    on_first_row = [a for a in legal(s) if a.endswith(" I")]
    assert on_first_row == ["play B+4 on I"]
    assert "play R+1 on II" in legal(s) and "play G+2 on III" in legal(s)
    play(s, "play B+4 on I")
    assert s.scores() == [16, 0]
    # a turn may place the 6th and 7th itself, in its own colour
    s = deal(["R+1 R+2 B+4 G+1 G+2", "G+3"], deck=FILLER, preps=("P+1 B+1 P+2 B+2 P+3", "P+4", "P+5"))
    play(s, "play R+1 on I", "play R+2 on I")
    assert s.scores() == [12, 0] and s.preparation(0) == ["Y+1"]


@pytest.mark.parametrize("row,expected", [
    ("P+1 B+1 Y-rev B+2 P+3 B+3", -14),      # one face-up Reverse: odd, reversed
    ("P+1 B+1 Y-rev B+2 G-rev B+3", 11),     # two face-up Reverses: even, unchanged
    ("P+1 Y-rev P+2 B+2 P+3 B+3", 15),       # a face-down Reverse is inactive
])
def test_reverse_counts(row, expected):
    """RULES.md 3.5 and 3.6: row score = sum x (-1)^(face-up Reverses); specials count 0."""
    s = deal(["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5"], deck=FILLER, preps=(row, "P+4", "P+5"))
    play(s, "play B+4 on I")
    assert s.scores() == [expected, 0]


def test_target_locks_the_other_rows_until_won():
    """RULES.md 3.5: a face-up Target forces every player into its row until it is won."""
    s = deal(["R+1 R-target G+1 G+2 G+3", "B+1 B+2 B+3 B+4 Y-1"], deck=FILLER)
    play(s, "play R+1 on II", "play R-target on II")
    assert s.target_row() == 1 and s.current_player() == 1
    assert all(a.endswith(" II") for a in legal(s))
    play(s, "play B+1 on II", "play B+2 on II", "play B+3 on II", "play B+4 on II")
    assert s.scores() == [0, 2 + 1 + 0 + 1 + 2 + 3 + 4]
    assert s.target_row() is None
    assert {a.split()[-1] for a in legal(s)} == {"I", "II", "III"}


def test_jar_recipient_three_players():
    """RULES.md 3.5: with a face-up Jar the winner must give the row to another player of their choice."""
    s = deal(["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5"], deck=FILLER,
             preps=("P+1 B+1 Y-jar B+2 P+3 B+3", "P+4", "P+5"))
    play(s, "play B+4 on I")
    assert s.phase() == "jar" and s.current_player() == 0
    assert legal(s) == ["give row to P1", "give row to P2"]
    play(s, "give row to P2")
    assert s.scores() == [0, 0, 14]
    assert s.current_player() == 1 and s.preparation(0) == ["Y+1"]


def test_jar_goes_to_an_opponent_in_team_play():
    """RULES.md 3.9.8 and 7.2: in team play the Jar row goes to an opponent (flag jar_team_any)."""
    hands = ["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5", "R-1 R-2 R-3 R-4 R-5"]
    preps = ("P+1 B+1 Y-jar B+2 P+3 B+3", "P+4", "P+5")
    s = deal(hands, deck=FILLER, preps=preps)
    play(s, "play B+4 on I")
    assert legal(s) == ["give row to P1", "give row to P3"]
    play(s, "give row to P3")
    assert s.scores() == [0, 14, 0, 14]
    s = deal(hands, deck=FILLER, preps=preps, jar_team_any=True)
    play(s, "play B+4 on I")
    assert legal(s) == ["give row to P1", "give row to P2", "give row to P3"]
    # two players: the only other player receives it without a decision
    s = deal(hands[:2], deck=FILLER, preps=preps)
    play(s, "play B+4 on I")
    assert s.scores() == [0, 14] and s.current_player() == 1


def test_eye_look_and_swap_after_placement():
    """RULES.md 3.5, 3.9.3, 3.9.4, 7.2: the Eye's player looks at every face-down card of the row once
    the turn's placement is over, and may swap one with a hand card of the turn's colour; the swap
    is not a play (hand size kept, draws count only placed cards)."""
    s = deal(["R-eye R+5 R-4 G+1 G+2", "B+1 B+2 B+3 B+4 B+5"], deck="Y+1 Y+2 Y+3",
             preps=("P+1 B-6", "P+2", "P+3"), seen={"B-6": [1]})
    play(s, "play R-eye on I", "play R-4 on I")
    assert s.phase() == "play" and not s.knows(0, "B-6")      # no look before the placement ends
    play(s, "end turn")
    assert s.phase() == "eye" and s.knows(0, "B-6") and s.current_player() == 0
    assert legal(s) == ["eye: no swap", "eye: swap R+5 into position 2", "eye: swap R+5 into position 4"]
    play(s, "eye: swap R+5 into position 2")
    assert s.preparation(0) == ["P+1", "R+5", "R-eye", "R-4"]
    assert s.hand(0) == ["B-6", "G+1", "G+2", "Y+1", "Y+2"] and s.deck() == ["Y+3"]
    seen_by_1 = s.observation(1)
    assert seen_by_1["preparations"][0][1] == {"card": "R?", "seen_by": [0]}
    assert seen_by_1["hands"][0]["known"] == ["B-6"]          # P1 placed it and saw it leave
    assert s.current_player() == 1


def test_knowledge_of_a_hand_card_blurs_when_its_colour_is_played_face_down():
    """RULES.md 3.8: a swapped-out card stays known in its new hand, until the holder puts a card of
    its colour face down: others cannot tell which of the same-coloured cards went."""
    s = deal(["R-eye R+5 R-4 B+1 G+2", "P-1 P-2 P-3 P-4 P-5"], deck="Y+1 Y+2 Y+3 Y+4 Y+5",
             preps=("P+1 B-6", "P+2", "P+3 Y-6"), seen={"B-6": [1]})
    play(s, "play R-eye on I", "play R-4 on I", "end turn", "eye: swap R+5 into position 2")
    assert s.knows(1, "B-6") and "B-6" in s.hand(0)
    play(s, "play P-1 on II", "end turn")
    play(s, "play B+1 on III")                 # position 3: face up, B-6 still known
    assert s.knows(1, "B-6")
    play(s, "end turn", "play P-2 on II", "end turn", "play B-6 on III")   # position 4: face down
    # B-6 was P0's only blue left, so P1 still knows where it went
    assert s.preparation(2)[3] == "B-6" and s.knows(1, "B-6")
    s = deal(["R-eye R+5 R-4 B+1 G+2", "P-1 P-2 P-3 P-4 P-5"], deck="Y+1 Y+2 Y+3 Y+4 Y+5",
             preps=("P+1 B-6", "P+2", "P+3"), seen={"B-6": [1]})
    play(s, "play R-eye on I", "play R-4 on I", "end turn", "eye: swap R+5 into position 2")
    play(s, "play P-1 on II", "end turn", "play B+1 on III", "end turn")    # position 2: face down
    assert not s.knows(1, "B-6") and not s.knows(1, "B+1") and s.knows(0, "B-6")
    assert s.observation(1)["hands"][0]["known"] == []


def test_eye_completing_a_row_swaps_before_scoring():
    """RULES.md 3.9.3: an Eye placed at position 7 resolves before the row is scored."""
    s = deal(["B-eye B+6 G+1 G+2 G+3", "Y-1 Y-2 Y-3 Y-4 Y-5"], deck=FILLER,
             preps=("P+1 B+1 P+2 B+2 P+3 B-6", "P+4", "P+5"))
    play(s, "play B-eye on I")
    assert s.phase() == "eye"
    assert "eye: swap B+6 into position 6" in legal(s)
    play(s, "eye: swap B+6 into position 6")
    assert s.scores() == [1 + 1 + 2 + 2 + 3 + 6, 0]
    assert "B-6" in s.hand(0) and "B+6" in s.discards()


def test_eye_without_a_possible_swap_is_a_look_only():
    """RULES.md 3.5: the look happens even when no hand card of the turn's colour is left to swap."""
    s = deal(["R-eye G+1 G+2 G+3 G+4", "B+1 B+2 B+3 B+4 B+5"], deck=FILLER,
             preps=("P+1 B-6", "P+2", "P+3"))
    play(s, "play R-eye on I")
    assert s.knows(0, "B-6") and not s.knows(1, "B-6") and s.current_player() == 1


def test_completing_a_row_starts_a_new_one_skipping_specials():
    """RULES.md 3.2 and 3.6: the winner starts a new row from the deck (specials discarded and
    replaced), then refills their hand."""
    s = deal(["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5"], deck="Y-jar G-eye Y+2 R+5 R+6",
             preps=(SIX_BLUE, "P+4", "P+5"))
    play(s, "play B+4 on I")
    assert s.preparation(0) == ["Y+2"]
    assert {"Y-jar", "G-eye"} <= set(s.discards())
    assert "R+5" in s.hand(0) and s.deck() == ["R+6"]
    assert not s.is_terminal()


def test_row_won_with_the_deck_empty_ends_the_game():
    """RULES.md 3.6: once the deck is empty, the first row completed ends the game after scoring."""
    s = deal(["B+4 R+1", "G+1 G+2"], deck="", preps=(SIX_BLUE, "P+4", "P+5"))
    play(s, "play B+4 on I")
    assert s.is_terminal() and s.legal_actions() == [] and s.current_player() == -1
    assert s.returns() == [16, 0] and s.placements() == [1, 2]


def test_unable_to_play_with_the_deck_empty_ends_the_game():
    """RULES.md 3.4.6 and 3.6: with the deck empty, a player unable to play ends the game at once."""
    s = deal(["R-target R+1 G+3", "G+1 G+2"], deck="", preps=("P+1 B+1 P+2 B+2", "P+4", "P+5"))
    play(s, "play R-target on I", "play R+1 on I")
    assert s.target_row() == 0
    assert s.is_terminal() and s.returns() == [0, 0]


def test_unable_to_play_discards_and_draws():
    """RULES.md 3.4.6 and 3.4.7: unable to play, the player may discard cards and draws as many."""
    s = deal(["R-target R+1 G+3", "G+1 G+2"], deck="Y+1 Y+2 Y+3 Y+4 Y+5",
             preps=("P+1 B+1 P+2 B+2", "P+4", "P+5"))
    play(s, "play R-target on I", "play R+1 on I")
    assert s.hand(0) == ["G+3", "Y+1", "Y+2"]
    assert s.phase() == "discard" and s.current_player() == 1
    assert legal(s) == ["discard G+1", "discard G+2", "stop discarding"]
    play(s, "discard G+1", "stop discarding")
    assert s.hand(1) == ["G+2", "Y+3"] and "G+1" in s.discards()
    assert s.current_player() == 0 and s.deck() == ["Y+4", "Y+5"]


def test_no_one_able_and_no_discards_ends_the_game():
    """RULES.md 3.4.6 (project decision): when every player in turn is unable to play and discards
    nothing, the position would repeat for ever, so the game ends."""
    s = deal(["G+1 G+2", "Y+1 Y+2"], deck="B+5 B+6", preps=("P+1 B+1 R-target B+2 P+3 R+1", "P+4", "P+5"))
    assert s.phase() == "discard"
    play(s, "stop discarding")
    assert not s.is_terminal() and s.current_player() == 1
    play(s, "stop discarding")
    assert s.is_terminal()


def test_team_scoring():
    """RULES.md 3.7: at 4 players teammates (alternate seats) share one score and one placement;
    teams=false plays every one for themselves."""
    hands = ["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5", "R-1 R-2 R-3 R-4 R-5"]
    s = deal(hands, deck="", preps=(SIX_BLUE, "P+4", "P+5"))
    play(s, "play B+4 on I")
    assert s.is_terminal() and s.returns() == [16, 0, 16, 0]
    assert s.placements() == [1, 3, 1, 3]
    s = deal(hands, deck="", preps=(SIX_BLUE, "P+4", "P+5"), teams=False)
    play(s, "play B+4 on I")
    assert s.returns() == [16, 0, 0, 0] and s.placements() == [1, 2, 2, 2]


def test_easy_mode_starts_at_five_and_never_goes_below_zero():
    """RULES.md 3.7 and 3.9.11: easy mode starts everyone at 5 and clamps at 0 whoever receives a row."""
    assert engines.make("belladone_bluff", players=3, easy=True).scores() == [5, 5, 5]
    s = deal(["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5"], deck=FILLER,
             preps=("P+1 B+1 Y-rev B+2 P+3 B+3", "P+4", "P+5"), easy=True)
    play(s, "play B+4 on I")
    assert s.scores() == [0, 5]
    s = deal(["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5"], deck=FILLER,
             preps=("P+1 B+1 Y-rev B+2 Y-jar B+3", "P+4", "P+5"), easy=True, scores=[5, 9, 5])
    play(s, "play B+4 on I", "give row to P1")
    assert s.scores() == [5, 0, 5]


def test_parameters_are_validated():
    """RULES.md 3.7: teams is a boolean; it only changes 4-player games."""
    with pytest.raises(engines.BadParameter):
        engines.make("belladone_bluff", players=4, teams="maybe")
    with pytest.raises(engines.BadParameter):
        engines.make("belladone_bluff", players=5)
    s = engines.make("belladone_bluff", players=3, teams=True)
    assert s.observation(0)["teams"] is False


@pytest.mark.parametrize("bad", [{"first": 2}, {"first": -1}, {"seen": {"R+1": [2]}}, {"scores": [0]}])
def test_deals_out_of_range_are_refused(bad):
    """Errors users can cause raise ValueError: an explicit deal names only seats that exist (RULES.md 3.2)."""
    with pytest.raises(ValueError):
        deal(["R+1 R+2", "B+1 B+2"], deck=FILLER, **bad)


def _truth(s):
    n = s.num_players
    return {"hands": [s.hand(q) for q in range(n)], "rows": [s.preparation(r) for r in range(3)],
            "deck": s.deck(), "discards": s.discards()}


def _colours(cards):
    return sorted(c[0] for c in cards)


def test_determinization_keeps_colours_and_knowledge_and_varies_the_rest():
    """RULES.md 3.8: determinize re-deals unseen values within each colour, keeping every public
    colour (hands, face-down cards, deck top) and every value the observer knows."""
    s = deal(["R-eye R+5 R-4 G+1 G+2", "B+1 B+2 B+3 B+4 B-5", "Y+1 Y+2 Y+3 Y+4 Y+5"],
             deck="G-6 G-5 G-4 G-3 R+2 R+3 B-1 B-2 Y-1 Y-2 P-1 P-2 P-3 R-1",
             preps=("P+1 B-6", "P+2 G+6", "P+3"), seen={"B-6": [1]})
    play(s, "play R-eye on I", "play R-4 on I", "end turn", "eye: swap R+5 into position 2")
    play(s, "play B+1 on II", "play B+2 on II", "end turn")     # B+2 lies face down at II position 4
    for observer in range(3):
        before = _truth(s)
        key = s.information_state_key(observer)
        variants = set()
        for seed in range(12):
            d = s.determinize(observer, seed=seed)
            t = _truth(d)
            every = sum(t["hands"], []) + sum(t["rows"], []) + t["deck"] + t["discards"]
            assert sorted(parse_card(c) for c in every) == list(range(80))
            assert t["discards"] == before["discards"]
            assert t["hands"][observer] == before["hands"][observer]
            for q in range(3):
                assert _colours(t["hands"][q]) == _colours(before["hands"][q])
                for c in before["hands"][q]:
                    if s.knows(observer, c):
                        assert c in t["hands"][q]
            for r in range(3):
                assert len(t["rows"][r]) == len(before["rows"][r])
                for i, (x, y) in enumerate(zip(before["rows"][r], t["rows"][r])):
                    assert x[0] == y[0]
                    if i % 2 == 0 or s.knows(observer, x):
                        assert x == y
            assert len(t["deck"]) == len(before["deck"]) and t["deck"][0][0] == before["deck"][0][0]
            assert Counter(_colours(sum((t["hands"][q] for q in range(3) if q != observer), []) + t["deck"])) \
                == Counter(_colours(sum((before["hands"][q] for q in range(3) if q != observer), [])
                                    + before["deck"]))
            assert d.information_state_key(observer) == key
            variants.add(repr(t))
        assert len(variants) > 6
    # P1 knows B-6 went to P0's hand; P0 knows R+5 went face down to I position 2
    assert all("B-6" in s.determinize(1, seed=k).hand(0) for k in range(5))
    assert all(s.determinize(0, seed=k).preparation(0)[1] == "R+5" for k in range(5))
    assert any(s.determinize(1, seed=k).preparation(0)[1] != "R+5" for k in range(10))


def test_infoset_key_ignores_what_the_observer_cannot_see():
    """RULES.md 3.8: states that differ only in an opponent's unseen values share the observer's key."""
    a = deal(["R+1 R+2", "B+1 B+2"], deck="Y+1 B+3 B+4 G+3")
    b = deal(["R+1 R+2", "B+3 B+4"], deck="Y+1 B+1 B+2 G+3")
    c = deal(["R+1 R+2", "G+3 B+4"], deck="Y+1 B+1 B+2 B+3")
    assert a.information_state_key(0) == b.information_state_key(0)
    assert a.information_state_key(1) != b.information_state_key(1)
    assert a.information_state_key(0) != c.information_state_key(0)


def test_evaluation_counts_rows_close_to_being_won():
    """RULES.md 3.6: the heuristic values a positive row the player to move can complete."""
    s = deal(["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5"], deck=FILLER, preps=(SIX_BLUE, "P+4", "P+5"))
    assert s.evaluate(0) == pytest.approx(1 + 2 + 3)       # P0 sees only the face-up values
    assert s.evaluate(1) == pytest.approx(-(1 + 2 + 3))
    play(s, "play B+4 on I")
    assert s.evaluate(0) > 6


def test_random_games_keep_every_card_and_end():
    """RULES.md 3.1 and 3.6: cards are never created or lost, and every game ends."""
    for n in (2, 3, 4):
        s = engines.make("belladone_bluff", players=n, seed=40 + n)
        rng = random.Random(n)
        while not s.is_terminal():
            t = _truth(s)
            every = sum(t["hands"], []) + sum(t["rows"], []) + t["deck"] + t["discards"]
            assert sorted(parse_card(c) for c in every) == list(range(80))
            assert all(len(h) <= 5 for h in t["hands"])
            assert all(len(r) <= (7 if s.phase() == "eye" else 6) for r in t["rows"])
            s.apply_action(rng.choice(s.legal_actions()))


def test_determinization_depends_only_on_what_the_observer_knows():
    """RULES.md 3.8: worlds the observer cannot tell apart resample to the same world under one seed."""
    s = engines.make("belladone_bluff", players=3, seed=17)
    rng = random.Random(17)
    for _ in range(25):
        s.apply_action(rng.choice(s.legal_actions()))
    for me in range(3):
        for j in range(3):
            world = s.determinize(me, seed=100 + j)
            assert world.snapshot() != s.snapshot()
            for k in range(3):
                assert world.determinize(me, seed=k).snapshot() == s.determinize(me, seed=k).snapshot()


def test_determinization_ignores_the_order_an_unseen_hand_was_left_in():
    """RULES.md 3.8: which of two same-coloured cards an opponent put face down is hidden, and so is
    the order their hand is left in: both worlds resample to the very same world under one seed."""
    worlds = []
    for hidden in ("R+1", "R+2"):
        s = deal(["G+1 G+2", "R+1 R+2 B+3"], deck="Y+1 Y+2 Y+3 Y+4 Y+5 Y+6")
        play(s, "play G+1 on II", "end turn", f"play {hidden} on I", "end turn")
        worlds.append(s)
    a, b = worlds
    assert a.current_player() == 0
    assert a.information_state_key(0) == b.information_state_key(0)
    assert a.observation(0) == b.observation(0)
    assert a.snapshot() != b.snapshot()
    for seed in range(4):
        assert a.determinize(0, seed=seed).snapshot() == b.determinize(0, seed=seed).snapshot()


def test_determinization_ignores_which_card_an_opponent_drew():
    """RULES.md 3.8: the value an opponent drew is hidden (its colour is not): two deals that differ
    only there resample to the very same world under one seed, nothing of the truth left behind."""
    worlds = []
    for deck in ("B+1 Y+1 P+4 Y+2 P+5", "B+1 Y+2 P+4 Y+1 P+5"):
        s = deal(["G+1 G+2", "R+1 R+2"], deck=deck)
        play(s, "play G+1 on II", "end turn", "play R+1 on III", "end turn")
        worlds.append(s)
    a, b = worlds
    assert a.information_state_key(0) == b.information_state_key(0)
    assert a.observation(0) == b.observation(0)
    for seed in range(4):
        assert a.determinize(0, seed=seed).snapshot() == b.determinize(0, seed=seed).snapshot()


def views(state, observer):
    """{action name: the name of the action id standing for its class, as `observer` sees it}."""
    out = {}
    for a in state.legal_actions():
        out[state.action_to_string(a)] = state.action_view(observer, a)
    return out


def test_a_face_down_placement_is_seen_as_its_colour_on_its_row():
    """RULES.md 3.3, 3.8: a face-down card shows its back, its colour, so the others see "a red card
    on row I"; a face-up placement is seen whole; the player itself sees its own moves whole."""
    s = deal(["R+2 R-3 B+1 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5"], deck=FILLER,
             preps=("P+1", "P+2 P-1", "P+3"))
    v = views(s, 1)
    assert v["play R+2 on I"] == v["play R-3 on I"] != v["play R+2 on III"] == v["play R-3 on III"]
    assert v["play G+4 on I"] == v["play G+5 on I"] != v["play R+2 on I"]
    assert v["play B+1 on I"] != v["play R+2 on I"]
    # row II's next position (3) is face up: every card apart
    assert len({v[f"play {c} on II"] for c in ("R+2", "R-3", "B+1", "G+4", "G+5")}) == 5
    assert all(s.action_view(0, a) == a for a in s.legal_actions())
    # known to the observer (an Eye's look) and still told apart from nothing: P0's two reds blur
    s = deal(["R+2 R-3 B+1 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5"], deck=FILLER,
             preps=("P+1", "P+2 P-1", "P+3"), seen={"R+2": [1]})
    v = views(s, 1)
    assert v["play R+2 on I"] == v["play R-3 on I"]


def test_an_eye_swap_is_seen_by_its_position_and_a_full_row_whole():
    """RULES.md 3.5, 3.9.3: the others see which face-down position the Eye's player swaps (not which
    hand card goes in), as far as it changes what they know; an Eye that completes the row is
    scored at once, every card turned up."""
    s = deal(["R-eye R+5 R-4 R+1 G+2", "B+1 B+2 B+3 B+4 B+5"], deck="Y+1 Y+2 Y+3",
             preps=("P+1 B-6", "P+2", "P+3"), seen={"B-6": [1]})
    play(s, "play R-eye on I", "play R-4 on I", "end turn")
    v = views(s, 1)
    assert v["eye: swap R+5 into position 2"] == v["eye: swap R+1 into position 2"]
    assert v["eye: swap R+5 into position 4"] == v["eye: swap R+1 into position 4"]
    # position 2 holds P1's B-6 (it goes to P0's hand, a red card comes in): seen; position 4 holds
    # P0's own R-4, face down and known to P0 alone: swapping it for another of P0's reds leaves
    # P1 exactly what keeping does (RULES.md 3.8: the others cannot tell same-coloured cards apart)
    assert v["eye: swap R+5 into position 4"] == v["eye: no swap"] != v["eye: swap R+5 into position 2"]
    s = deal(["B-eye B+6 B+5 G+2 G+3", "Y-1 Y-2 Y-3 Y-4 Y-5"], deck=FILLER,
             preps=("P+1 B+1 P+2 B+2 P+3 B-6", "P+4", "P+5"))
    play(s, "play B-eye on I")
    assert s.phase() == "eye"
    v = views(s, 1)
    assert len(set(v.values())) == len(v)


def test_a_jar_row_to_either_opponent_of_a_team_is_one_outcome():
    """RULES.md 3.7, 3.9.8: teammates share one score, so giving the row to either is the same to
    the others (their information set is the same after either)."""
    hands = ["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5", "R-1 R-2 R-3 R-4 R-5"]
    s = deal(hands, deck=FILLER, preps=("P+1 B+1 Y-jar B+2 P+3 B+3", "P+4", "P+5"), jar_team_any=True)
    play(s, "play B+4 on I")
    v = views(s, 1)
    assert v["give row to P1"] == v["give row to P3"] != v["give row to P2"]
    assert len({s.action_view(0, a) for a in s.legal_actions()}) == 3


# ---- events (engines/events.py) ----

def test_events_of_an_eye_revealed_and_its_swap():
    """RULES.md 3.5: an Eye placed face up lets its player look at the row's face-down cards and swap one."""
    from engines.events import Event
    s = deal(["R-eye R+5 R-4 G+1 G+2", "B+1 B+2 B+3 B+4 B+5"], deck="Y+1 Y+2 Y+3",
             preps=("P+1 B-6", "P+2", "P+3"))
    assert s.apply_with_events(s.string_to_action("play R-eye on I")) == [
        Event("card_placed", 0, "R-eye", "I 3"), Event("special_played", 0, "Eye", "face up")]
    assert s.apply_with_events(s.string_to_action("play R-4 on I")) == [Event("card_placed", 0, "R-4", "I 4")]
    assert s.apply_with_events(s.string_to_action("end turn")) == []
    assert s.apply_with_events(s.string_to_action("eye: swap R+5 into position 2")) == [
        Event("eye_swap", 0, "R+5", "B-6")]


def test_events_of_a_jar_row_given_away():
    """RULES.md 3.5 and 3.6: the winner of a row with a face-up Jar gives its score to another player."""
    from engines.events import Event
    s = deal(["B+4 R+1 R+2 R+3 R+4", "G+1 G+2 G+3 G+4 G+5", "Y-1 Y-2 Y-3 Y-4 Y-5"], deck=FILLER,
             preps=("P+1 B+1 Y-jar B+2 P+3 B+3", "P+4", "P+5"))
    assert s.apply_with_events(s.string_to_action("play B+4 on I")) == [
        Event("card_placed", 0, "B+4", "I 7"), Event("row_won", 0, "I", "14"),
        Event("special_in_won_row", 0, "Jar", "face up")]
    assert s.apply_with_events(s.string_to_action("give row to P2")) == [Event("row_scored", 2, "I", "14")]
