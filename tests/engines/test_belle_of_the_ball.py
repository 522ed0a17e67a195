"""Belle of the Ball: scenarios on explicit setups, each citing its RULES.md section."""
import collections
import random

import pytest
from engines.belle_of_the_ball import BELLE_NAMES, BELLES, GUEST_NAMES, GUESTS, BelleState

import engines

BY_ICONS = {tuple(g["interests"]): g["name"] for g in GUESTS}
NOBLE = {g["name"] for g in GUESTS if g["honorific"] in ("Lord", "Lady")}


def G(a, b, c):
    """The guest with these three interests."""
    return BY_ICONS[(a, b, c)]


def setup(parties, guests=None, belles=None, hands=None, **kw):
    """from_setup, with a guest line of 10 and a Belle line of 4 unused cards unless given."""
    used = {n for party in parties for group in party for n in group} | {n for h in hands or [] for n in h}
    if guests is None:
        guests = [n for n in GUEST_NAMES if n not in used][:10]
    if belles is None:
        belles = [n for n in BELLE_NAMES if n not in used][:4]
    return BelleState.from_setup(parties, guests=guests, belles=belles, hands=hands, **kw)


def play(st, *names):
    for name in names:
        st.apply_action(st.string_to_action(name))


def empty_party():
    return [[], [], []]


EIGHT = [G("Chat", "Music", "Fish"), G("Chat", "Music", "Tree"), G("Flirt", "Books", "Fish"),
         G("Snub", "Cake", "Tree")]


# ---------------------------------------------------------------------- the cards
def test_the_guest_deck_is_every_combination_of_three_tiers_once():
    """RULES.md 4.1 and 7.3: 12 interests in tiers of 3, 4 and 5; 12 counties of 5 with 1 Lord and 1 Lady."""
    assert len(GUESTS) == 60 and len(set(BY_ICONS)) == 60 and len(set(GUEST_NAMES)) == 60
    icons = collections.Counter(i for g in GUESTS for i in g["interests"])
    assert {icons[i] for i in ("Chat", "Flirt", "Snub")} == {20}
    assert {icons[i] for i in ("Music", "Books", "Cake", "Tea")} == {15}
    assert {icons[i] for i in ("Fish", "Tree", "Sun", "Moon", "Shield")} == {12}
    counties = collections.defaultdict(list)
    for g in GUESTS:
        counties[g["county"]].append(g["honorific"])
    assert len(counties) == 12
    assert all(sorted(h) == ["", "", "", "Lady", "Lord"] for h in counties.values())


def test_the_27_belles_come_in_three_modes():
    """RULES.md 7.3: nine Mirth, nine Mischief and nine Mayhem Belles; three of them known."""
    assert len(BELLES) == 27
    assert collections.Counter(b["mode"] for b in BELLES) == {"mirth": 9, "mischief": 9, "mayhem": 9}
    assert {b["name"] for b in BELLES if b["source"] == "known"} == {"Earl Grey, Hot", "RUSHED", "Loves a Crowd"}


# ---------------------------------------------------------------------- setup and turns
@pytest.mark.parametrize("players,regrets,left", [(2, 4, 46), (3, 3, 42), (4, 3, 36), (5, 3, 30)])
def test_setup_deals_regrets_lines_and_parties(players, regrets, left):
    """RULES.md 4.2: Regrets (4 each at 2 players), two lines of 5 plus the deck tops, 3 guests each."""
    st = engines.make("belle_of_the_ball", players=players, seed=7)
    assert [st.regrets(p) for p in range(players)] == [regrets] * players
    assert len(st.guest_line()) == 6 and len(st.belle_line()) == 6
    assert st.deck_sizes() == (left - 6, 21)
    assert all([len(g) for g in st.party(p)] == [1, 1, 1] for p in range(players))
    assert st.phase() == "take a card" and st.scores() == [0.0] * players


def test_a_belle_goes_to_hand_and_is_playable_only_next_turn():
    """RULES.md 4.3 step 1: a Belle taken this turn cannot be played this turn."""
    st = setup([[[G("Chat", "Music", "Fish")], [], []], empty_party()], belles=["Grand Entrance", "A Yawn"])
    play(st, "take Belle 1")
    assert st.hand(0) == ["Grand Entrance"] and st.current_player() == 1
    play(st, "take guest 1", "group 1")
    assert st.current_player() == 0 and st.phase() == "play a Belle"
    assert "play Grand Entrance" in [st.action_to_string(a) for a in st.legal_actions()]


# ---------------------------------------------------------------------- scoring
def test_seed_example_eight_matched_interests_score_eight():
    """RULES.md 4.3 step 3: 'a full group scores 8 points because it has eight matched interests'; then it
    is discarded."""
    st = setup([[EIGHT[:3], [], []], empty_party()], guests=[EIGHT[3]] + [G("Snub", "Tea", "Moon"),
                                                                         G("Snub", "Tea", "Sun")])
    assert st.group_points(0, 0) == 6        # Chat, Music and Fish twice so far
    play(st, "take guest 1", "group 1")
    assert st.scores() == [8.0, 0.0]
    assert st.party(0) == [[], [], []]
    assert set(EIGHT) <= set(st.discards()[0])


