"""Royal Ball (designer's post, 2020): rules in RULES.md sections 5 and 7.4.

Card types: 0 Cake, 1 Carrot, 2 Apple, 3 Salami, 4 Chicken, 5 Dog, 6 Horse.

Actions (24 distinct ids):
    0..6    "take <Type>"     a non-active player takes a face-up card of that type from the table
    7       "take face-down"  a non-active player takes the face-down card
    8..14   "keep <Type>"     the active player keeps a face-up card of that type; the other remaining
                              card goes to the King (face up or down as it lay)
    15      "keep face-down"  the active player keeps the face-down card; the face-up one goes to the King
    16..22  "give <Type>"     gift phase: a card of that type from hand to the King, face down
    23      "stop"            gift phase: give no more (automatic after the second gift)

Chance, inside c_apply and c_reset: the shuffle (each revealed card is drawn uniformly from what is
left of the deck), the last of the N+1 drawn cards is the face-down one (RULES.md 5.7.2: nobody chooses
it), the first active player, and the removed animal when `removed_animal=random`.
Resolution is automatic in the c_apply of the last gift decision: the King's pile oldest first, then
each player's feeding of their own animals optimised exhaustively (RULES.md 5.5.3 allows it and
5.7.5 explains why it is equivalent), the favours, then either the match ends or the next round is
dealt at once (a new shuffle of the same deck; the removed animal is drawn once per match) with the
marker where it stands: the player who began the gifts is the next round's first active player.

Scores: c_returns and c_score are the favours (the only thing that carries from round to round);
c_round counts the resolved rounds, so HORIZON_ROUND rollouts stop right after the favours are given.
c_evaluate(p) = 100 per favour + p's hand scored (with the best feeding) against the King's expected
counts as p sees them.
Information: the King's pile keeps a flag per card (face up, face down from the draft, or a gift by
seat q); each player's face-down takes are listed; face-up takes are counted per player (public).
Move patterns (for a learned playout policy, agents/move_policy.pyx), from what the mover sees:
"stop" is pattern 600; every other move is ((phase x 8 + card) x 5 + mine) x 5 + king, with phase 0
take, 1 keep, 2 give, card its type (7: the face-down card), mine the mover's cards of that type
and king the King's uneaten ones among the cards the mover knows of, each at most 4 (0 for the
face-down card).
"""
from libc.stdint cimport uint64_t, uint16_t, int8_t, int16_t, int32_t
from libc.string cimport memset
from engines.core cimport (GameState, Rng, action_t, rng_seed, rng_next, rng_below,
                           HORIZON_ROUND)
from engines.registry import engine_params
from engines.events import Event, ended
cimport cython

DEF NT = 7              # card types
DEF MAXP = 4
DEF DECK_MAX = 105
DEF MAX_HID = 24        # face-down takes per player per round (at most one card per draft)
DEF KING_MAX = 32       # 24 draft cards (2 players) + 2 gifts per player, rounded up
DEF NA = 24             # distinct actions
DEF A_TAKE_HIDDEN = 7
DEF A_KEEP = 8
DEF A_KEEP_HIDDEN = 15
DEF A_GIVE = 16
DEF A_STOP = 23
DEF FAVOUR_WEIGHT = 100.0
DEF MOVE_PATTERNS = 601  # 3 phases x 8 cards x 5 x 5 counts, and "stop"
DEF PATTERN_STOP = 600

DEF CAKE = 0
DEF CARROT = 1
DEF APPLE = 2
DEF SALAMI = 3
DEF CHICKEN = 4
DEF DOG = 5
DEF HORSE = 6

DEF PH_TAKE = 0
DEF PH_KEEP = 1
DEF PH_GIFT = 2
DEF PH_OVER = 3

DEF KF_UP = 0           # King card face up: public
DEF KF_DOWN = 1         # face-down card from the draft: known to nobody
DEF KF_GIFT = 2         # 2 + q: gift by player q, known to q only

CARD_NAMES = ("Cake", "Carrot", "Apple", "Salami", "Chicken", "Dog", "Horse")
PHASE_NAMES = ("take", "keep", "gift", "over")
_NAME_TO_TYPE = {n.lower(): i for i, n in enumerate(CARD_NAMES)}
_NAME_TO_TYPE["saliami"] = SALAMI
_NAME_TO_TYPE["chicken drumstick"] = CHICKEN


cdef struct RBPos:
    int32_t round           # rounds resolved so far in this match
    int16_t favours[MAXP]
    int16_t last_score[MAXP]    # round scores of the last resolved round
    int8_t deck[DECK_MAX]   # card types; deck[deck_pos:deck_n] is still to be drawn
    int8_t deck_n
    int8_t deck_pos
    int8_t stack_end        # explicit deals: deck[deck_pos:stack_end] are drawn in order
    int8_t hand[MAXP][NT]   # true hands
    int8_t pub[MAXP][NT]    # face-up cards each player took this round (public)
    int8_t hid[MAXP][MAX_HID]   # face-down cards each player took, in order (known to that player)
    int8_t nhid[MAXP]
    int8_t king[KING_MAX]   # the King's pile, oldest first
    int8_t kflag[KING_MAX]  # KF_UP, KF_DOWN or KF_GIFT + giver
    int8_t nking
    int8_t ngift[MAXP]
    int8_t last_king[NT]    # the King's uneaten counts in the last resolved round
    int8_t tab_up[NT]       # face-up cards on the table by type
    int8_t tab_hidden       # type of the face-down card on the table, -1 if none
    int8_t nplayers
    int8_t phase
    int8_t active           # holder of the active-player marker
    int8_t to_move
    int8_t gifts_done       # players who finished the gift phase
    int8_t removed          # removed animal type this match, -1 for none
    int8_t removed_mode     # -1 random, else DOG or HORSE
    int8_t single_round
    int8_t tie_none         # 1: a tie for the best round score gives no favour
    int8_t chicken_cap      # 1: 3 or more Chickens are worth 5 (alternative to repeated packs)
    int8_t _pad[2]

