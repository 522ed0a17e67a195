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
from libc.string cimport memset
from libc.math cimport exp
from engines.core cimport GameState, Rng, action_t, rng_seed, rng_next, rng_below, HORIZON_ROUND
from engines.wizard_rules cimport may_play, hand_promise, suited_promise, round_score as c_round_score
from engines.registry import engine_params
from engines.events import Event, ended
cimport cython

cdef extern from *:
    """
    #if defined(__POPCNT__)
    static inline int wz_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    #else
    /* without -mpopcnt the builtin is a libgcc call; this is faster */
    static inline int wz_popcount(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    #endif
    static inline int wz_ctz(unsigned long long x) { return __builtin_ctzll(x); }

    static unsigned char wz_select8[256][8];   /* position of the r-th set bit of a byte */
    static void wz_init_select(void) {
        for (int b = 0; b < 256; b++) {
            int r = 0;
            for (int i = 0; i < 8; i++)
                if (b >> i & 1) wz_select8[b][r++] = (unsigned char)i;
        }
    }
    /* Byte i of the result: the set bits of x in bytes 0..i; its top byte is popcount(x). */
    static inline unsigned long long wz_byte_prefix(unsigned long long x) {
        unsigned long long b = x - ((x >> 1) & 0x5555555555555555ULL);
        b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
        b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return b * 0x0101010101010101ULL;
    }
    /* The position of the k-th (0-based) set bit of x, k < popcount(x), given wz_byte_prefix(x):
       a SWAR compare to find the byte, a table inside it. No data-dependent branch. */
    static inline int wz_select_in(unsigned long long x, unsigned long long prefix, int k) {
        const unsigned long long L = 0x0101010101010101ULL, H = 0x8080808080808080ULL;
        unsigned long long le = ((((unsigned long long)k * L) | H) - prefix) & H;
        int j = (int)(((le >> 7) * L) >> 56);
        int before = (int)(((prefix << 8) >> (8 * j)) & 0xFF);
        return 8 * j + wz_select8[(x >> (8 * j)) & 0xFF][k - before];
    }
    """
    int wz_popcount(unsigned long long x) nogil
    int wz_ctz(unsigned long long x) nogil
    unsigned long long wz_byte_prefix(unsigned long long x) nogil
    int wz_select_in(unsigned long long x, unsigned long long prefix, int k) nogil
    void wz_init_select()

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
    LED_FREE = 4          # a Wizard was led: nothing to follow
    LED_NONE = 5          # no card but Jesters yet
    HIDE_NONE = 0
    HIDE_UNTIL_PLAY = 1   # hidden_bids: revealed when bidding ends
    HIDE_UNTIL_END = 2    # secret_bids: revealed when the round ends

cdef uint64_t SUITED = (<uint64_t>1 << 52) - 1
cdef uint64_t WIZ = (<uint64_t>0xF) << 52
cdef uint64_t JES = (<uint64_t>0xF) << 56
cdef uint64_t ALL = (<uint64_t>1 << 60) - 1
cdef uint64_t SUIT_MASK[4]
cdef int8_t SUIT_OF[NCARDS]
cdef int8_t POP4[16]               # set bits of a 4-bit number (the Wizards or Jesters of a hand)
cdef uint64_t ALIKE_ACTIONS[256]   # by hand bits 52..59: the bits of A_WIZ and A_JES if it holds any
# Per card action (0..53), for a trick update without unpredictable branches:
cdef uint64_t PICK[A_BID]          # the hand bits the action takes its card from
cdef int8_t CODE[A_BID]            # suit 0..3; 4 Wizard; 6 Jester (matches no suit and no led code)
cdef int8_t LEDNEXT[A_BID][6]      # the led code after this card, by the led code before it
cdef int8_t VOIDBIT[A_BID][6]      # the void this card reveals, by the led code before it
cdef int8_t BASE[A_BID]            # trick strength: Wizard 64 (+16 as "led"), trump 32+rank,
cdef int8_t TRUMPV[A_BID]          # led suit 16+rank, anything else 0; the first card of the
cdef int8_t LEDV[A_BID]            # greatest strength takes the trick
cdef int8_t STRENGTH[5][6][A_BID]  # by trump + 1, led code after the card, card: that strength

SUITS = "degh"     # dwarves, elves, giants, humans

AMIGO = {3: (2, 4, 6, 8, 10, 12, 14, 16, 18, 20),
         4: (1, 3, 5, 7, 9, 11, 12, 13, 14, 15),
         5: (2, 4, 5, 6, 7, 8, 9, 10, 11, 12),
         6: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}


cdef void _init_tables() noexcept:
    cdef int c, s
    for s in range(4):
        SUIT_MASK[s] = ((<uint64_t>1 << 13) - 1) << (13 * s)
    cdef int a, led, t
    for c in range(NCARDS):
        SUIT_OF[c] = c // 13 if c < 52 else (4 if c < 56 else 5)
    for c in range(16):
        POP4[c] = (c & 1) + (c >> 1 & 1) + (c >> 2 & 1) + (c >> 3 & 1)
    for c in range(256):
        ALIKE_ACTIONS[c] = (<uint64_t>((c & 0xF) != 0) << A_WIZ) | (<uint64_t>((c >> 4) != 0) << A_JES)
    for a in range(A_BID):
        PICK[a] = (<uint64_t>1 << a) if a < 52 else (WIZ if a == A_WIZ else JES)
        CODE[a] = a // 13 if a < 52 else (4 if a == A_WIZ else 6)
        BASE[a] = 64 if a == A_WIZ else 0
        TRUMPV[a] = 32 + a % 13 if a < 52 else 0
        LEDV[a] = 16 + a % 13 if a < 52 else 16 * (a == A_WIZ)
        for led in range(6):
            if led == LED_NONE:
                LEDNEXT[a][led] = CODE[a] if a != A_JES else LED_NONE
            else:
                LEDNEXT[a][led] = led
            VOIDBIT[a][led] = (1 << led) if (a < 52 and led < 4 and CODE[a] != led) else 0
    for a in range(A_BID):
        for t in range(-1, 4):
            for led in range(6):
                STRENGTH[t + 1][led][a] = BASE[a] + (TRUMPV[a] if CODE[a] == t else (LEDV[a] if CODE[a] == led else 0))