def test_scoring_counts_every_icon_that_matches_another_guest():
    """RULES.md 4.7 #2: the instance count: sum of count_i over interests shared by two or more guests."""
    grp = [G("Chat", "Tea", "Fish"), G("Chat", "Tea", "Tree"), G("Chat", "Tea", "Sun"), G("Flirt", "Tea", "Fish")]
    st = setup([[grp, [], []], empty_party()], full=[(0, 0)])
    assert st.group_points(0, 0) == 3 + 4 + 2
    pairs = setup([[grp, [], []], empty_party()], match_count="pairs")
    assert pairs.group_points(0, 0) == 3 + 6 + 1          # C(3,2) + C(4,2) + C(2,2)


def test_group_with_belles_of_both_kinds():
    """RULES.md 4.3 step 3 and 7.3: Belles occupy places, have no icons, and modify the group's score."""
    grp = [G("Chat", "Tea", "Fish"), G("Chat", "Tea", "Tree"), "Earl Grey, Hot", "Hush"]
    st = setup([[grp, [], []], empty_party()])
    # Chat 2 + Tea 2 = 4; Earl Grey +2 x 2 Tea; Hush -2 x 2 Chat
    assert st.group_is_full(0, 0) and st.group_points(0, 0) == 4
    play(st, "take Belle 1")
    assert st.scores()[0] == 4.0 and st.party(0)[0] == []
    assert {"Earl Grey, Hot", "Hush"} <= set(st.discards()[1])


