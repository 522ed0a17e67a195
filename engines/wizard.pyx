"""Wizard (Ken Fisher 1984; Amigo 1996): trick-taking with exact bidding. Rules: RULES.md 1 and 7.5.

Cards. Suits are lettered after BGA's names: d (dwarves), e (elves), g (giants), h (humans), suits
0..3; ranks print 1..13 (13 high). A suited card is id suit*13 + rank-1 (0..51) and prints as
rank+suit ("13h", "1d"). The 4 Wizards (bits 52..55 of a hand) print "W", the 4 Jesters (56..59) "J".

Actions (79 distinct):
  0..51   play that suited card
  52      play a Wizard ("W"; the four are alike, so one action plays any of them)
  53      play a Jester ("J")
  54..74  bid 0..20 ("bid 3")
  75..78  trump d, e, g, h: the dealer's choice after a Wizard is turned up ("trump h")

Parameters: players 3..6; plus_minus_one, hidden_bids, secret_bids, five_rounds, amigo_tournament
(bool flags, RULES.md 1.7); hands: a tuple of hand sizes, one round each (() = the variant's schedule).
Round r of the schedule has index r-1 in `round()`; scoring of a round is applied by the action that
ends it, which also deals the next round.
"""
from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t
from libc.string cimport memset, memcpy
from engines.core cimport (GameState, Rng, action_t, rng_seed, rng_next, rng_below, HORIZON_ROUND,
                           MAX_ACTIONS)

cdef extern from *:
    """
    static inline int wz_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int wz_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int wz_popcount(unsigned long long x) nogil
    int wz_ctz(unsigned long long x) nogil

cdef enum:
    MAXP = 6
    MAXR = 32
    NCARDS = 60
    A_WIZ = 52
    A_JES = 53
    A_BID = 54
    A_TRUMP = 75
    NACT = 79
    PH_TRUMP = 0
    PH_BID = 1
    PH_PLAY = 2
    PH_OVER = 3
    LED_NONE = -1
    LED_FREE = 4          # a Wizard was led: nothing to follow
    HIDE_NONE = 0
    HIDE_UNTIL_PLAY = 1   # hidden_bids: revealed when bidding ends
    HIDE_UNTIL_END = 2    # secret_bids: revealed when the round ends

cdef uint64_t SUITED = (<uint64_t>1 << 52) - 1
cdef uint64_t WIZ = (<uint64_t>0xF) << 52
cdef uint64_t JES = (<uint64_t>0xF) << 56
cdef uint64_t ALL = (<uint64_t>1 << 60) - 1
cdef uint64_t SUIT_MASK[4]
cdef int8_t SUIT_OF[NCARDS]

SUITS = "degh"
SUIT_NAMES = ("dwarves", "elves", "giants", "humans")

AMIGO = {3: (2, 4, 6, 8, 10, 12, 14, 16, 18, 20),
         4: (1, 3, 5, 7, 9, 11, 12, 13, 14, 15),
         5: (2, 4, 5, 6, 7, 8, 9, 10, 11, 12),
         6: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}


cdef void _init_tables() noexcept:
    cdef int c, s
    for s in range(4):
        SUIT_MASK[s] = ((<uint64_t>1 << 13) - 1) << (13 * s)
    for c in range(NCARDS):
        SUIT_OF[c] = c // 13 if c < 52 else (4 if c < 56 else 5)

_init_tables()


cdef struct WizPos:
    uint64_t hand[MAXP]
    uint64_t priv_key[MAXP]    # per player: hash of what only they saw (their hands, their hidden bids)
    uint64_t pub_key           # hash of every public event so far
    uint64_t gone              # cards played this round (hand bits)
    int32_t score[MAXP]
    int16_t exact[MAXP]        # rounds in which the player bid exactly
    int8_t sched[MAXR]         # hand size of each round
    int8_t plays[NCARDS]       # this round's plays (action ids), in order
    int8_t play_by[NCARDS]
    int8_t bids[MAXP]          # -1 until made
    int8_t tricks[MAXP]
    int8_t void[MAXP]          # bit s: known to hold no card of suit s (revealed by play)
    int8_t nplayers
    int8_t nrounds
    int8_t round
    int8_t cards               # hand size this round
    int8_t dealer
    int8_t to_move             # -1 once over
    int8_t phase
    int8_t turn_up             # card id, -1 when every card is dealt
    int8_t trump               # suit, -1 for none (or not yet chosen)
    int8_t led                 # LED_NONE, LED_FREE or the led suit
    int8_t trick_len
    int8_t win_player          # current winner of the trick
    int8_t win_kind            # 0 Jesters only, 1 led suit, 2 trump, 3 Wizard
    int8_t win_rank
    int8_t n_bids
    int8_t bid_sum
    int8_t n_plays
    int8_t tricks_done
    int8_t rounds_scored
    int8_t plus_minus_one
    int8_t hide
    int8_t _pad[5]


cdef inline uint64_t _mix(uint64_t k, uint64_t x) noexcept nogil:
    k = (k ^ (x + 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL
    return k ^ (k >> 31)

cdef inline uint64_t _canon(uint64_t h) noexcept nogil:
    """A hand with its Wizards and Jesters as counts (they are indistinguishable)."""
    return (h & SUITED) | (<uint64_t>wz_popcount(h & WIZ) << 52) | (<uint64_t>wz_popcount(h & JES) << 56)

cdef inline int _canon_card(int c) noexcept nogil:
    if c < 0:
        return 63
    return c if c < 52 else (A_WIZ if c < 56 else A_JES)

cdef inline int _next(WizPos* s, int p) noexcept nogil:
    return 0 if p + 1 == s.nplayers else p + 1

cdef inline bint _bid_hidden(WizPos* s) noexcept nogil:
    """Are the bids made so far hidden from the other players right now?"""
    if s.hide == HIDE_UNTIL_PLAY:
        return s.phase == PH_BID
    if s.hide == HIDE_UNTIL_END:
        return s.phase == PH_BID or s.phase == PH_PLAY
    return False


cdef void _begin_round(WizPos* s) noexcept nogil:
    """Hands and turn-up are in place: sets trump, phase and the per-round bookkeeping."""
    cdef int p, t = s.turn_up
    s.cards = s.sched[s.round]
    for p in range(s.nplayers):
        s.bids[p] = -1
        s.tricks[p] = 0
        s.void[p] = 0
        s.priv_key[p] = _mix(s.priv_key[p], _canon(s.hand[p]))
    s.gone = 0
    s.n_bids = s.bid_sum = s.n_plays = s.tricks_done = s.trick_len = 0
    s.led = LED_NONE
    s.win_kind = 0
    s.win_player = -1
    s.win_rank = -1
    s.trump = -1
    s.phase = PH_BID
    s.to_move = _next(s, s.dealer)