_init_tables()
wz_init_select()


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
    int8_t win_str             # the winning card's strength (see BASE); -1 before the first card
    int8_t _pad0
    int8_t n_bids
    int8_t bid_sum
    int8_t n_plays
    int8_t tricks_done
    int8_t rounds_scored
    int8_t plus_minus_one
    int8_t hide
    int8_t _pad[7]            # explicit tail padding to a multiple of 8 (sizeof 344)


cdef inline uint64_t _mix(uint64_t k, uint64_t x) noexcept nogil:
    k = (k ^ (x + 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL
    return k ^ (k >> 31)

cdef inline uint64_t _canon(uint64_t h) noexcept nogil:
    """A hand with its Wizards and Jesters as counts (they are indistinguishable)."""
    return (h & SUITED) | (<uint64_t>POP4[(h >> 52) & 0xF] << 52) | (<uint64_t>POP4[(h >> 56) & 0xF] << 56)

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
    s.win_str = -1
    s.win_player = -1
    s.trump = -1
    s.phase = PH_BID
    s.to_move = _next(s, s.dealer)
    if t >= 0 and t < 52:
        s.trump = SUIT_OF[t]
    elif t >= 52 and t < 56:
        s.phase = PH_TRUMP
        s.to_move = s.dealer
    s.pub_key = _mix(s.pub_key, 0x1000 + s.round * 0x100 + s.dealer * 0x10000 + _canon_card(t))


cdef void _deal(WizPos* s, Rng* chance) noexcept nogil:
    """Shuffles all 60 cards, deals this round's hands and turns up the next card if one is left."""
    cdef int8_t deck[NCARDS]
    cdef int n = s.nplayers, r = s.sched[s.round], need, i, j, p, k
    cdef int8_t t
    cdef uint64_t h
    cdef Rng c = chance[0]      # a local copy, kept in registers (see WizardState.c_rollout)
    need = r * n
    for i in range(NCARDS):
        deck[i] = i
    i = 0
    for p in range(n):      # a Fisher-Yates shuffle of the first need + 1 places, dealt as drawn
        h = 0
        for k in range(r):
            j = i + rng_below(&c, NCARDS - i)
            t = deck[j]; deck[j] = deck[i]; deck[i] = t
            h |= <uint64_t>1 << t
            i += 1
        s.hand[p] = h
    s.turn_up = -1
    if need < NCARDS:
        j = need + rng_below(&c, NCARDS - need)
        s.turn_up = deck[j]
    chance[0] = c
    _begin_round(s)


cdef void _clear_game(WizPos* s) noexcept nogil:
    """Everything but the parameters (players, schedule, flags) back to the start, no cards dealt."""
    cdef int p
    for p in range(MAXP):
        s.score[p] = 0
        s.exact[p] = 0
        s.priv_key[p] = 0
        s.hand[p] = 0
    s.pub_key = 0x5157A2D
    for p in range(s.nrounds):
        s.pub_key = _mix(s.pub_key, s.sched[p])
    s.pub_key = _mix(s.pub_key, s.nplayers * 16 + s.plus_minus_one * 4 + s.hide)
    s.round = 0
    s.rounds_scored = 0


cdef void _new_game(WizPos* s, Rng* chance) noexcept nogil:
    _clear_game(s)
    s.dealer = rng_below(chance, s.nplayers)
    _deal(s, chance)


cdef void _end_round(WizPos* s, Rng* chance) noexcept nogil:
    cdef int p, b
    for p in range(s.nplayers):
        b = s.bids[p]
        s.score[p] += c_round_score(b, s.tricks[p])
        s.exact[p] += b == s.tricks[p]
        if s.hide == HIDE_UNTIL_END:
            s.pub_key = _mix(s.pub_key, 0x200 + p * 32 + b)
    s.rounds_scored += 1
    s.round += 1
    if s.round >= s.nrounds:
        s.phase = PH_OVER
        s.to_move = -1
        return
    s.dealer = _next(s, s.dealer)
    _deal(s, chance)


cdef inline void _choose_trump(WizPos* s, int suit) noexcept nogil:
    s.trump = suit
    s.pub_key = _mix(s.pub_key, A_TRUMP + suit)
    s.phase = PH_BID
    s.to_move = _next(s, s.dealer)


cdef inline void _bid(WizPos* s, int b) noexcept nogil:
    cdef int p = s.to_move, q
    s.bids[p] = b
    s.n_bids += 1
    s.bid_sum += b
    if s.hide:
        s.pub_key = _mix(s.pub_key, 0x300)          # that p bid is public; the value is not
        s.priv_key[p] = _mix(s.priv_key[p], 0x400 + b)
    else:
        s.pub_key = _mix(s.pub_key, A_BID + b)
    if s.n_bids == s.nplayers:
        s.phase = PH_PLAY
        s.to_move = _next(s, s.dealer)
        if s.hide == HIDE_UNTIL_PLAY:
            for q in range(s.nplayers):
                s.pub_key = _mix(s.pub_key, 0x200 + q * 32 + s.bids[q])
    else:
        s.to_move = _next(s, p)


cdef inline int _forbidden_bid(WizPos* s) noexcept nogil:
    """plus_minus_one: the bid the player to move may not make (-1 if none)."""
    cdef int f
    if s.plus_minus_one and s.n_bids == s.nplayers - 1:
        f = s.cards - s.bid_sum
        if f >= 0:
            return f
    return -1


cdef inline int _strength(int a, int trump, int led) noexcept nogil:
    """Card action a's strength in a trick of trump suit `trump` (-1: none) whose led code is
    `led` once a is played (see BASE): one load from the table of every case."""
    return STRENGTH[trump + 1][led][a]


cdef inline void _play_cards(WizPos* s, int a, Rng* rng, Rng* chance) noexcept nogil:
    """Plays card action `a` for the player to move or, with a < 0, uniformly random cards drawn
    from `rng` to the end of the round (each as _random_card would draw it). The trick in
    progress lives in locals meanwhile: in the position, each of its byte-sized fields would be
    stored and loaded back between two cards, on the path from one card to the next."""
    cdef bint random = a < 0
    cdef int p = s.to_move, led = s.led, win_str = s.win_str, win_p = s.win_player
    cdef int trick_len = s.trick_len, n_plays = s.n_plays, st
    cdef uint64_t key = s.pub_key, gone = s.gone, m, bit
    while True:
        if random:
            a = _random_card_in(may_play(s.hand[p], led), rng)
        m = s.hand[p] & PICK[a]
        bit = m & (~m + 1)
        s.hand[p] &= ~bit
        gone |= bit
        s.plays[n_plays] = a
        s.play_by[n_plays] = p
        n_plays += 1
        key = _mix(key, a)
        s.void[p] |= VOIDBIT[a][led]
        if led == LED_NONE:     # a branch, not a table: the next card need not wait for this one
            led = LEDNEXT[a][led]
        st = _strength(a, s.trump, led)
        win_p = p if st > win_str else win_p
        win_str = st if st > win_str else win_str
        trick_len += 1
        if trick_len < s.nplayers:
            p = _next(s, p)
        else:
            s.tricks[win_p] += 1
            s.tricks_done += 1
            p = win_p
            trick_len = 0
            led = LED_NONE
            win_str = -1
            win_p = -1
            if s.tricks_done == s.cards:
                break
        if not random:
            break
    s.to_move = p
    s.led = led
    s.win_str = win_str
    s.win_player = win_p
    s.trick_len = trick_len
    s.n_plays = n_plays
    s.pub_key = key
    s.gone = gone
    if s.tricks_done == s.cards:
        _end_round(s, chance)


cdef inline void _play(WizPos* s, int a, Rng* chance) noexcept nogil:
    _play_cards(s, a, NULL, chance)


cdef inline uint64_t _playable(WizPos* s) noexcept nogil:
    """The hand bits the player to move may play."""
    return may_play(s.hand[s.to_move], s.led)


cdef int _legal(WizPos* s, action_t* out) noexcept nogil:
    cdef int n = 0, b, f
    cdef uint64_t m
    if s.phase == PH_PLAY:
        m = _playable(s)
        if m & WIZ:
            out[n] = A_WIZ
            n += 1
        if m & JES:
            out[n] = A_JES
            n += 1
        m &= SUITED
        while m:
            out[n] = wz_ctz(m)
            n += 1
            m &= m - 1
    elif s.phase == PH_BID:
        f = _forbidden_bid(s)
        for b in range(s.cards + 1):
            if b != f:
                out[n] = A_BID + b
                n += 1
    elif s.phase == PH_TRUMP:
        for b in range(4):
            out[n] = A_TRUMP + b
            n += 1
    return n


cdef inline int _random_card(WizPos* s, Rng* rng) noexcept nogil:
    """A uniformly random card action of the player to move (phase PH_PLAY)."""
    return _random_card_in(_playable(s), rng)


cdef inline int _random_card_in(uint64_t m, Rng* rng) noexcept nogil:
    """A uniformly random card action among the playable hand bits m."""
    # the playable card actions as a bit set: action ids 0..53 are bit positions
    cdef uint64_t acts = (m & SUITED) | ALIKE_ACTIONS[m >> 52]
    cdef uint64_t prefix = wz_byte_prefix(acts)
    return wz_select_in(acts, prefix, rng_below(rng, <int>(prefix >> 56)))


cdef inline int _random_action(WizPos* s, Rng* rng) noexcept nogil:
    cdef int k, f
    if s.phase == PH_PLAY:
        return _random_card(s, rng)
    if s.phase == PH_BID:
        f = _forbidden_bid(s)
        if f >= 0 and f <= s.cards:
            k = rng_below(rng, s.cards)
            return A_BID + (k + 1 if k >= f else k)
        return A_BID + rng_below(rng, s.cards + 1)
    return A_TRUMP + rng_below(rng, 4)


cdef inline void _apply(WizPos* s, int a, Rng* chance) noexcept nogil:
    if a < A_BID:
        _play(s, a, chance)
    elif a < A_TRUMP:
        _bid(s, a - A_BID)
    else:
        _choose_trump(s, a - A_TRUMP)


cdef double _expected_tricks(WizPos* s, int p) noexcept nogil:
    """Tricks won so far plus a rough count of what the hand still promises (wizard_rules'
    hand_promise, with a bonus for leading the trick in progress after its Wizards)."""
    cdef double est = hand_promise(s.hand[p] & WIZ, s.trump, s.tricks[p])    # its Wizards
    if s.trick_len and s.win_player == p:
        est += 0.9 if s.win_str >= 64 else 0.6    # leading the trick in progress
    est = suited_promise(s.hand[p], s.trump, est)
    return est if est < s.cards else s.cards


cdef double _bid_time_estimate(WizPos* s, int p) noexcept nogil:
    """_expected_tricks of p's hand as it was dealt: its cards plus those it played this round."""
    cdef uint64_t dealt = s.hand[p]
    cdef int i
    cdef double est
    for i in range(s.n_plays):
        if s.play_by[i] == p:
            if s.plays[i] < 52:
                dealt |= <uint64_t>1 << s.plays[i]
            elif s.plays[i] == A_WIZ:
                dealt |= _free_wizard_bit(dealt)
    est = hand_promise(dealt, s.trump, 0.0)
    return est if est < s.cards else s.cards


cdef inline uint64_t _free_wizard_bit(uint64_t hand) noexcept nogil:
    """A Wizard bit (52-55) that `hand` does not hold, standing for a Wizard it played."""
    cdef uint64_t free = ~hand & WIZ
    return free & (~free + 1)


# ---- determinization helpers ----

cdef void _forget_private(WizPos* s, int p) noexcept nogil:
    """Other players' private keys rebuilt from the sampled world, so no trace of the truth is left."""
    cdef int q, i, a
    cdef uint64_t dealt
    for q in range(s.nplayers):
        if q == p:
            continue
        dealt = _canon(s.hand[q])
        for i in range(s.n_plays):
            if s.play_by[i] == q:
                a = s.plays[i]
                dealt += (<uint64_t>1 << a) if a < 52 else (<uint64_t>1 << (52 if a == A_WIZ else 56))
        s.priv_key[q] = _mix(_mix(0xD37E, q), dealt)
        if s.bids[q] >= 0 and s.hide:
            s.priv_key[q] = _mix(s.priv_key[q], 0x400 + s.bids[q])


cdef void _renumber_alike(WizPos* s, int base) noexcept nogil:
    """The 4 Wizards (base 52) or Jesters (56) are alike, but which of their bits a hand holds
    depends on the true deal: renumber them in a fixed order (turn-up, played, hands by seat) so
    that worlds the observer cannot tell apart are equal states."""
    cdef uint64_t mask = (<uint64_t>0xF) << base
    cdef int nxt = base, k, q
    if s.turn_up >= base and s.turn_up < base + 4:
        s.turn_up = nxt
        nxt += 1
    k = wz_popcount(s.gone & mask)
    s.gone = (s.gone & ~mask) | (((<uint64_t>1 << k) - 1) << nxt)
    nxt += k
    for q in range(s.nplayers):
        k = wz_popcount(s.hand[q] & mask)
        s.hand[q] = (s.hand[q] & ~mask) | (((<uint64_t>1 << k) - 1) << nxt)
        nxt += k


cdef bint _hall_ok(int* rem, int* cap, int8_t* void, int n, int skip, int stock) noexcept nogil:
    """Can the remaining suited cards (rem[suit]) still be placed, given the players' room (cap)
    and known voids, and the undealt stock (room `stock`, no constraint)? Hall's condition per
    set of suits; Wizards and Jesters fit anywhere, so they add no condition."""
    cdef int T, sset, q, demand, room
    for T in range(1, 16):
        demand = 0
        for sset in range(4):
            if T >> sset & 1:
                demand += rem[sset]
        if demand == 0:
            continue
        room = stock
        for q in range(n):
            if q != skip and cap[q] and ((~void[q]) & T):
                room += cap[q]
        if demand > room:
            return False
    return True


cdef void _deal_unseen(WizPos* s, int p, uint64_t unseen, int* cap, Rng* rng) noexcept nogil:
    """The unseen cards dealt at random, cap[q] to each other player q, the rest left in the stock."""
    cdef int8_t deck[NCARDS]
    cdef int8_t c
    cdef int k = 0, i = 0, j, q, r
    cdef uint64_t h
    while unseen:
        deck[k] = wz_ctz(unseen)
        unseen &= unseen - 1
        k += 1
    for q in range(s.nplayers):
        if q == p:
            continue
        h = 0
        for r in range(cap[q]):     # a Fisher-Yates shuffle, stopped once the hands are full
            j = i + rng_below(rng, k - i)
            c = deck[j]
            deck[j] = deck[i]
            h |= <uint64_t>1 << c
            i += 1
        s.hand[q] = h


cdef void _resample_hands(WizPos* s, int p, Rng* rng) noexcept nogil:
    """The other players' hands drawn from the unseen cards: uniform over the deals that give each
    its hand size and no card of a suit it is known void in."""
    cdef int n = s.nplayers, q, i, j, k, c, t, suit, total, pick, cand_n
    cdef int cap[MAXP]
    cdef int rem[4]
    cdef int order[NCARDS]
    cdef int cand[MAXP + 1]
    cdef int weight[MAXP + 1]
    cdef int stock, voids = 0
    cdef uint64_t unknown = ALL & ~s.hand[p] & ~s.gone, m
    if s.turn_up >= 0:
        unknown &= ~(<uint64_t>1 << s.turn_up)
    total = 0
    for q in range(n):
        cap[q] = 0 if q == p else wz_popcount(s.hand[q])
        total += cap[q]
        if q != p:
            s.hand[q] = 0
            voids |= s.void[q]
    if not voids:
        # hand sizes are the only constraint: a plain deal has the distribution of the weighted
        # draw below (which picks each card's holder by the room left), at a fraction of its cost
        _deal_unseen(s, p, unknown, cap, rng)
        return
    rem[0] = rem[1] = rem[2] = rem[3] = 0
    k = 0
    m = unknown
    while m:
        c = wz_ctz(m)
        m &= m - 1
        order[k] = c
        k += 1
        if c < 52:
            rem[SUIT_OF[c]] += 1
    stock = k - total
    for i in range(k - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = order[i]; order[i] = order[j]; order[j] = t
    for i in range(k):
        c = order[i]
        suit = SUIT_OF[c]
        # candidates: players with room who may hold this card, and the stock (index n)
        cand_n = 0
        for q in range(n):
            if q != p and cap[q] and (suit >= 4 or not (s.void[q] >> suit & 1)):
                cand[cand_n] = q
                weight[cand_n] = cap[q]
                cand_n += 1
        if stock:
            cand[cand_n] = n
            weight[cand_n] = stock
            cand_n += 1
        if suit < 4:
            rem[suit] -= 1
        while True:
            total = 0
            for j in range(cand_n):
                total += weight[j]
            pick = rng_below(rng, total)
            j = 0
            while pick >= weight[j]:
                pick -= weight[j]
                j += 1
            q = cand[j]
            if q == n:
                stock -= 1
            else:
                cap[q] -= 1
            # a choice that keeps the rest placeable always exists (the true deal is one)
            if _hall_ok(rem, cap, s.void, n, p, stock) or total == weight[j]:
                break
            if q == n:
                stock += 1
            else:
                cap[q] += 1
            weight[j] = 0
        if q < n:
            s.hand[q] |= <uint64_t>1 << c


cdef void _spread(WizPos* s, int* who, int k, int units, Rng* rng) noexcept nogil:
    """Bids for players who[0..k) summing to `units`, each at most s.cards (units <= k * cards)."""
    cdef int i, q
    for i in range(k):
        s.bids[who[i]] = 0
    while units:
        q = who[rng_below(rng, k)]
        if s.bids[q] < s.cards:
            s.bids[q] += 1
            units -= 1


cdef void _resample_bids(WizPos* s, int p, Rng* rng) noexcept nogil:
    """Bids hidden from p: uniform over legal values, keeping what p knows about them."""
    cdef int who[MAXP]
    cdef int8_t saved[MAXP]
    cdef int k = 0, q, i, tries, known = 0, target, total
    if not _bid_hidden(s):
        return
    for q in range(s.nplayers):
        saved[q] = s.bids[q]
        if q != p and s.bids[q] >= 0:
            who[k] = q
            k += 1
        elif s.bids[q] >= 0:
            known += s.bids[q]
    if k == 0:
        return
    if s.plus_minus_one and p == s.dealer and s.n_bids >= s.nplayers - 1:
        # the last bidder learned min(others' total, cards + 1) from the bid it was denied
        target = s.bid_sum - (s.bids[p] if s.bids[p] >= 0 else 0)
        if target <= s.cards:
            _spread(s, who, k, target, rng)
        else:
            for tries in range(64):
                total = 0
                for i in range(k):
                    s.bids[who[i]] = rng_below(rng, s.cards + 1)
                    total += s.bids[who[i]]
                if total > s.cards:
                    break
            if total <= s.cards:
                _spread(s, who, k, s.cards + 1, rng)
    else:
        for tries in range(64):
            total = known
            for i in range(k):
                s.bids[who[i]] = rng_below(rng, s.cards + 1)
                total += s.bids[who[i]]
            if not (s.plus_minus_one and s.n_bids == s.nplayers and total == s.cards):
                break
        else:
            for q in range(s.nplayers):
                s.bids[q] = saved[q]
    total = 0
    for q in range(s.nplayers):
        if s.bids[q] >= 0:
            total += s.bids[q]
    s.bid_sum = total


def round_score(int bid, int tricks):
    """A seat's points for a round (RULES.md 1.5), as the engine scores it."""
    return c_round_score(bid, tricks)


def card_to_string(int c):
    """A card action (0..53) as text: rank+suit, W or J."""
    if c < 52:
        return f"{c % 13 + 1}{SUITS[c // 13]}"
    return "W" if c == A_WIZ else "J"


def parse_card(str text):
    """'W', 'J' or rank+suit ('13h', '1d') to a card action id (52 for W, 53 for J)."""
    t = text.strip().lower()
    if t == "w":
        return A_WIZ
    if t == "j":
        return A_JES
    cdef Py_ssize_t k = len(t) - 1
    if k >= 1 and t[k] in SUITS and t[:k].isdigit() and 1 <= int(t[:k]) <= 13:
        return SUITS.index(t[k]) * 13 + int(t[:k]) - 1
    raise ValueError(f"unknown card {text!r}: cards are W, J or a rank 1..13 and a suit of {SUITS}")


def schedule(int players, dict params):
    """The hand size of each round for these (complete) parameters (RULES.md 1.2 and 1.7)."""
    hands = params["hands"]
    five, amigo = params["five_rounds"], params["amigo_tournament"]
    if (len(hands) > 0) + five + amigo > 1:
        raise ValueError("hands, five_rounds and amigo_tournament each set the rounds: choose one")
    full = NCARDS // players
    if hands:
        if len(hands) > MAXR:
            raise ValueError(f"at most {MAXR} rounds")
        if any(not isinstance(h, int) or not 1 <= h <= full for h in hands):
            raise ValueError(f"hand sizes must be 1..{full} with {players} players")
        return tuple(hands)
    if five:
        return (full,) * 5
    if amigo:
        return AMIGO[players]
    return tuple(range(1, full + 1))


cdef class WizardState(GameState):
    cdef WizPos s

    def __cinit__(self, *args, **kwargs):
        self._pos = &self.s
        self._pos_size = sizeof(WizPos)

    def __init__(self, dict params, seed=0):
        cdef int i
        params = engine_params("wizard", params, MAXP)     # defaults and player counts
        n = params["players"]
        sched = schedule(n, params)
        self.game_id = "wizard"
        self.params = params
        self.num_players = n
        self.num_distinct_actions = NACT
        rng_seed(&self.chance, <uint64_t>seed)
        memset(&self.s, 0, sizeof(WizPos))
        self.s.nplayers = n
        self.s.nrounds = len(sched)
        for i, h in enumerate(sched):
            self.s.sched[i] = h
        self.s.plus_minus_one = params["plus_minus_one"]
        self.s.hide = (HIDE_UNTIL_END if params["secret_bids"]
                       else HIDE_UNTIL_PLAY if params["hidden_bids"] else HIDE_NONE)
        _new_game(&self.s, &self.chance)

    cdef int c_reset(self, uint64_t seed) except -1 nogil:
        rng_seed(&self.chance, seed)
        _new_game(&self.s, &self.chance)
        return 0

    @classmethod
    def from_deal(cls, players, hands, turn_up=None, dealer=0, round=None, seed=0, rounds=None, **flags):
        """A round dealt explicitly: `hands` lists each player's cards as text ("W", "J", "13h"),
        `turn_up` the turned-up card (None: drawn at random from the rest when cards remain),
        `dealer` the dealer. `rounds` is the game's `hands` parameter (the hand size of each round;
        None: the variant's schedule), `flags` the other parameters. The round is the first of the
        schedule with that hand size unless `round` (0-based) says otherwise. Scores start at 0;
        later rounds are dealt by chance (seeded by `seed`)."""
        from engines.registry import resolve
        if rounds is not None:
            flags["hands"] = tuple(rounds)
        full = resolve("wizard", players=players, **flags)
        cdef WizardState st = cls(full, seed)
        cdef WizPos* s = &st.s
        cdef int n = st.num_players, q
        if len(hands) != n:
            raise ValueError(f"give one hand per player ({n})")
        size = len(hands[0])
        if any(len(h) != size for h in hands):
            raise ValueError("every hand must have the same number of cards")
        sched = [s.sched[i] for i in range(s.nrounds)]
        if round is None:
            if size not in sched:
                raise ValueError(f"no round deals {size} cards; the rounds deal {sched}")
            round = sched.index(size)
        if not 0 <= round < s.nrounds or sched[round] != size:
            raise ValueError(f"round {round} does not deal {size} cards; the rounds deal {sched}")
        st.seat(dealer)
        used = 0

        def take(text):
            nonlocal used
            a = parse_card(text)
            if a < 52:
                bits = [a]
            else:
                bits = [b for b in range(52, 56) if a == A_WIZ] or list(range(56, 60))
            for b in bits:
                if not used >> b & 1:
                    used |= 1 << b
                    return b
            raise ValueError(f"card {text!r} dealt too often")

        masks = []
        for h in hands:
            m = 0
            for text in h:
                m |= 1 << take(text)
            masks.append(m)
        if size * n < NCARDS:
            if turn_up is None:
                rest = [b for b in range(NCARDS) if not used >> b & 1]
                t = rest[rng_below(&st.chance, len(rest))]
            else:
                t = take(turn_up)
        else:
            if turn_up is not None:
                raise ValueError("every card is dealt this round: there is no turn-up card")
            t = -1
        _clear_game(s)
        s.round = round
        s.dealer = dealer
        for q in range(n):
            s.hand[q] = masks[q]
        s.turn_up = t
        _begin_round(s)
        return st

    # ---- the hot path ----
    cdef int c_apply(self, action_t a) except -1 nogil:
        _apply(&self.s, a, &self.chance)
        return 0

    cdef int c_legal_actions(self, action_t* out) noexcept nogil:
        return _legal(&self.s, out)

    cdef int c_current_player(self) noexcept nogil:
        return self.s.to_move if self.s.phase != PH_OVER else -1

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.s.phase == PH_OVER

    cdef double c_returns(self, int p) noexcept nogil:   # the score so far too (GameState.c_score)
        return self.s.score[p]

    cdef int c_round(self) noexcept nogil:
        return self.s.round

    cdef double c_evaluate(self, int p) noexcept nogil:
        """Points so far plus the round's expected points: estimated tricks against the bid
        (or against the bid the hand suggests, before bidding)."""
        cdef WizPos* s = &self.s
        cdef double est, diff, pex
        cdef int b
        if s.phase == PH_OVER:
            return s.score[p]
        est = _expected_tricks(s, p)
        b = s.bids[p] if s.bids[p] >= 0 else <int>(est + 0.5)
        diff = est - b if est > b else b - est
        if s.tricks[p] > b:
            pex = 0.0
            if diff < s.tricks[p] - b:
                diff = s.tricks[p] - b
        else:
            pex = 1.0 - diff if diff < 1.0 else 0.0
        return s.score[p] + pex * (20.0 + 10.0 * b) - (1.0 - pex) * 10.0 * (diff if diff > 1.0 else 1.0)

    cdef int c_rollout(self, Rng* rng, int horizon) except -1 nogil:
        cdef WizPos* s = &self.s
        cdef int start = s.round
        # A local copy of the RNG: the compiler may keep it in registers, which it may not do
        # through a pointer that the position's byte-sized stores could alias.
        cdef Rng r = rng[0]
        while s.phase != PH_OVER:
            if horizon == HORIZON_ROUND and s.round != start:
                break
            if s.phase == PH_PLAY:
                _play_cards(s, -1, &r, &self.chance)     # the rest of the round's cards
            else:
                _apply(s, _random_action(s, &r), &self.chance)
        rng[0] = r
        return 0

    cdef action_t c_policy_action(self, Rng* rng) noexcept nogil:
        """A bid-chasing rule of thumb from what the mover sees (its hand and the table): the dealer
        names its longest suit trump; a bid is the hand's estimated tricks (`_expected_tricks`, the
        nearest allowed bid); in play, a player short of its bid plays, of the cards that would
        take the trick as it stands, the cheapest when it plays last and the strongest otherwise,
        else its weakest card; a player at or past its bid plays its strongest card that does not
        take the trick, else its weakest. Strength: in the trick as it stands, then by rank."""
        cdef WizPos* s = &self.s
        cdef int p = s.to_move, b, f, a, v, i, n, suit, most = -1, best = 0
        cdef int win_i = -1, win_v = 0, lose_i = -1, lose_v = 0, low_i = 0, low_v = 1 << 20
        cdef bint short, last
        cdef double est
        cdef action_t acts[NACT]
        if s.phase == PH_TRUMP:
            for suit in range(4):
                n = wz_popcount(s.hand[p] & SUIT_MASK[suit])
                if n > most:
                    most = n
                    best = suit
            return A_TRUMP + best
        if s.phase == PH_BID:
            est = _expected_tricks(s, p)
            b = <int>(est + 0.5)
            f = _forbidden_bid(s)
            if b == f:
                b = b + 1 if (b < s.cards and (b == 0 or est >= b)) else b - 1
            return A_BID + b
        n = _legal(s, acts)
        short = s.tricks[p] < s.bids[p]
        last = s.trick_len == s.nplayers - 1
        for i in range(n):
            a = acts[i]
            v = _strength(a, s.trump, LEDNEXT[a][s.led])
            if v > s.win_str:
                v = 16 * v + (a % 13 if a < 52 else 0)
                if win_i < 0 or (v < win_v if last else v > win_v):
                    win_i, win_v = i, v
            else:
                v = 16 * v + (a % 13 if a < 52 else 0)
                if lose_i < 0 or v > lose_v:
                    lose_i, lose_v = i, v
            if v < low_v:
                low_i, low_v = i, v
        if short:
            return acts[win_i if win_i >= 0 else low_i]
        return acts[lose_i if lose_i >= 0 else low_i]

    cdef double c_plausibility(self, int o) noexcept nogil:
        """How likely the other players' bids are with the hands they were dealt in this world, if
        each bids near its hand's estimate (`_bid_time_estimate`, as the playout policy bids): the
        product over them of exp(-(bid - estimate)**2 / 2). 1 under hidden or secret bids."""
        cdef WizPos* s = &self.s
        cdef double w = 1.0, d
        cdef int q
        if s.hide:
            return 1.0
        for q in range(s.nplayers):
            if q != o and s.bids[q] >= 0:
                d = s.bids[q] - _bid_time_estimate(s, q)
                w *= exp(-0.5 * d * d)
        return w

    # ---- imperfect information ----
    cdef action_t c_action_view(self, int o, action_t a) noexcept nogil:
        """How o sees the mover's action a: a hidden bid (hidden_bids, secret_bids) as "a bid"
        (A_BID), except the last bid of hidden_bids (all bids are revealed with it) and, under
        plus_minus_one, the bid before the dealer's as the dealer sees it: the total it learns,
        min(the others' total, cards + 1), as A_BID + that total. Everything else is public."""
        cdef WizPos* s = &self.s
        cdef int p = s.to_move, t
        if o == p or s.phase != PH_BID or not s.hide or a < A_BID or a >= A_TRUMP:
            return a
        if s.hide == HIDE_UNTIL_PLAY and s.n_bids == s.nplayers - 1:
            return a
        if s.plus_minus_one and o == s.dealer and s.n_bids + 1 >= s.nplayers - 1:
            t = s.bid_sum - (s.bids[o] if s.bids[o] >= 0 else 0) + (a - A_BID)
            return A_BID + (t if t <= s.cards else s.cards + 1)
        return A_BID

    cdef uint64_t c_infoset_key(self, int p) noexcept nogil:
        cdef WizPos* s = &self.s
        cdef uint64_t k = _mix(s.pub_key, _canon(s.hand[p]))
        k = _mix(k, s.priv_key[p])
        k = _mix(k, <uint64_t>p)
        if s.plus_minus_one and p == s.dealer and s.n_bids >= s.nplayers - 1 and s.phase != PH_OVER:
            # what the last bidder learns from the bid it may not make
            k = _mix(k, 0x500 + _others_total(s, p))
        return k

    cdef int c_determinize(self, int p, Rng* rng) except -1 nogil:
        if self.s.phase != PH_OVER:
            _resample_hands(&self.s, p, rng)
            _resample_bids(&self.s, p, rng)
            _forget_private(&self.s, p)
            _renumber_alike(&self.s, 52)
            _renumber_alike(&self.s, 56)
        rng_seed(&self.chance, rng_next(rng))
        return 0

    # ---- Python face ----
    def action_to_string(self, int action):
        if 0 <= action < A_BID:
            return card_to_string(action)
        if A_BID <= action < A_TRUMP:
            return f"bid {action - A_BID}"
        if A_TRUMP <= action < NACT:
            return f"trump {SUITS[action - A_TRUMP]}"
        raise ValueError(f"no action {action} in wizard")

    def string_to_action(self, str text):
        t = " ".join(text.strip().lower().split())
        if t.startswith("bid "):
            b = t[4:]
            if b.isdigit() and int(b) <= 20:
                return A_BID + int(b)
        elif t.startswith("trump "):
            if t[6:] in tuple(SUITS):
                return A_TRUMP + SUITS.index(t[6:])
        else:
            return parse_card(t)
        raise ValueError(f"unknown action {text!r} in wizard: a card (W, J, 13h), 'bid N' or 'trump h'")

    def hand(self, player):
        """The player's cards as text, suited cards by suit then rank, then Wizards, then Jesters."""
        h = self.s.hand[self.seat(player)]
        return ([card_to_string(c) for c in range(52) if h >> c & 1]
                + ["W"] * wz_popcount(h & WIZ) + ["J"] * wz_popcount(h & JES))

    def bids(self):
        """Every bid this round (None if not made yet), hidden or not: the referee's view."""
        return [None if self.s.bids[q] < 0 else int(self.s.bids[q]) for q in range(self.num_players)]

    def tricks(self):
        return [int(self.s.tricks[q]) for q in range(self.num_players)]

    def trump(self):
        """The trump suit's letter, None for no trump (or while the dealer has yet to choose)."""
        return None if self.s.trump < 0 else SUITS[self.s.trump]

    def turn_up(self):
        return None if self.s.turn_up < 0 else card_to_string(_canon_card(self.s.turn_up))

    def dealer(self):
        return int(self.s.dealer)

    def phase(self):
        return ("trump", "bid", "play", "over")[self.s.phase]

    def voids(self, player):
        """The suit letters `player` is known (from play) to lack this round."""
        v = self.s.void[self.seat(player)]
        return "".join(SUITS[i] for i in range(4) if v >> i & 1)

    def rounds(self):
        """Hand size of every round of this game."""
        return [int(self.s.sched[i]) for i in range(self.s.nrounds)]

    def cards_this_round(self):
        return int(self.s.cards)

    def trick(self):
        """The current trick as (player, card) pairs."""
        k = self.s.n_plays - self.s.trick_len
        return [(int(self.s.play_by[i]), card_to_string(self.s.plays[i])) for i in range(k, self.s.n_plays)]

    def trick_winner_with(self, int action):
        """The seat that takes the current trick if the player to move completes it with card
        `action` (-1 if the trick is not complete after it): the engine's own play on a copy of
        the position, for events (engines/events.py); the position is not changed."""
        cdef WizPos t = self.s
        cdef Rng unused
        if self.s.phase != PH_PLAY or not 0 <= action < A_BID:
            raise ValueError(f"{self.action_to_string(action)} is not a card play here")
        t.cards = 127          # never the round's last trick: _play then leaves the winner to move
        _play(&t, action, &unused)
        return -1 if t.trick_len else int(t.to_move)

    def metrics(self):
        """Per-player bid accuracy: rounds bid exactly / rounds scored."""
        r = self.s.rounds_scored
        return {"bid_accuracy": [self.s.exact[q] / r if r else 0.0 for q in range(self.num_players)]}

    @cython.boundscheck(True)       # plain Python indexing here, negative indices included
    @cython.wraparound(True)
    def _events(self, GameState before, int action):
        """Wizard's events of `action`, played from `before` to here (GameState.apply_with_events)."""
        p, dealer = before.current_player(), before.dealer()
        rnd = f"round {before.round() + 1}"
        name = before.action_to_string(action)
        out = []
        opens_round = before.phase() == "trump" or (
            before.phase() == "bid" and all(b is None for b in before.bids()) and before.turn_up() != "W")
        if opens_round:
            out.append(Event("turn_up", dealer, before.turn_up() or "none", rnd))
            if before.phase() == "bid":
                out.append(Event("trump_suit", dealer, before.trump() or "none", rnd))
        if name.startswith("trump "):
            out.append(Event("trump_suit", dealer, self.trump(), rnd))
        elif name.startswith("bid "):
            out.append(Event("bid", p, name[4:], rnd))
        else:
            trick = before.trick()
            out.append(Event("card_played", p, name, rnd))
            if not trick:
                out.append(Event("card_led", p, name, rnd))
            winner = before.trick_winner_with(action)
            if winner >= 0:
                card = dict(trick + [(p, name)])[winner]
                out.append(Event("trick_won", winner, card, rnd))
            if self.round() != before.round() or self.is_terminal():
                out += [Event("round_scored", q, f"{a - b:g}", rnd)
                        for q, (a, b) in enumerate(zip(self.scores(), before.scores()))]
        return out

    def observation(self, player):
        cdef WizPos* s = &self.s
        player = self.seat(player)
        hidden = _bid_hidden(s)
        n = self.num_players
        forbidden = None
        if s.plus_minus_one and player == s.dealer and s.n_bids >= n - 1 and s.phase != PH_OVER:
            t = _others_total(s, player)
            forbidden = s.cards - t if t <= s.cards else None
        return {
            "player": player,
            "round": int(s.round),
            "rounds": int(s.nrounds),
            "cards": int(s.cards) if s.phase != PH_OVER else 0,
            "dealer": int(s.dealer),
            "phase": self.phase(),
            "to_move": self.c_current_player(),
            "turn_up": self.turn_up(),
            "trump": self.trump(),
            "hand": self.hand(player),
            "hand_sizes": [wz_popcount(s.hand[q]) for q in range(n)],
            "bids": [None if s.bids[q] < 0 else ("?" if hidden and q != player else int(s.bids[q]))
                     for q in range(n)],
            "forbidden_bid": forbidden,
            "tricks": self.tricks(),
            "plays": [[int(s.play_by[i]), card_to_string(s.plays[i])] for i in range(s.n_plays)],
            "trick": [list(x) for x in self.trick()],
            "scores": [int(s.score[q]) for q in range(n)],
            "legal": ([self.action_to_string(a) for a in self.legal_actions()]
                      if player == self.c_current_player() else []),
        }

    def __str__(self):
        cdef WizPos* s = &self.s
        n = self.num_players
        if s.phase == PH_OVER:
            head = f"Wizard, game over after {s.nrounds} rounds"
        else:
            head = (f"Wizard, round {s.round + 1} of {s.nrounds} ({s.cards} cards), dealer P{s.dealer}, "
                    f"turn-up {self.turn_up() or '-'}, trump {self.trump() or ('?' if s.phase == PH_TRUMP else '-')}")
        out = [head]
        for q in range(n):
            bid = "-" if s.bids[q] < 0 else str(s.bids[q])
            mark = "*" if q == self.c_current_player() else " "
            out.append(f"{mark}P{q}: score {s.score[q]:>5}  bid {bid:>2}  tricks {s.tricks[q]:>2}  "
                       f"hand {' '.join(self.hand(q)) or '-'}")
        if s.phase == PH_PLAY:
            out.append("trick: " + (" ".join(f"P{q}:{c}" for q, c in self.trick()) or "-"))
        elif s.phase == PH_OVER:
            out.append("final scores: " + " ".join(str(s.score[q]) for q in range(n)))
        return "\n".join(out)


cdef inline int _others_total(WizPos* s, int p) noexcept nogil:
    """min(total of the other players' bids, cards + 1)."""
    cdef int t = s.bid_sum - (s.bids[p] if s.bids[p] >= 0 else 0)
    return t if t <= s.cards else s.cards + 1


cdef bint bid_view(GameState state, int observer, int q, double* features, int* facts) noexcept nogil:
    """Whether `observer` sees the bid seat q made this round; if so, the learned bidder's features
    of q's view when it bid (agents/learned.py's bid_features of the observation q had then: the hand
    it was dealt, the trump, its place and the bids before it) into `features` (BID_VIEW_FEATURES), and
    into `facts` the Wizards it was dealt, the hand size, its bid and the bid plus_minus_one kept it
    from (-1: none). `state` must be a WizardState."""
    cdef WizPos* s = &(<WizardState>state).s
    cdef uint64_t dealt = s.hand[q], cards
    cdef int n = s.nplayers, place, k, i, c, rank, suit, seen = 0, seen_sum = 0, wizards, jesters
    cdef int count[4]
    cdef int top[4]
    cdef int high[4]
    cdef int order[4]
    cdef int sides = 0, t, side13 = 0, side12 = 0
    if q == observer or s.bids[q] < 0 or _bid_hidden(s):
        return False
    wizards = POP4[(dealt >> 52) & 0xF]
    jesters = POP4[(dealt >> 56) & 0xF]
    for i in range(s.n_plays):
        if s.play_by[i] == q:
            if s.plays[i] < 52:
                dealt |= <uint64_t>1 << s.plays[i]
            elif s.plays[i] == A_WIZ:
                wizards += 1
            else:
                jesters += 1
    place = (q - s.dealer - 1 + n) % n
    if not s.hide:
        for k in range(place):
            seen += 1
            seen_sum += s.bids[(s.dealer + 1 + k) % n]
    for suit in range(4):
        count[suit] = top[suit] = high[suit] = 0
    cards = dealt & SUITED
    while cards:
        c = wz_ctz(cards)
        cards &= cards - 1
        suit, rank = c // 13, c % 13 + 1
        count[suit] += 1
        if rank > top[suit]:
            top[suit] = rank
        if suit == s.trump:
            high[suit] += rank >= 10
        else:
            high[suit] += rank >= 11
            side13 += rank == 13
            side12 += rank == 12
    for suit in range(4):         # the side suits by length, then top card, longest first (stable)
        if suit == s.trump:
            continue
        k = sides
        while k > 0 and (count[order[k - 1]] < count[suit]
                         or (count[order[k - 1]] == count[suit] and top[order[k - 1]] < top[suit])):
            order[k] = order[k - 1]
            k -= 1
        order[k] = suit
        sides += 1
    features[0] = n
    features[1] = s.cards
    features[2] = place
    features[3] = seen
    features[4] = seen_sum
    features[5] = place if s.hide else 0
    features[6] = s.cards - seen_sum
    features[7] = wizards
    features[8] = jesters
    t = s.trump
    features[9] = t >= 0
    features[10] = count[t] if t >= 0 else 0
    features[11] = high[t] if t >= 0 else 0
    features[12] = top[t] if t >= 0 else 0
    for k in range(4):
        features[13 + 3 * k] = count[order[k]] if k < sides else 0
        features[14 + 3 * k] = top[order[k]] if k < sides else 0
        features[15 + 3 * k] = high[order[k]] if k < sides else 0
    features[25] = side13
    features[26] = side12
    facts[0] = wizards
    facts[1] = s.cards
    facts[2] = s.bids[q]
    facts[3] = s.cards - seen_sum if s.plus_minus_one and not s.hide and place == n - 1 and seen_sum <= s.cards else -1
    return True