def test_a_group_never_scores_below_zero():
    """RULES.md 7.3: a group's score never goes below 0 (here no match, and A Yawn -4)."""
    grp = [G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree"), G("Snub", "Cake", "Sun")]
    st = setup([empty_party(), [grp, [], []]], hands=[["A Yawn"], []], scores=[0, 5])
    play(st, "play A Yawn", "player 1 group 1", "take Belle 1", "take Belle 1")
    assert st.scores()[1] == 5.0 and st.party(1)[0] == []


def test_full_groups_are_scored_only_at_their_owners_step_3():
    """RULES.md 4.3 step 3: a group filled during someone else's turn waits for its owner's turn."""
    st = setup([empty_party(), [EIGHT[:3], [], []]], hands=[["RUSHED"], []])
    play(st, "play RUSHED", "player 1 group 1")
    assert st.group_is_full(1, 0)
    play(st, "take Belle 1")
    assert st.scores() == [0.0, 0.0] and st.current_player() == 1
    play(st, "take Belle 1")
    assert st.scores() == [0.0, 6.0]


# ---------------------------------------------------------------------- the lines and the Regrets
def test_regret_payments_one_per_skipped_card():
    """RULES.md 4.3 step 2: position j costs j-1 Regrets, one beside each skipped card; the reach is limited
    by the Regrets held."""
    guests = [n for n in GUEST_NAMES][:9]
    st = setup([empty_party(), empty_party(), empty_party()], guests=guests, regrets=[2, 3, 3])
    names = [st.action_to_string(a) for a in st.legal_actions()]
    assert names == ["take guest 1", "take guest 2", "take guest 3", "take Belle 1", "take Belle 2", "take Belle 3"]
    play(st, "take guest 3")
    assert st.regrets(0) == 0
    assert [r for _, r in st.guest_line()] == [1, 1, 0, 0, 0, 0]
    play(st, "group 1")
    assert st.party(0)[0] == [guests[2]]
    poor = setup([empty_party(), empty_party()], regrets=[0, 4])
    assert [poor.action_to_string(a) for a in poor.legal_actions()] == ["take guest 1", "take Belle 1"]


def test_collecting_the_regrets_beside_the_card_taken():
    """RULES.md 4.3 step 2: the Regrets beside the card taken are gained, the free first card included."""
    st = setup([empty_party(), empty_party()], guest_regrets=[2, 0, 3], belle_regrets=[0, 1], regrets=[1, 4])
    play(st, "take guest 1", "group 1")
    assert st.regrets(0) == 3
    play(st, "take Belle 2")                 # player 1 pays 1 beside Belle 1 and gains the 1 beside Belle 2
    assert st.regrets(1) == 4 and [r for _, r in st.belle_line()][:2] == [1, 0]
    play(st, "take guest 2", "group 1")      # the 3 Regrets moved up to position 2; player 0 pays 1
    assert st.regrets(0) == 3 - 1 + 3


def test_the_line_moves_up_with_its_regrets():
    """RULES.md 4.3 step 2 and 4.7 #6: the cards behind move forward with their Regrets; the deck top
    enters the line and a new top is revealed."""
    guests = GUEST_NAMES[:8]
    st = setup([empty_party(), empty_party()], guests=guests, guest_regrets=[0, 0, 0, 2, 1, 0])
    assert st.deck_sizes()[0] == 2
    play(st, "take guest 2", "group 1")
    assert st.guest_line() == [(guests[0], 1), (guests[2], 0), (guests[3], 2), (guests[4], 1),
                               (guests[5], 0), (guests[6], 0)]
    assert st.deck_sizes()[0] == 1


def test_the_game_ends_when_the_last_guest_is_taken():
    """RULES.md 4.4 and 4.7 #4: the game ends at once when the last Guest is taken, Belles left or not;
    the group it would fill is not scored; everyone gets 1/2 point per Guest, Belle and Regret held."""
    party0 = [EIGHT[:3], [G("Snub", "Tea", "Moon"), "Earl Grey, Hot"], []]
    party1 = [[G("Flirt", "Tea", "Moon"), G("Flirt", "Cake", "Moon")], [], []]
    kw = dict(guests=[EIGHT[3]], belles=["Grand Entrance", "A Yawn"], hands=[["Matchmaker", "Hush"], []],
              regrets=[2, 4], scores=[10, 7])
    st = setup([party0, party1], **kw)
    play(st, "no Belle", "take guest 1")
    assert st.is_terminal() and st.current_player() == -1 and st.legal_actions() == []
    # player 0: 3 + 2 in groups, 2 in hand, 2 Regrets, the guest just taken: 10 cards
    assert st.returns() == [15.0, 10.0] and st.doubled_scores() == [30, 20]
    assert st.placements() == [1, 2]
    late = setup([party0, party1], score_on_final_turn=True, **kw)
    play(late, "no Belle", "take guest 1")
    assert not late.is_terminal()
    play(late, "group 1")
    assert late.is_terminal() and late.returns() == [10 + 8 + 3, 10.0]


def test_all_groups_full_take_a_belle_or_skip():
    """RULES.md 4.3 step 2 and 4.7 #9: with all groups full you must take a Belle; with none in line the
    step is skipped, and step 3 still scores the groups."""
    parties = [[EIGHT[:1], EIGHT[1:2], EIGHT[2:3]], empty_party()]
    st = setup(parties, full=[(0, 0), (0, 1), (0, 2)])
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["take Belle 1", "take Belle 2", "take Belle 3",
                                                                         "take Belle 4"]
    skip = setup(parties, belles=[], full=[(0, 0), (0, 1), (0, 2)])
    assert skip.current_player() == 1 and skip.party(0) == [[], [], []]


# ---------------------------------------------------------------------- the 27 Belles
def mirth_score(belle, guests):
    """Player 0 plays `belle` into its group 1 holding `guests`, takes a Belle, and step 3 scores it."""
    st = setup([[guests, [], []], empty_party()], hands=[[belle], []])
    play(st, "play " + belle, "group 1")
    assert st.party(0)[0] == guests + [belle]
    play(st, "take Belle 1")
    assert st.party(0)[0] == []
    return st.scores()[0]


def mischief_score(belle, guests):
    """Player 0 plays `belle` into player 1's group 1 holding `guests`; player 1's step 3 scores it."""
    st = setup([empty_party(), [guests, [], []]], hands=[[belle], []])
    play(st, "play " + belle, "player 1 group 1", "take Belle 1")
    assert st.scores() == [0.0, 0.0] and st.party(1)[0] == guests + [belle]
    play(st, "take Belle 1")
    assert st.party(1)[0] == []
    return st.scores()[1]


def test_belle_earl_grey_hot():
    """RULES.md 7.3 #1: Earl Grey, Hot: +2 per Tea icon (Chat 2 + Tea 3 + Fish 2 = 7, +6)."""
    assert mirth_score("Earl Grey, Hot", [G("Chat", "Tea", "Fish"), G("Chat", "Tea", "Tree"),
                                          G("Flirt", "Tea", "Fish")]) == 13


def test_belle_sing_along():
    """RULES.md 7.3 #2: Sing-along: +2 per Music icon (Music 2 = 2, +4)."""
    assert mirth_score("Sing-along", [G("Chat", "Music", "Fish"), G("Snub", "Music", "Tree"),
                                      G("Flirt", "Books", "Sun")]) == 6


def test_belle_poetry_reading():
    """RULES.md 7.3 #3: Poetry Reading: +2 per Books icon (Chat 2 + Books 2 = 4, +4)."""
    assert mirth_score("Poetry Reading", [G("Chat", "Books", "Fish"), G("Chat", "Books", "Tree"),
                                          G("Snub", "Cake", "Sun")]) == 8


def test_belle_cake_cutting():
    """RULES.md 7.3 #4: Cake Cutting: +2 per Cake icon (Cake 3 + Fish 3 = 6, +6)."""
    assert mirth_score("Cake Cutting", [G("Chat", "Cake", "Fish"), G("Flirt", "Cake", "Fish"),
                                        G("Snub", "Cake", "Fish")]) == 12


def test_belle_gossip_circle():
    """RULES.md 7.3 #5: Gossip Circle: +2 per Chat icon (Chat 3 = 3, +6)."""
    assert mirth_score("Gossip Circle", [G("Chat", "Music", "Fish"), G("Chat", "Books", "Tree"),
                                         G("Chat", "Cake", "Sun")]) == 9


def test_belle_a_wink():
    """RULES.md 7.3 #6: A Wink: +2 per Flirt icon (Flirt 2 + Fish 2 = 4, +4)."""
    assert mirth_score("A Wink", [G("Flirt", "Music", "Fish"), G("Flirt", "Books", "Fish"),
                                  G("Snub", "Tea", "Moon")]) == 8


def test_belle_charmed_by_nobility():
    """RULES.md 7.3 #7: Charmed by Nobility: +3 per Lord or Lady (Chat 2 + Sun 2 = 4, two nobles +6)."""
    guests = [G("Chat", "Books", "Sun"), G("Chat", "Cake", "Sun"), G("Flirt", "Music", "Fish")]
    assert [g in NOBLE for g in guests] == [True, True, False]
    assert mirth_score("Charmed by Nobility", guests) == 10


def test_belle_the_first_dance():
    """RULES.md 7.3 #8: The First Dance: +4 (no match, 0 + 4)."""
    assert mirth_score("The First Dance", [G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree"),
                                           G("Snub", "Cake", "Sun")]) == 4


def test_belle_matchmaker():
    """RULES.md 7.3 #9: Matchmaker: every icon of the group's guests counts as matched (3 guests, 9)."""
    assert mirth_score("Matchmaker", [G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree"),
                                      G("Snub", "Cake", "Sun")]) == 9


def test_belle_rushed():
    """RULES.md 7.3 #10 and 4.7 #3: RUSHED: the group is full now, takes no more cards, and is scored at
    its owner's next step 3 on what it holds (Chat 2 + Music 2 = 4)."""
    st = setup([empty_party(), [EIGHT[:2], [], []]], hands=[["RUSHED"], []])
    play(st, "play RUSHED", "player 1 group 1", "take Belle 1")
    assert st.group_is_full(1, 0) and len(st.party(1)[0]) == 3 and st.scores() == [0.0, 0.0]
    play(st, "take guest 1")
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["group 2", "group 3"]
    play(st, "group 2")
    assert st.scores()[1] == 4.0 and st.party(1)[0] == [] and not st.group_is_full(1, 0)


def test_belle_off_key():
    """RULES.md 7.3 #11: Off-key: -2 per Music icon (Chat 3 + Music 2 = 5, -4)."""
    assert mischief_score("Off-key", [G("Chat", "Music", "Fish"), G("Chat", "Music", "Tree"),
                                      G("Chat", "Books", "Sun")]) == 1


def test_belle_dull_reading():
    """RULES.md 7.3 #12: Dull Reading: -2 per Books icon (Chat 3 + Fish 3 = 6, -2)."""
    assert mischief_score("Dull Reading", [G("Chat", "Books", "Fish"), G("Chat", "Music", "Fish"),
                                           G("Chat", "Cake", "Fish")]) == 4


def test_belle_on_a_diet():
    """RULES.md 7.3 #13: On a Diet: -2 per Cake icon (Chat 3 + Cake 2 + Fish 2 = 7, -4)."""
    assert mischief_score("On a Diet", [G("Chat", "Cake", "Fish"), G("Chat", "Cake", "Tree"),
                                        G("Chat", "Tea", "Fish")]) == 3


def test_belle_spilled_tea():
    """RULES.md 7.3 #14: Spilled Tea: -2 per Tea icon (Tea 2 + Fish 3 = 5, -4)."""
    assert mischief_score("Spilled Tea", [G("Chat", "Tea", "Fish"), G("Flirt", "Tea", "Fish"),
                                          G("Snub", "Music", "Fish")]) == 1


def test_belle_hush():
    """RULES.md 7.3 #15: Hush: -2 per Chat icon (Chat 2 + Music 3 + Tree 2 = 7, -4)."""
    assert mischief_score("Hush", [G("Chat", "Music", "Fish"), G("Chat", "Music", "Tree"),
                                   G("Flirt", "Music", "Tree")]) == 3


def test_belle_cold_shoulder():
    """RULES.md 7.3 #16: Cold Shoulder: -2 per Flirt icon (Flirt 3 + Music 2 + Fish 2 = 7, -6)."""
    assert mischief_score("Cold Shoulder", [G("Flirt", "Music", "Fish"), G("Flirt", "Music", "Tree"),
                                            G("Flirt", "Books", "Fish")]) == 1


def test_belle_a_yawn():
    """RULES.md 7.3 #17: A Yawn: -4 (Chat 3 + Music 3 = 6, -4)."""
    assert mischief_score("A Yawn", [G("Chat", "Music", "Fish"), G("Chat", "Music", "Tree"),
                                     G("Chat", "Music", "Sun")]) == 2


def test_belle_a_scene():
    """RULES.md 7.3 #18: A Scene halves the score, rounded down, after all other modifiers:
    7 -> 3; and Chat 2 + Tea 2 = 4 with Earl Grey +4 = 8 -> 4 (not 4 / 2 + 4)."""
    assert mischief_score("A Scene", [G("Chat", "Music", "Fish"), G("Chat", "Music", "Tree"),
                                      G("Chat", "Books", "Fish")]) == 3
    assert mischief_score("A Scene", [G("Chat", "Tea", "Fish"), G("Chat", "Tea", "Tree"), "Earl Grey, Hot"]) == 4


def test_belle_loves_a_crowd():
    """RULES.md 7.3 #19: Loves a Crowd: 2 points per Belle in all parties (not in hands), at once."""
    parties = [[[G("Chat", "Music", "Fish"), "Earl Grey, Hot"], [], []],
               [["Off-key"], [G("Flirt", "Tea", "Sun"), "A Yawn"], []]]
    st = setup(parties, hands=[["Loves a Crowd"], ["Grand Entrance"]])
    play(st, "play Loves a Crowd")
    assert st.scores() == [6.0, 0.0] and st.hand(0) == [] and "Loves a Crowd" in st.discards()[1]
    assert st.phase() == "take a card"


def test_belle_may_i_cut_in():
    """RULES.md 7.3 #20: May I Cut In?: move a guest from an opponent's group into a non-full group of
    yours; without an opponent's guest it cannot be played."""
    mine = [[G("Chat", "Tea", "Fish")], EIGHT[:1] + ["Hush", "A Yawn", "Off-key"], []]
    theirs = [[G("Flirt", "Tea", "Sun")], [], [G("Snub", "Cake", "Moon"), "RUSHED"]]
    st = setup([mine, theirs], hands=[["May I Cut In?"], []])
    play(st, "play May I Cut In?")
    assert sorted(st.action_to_string(a) for a in st.legal_actions()) == sorted(
        ["guest " + G("Flirt", "Tea", "Sun"), "guest " + G("Snub", "Cake", "Moon")])
    play(st, "guest " + G("Snub", "Cake", "Moon"))
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["group 1", "group 3"]
    play(st, "group 3")
    assert st.party(0)[2] == [G("Snub", "Cake", "Moon")] and st.party(1)[2] == ["RUSHED"]
    assert st.phase() == "take a card"
    alone = setup([mine, empty_party()], hands=[["May I Cut In?"], []])
    assert alone.phase() == "take a card"       # no target: step 1 has nothing to offer


def test_belle_musical_chairs():
    """RULES.md 7.3 #21: Musical Chairs: move a guest of yours into another non-full group of yours."""
    a, b, c = G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree"), G("Snub", "Cake", "Sun")
    st = setup([[[a], [b, c, "Hush", "A Yawn"], []], empty_party()], hands=[["Musical Chairs"], []])
    play(st, "play Musical Chairs")
    assert sorted(st.legal_actions()) == sorted(st.string_to_action("guest " + n) for n in (a, b, c))
    play(st, "guest " + a)
    assert [st.action_to_string(x) for x in st.legal_actions()] == ["group 3"]
    play(st, "group 3")
    assert st.party(0) == [[], [b, c, "Hush", "A Yawn"], [a]]
    stuck = setup([[[a], ["Hush", "A Yawn", "Off-key", "Spilled Tea"], ["RUSHED"]], empty_party()],
                  hands=[["Musical Chairs"], []], full=[(0, 2)])
    assert stuck.phase() == "take a card"       # the only guest has no other open group to go to


def test_belle_regrets_only():
    """RULES.md 7.3 #22: Regrets Only: one Regret from each opponent who has any."""
    st = setup([empty_party()] * 3, hands=[["Regrets Only"], [], []], regrets=[1, 2, 0])
    play(st, "play Regrets Only")
    assert [st.regrets(p) for p in range(3)] == [2, 1, 0]
    none = setup([empty_party()] * 3, hands=[["Regrets Only"], [], []], regrets=[1, 0, 0])
    assert none.phase() == "take a card"


def test_belle_shown_the_door():
    """RULES.md 7.3 #23: Shown the Door: discard one guest from any group in any party."""
    a, b = G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree")
    st = setup([[[a], [], []], [[], [b, "Hush"], []]], hands=[["Shown the Door"], []])
    play(st, "play Shown the Door")
    assert sorted(st.legal_actions()) == sorted(st.string_to_action("guest " + n) for n in (a, b))
    play(st, "guest " + b)
    assert st.party(1) == [[], ["Hush"], []] and b in st.discards()[0]
    nobody = setup([empty_party(), [["Hush"], [], []]], hands=[["Shown the Door"], []])
    assert nobody.phase() == "take a card"


def test_belle_next_please():
    """RULES.md 7.3 #24: Next, Please: take the Regrets beside the first Guest, discard it, the line moves
    up; discarding the last Guest ends the game (RULES.md 4.4)."""
    guests = GUEST_NAMES[20:28]
    st = setup([empty_party(), empty_party()], guests=guests, guest_regrets=[2, 1], hands=[["Next, Please"], []],
               regrets=[0, 4])
    play(st, "play Next, Please")
    assert st.regrets(0) == 2 and guests[0] in st.discards()[0]
    assert st.guest_line()[:2] == [(guests[1], 1), (guests[2], 0)] and st.guest_line()[5] == (guests[6], 0)
    last = setup([empty_party(), empty_party()], guests=guests[:1], hands=[["Next, Please", "Hush"], []],
                 regrets=[1, 4])
    play(last, "play Next, Please")
    assert last.is_terminal() and last.returns() == [1 / 2 + 1 / 2, 2.0]


def test_belle_switch_partners():
    """RULES.md 7.3 #25: Switch Partners: swap a guest of yours with the first Guest of the line; the
    Regrets stay with the line position."""
    a, b = G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree")
    guests = [G("Snub", "Cake", "Sun"), G("Snub", "Tea", "Sun")]
    st = setup([[[a], [b, "Hush"], []], [[G("Chat", "Tea", "Moon")], [], []]], guests=guests,
               guest_regrets=[3], hands=[["Switch Partners"], []])
    play(st, "play Switch Partners")
    assert sorted(st.legal_actions()) == sorted(st.string_to_action("guest " + n) for n in (a, b))
    play(st, "guest " + b)
    assert st.party(0) == [[a], [guests[0], "Hush"], []]
    assert st.guest_line() == [(b, 3), (guests[1], 0)]


def test_belle_grand_entrance():
    """RULES.md 7.3 #26: Grand Entrance: 3 points."""
    st = setup([empty_party(), empty_party()], hands=[["Grand Entrance"], []], scores=[2, 0])
    play(st, "play Grand Entrance")
    assert st.scores() == [5.0, 0.0] and st.phase() == "take a card"


def test_belle_receiving_line():
    """RULES.md 7.3 #27: Receiving Line: 2 points per Lord and Lady in your party (not others')."""
    mine = [[G("Chat", "Books", "Sun")], [G("Chat", "Cake", "Sun"), G("Flirt", "Music", "Fish")], []]
    theirs = [[G("Chat", "Cake", "Tree")], [], []]
    assert G("Chat", "Cake", "Tree") in NOBLE
    st = setup([mine, theirs], hands=[["Receiving Line"], []])
    play(st, "play Receiving Line")
    assert st.scores() == [4.0, 0.0]


def test_placed_belles_need_an_open_group():
    """RULES.md 4.3 step 1 and 7.3: no card goes into a full group; a Belle without a target cannot be played."""
    grp = EIGHT
    st = setup([[grp[:1], grp[1:2], grp[2:3]], [grp[3:4], [], []]], hands=[["Earl Grey, Hot", "A Yawn"], []],
               full=[(0, 0), (0, 1), (0, 2)])
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["play A Yawn", "no Belle"]
    play(st, "play A Yawn")
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["player 1 group 1", "player 1 group 2",
                                                                     "player 1 group 3"]


# ---------------------------------------------------------------------- information and the contract
def test_determinize_reshuffles_only_the_unseen_guests_and_belles():
    """RULES.md 4.5: the deck orders and the Regrets' faces are hidden from everyone; the rest is public."""
    st = engines.make("belle_of_the_ball", players=3, seed=4)
    rng = random.Random(4)
    for _ in range(30):
        st.apply_action(rng.choice(st.legal_actions()))
    me = st.current_player()
    deck, faces, bdeck = st.hidden_cards()
    seen = set()
    for seed in range(6):
        d = st.determinize(me, seed=seed)
        assert d.observation(me) == st.observation(me)
        assert d.information_state_key(me) == st.information_state_key(me)
        d_deck, d_faces, d_bdeck = d.hidden_cards()
        assert sorted(d_deck + d_faces) == sorted(deck + faces) and len(d_faces) == len(faces)
        assert sorted(d_bdeck) == sorted(bdeck)
        seen.add((tuple(d_deck), tuple(d_faces), tuple(d_bdeck)))
    assert len(seen) == 6
    other = st.clone()
    other.apply_action(other.legal_actions()[0])
    assert other.information_state_key(me) != st.information_state_key(me)


def test_determinization_depends_only_on_what_the_observer_knows():
    """RULES.md 4.5: two states the observer cannot tell apart determinize alike for the same seed."""
    st = engines.make("belle_of_the_ball", players=4, seed=9)
    rng = random.Random(9)
    for _ in range(25):
        st.apply_action(rng.choice(st.legal_actions()))
    me = st.current_player()
    for j in range(3):
        world = st.determinize(me, seed=100 + j)
        assert world.hidden_cards() != st.hidden_cards()
        for k in range(3):
            assert world.determinize(me, seed=k).snapshot() == st.determinize(me, seed=k).snapshot()


def test_evaluation_adds_the_promise_of_open_groups():
    """RULES.md 4.3: a group of three matching guests is worth more than three strangers."""
    good = setup([[EIGHT[:3], [], []], empty_party()], scores=[5, 0])
    bad = setup([[[G("Chat", "Music", "Fish")], [G("Flirt", "Books", "Tree")], [G("Snub", "Cake", "Sun")]],
                 empty_party()], scores=[5, 0])
    assert good.evaluate(0) > bad.evaluate(0) > 5
    # a taken guest is valued at its best place: the fourth of the eight-match group beats a stranger
    line = [EIGHT[3], G("Snub", "Tea", "Moon")]
    line += [n for n in GUEST_NAMES if n not in EIGHT and n not in line][:28]    # enough to fill every group
    fit = setup([[EIGHT[:3], [], []], empty_party()], guests=line)
    misfit = fit.clone()
    play(fit, "take guest 1")
    play(misfit, "take guest 2")
    assert fit.evaluate(0) > misfit.evaluate(0)
    play(fit, "group 1")
    assert fit.evaluate(0) == 8 + 3 * 4 * 1.75 + 4      # scored 8; three empty groups; 4 Regrets


def test_evaluation_drops_the_promise_of_groups_the_guests_left_cannot_fill():
    """RULES.md 4.4: the game ends when the last Guest is taken, and an open group then brings half
    a point per card, not its matches. With 2 Guests left in 2 players' line, player 0 can count on
    one more: enough for the group that lacks one guest, not for the others."""
    party = [EIGHT[:3], [G("Snub", "Tea", "Moon")], []]
    used = set(EIGHT[:3]) | {G("Snub", "Tea", "Moon")}
    pool = [n for n in GUEST_NAMES if n not in used]
    long = setup([party, empty_party()], guests=pool[:30])
    short = setup([party, empty_party()], guests=pool[:2])
    promise = long.evaluate(0) - 4                      # 4 Regrets
    assert promise == 6 + 1.75 + 3 * 1.75 + 4 * 1.75    # EIGHT[:3] matches 6 icons so far
    assert short.evaluate(0) == 4 + 6 + 1.75 + 0.5      # the one-guest group's card: half a point


def test_bad_setups_are_refused():
    """Errors users can cause raise ValueError."""
    with pytest.raises(ValueError, match="unknown card"):
        setup([[["Nobody"], [], []], empty_party()])
    with pytest.raises(ValueError, match="unknown guest"):
        setup([empty_party(), empty_party()], guests=["Nobody"])
    with pytest.raises(ValueError, match="twice"):
        setup([[EIGHT[:1], EIGHT[:1], []], empty_party()])
    with pytest.raises(ValueError):
        engines.make("belle_of_the_ball", players=6)
    with pytest.raises(ValueError):
        engines.make("belle_of_the_ball").string_to_action("dance")


@pytest.mark.parametrize("bad", [
    {"to_move": 2}, {"to_move": -1}, {"full": [(2, 0)]}, {"full": [(0, 3)]},
    {"hands": [[], [], []]}, {"regrets": [1, 1, 1]}, {"scores": [0, 0, 0]},
    {"guest_regrets": [0] * 7}, {"belle_regrets": [0] * 7},
])
def test_setups_out_of_range_are_refused(bad):
    """Errors users can cause raise ValueError: seats, groups and line positions an explicit setup
    names must exist (RULES.md 4.2: 3 groups each, lines of 6), not write past the position."""
    with pytest.raises(ValueError):
        setup([empty_party(), empty_party()], **bad)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_cards_and_regrets_are_conserved_in_random_games(players):
    """RULES.md 4.2 and 4.3: Regrets never enter or leave the game; every card is somewhere."""
    for seed in range(3):
        st = engines.make("belle_of_the_ball", players=players, seed=seed)
        total_regrets = (4 if players == 2 else 3) * players
        rng = random.Random(seed)
        while True:
            parties = [c for p in range(players) for group in st.party(p) for c in group]
            deck, faces, bdeck = st.hidden_cards()
            gdisc, bdisc = st.discards()
            belle, guest = st.pending()
            guests = [c for c in parties if c in BY_ICONS.values()] + [n for n, _ in st.guest_line()] + deck + faces + gdisc
            guests += [guest] if guest and guest not in guests else []
            assert sorted(guests) == sorted(GUEST_NAMES)
            belles = [c for c in parties if c in BELLE_NAMES] + [n for n, _ in st.belle_line()] + bdeck + bdisc
            belles += [n for p in range(players) for n in st.hand(p)] + ([belle] if belle and belle not in bdisc else [])
            assert sorted(belles) == sorted(BELLE_NAMES)
            held = sum(st.regrets(p) for p in range(players))
            assert len(faces) == total_regrets
            assert held + sum(r for _, r in st.guest_line() + st.belle_line()) == total_regrets
            if st.is_terminal():
                break
            assert all(d % 2 == 0 for d in st.doubled_scores())     # halves come only at the end
            st.apply_action(rng.choice(st.legal_actions()))


def test_corrected_card_texts_replace_the_data_without_code_changes(tmp_path):
    """RULES.md 7.3: the Belles are data; a corrected text changes the engine's scoring."""
    import json

    from engines import belle_of_the_ball as bob
    doc = json.load(open(bob._DATA + "/belle_belles.json"))
    doc["belles"][0].update(points=3)                       # Earl Grey, Hot: +3 per Tea
    doc["belles"][8].update(effect="flat", points=1)        # Matchmaker as a flat +1
    path = tmp_path / "belles.json"
    path.write_text(json.dumps(doc))
    try:
        bob._load_cards(belle_file=str(path))
        assert mirth_score("Earl Grey, Hot", [G("Chat", "Tea", "Fish"), G("Chat", "Tea", "Tree"),
                                              G("Flirt", "Tea", "Fish")]) == 7 + 9
        assert mirth_score("Matchmaker", [G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree"),
                                          G("Snub", "Cake", "Sun")]) == 1
        doc["belles"][0].update(mode="mayhem")
        path.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match="cannot have effect"):
            bob._load_cards(belle_file=str(path))
    finally:
        bob._load_cards()
    assert mirth_score("Matchmaker", [G("Chat", "Music", "Fish"), G("Flirt", "Books", "Tree"),
                                      G("Snub", "Cake", "Sun")]) == 9


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_benchmark_loops_run_fresh_deals_to_the_end(players):
    """RULES.md 4.2: c_reset deals a new game; the C loops leave the prototype untouched."""
    from engines import core
    st = engines.make("belle_of_the_ball", players=players, seed=2)
    before = st.snapshot()
    core.run_rollouts(st, 200, 3)
    core.run_clones(st, 1000)
    core.run_apply_undo(st, 1000, 3)
    assert st.snapshot() == before
    done = st.clone()
    done.rollout(seed=5)
    assert done.is_terminal() and sum(done.doubled_scores()) > 0