# ---- value tables f_t(n) (RULES.md 5.5.4); counts of one type never exceed 15 ----
cdef int CHICK_PACKS[16]
cdef int CHICK_CAPPED[16]
cdef int DOG_V[16]
cdef int HORSE_V[16]


cdef void _init_tables():
    cdef int n
    for n in range(16):
        if n < 2:
            CHICK_PACKS[n] = 0
        elif n % 3 == 0:
            CHICK_PACKS[n] = 5 * (n // 3)
        elif n % 3 == 1:
            CHICK_PACKS[n] = 5 * ((n - 4) // 3) + 6
        else:
            CHICK_PACKS[n] = 5 * ((n - 2) // 3) + 3
        CHICK_CAPPED[n] = 0 if n < 2 else (3 if n == 2 else 5)
        DOG_V[n] = 0
        HORSE_V[n] = 0
    DOG_V[1] = 8
    DOG_V[2] = 4
    DOG_V[3] = 2
    HORSE_V[2] = 3
    HORSE_V[4] = 6

_init_tables()


cdef inline int _value(int t, int n, int chickens, int cap) noexcept nogil:
    """f_t(n): the unsigned value of n cards of type t (Apples pair with `chickens`)."""
    if t == CAKE:
        return 5 * n
    if t == CARROT:
        return 2 * n + n // 3
    if t == APPLE:
        return 2 * (n if n < chickens else chickens)
    if t == SALAMI:
        return n * (n - 1) // 2
    if t == CHICKEN:
        return CHICK_CAPPED[n] if cap else CHICK_PACKS[n]
    if t == DOG:
        return DOG_V[n]
    return HORSE_V[n]


cdef inline double _signed(double king, int n, int value) noexcept nogil:
    # fewer than the King: +value; more: -value; equal: 0 (RULES.md 5.5.4)
    if king > n:
        return value
    if king < n:
        return -value
    return 0.0


cdef double _best_score(const int8_t* P, const double* K, int cap, int* fed) noexcept nogil:
    """The round score of hand P against King counts K, feeding the player's own Dogs (meat) and
    Horses (Carrots, Apples) one card each in the best way; `fed` (or NULL) receives the fed counts."""
    cdef int S = P[SALAMI], C = P[CHICKEN], R = P[CARROT], A = P[APPLE], D = P[DOG], H = P[HORSE]
    cdef double best_s[16]
    cdef double best_r[16]
    cdef int arg_s[16]
    cdef int arg_r[16]
    cdef int e, ce, ae, c2, ms, mr, mc, ma, ks, kr
    cdef int b_ce = 0, b_ae = 0, b_se = 0, b_re = 0
    cdef double v, vs, total = -1e18
    cdef double base = (_signed(K[CAKE], P[CAKE], 5 * P[CAKE]) + _signed(K[DOG], D, DOG_V[D])
                        + _signed(K[HORSE], H, HORSE_V[H]))
    # best Salami (Carrot) value with at most e of them fed, e = 0..min(animals, cards)
    ms = D if D < S else S
    mr = H if H < R else R
    best_s[0] = _signed(K[SALAMI], S, S * (S - 1) // 2)
    arg_s[0] = 0
    for e in range(1, ms + 1):
        v = _signed(K[SALAMI], S - e, (S - e) * (S - e - 1) // 2)
        if v > best_s[e - 1]:
            best_s[e], arg_s[e] = v, e
        else:
            best_s[e], arg_s[e] = best_s[e - 1], arg_s[e - 1]
    best_r[0] = _signed(K[CARROT], R, 2 * R + R // 3)
    arg_r[0] = 0
    for e in range(1, mr + 1):
        v = _signed(K[CARROT], R - e, 2 * (R - e) + (R - e) // 3)
        if v > best_r[e - 1]:
            best_r[e], arg_r[e] = v, e
        else:
            best_r[e], arg_r[e] = best_r[e - 1], arg_r[e - 1]
    mc = D if D < C else C
    ma = H if H < A else A
    for ce in range(mc + 1):
        c2 = C - ce
        ks = D - ce
        if ks > ms:
            ks = ms
        vs = best_s[ks] + _signed(K[CHICKEN], c2, CHICK_CAPPED[c2] if cap else CHICK_PACKS[c2])
        for ae in range(ma + 1):
            kr = H - ae
            if kr > mr:
                kr = mr
            v = vs + best_r[kr] + _signed(K[APPLE], A - ae, 2 * ((A - ae) if A - ae < c2 else c2))
            if v > total:
                total = v
                b_ce, b_ae, b_se, b_re = ce, ae, arg_s[ks], arg_r[kr]
    if fed != NULL:
        memset(fed, 0, NT * sizeof(int))
        fed[SALAMI], fed[CHICKEN], fed[CARROT], fed[APPLE] = b_se, b_ce, b_re, b_ae
    return base + total


cdef void _king_counts(const int8_t* pile, const int8_t* flags, int n, int skip_flag, int* kc) noexcept nogil:
    """The King's uneaten counts: revealed oldest first, each Dog (Horse) eats the next later meat
    (Carrot or Apple) while hungry (RULES.md 5.5.1). Cards whose flag is skip_flag are left out."""
    cdef int i, t, dogs = 0, horses = 0
    memset(kc, 0, NT * sizeof(int))
    for i in range(n):
        if flags != NULL and flags[i] == skip_flag:
            continue
        t = pile[i]
        if t == DOG:
            dogs += 1
            kc[DOG] += 1
        elif t == HORSE:
            horses += 1
            kc[HORSE] += 1
        elif t == SALAMI or t == CHICKEN:
            if dogs:
                dogs -= 1
            else:
                kc[t] += 1
        elif t == CARROT or t == APPLE:
            if horses:
                horses -= 1
            else:
                kc[t] += 1
        else:
            kc[t] += 1


cdef inline int _composition(RBPos* s, int t) noexcept nogil:
    """Cards of type t in the deck (RULES.md 5.2)."""
    if s.nplayers == 4:
        return 15
    if t == s.removed:
        return 0
    if s.nplayers == 3:
        return 13 if t == CAKE else 15
    return 12


cdef inline int _next(RBPos* s, int p) noexcept nogil:
    p += 1
    return 0 if p == s.nplayers else p


cdef inline int _draw(RBPos* s, Rng* r) noexcept nogil:
    cdef int j, t, pos = s.deck_pos
    if pos >= s.stack_end:
        j = pos + rng_below(r, s.deck_n - pos)
        t = s.deck[j]
        s.deck[j] = s.deck[pos]
        s.deck[pos] = t
    else:
        t = s.deck[pos]
    s.deck_pos = pos + 1
    return t


cdef inline void _reveal(RBPos* s, Rng* r) noexcept nogil:
    """The active player's N+1 cards: N face up, the last drawn face down (RULES.md 5.3.1)."""
    cdef int i
    for i in range(s.nplayers):
        s.tab_up[_draw(s, r)] += 1
    s.tab_hidden = _draw(s, r)
    s.phase = PH_TAKE
    s.to_move = _next(s, s.active)


cdef void _start_round(RBPos* s, Rng* r) noexcept nogil:
    cdef int t, i, n = 0
    memset(s.hand, 0, sizeof(s.hand))
    memset(s.pub, 0, sizeof(s.pub))
    memset(s.hid, 0, sizeof(s.hid))
    memset(s.nhid, 0, sizeof(s.nhid))
    memset(s.king, 0, sizeof(s.king))
    memset(s.kflag, 0, sizeof(s.kflag))
    memset(s.ngift, 0, sizeof(s.ngift))
    memset(s.tab_up, 0, sizeof(s.tab_up))
    s.nking = 0
    s.gifts_done = 0
    for t in range(NT):
        for i in range(_composition(s, t)):
            s.deck[n] = t
            n += 1
    s.deck_n = n
    s.deck_pos = 0
    s.stack_end = 0
    _reveal(s, r)


cdef void _new_match(RBPos* s, Rng* r) noexcept nogil:
    memset(s.favours, 0, sizeof(s.favours))
    memset(s.last_score, 0, sizeof(s.last_score))
    memset(s.last_king, 0, sizeof(s.last_king))
    s.round = 0
    if s.nplayers == 4:
        s.removed = -1
    elif s.removed_mode < 0:
        s.removed = DOG if rng_below(r, 2) == 0 else HORSE
    else:
        s.removed = s.removed_mode
    s.active = rng_below(r, s.nplayers)
    _start_round(s, r)


cdef void _resolve(RBPos* s, Rng* r) noexcept nogil:
    """Scores the round, hands out the favours, then ends the match or deals the next round."""
    cdef int kc[NT]
    cdef double K[NT]
    cdef int p, t, best = -1000000, nbest = 0, top = -1, ntop = 0, sc
    _king_counts(s.king, NULL, s.nking, -1, kc)
    for t in range(NT):
        K[t] = kc[t]
        s.last_king[t] = kc[t]
    for p in range(s.nplayers):
        sc = <int>_best_score(s.hand[p], K, s.chicken_cap, NULL)
        s.last_score[p] = sc
        if sc > best:
            best, nbest = sc, 1
        elif sc == best:
            nbest += 1
    if nbest == 1 or not s.tie_none:
        for p in range(s.nplayers):
            if s.last_score[p] == best:
                s.favours[p] += 1
    s.round += 1
    if s.single_round:
        s.phase = PH_OVER
        return
    for p in range(s.nplayers):
        if s.favours[p] > top:
            top, ntop = s.favours[p], 1
        elif s.favours[p] == top:
            ntop += 1
    if top >= 3 and ntop == 1:
        s.phase = PH_OVER
        return
    _start_round(s, r)      # the marker holder (who began the gifts) is the next active player


cdef inline void _to_king(RBPos* s, int t, int flag) noexcept nogil:
    s.king[s.nking] = t
    s.kflag[s.nking] = flag
    s.nking += 1


cdef inline void _take(RBPos* s, int p, int t) noexcept nogil:
    """p takes the face-down card (t = A_TAKE_HIDDEN) or a face-up card of type t from the table."""
    if t == A_TAKE_HIDDEN:
        t = s.tab_hidden
        s.tab_hidden = -1
        s.hid[p][s.nhid[p]] = t
        s.nhid[p] += 1
    else:
        s.tab_up[t] -= 1
        s.pub[p][t] += 1
    s.hand[p][t] += 1


cdef inline void _next_giver(RBPos* s, Rng* r) noexcept nogil:
    s.gifts_done += 1
    if s.gifts_done == s.nplayers:
        _resolve(s, r)
    else:
        s.to_move = _next(s, s.to_move)


cdef void _apply(RBPos* s, Rng* r, int a) noexcept nogil:
    cdef int p, t
    if s.phase == PH_TAKE:
        p = s.to_move
        _take(s, p, a)
        p = _next(s, p)
        if p == s.active:
            s.phase = PH_KEEP
        s.to_move = p
    elif s.phase == PH_KEEP:
        p = s.active
        _take(s, p, a - A_KEEP)     # A_KEEP_HIDDEN - A_KEEP == A_TAKE_HIDDEN
        if s.tab_hidden >= 0:
            _to_king(s, s.tab_hidden, KF_DOWN)
            s.tab_hidden = -1
        else:
            for t in range(NT):
                if s.tab_up[t]:
                    s.tab_up[t] = 0
                    _to_king(s, t, KF_UP)
                    break
        s.active = _next(s, p)
        if s.deck_pos == s.deck_n:
            s.phase = PH_GIFT
            s.to_move = s.active
        else:
            _reveal(s, r)
    elif s.phase == PH_GIFT:
        p = s.to_move
        if a == A_STOP:
            _next_giver(s, r)
        else:
            t = a - A_GIVE
            s.hand[p][t] -= 1
            _to_king(s, t, KF_GIFT + p)
            s.ngift[p] += 1
            if s.ngift[p] == 2:
                _next_giver(s, r)


cdef int _legal(RBPos* s, action_t* out) noexcept nogil:
    cdef int n = 0, t, p
    if s.phase == PH_TAKE or s.phase == PH_KEEP:
        p = 0 if s.phase == PH_TAKE else A_KEEP
        for t in range(NT):             # branch-free: random tables mispredict an if here
            out[n] = p + t
            n += s.tab_up[t] != 0
        if s.tab_hidden >= 0:
            out[n] = p + A_TAKE_HIDDEN
            n += 1
    elif s.phase == PH_GIFT:
        p = s.to_move
        for t in range(NT):
            out[n] = A_GIVE + t
            n += s.hand[p][t] != 0
        out[n] = A_STOP
        n += 1
    return n


cdef void _king_counts_known(RBPos* s, int p, int* kc) noexcept nogil:
    """The King's counts over the cards p knows (face up and p's own gifts), resolved in order."""
    cdef int8_t pile[KING_MAX]
    cdef int i, n = 0, f
    for i in range(s.nking):
        f = s.kflag[i]
        if f == KF_UP or f == KF_GIFT + p:
            pile[n] = s.king[i]
            n += 1
    _king_counts(pile, NULL, n, -1, kc)


cdef inline int _move_pattern(RBPos* s, int p, const int* king, int a) noexcept nogil:
    """Move a's pattern for its mover p, `king` the King's counts p knows of (see the module)."""
    cdef int phase, t, mine = 0, k = 0
    if a == A_STOP:
        return PATTERN_STOP
    if a >= A_GIVE:
        phase, t = 2, a - A_GIVE
    elif a >= A_KEEP:
        phase, t = 1, a - A_KEEP
    else:
        phase, t = 0, a
    if t < NT:
        mine = s.hand[p][t] if s.hand[p][t] < 4 else 4
        k = king[t] if king[t] < 4 else 4
    return ((phase * 8 + t) * 5 + mine) * 5 + k


cdef inline uint64_t _mix(uint64_t h, uint64_t v) noexcept nogil:
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL
    return h ^ (h >> 29)


cdef class RoyalBallState(GameState):
    cdef RBPos s

    def __cinit__(self, *args, **kwargs):
        self._pos = &self.s
        self._pos_size = sizeof(RBPos)

    def __init__(self, dict params, seed=0):
        params = engine_params("royal_ball", params, MAXP)     # defaults, player counts and choices
        n = params["players"]
        self.game_id = "royal_ball"
        self.params = params
        self.num_players = n
        self.num_distinct_actions = NA
        memset(&self.s, 0, sizeof(RBPos))
        self.s.nplayers = n
        removed = params["removed_animal"]
        self.s.removed_mode = -1 if removed == "random" else (DOG if removed == "dog" else HORSE)
        self.s.single_round = params["match"] == "single_round"
        self.s.tie_none = params["tie_favour"] == "none"
        self.s.chicken_cap = params["chicken"] == "capped"
        rng_seed(&self.chance, <uint64_t>seed)
        _new_match(&self.s, &self.chance)

    cdef int c_reset(self, uint64_t seed) except -1 nogil:
        rng_seed(&self.chance, seed)
        _new_match(&self.s, &self.chance)
        return 0

    # ---- explicit setups for tests ----
    @classmethod
    def deal(cls, players=3, cards=(), first=0, seed=0, **params):
        """A new match whose first round draws `cards` (names) first, in this order, N+1 per table with
        the last of each group face down; the rest of the deck follows at random. `first` is the
        first active player. With 2 or 3 players, name the removed animal for a stacked deal."""
        from engines.registry import resolve
        full = resolve("royal_ball", players=players, **params)
        cdef RoyalBallState st = cls(full, seed)
        cdef RBPos* s = &st.s
        cdef int i, j, t
        types = [_card_type(c) for c in cards]
        st.seat(first)
        if types and players < 4 and full["removed_animal"] == "random":
            raise ValueError("a stacked deal with 2 or 3 players needs removed_animal=dog or horse")
        # rebuild the first round: full deck, the named cards first
        s.active = first
        _start_round(s, &st.chance)
        s.deck_pos = 0
        memset(s.tab_up, 0, sizeof(s.tab_up))
        if len(types) > s.deck_n:
            raise ValueError(f"the deck has only {s.deck_n} cards")
        for i, t in enumerate(types):
            for j in range(i, s.deck_n):
                if s.deck[j] == t:
                    s.deck[i], s.deck[j] = s.deck[j], s.deck[i]
                    break
            else:
                raise ValueError(f"the deck has no more {CARD_NAMES[t]} cards")
        s.stack_end = len(types)
        _reveal(s, &st.chance)
        return st

    @classmethod
    def position(cls, players, hands, king=(), marker=0, favours=None, seed=0, **params):
        """A test position at the start of the gift phase: `hands` (lists of names per player) and the
        King's pile (names, oldest first, all face up) are public; the cards listed nowhere are out
        of play. `marker` holds the marker and gives first; `favours` are the favours so far."""
        from engines.registry import resolve
        full = resolve("royal_ball", players=players, **params)
        cdef RoyalBallState st = cls(full, seed)
        cdef RBPos* s = &st.s
        cdef int p, t
        if len(hands) != players:
            raise ValueError(f"give one hand per player ({players})")
        st.seat(marker)
        if len(king) > KING_MAX - 2 * players:
            raise ValueError("too many King cards")
        used = [0] * NT
        memset(s.hand, 0, sizeof(s.hand))
        memset(s.pub, 0, sizeof(s.pub))
        memset(s.tab_up, 0, sizeof(s.tab_up))
        s.tab_hidden = -1
        for p, cards in enumerate(hands):
            for c in cards:
                t = _card_type(c)
                s.hand[p][t] += 1
                s.pub[p][t] += 1
                used[t] += 1
        s.nking = 0
        for c in king:
            t = _card_type(c)
            _to_king(s, t, KF_UP)
            used[t] += 1
        for t in range(NT):
            if used[t] > _composition(s, t):
                raise ValueError(f"more {CARD_NAMES[t]} cards than the deck holds ({_composition(s, t)})")
        s.deck_pos = s.deck_n
        s.stack_end = 0
        s.active = marker
        s.to_move = marker
        s.phase = PH_GIFT
        s.gifts_done = 0
        if favours is not None:
            if len(favours) != players:
                raise ValueError(f"give one favour count per player ({players})")
            for p in range(players):
                s.favours[p] = favours[p]
        return st

    # ---- the hot path ----
    cdef int c_apply(self, action_t a) except -1 nogil:
        _apply(&self.s, &self.chance, a)
        return 0

    cdef int c_legal_actions(self, action_t* out) noexcept nogil:
        return _legal(&self.s, out)

    cdef int c_current_player(self) noexcept nogil:
        if self.s.phase == PH_OVER:
            return -1
        return self.s.active if self.s.phase == PH_KEEP else self.s.to_move

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.s.phase == PH_OVER

    cdef double c_returns(self, int p) noexcept nogil:
        return self.s.favours[p]

    cdef double c_score(self, int p) noexcept nogil:
        return self.s.favours[p]

    cdef int c_round(self) noexcept nogil:
        return self.s.round

    cdef double c_evaluate(self, int p) noexcept nogil:
        """100 per favour, plus p's hand scored against the King's expected counts as p sees them:
        the known King cards resolved in order, each unknown or future King card counted as the
        average of the cards p has not seen."""
        cdef RBPos* s = &self.s
        cdef int kc[NT]
        cdef int unseen[NT]
        cdef double K[NT]
        cdef int t, q, i, f, u_total = 0, unknown = 0
        if s.phase == PH_OVER:
            return FAVOUR_WEIGHT * s.favours[p]
        for t in range(NT):
            unseen[t] = _composition(s, t) - s.hand[p][t] - s.tab_up[t]
            for q in range(s.nplayers):
                if q != p:
                    unseen[t] -= s.pub[q][t]
        # known King cards: face up, and p's own gifts
        for i in range(s.nking):
            f = s.kflag[i]
            if f == KF_UP or f == KF_GIFT + p:
                unseen[s.king[i]] -= 1
            else:
                unknown += 1
        _king_counts_known(s, p, kc)
        if s.phase != PH_GIFT:
            unknown += (s.deck_n - s.deck_pos) // (s.nplayers + 1) + 1
        for t in range(NT):
            if unseen[t] < 0:
                unseen[t] = 0
            u_total += unseen[t]
        for t in range(NT):
            K[t] = kc[t] + (unknown * unseen[t] / <double>u_total if u_total else 0.0)
        return FAVOUR_WEIGHT * s.favours[p] + _best_score(s.hand[p], K, s.chicken_cap, NULL)

    cdef int c_move_pattern_count(self) noexcept nogil:
        return MOVE_PATTERNS

    cdef void c_move_patterns(self, const action_t* acts, int k, int32_t* out) noexcept nogil:
        cdef int kc[NT]
        cdef int i, p = self.c_current_player()
        _king_counts_known(&self.s, p, kc)
        for i in range(k):
            out[i] = _move_pattern(&self.s, p, kc, acts[i])

    # ---- imperfect information ----
    cdef action_t c_action_view(self, int o, action_t a) noexcept nogil:
        """How o sees the mover's action a (RULES.md 5.6): a gift goes face down, so another player
        sees "a gift" (A_GIVE), unless it is the gift phase's last decision, whose resolution
        reveals the King's pile at once. Draft takes and keeps are public (a face-down card is
        taken or kept as "face-down", without its type)."""
        cdef RBPos* s = &self.s
        cdef int p = s.to_move
        if o == p or s.phase != PH_GIFT or a < A_GIVE or a >= A_STOP:
            return a
        if s.gifts_done == s.nplayers - 1 and s.ngift[p] == 1:
            return a
        return A_GIVE

    cdef uint64_t c_infoset_key(self, int p) noexcept nogil:
        cdef RBPos* s = &self.s
        cdef uint64_t h = 0x5EED0F4B311ULL + <uint64_t>p
        cdef int q, t, i, f
        cdef int hid_counts[NT]
        h = _mix(h, <uint64_t>s.round)
        h = _mix(h, <uint64_t>(s.phase | (s.active << 4) | (s.to_move << 8) | (s.gifts_done << 12)
                               | ((s.removed + 1) << 16) | (<uint64_t>(s.deck_n - s.deck_pos) << 24)
                               | (<uint64_t>(s.tab_hidden >= 0) << 32)))
        for t in range(NT):
            h = _mix(h, <uint64_t>(s.tab_up[t] | (s.last_king[t] << 8) | (s.hand[p][t] << 16)))
        for q in range(s.nplayers):
            h = _mix(h, <uint64_t>(<uint16_t>s.favours[q]) | (<uint64_t>(<uint16_t>s.last_score[q]) << 16)
                     | (<uint64_t>s.nhid[q] << 32) | (<uint64_t>s.ngift[q] << 40))
            for t in range(NT):
                h = _mix(h, <uint64_t>s.pub[q][t])
        memset(hid_counts, 0, sizeof(hid_counts))
        for i in range(s.nhid[p]):
            hid_counts[s.hid[p][i]] += 1
        for t in range(NT):
            h = _mix(h, <uint64_t>hid_counts[t])
        for i in range(s.nking):
            f = s.kflag[i]
            h = _mix(h, <uint64_t>(f | ((s.king[i] if f == KF_UP or f == KF_GIFT + p else NT) << 8)))
        return h

    cdef int c_determinize(self, int p, Rng* rng) except -1 nogil:
        """Re-deals every card p has not seen: the rest of the deck, the face-down card on the table,
        the others' face-down takes and the King's face-down draft cards (one pool, so the deck
        composition holds); then each other player's gifts are re-drawn from that player's cards."""
        cdef RBPos* s = &self.s
        cdef int8_t pool[DECK_MAX]
        cdef int n = 0, i, j, q, t, k, f, tot
        cdef int8_t tmp
        for i in range(s.nking):
            f = s.kflag[i]
            if f >= KF_GIFT and f != KF_GIFT + p:
                s.hand[f - KF_GIFT][s.king[i]] += 1
        for i in range(s.deck_pos, s.deck_n):
            pool[n] = s.deck[i]
            n += 1
        if s.tab_hidden >= 0:
            pool[n] = s.tab_hidden
            n += 1
        for q in range(s.nplayers):
            if q != p:
                for i in range(s.nhid[q]):
                    pool[n] = s.hid[q][i]
                    s.hand[q][s.hid[q][i]] -= 1
                    n += 1
        for i in range(s.nking):
            if s.kflag[i] == KF_DOWN:
                pool[n] = s.king[i]
                n += 1
        # Sort the pool first: the result must depend only on what p knows, not on where the
        # unseen cards happen to lie (two states p cannot tell apart resample identically).
        k = 0
        for t in range(NT):
            for i in range(k, n):
                if pool[i] == t:
                    tmp = pool[k]
                    pool[k] = pool[i]
                    pool[i] = tmp
                    k += 1
        for i in range(n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            tmp = pool[i]
            pool[i] = pool[j]
            pool[j] = tmp
        n = 0
        for i in range(s.deck_pos, s.deck_n):
            s.deck[i] = pool[n]
            n += 1
        if s.tab_hidden >= 0:
            s.tab_hidden = pool[n]
            n += 1
        for q in range(s.nplayers):
            if q != p:
                for i in range(s.nhid[q]):
                    s.hid[q][i] = pool[n]
                    s.hand[q][pool[n]] += 1
                    n += 1
        for i in range(s.nking):
            if s.kflag[i] == KF_DOWN:
                s.king[i] = pool[n]
                n += 1
        for i in range(s.nking):
            f = s.kflag[i]
            if f >= KF_GIFT and f != KF_GIFT + p:
                q = f - KF_GIFT
                tot = 0
                for t in range(NT):
                    tot += s.hand[q][t]
                k = rng_below(rng, tot)
                t = 0
                while k >= s.hand[q][t]:
                    k -= s.hand[q][t]
                    t += 1
                s.hand[q][t] -= 1
                s.king[i] = t
        s.stack_end = 0
        # the drawn part of the deck is never read again, but it records the true face-down cards
        memset(s.deck, 0, s.deck_pos)
        rng_seed(&self.chance, rng_next(rng))
        return 0

    cdef int c_rollout(self, Rng* rng, int horizon) except -1 nogil:
        cdef action_t buf[NA]
        cdef int n
        cdef int start = self.s.round
        while self.s.phase != PH_OVER:
            if horizon == HORIZON_ROUND and self.s.round != start:
                break
            n = _legal(&self.s, buf)
            _apply(&self.s, &self.chance, buf[rng_below(rng, n)])
        return 0

    # ---- Python face ----
    def action_to_string(self, int action):
        if 0 <= action < NT:
            return "take " + CARD_NAMES[action]
        if action == A_TAKE_HIDDEN:
            return "take face-down"
        if A_KEEP <= action < A_KEEP + NT:
            return "keep " + CARD_NAMES[action - A_KEEP]
        if action == A_KEEP_HIDDEN:
            return "keep face-down"
        if A_GIVE <= action < A_GIVE + NT:
            return "give " + CARD_NAMES[action - A_GIVE]
        if action == A_STOP:
            return "stop"
        raise ValueError(f"no action {action} in royal_ball")

    def string_to_action(self, str text):
        words = " ".join(text.lower().split())
        if words == "stop":
            return A_STOP
        verb, _, what = words.partition(" ")
        base = {"take": 0, "keep": A_KEEP, "give": A_GIVE}.get(verb)
        if base is not None:
            if what in ("face-down", "face down", "hidden") and base != A_GIVE:
                return base + A_TAKE_HIDDEN
            if what in _NAME_TO_TYPE:
                return base + _NAME_TO_TYPE[what]
        raise ValueError(f"unknown action {text!r} in royal_ball: take/keep <card>, take/keep face-down, "
                         "give <card>, stop")

    def hand(self, player):
        """The player's true hand (every card, hidden ones included) as {name: count}."""
        player = self.seat(player)
        return {CARD_NAMES[t]: int(self.s.hand[player][t]) for t in range(NT) if self.s.hand[player][t]}

    def king_pile(self):
        """The King's pile, oldest first, as (name, how) with how "up", "down" or "gift by <seat>"."""
        out = []
        for i in range(self.s.nking):
            f = self.s.kflag[i]
            how = "up" if f == KF_UP else ("down" if f == KF_DOWN else f"gift by {f - KF_GIFT}")
            out.append((CARD_NAMES[self.s.king[i]], how))
        return out

    def table(self):
        """(face-up names sorted by type, the face-down card's name or None)."""
        up = [CARD_NAMES[t] for t in range(NT) for _ in range(self.s.tab_up[t])]
        return up, (CARD_NAMES[self.s.tab_hidden] if self.s.tab_hidden >= 0 else None)

    def deck_composition(self):
        """Cards of each type in this match's deck (RULES.md 5.2)."""
        return {CARD_NAMES[t]: _composition(&self.s, t) for t in range(NT)}

    def deck_left(self):
        """The undrawn cards as {name: count}."""
        out = {}
        for i in range(self.s.deck_pos, self.s.deck_n):
            out[CARD_NAMES[self.s.deck[i]]] = out.get(CARD_NAMES[self.s.deck[i]], 0) + 1
        return out

    def removed_animal(self):
        return None if self.s.removed < 0 else CARD_NAMES[self.s.removed]

    def favours(self):
        return [int(self.s.favours[p]) for p in range(self.num_players)]

    def last_round_scores(self):
        return [int(self.s.last_score[p]) for p in range(self.num_players)]

    def last_king_counts(self):
        return {CARD_NAMES[t]: int(self.s.last_king[t]) for t in range(NT)}

    def phase(self):
        return PHASE_NAMES[self.s.phase]

    def active_player(self):
        return int(self.s.active)

    @cython.boundscheck(True)       # plain Python indexing here, negative indices included
    @cython.wraparound(True)
    def _events(self, GameState before, int action):
        """Royal Ball's events of `action`, played from `before` to here (GameState.apply_with_events)."""
        p = before.current_player()
        name = before.action_to_string(action)
        verb, _, what = name.partition(" ")
        out = []
        hands = [before.hand(q) for q in range(before.num_players)]
        pile = [c for c, _how in before.king_pile()]
        if verb in ("take", "keep"):
            up, hidden = before.table()
            card, how = (hidden, "face-down") if what == "face-down" else (what, "face-up")
            out.append(Event("card_taken" if verb == "take" else "card_kept", p, card, how))
            if verb == "keep":
                given, given_how = self.king_pile()[-1]
                out.append(Event("king_given", p, given, "face-up" if given_how == "up" else "face-down"))
        elif verb == "give":
            out.append(Event("gift", p, what))
            hands[p][what] -= 1
            pile.append(what)
        if self.round() > before.round():
            rnd = f"round {self.round()}"
            king = king_counts(pile)
            eaten = {c: pile.count(c) - king[c] for c in ("Salami", "Chicken", "Carrot", "Apple")}
            out.extend(Event("animal_fed", -1, "Dog" if c in ("Salami", "Chicken") else "Horse", c)
                       for c, n in eaten.items() for _ in range(n))
            out.extend(Event("king_count", -1, c, str(n)) for c, n in king.items())
            for q, hand in enumerate(hands):
                out.extend(Event("hand_scored", q, c, str(n)) for c, n in hand.items() if n)
                _score, fed = score_hand(hand, king, chicken=before.params["chicken"])
                out.extend(Event("animal_fed", q, "Dog" if c in ("Salami", "Chicken") else "Horse", c)
                           for c, n in fed.items() for _ in range(n))
            scores = self.last_round_scores()
            out.extend(Event("round_scored", q, str(scores[q]), rnd) for q in range(self.num_players))
            out.extend(Event("favour", q, "favour", rnd)
                       for q, (a, b) in enumerate(zip(self.favours(), before.favours())) if a > b)
        return out

    def observation(self, player):
        cdef RBPos* s = &self.s
        cdef int i, f, q, t
        player = self.seat(player)
        king = []
        for i in range(s.nking):
            f = s.kflag[i]
            if f == KF_UP:
                king.append(CARD_NAMES[s.king[i]])
            elif f == KF_DOWN:
                king.append("face-down")
            elif f == KF_GIFT + player:
                king.append(f"{CARD_NAMES[s.king[i]]} (your gift)")
            else:
                king.append(f"gift by {f - KF_GIFT}")
        own_hidden = {}
        for i in range(s.nhid[player]):
            name = CARD_NAMES[s.hid[player][i]]
            own_hidden[name] = own_hidden.get(name, 0) + 1
        others = []
        for q in range(self.num_players):
            others.append({
                "took_face_up": {CARD_NAMES[t]: int(s.pub[q][t]) for t in range(NT) if s.pub[q][t]},
                "took_face_down": int(s.nhid[q]),
                "gifts": int(s.ngift[q]),
                "hand_size": int(sum(s.pub[q][t] for t in range(NT)) + s.nhid[q] - s.ngift[q]),
            })
        up, hidden = self.table()
        return {
            "player": player,
            "round": int(s.round),
            "favours": self.favours(),
            "last_round_scores": self.last_round_scores(),
            "last_king_counts": self.last_king_counts(),
            "removed_animal": self.removed_animal(),
            "phase": PHASE_NAMES[s.phase],
            "active": int(s.active),
            "to_move": self.c_current_player(),
            "deck_left": int(s.deck_n - s.deck_pos),
            "table": {"face_up": up, "face_down": hidden is not None},
            "hand": self.hand(player),
            "my_face_down_takes": own_hidden,
            "players": others,
            "king": king,
        }

    def __str__(self):
        cdef RBPos* s = &self.s
        lines = [f"Royal Ball, {self.num_players} players, round {s.round + 1}; favours "
                 + " ".join(str(f) for f in self.favours())]
        if s.round:
            lines.append("last round scores " + " ".join(str(x) for x in self.last_round_scores()))
        up, hidden = self.table()
        if s.phase in (PH_TAKE, PH_KEEP):
            lines.append(f"table: {', '.join(up)}" + (", one face down" if hidden is not None else "")
                         + f"; deck {s.deck_n - s.deck_pos} left")
        for p in range(self.num_players):
            mark = "*" if p == s.active else " "
            cards = ", ".join(f"{c} x{n}" if n > 1 else c for c, n in self.hand(p).items()) or "-"
            lines.append(f"{mark}P{p}: {cards}")
        lines.append("King: " + (", ".join(n if how == "up" else f"[{n}]" for n, how in self.king_pile()) or "-"))
        if s.phase == PH_OVER:
            lines.append("match over; favours " + " ".join(str(f) for f in self.favours()))
        else:
            lines.append(f"P{self.c_current_player()} to {PHASE_NAMES[s.phase]}; * marker, [ ] face down")
        return "\n".join(lines)


def _card_type(name):
    if isinstance(name, int) and 0 <= name < NT:
        return name
    t = _NAME_TO_TYPE.get(" ".join(str(name).lower().split()))
    if t is None:
        raise ValueError(f"unknown card {name!r}: cards are {', '.join(CARD_NAMES)}")
    return t


def _counts(cards):
    out = [0] * NT
    if isinstance(cards, dict):
        for name, n in cards.items():
            out[_card_type(name)] += n
    else:
        for c in cards:
            out[_card_type(c)] += 1
    if any(not 0 <= n <= 15 for n in out):
        raise ValueError("each card type counts 0 to 15")
    return out


def king_counts(pile):
    """The King's uneaten counts {name: count} for a pile of names, oldest first (RULES.md 5.5.1-2)."""
    cdef int8_t buf[KING_MAX]
    cdef int kc[NT]
    types = [_card_type(c) for c in pile]
    if len(types) > KING_MAX:
        raise ValueError(f"at most {KING_MAX} King cards")
    for i, t in enumerate(types):
        buf[i] = t
    _king_counts(buf, NULL, len(types), -1, kc)
    return {CARD_NAMES[t]: kc[t] for t in range(NT)}


def card_value(name, int n, int chickens=0, chicken="packs"):
    """f_t(n), the unsigned value of n cards of one type (Apples pair with `chickens`), RULES.md 5.5.4."""
    if not 0 <= n <= 15:
        raise ValueError("a count is 0 to 15")
    return _value(_card_type(name), n, chickens, chicken == "capped")


def score_hand(hand, king, feed=True, chicken="packs"):
    """A hand's round score against the King's uneaten counts: (score, {name: cards fed}).
    `hand` and `king` are lists of names or {name: count}; feeding is optimised unless feed=False."""
    cdef int8_t P[NT]
    cdef int fed[NT]
    cdef double K[NT]
    cdef int t, cap = chicken == "capped"
    cdef double total = 0.0
    hc, kc = _counts(hand), _counts(king)
    for t in range(NT):
        P[t] = hc[t]
        K[t] = kc[t]
    if feed:
        total = _best_score(P, K, cap, fed)
        return int(total), {CARD_NAMES[t]: fed[t] for t in range(NT) if fed[t]}
    for t in range(NT):
        total += _signed(K[t], P[t], _value(t, P[t], P[CHICKEN], cap))
    return int(total), {}
