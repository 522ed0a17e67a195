"""What happened in a move, as typed events: `state.apply_with_events(action)` (engines/core.pyx).

An event is `Event(kind, seat, item, detail)`: `seat` is the seat the event is about (-1 for none, or
for the King in Royal Ball), `item` the component's stable name (a Belle's name, a card type, a
special card, a tile letter, a card), `detail` what else there is to say, as text. Events are the
referee's view: a face-down card is named. They are read off the position before and after the action
by each engine's `_events(before, action)`, so nothing in the engines' play records them and search
pays nothing.
The action that ends the game also reports what each seat holds then (the `*_at_end` kinds).

Vocabulary, per game (RULES.md sections in brackets), in columns kind, seat, item, detail:

wizard (1): `detail` is always "round N" (N from 1)
    turn_up      dealer     the turned-up card ("W", "J", "7h") or "none"    first action of the round
    trump_suit   dealer     the trump suit letter (d e g h) or "none"        first action of the round, or the
                                                                             dealer's choice after a Wizard (1.2)
    bid          bidder     the bid ("0".."20")
    card_played  player     the card ("13h", "W", "J")
    card_led     leader     the card that opened a trick (a Wizard led: item "W")
    trick_won    winner     the winning card
    round_scored each seat  the round's points ("-10", "40")                 (1.5)
belle_of_the_ball (4, 7.3):
    belle_played    player      Belle name   its mode: mirth, mischief or mayhem
    belle_target    seat hit    Belle name   "group G" (Mirth, Mischief) or "guest <name>" (Mayhem)
    belle_taken     taker       Belle name   "position K" in the Belle line
    guest_taken     taker       guest name   "position K" in the guest line
    guest_seated    owner       guest name   "group G": a guest placed in a group (taken or moved)
    interest_seated owner       interest     its tier A, B or C: one per icon of a seated guest (4.1)
    group_scored    owner       "group G"    the group's points (step 3)
    belle_scored    owner       Belle name   the points of the group it was scored in
    belle_held_at_end    seat   Belle name   "hand" or "group G"           (4.4)
    regrets_held_at_end  seat   "Regret"     how many
royal_ball (5):
    card_taken   taker      card type    "face-up" or "face-down"          (5.3.2)
    card_kept    active     card type    "face-up" or "face-down"          (5.3.3)
    king_given   active     card type    "face-up" or "face-down": the card the active player left to the King
    gift         giver      card type    ""                                (5.4)
    hand_scored  seat       card type    how many the seat held at the round's scoring (before feeding)
    king_count   -1         card type    the King's uneaten count          (5.5.2)
    animal_fed   seat (-1 King)  "Dog" or "Horse"   the food it ate        (5.5.1, 5.5.3)
    round_scored seat       the points   "round N"
    favour       seat       "favour"     "round N"
belladone_bluff (3, 7.2):
    card_placed     player   card ("R-3", "G-eye")   "<row> <position>" ("II 4")
    special_played  player   Reverse, Target, Jar or Eye   "face up" (active) or "face down" (3.5)
    eye_swap        player   the card swapped in     the card taken out
    eye_look        player   "Eye"                   the row: looked without swapping
    card_discarded  player   card                    ""                (3.4.6)
    row_won         winner   row (I, II, III)        the row's score   (3.6)
    special_in_won_row winner  special               "face up" or "face down", for each special in it
    row_scored      receiver row                     the row's score (the winner's, or a Jar's receiver)
    held_at_end     seat     card                    ""
insert (2, 7.1): squares a1..f6; a tile is A..D; "centre" is the inner 4x4 of the board, "edge" the rest
    tile_laid     -1       tile         "<quadrant> turned K" (top-left, top-right, bottom-left, bottom-right),
                                        reported with the first ring; tile "" for a layout given square by square
    ring_placed   player   tile of the square   "<square> centre" or "<square> edge"
    ring_flipped  new owner  tile of the square  "<square>"          (2.3.4)
    largest_group_at_end  seat  "group"  its size                      (2.4)
"""
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from engines.core import GameState


class Event(NamedTuple):
    kind: str
    seat: int
    item: str
    detail: str = ""


# The kinds each game reports, as the vocabulary above lists them.
KINDS = {
    "wizard": ("turn_up", "trump_suit", "bid", "card_played", "card_led", "trick_won", "round_scored"),
    "belle_of_the_ball": ("belle_played", "belle_target", "belle_taken", "guest_taken", "guest_seated",
                          "interest_seated", "group_scored", "belle_scored", "belle_held_at_end",
                          "regrets_held_at_end"),
    "royal_ball": ("card_taken", "card_kept", "king_given", "gift", "hand_scored", "king_count", "animal_fed",
                   "round_scored", "favour"),
    "belladone_bluff": ("card_placed", "special_played", "eye_swap", "eye_look", "card_discarded", "row_won",
                        "special_in_won_row", "row_scored", "held_at_end"),
    "insert": ("tile_laid", "ring_placed", "ring_flipped", "largest_group_at_end"),
}


def ended(before: "GameState", after: "GameState") -> bool:
    """Did the action from `before` to `after` end the game? (its events then say what each seat holds)"""
    return after.is_terminal() and not before.is_terminal()