@pytest.mark.parametrize("seed", range(6))
def test_every_seat_sees_the_real_half_point_scores(seed):
    """RULES.md, Belle of the Ball, scoring: points come in halves; what a seat sees is the score,
    not the score rounded down."""
    st = engines.make("belle_of_the_ball", seed=seed)
    rng = random.Random(seed)
    while not st.is_terminal():
        st.apply_action(rng.choice(st.legal_actions()))
        for p in range(st.num_players):
            assert st.observation(p)["scores"] == [v / 2 for v in st.doubled_scores()]
    assert st.observation(0)["scores"] == st.returns()


# ---------------------------------------------------------------------- events (engines/events.py)
def test_events_of_a_mirth_belle_played_and_its_group_scored():
    """RULES.md 4.3 steps 1-3 and 7.3 #1: Earl Grey, Hot played into one's own group; the guest taken
    fills the group, which is scored at once with the Belle's +2 per Tea icon."""
    from engines.events import Event
    tea = [G("Chat", "Tea", "Fish"), G("Chat", "Tea", "Tree")]
    line = [G("Flirt", "Tea", "Sun")] + [n for n in GUEST_NAMES if n not in tea][10:15]
    st = setup([[tea, [], []], empty_party()], guests=line, hands=[["Earl Grey, Hot"], []])
    assert st.apply_with_events(st.string_to_action("play Earl Grey, Hot")) == [
        Event("belle_played", 0, "Earl Grey, Hot", "mirth")]
    assert st.apply_with_events(st.string_to_action("group 1")) == [
        Event("belle_target", 0, "Earl Grey, Hot", "group 1")]
    assert st.apply_with_events(st.string_to_action("take guest 1")) == [
        Event("guest_taken", 0, line[0], "position 1")]
    # Chat 2 + Tea 3 + Fish 0 = 5, +2 x 3 Tea = 11
    assert st.apply_with_events(st.string_to_action("group 1")) == [
        Event("guest_seated", 0, line[0], "group 1"), Event("interest_seated", 0, "Flirt", "A"),
        Event("interest_seated", 0, "Tea", "B"), Event("interest_seated", 0, "Sun", "C"),
        Event("group_scored", 0, "group 1", "11"), Event("belle_scored", 0, "Earl Grey, Hot", "11")]
    assert st.scores()[0] == 11.0


def test_events_at_the_end_say_which_belles_each_seat_holds():
    """RULES.md 4.4: the game ends when the last Guest is taken; every Belle in a hand or a party is held."""
    from engines.events import Event
    st = setup([[["A Wink"], [], []], empty_party()], guests=[G("Chat", "Music", "Fish")],
               hands=[[], ["Hush"]], regrets=[1, 2])
    events = st.apply_with_events(st.string_to_action("take guest 1"))
    assert st.is_terminal()
    assert [e for e in events if e.kind.endswith("_at_end")] == [
        Event("belle_held_at_end", 0, "A Wink", "group 1"), Event("regrets_held_at_end", 0, "Regret", "1"),
        Event("belle_held_at_end", 1, "Hush", "hand"), Event("regrets_held_at_end", 1, "Regret", "2")]
