"""Belladone Bluff: rules in RULES.md sections 3 and 7.2.

Cards. 80 cards, id = colour * 16 + kind. Colours R (red), B (blue), G (green), Y (yellow), P (purple);
kinds 0..5 are the values -6..-1, 6..11 the values +1..+6, 12 Reverse (`rev`), 13 Target (`target`),
14 Jar (`jar`), 15 Eye (`eye`). Cards print as colour + value: `R-3`, `B+5`, `G-eye`, `Y-rev`.
Rows ("preparations") are I, II, III; positions 1..7, odd face up, even face down.

Actions (num_distinct_actions = 248). A turn is a sequence of small decisions by the same player;
ids 0..239 mean different things in different phases (the phase is part of the state):
- play phase: `80 * row + card` places `card` from hand at the next position of `row` (0..2);
  240 ends the turn (legal once at least one card is placed). The turn ends by itself when the row
  is full or the player holds no further card of the turn's colour.
- Eye phase (after the placement, before completion is checked, when a face-up Eye was placed this
  turn and a swap is possible): `80 * j + card` swaps `card` (hand, turn colour) with the face-down
  card at position 2j+2 (j = 0, 1, 2); 241 looks without swapping.
- Jar phase (the winner of a row with a face-up Jar, when there is a choice): 244 + q gives the row
  to player q.
- discard phase (a player unable to play, deck not empty): `card` discards that hand card; 242 stops
  discarding, draws as many as were discarded and passes the turn.
Forced single choices (one Jar recipient, an Eye without a possible swap) resolve by themselves.

Decisions where RULES.md is silent: after a turn the player draws as many cards as they placed (up
to 5, as far as the deck goes); a player unable to play discards at most as many cards as the deck
holds, so that they draw as many as they discarded; when every player in turn is unable to play and
discards nothing, the position would repeat for ever, so the game ends there. Parameters: `teams`
(default true) only changes 4-player games (teams 0+2 and 1+3); `easy`; `jar_team_any` (a Jar row
may go to a teammate); `deck_top_colour_public` (default true).

Information: every card's colour is public; `known[card]` is the bitmask of players who know its
value (its holder, whoever placed it face down, each Eye user who looked at it; all players once
it is face up or discarded). Knowledge follows a card into a hand (an Eye's swap), until its holder
puts a card of the same colour face down: hands are unordered, so from then on only the holder
knows which of them went where. Cards absent from hands, rows and deck are discarded (face up).
"""
from libc.stdint cimport uint64_t, uint8_t, uint16_t, int8_t, int16_t
from libc.string cimport memset
from engines.core cimport GameState, Rng, action_t, rng_seed, rng_next, rng_below, MAX_ACTIONS
from engines.registry import engine_params
from engines.events import Event, ended
cimport cython

cdef enum:
    NCARDS = 80
    HAND = 5
    ROWLEN = 7
    K_REV = 12
    K_TARGET = 13
    K_JAR = 14
    K_EYE = 15
    END_TURN = 240
    EYE_KEEP = 241
    DISCARD_DONE = 242
    JAR_BASE = 244
    NACTIONS = 248
    PH_PLAY = 0
    PH_EYE = 1
    PH_JAR = 2
    PH_DISCARD = 3
    PH_OVER = 4
    ALL = 15

cdef struct BBPos:
    int16_t score[4]        # per player; teammates hold equal copies of the team score
    int16_t pending         # score of a Jar row waiting for its recipient
    int8_t hand[4][5]
    int8_t hand_n[4]
    int8_t row[3][7]
    int8_t row_n[3]
    int8_t deck[80]         # deck[deck_n - 1] is the top card
    uint8_t known[80]       # per card: bitmask of the players who know its value
    int8_t deck_n
    int8_t n                # players
    int8_t teams            # 1: two teams (players 0+2 and 1+3)
    int8_t easy
    int8_t jar_any          # a Jar row may go to a teammate
    int8_t top_public       # the colour of the deck's top card is public
    int8_t phase
    int8_t to_move
    int8_t first
    int8_t turn_row         # row of this turn, -1 before the first card
    int8_t turn_colour
    int8_t turn_placed
    int8_t target_row       # row with a face-up Target, -1 if none
    int8_t eye_pending      # a face-up Eye was placed this turn
    int8_t discarded        # cards discarded this turn (unable to play)
    int8_t pass_streak      # consecutive unable turns without a discard

COLOURS = "RBGYP"
KIND_NAMES = ["-6", "-5", "-4", "-3", "-2", "-1", "+1", "+2", "+3", "+4", "+5", "+6",
              "-rev", "-target", "-jar", "-eye"]
ROW_NAMES = ["I", "II", "III"]
PHASE_NAMES = ["play", "eye", "jar", "discard", "over"]

cdef int VAL[16]
VAL[:] = [-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0]

cdef uint64_t ZSALT[16]

cdef void _init_tables():
    cdef Rng r
    cdef int i
    rng_seed(&r, 0xBE11AD0E)
    for i in range(16):
        ZSALT[i] = rng_next(&r)

_init_tables()


def card_name(int c):
    return COLOURS[c >> 4] + KIND_NAMES[c & 15]


def parse_card(text):
    t = text.strip().upper().replace(" ", "")
    if len(t) >= 2 and t[0] in COLOURS:
        rest = t[1:].lower()
        for k, name in enumerate(KIND_NAMES):
            if rest == name or (k >= 12 and rest == name[1:]) or (6 <= k < 12 and rest == name[1:]):
                return COLOURS.index(t[0]) * 16 + k
    raise ValueError(f"unknown card {text!r}: cards are like R-3, B+5, G-eye (colours {COLOURS})")


def _take(name, used):
    c = parse_card(name)
    if c in used:
        raise ValueError(f"card {name!r} dealt twice")
    used.add(c)
    return c


# ---------------------------------------------------------------- the rules, on the struct
cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 31
    x *= 0x7FB5D329728EA185ULL
    x ^= x >> 27
    x *= 0x81DADEF4BC2DD44DULL
    x ^= x >> 33
    return x

cdef inline bint _teammates(BBPos* s, int a, int b) noexcept nogil:
    return a == b or (s.teams and (a & 1) == (b & 1))

cdef inline void _draw_to_hand(BBPos* s, int p) noexcept nogil:
    cdef int c
    s.deck_n -= 1
    c = s.deck[s.deck_n]
    s.deck[s.deck_n] = 0            # no stale bytes: equal positions have equal snapshots
    s.hand[p][s.hand_n[p]] = c
    s.hand_n[p] += 1
    s.known[c] = 1 << p

cdef inline void _refill(BBPos* s, int p, int k) noexcept nogil:
    # as many as were placed, up to a hand of 5, as far as the deck goes
    while k > 0 and s.hand_n[p] < HAND and s.deck_n > 0:
        _draw_to_hand(s, p)
        k -= 1

cdef inline void _start_row(BBPos* s, int r) noexcept nogil:
    cdef int c
    s.row_n[r] = 0
    memset(s.row[r], 0, ROWLEN)
    while s.deck_n > 0:
        s.deck_n -= 1
        c = s.deck[s.deck_n]
        s.deck[s.deck_n] = 0
        s.known[c] = ALL
        if (c & 15) < K_REV:
            s.row[r][0] = c
            s.row_n[r] = 1
            return

cdef inline void _remove_from_hand(BBPos* s, int p, int c) noexcept nogil:
    cdef int i, last = s.hand_n[p] - 1
    for i in range(last + 1):
        if s.hand[p][i] == c:
            s.hand[p][i] = s.hand[p][last]
            s.hand[p][last] = 0
            s.hand_n[p] = last
            return

cdef inline void _blur_colour(BBPos* s, int q, int c) noexcept nogil:
    """c left q's hand face down: whoever knew c, or another of q's cards of its colour, can no
    longer tell which of them went (a hand is unordered), so only q keeps knowing them."""
    cdef int i, d, same = 0
    for i in range(s.hand_n[q]):
        d = s.hand[q][i]
        if (d >> 4) == (c >> 4):
            s.known[d] &= 1 << q
            same = 1
    if same:
        s.known[c] &= 1 << q

cdef inline bint _row_accepts(BBPos* s, int r, int colour) noexcept nogil:
    cdef int k = s.row_n[r]
    return k < 6 or (k == 6 and (s.row[r][5] >> 4) == colour)

cdef bint _can_play(BBPos* s, int p) noexcept nogil:
    cdef int r, i
    for r in range(3):
        if s.target_row >= 0 and r != s.target_row:
            continue
        for i in range(s.hand_n[p]):
            if _row_accepts(s, r, s.hand[p][i] >> 4):
                return True
    return False

cdef void _begin_turn(BBPos* s, int p) noexcept nogil:
    s.to_move = p
    s.turn_placed = 0
    s.turn_row = -1
    s.turn_colour = -1
    s.eye_pending = 0
    s.discarded = 0
    if _can_play(s, p):
        s.phase = PH_PLAY
    elif s.deck_n == 0:
        s.phase = PH_OVER
    else:
        s.phase = PH_DISCARD

cdef inline void _award(BBPos* s, int q, int v) noexcept nogil:
    cdef int i
    for i in range(s.n):
        if _teammates(s, i, q):
            s.score[i] += v
            if s.easy and s.score[i] < 0:
                s.score[i] = 0

cdef void _after_completion(BBPos* s) noexcept nogil:
    cdef int p = s.to_move
    if s.deck_n == 0:
        s.phase = PH_OVER
        return
    _start_row(s, s.turn_row)
    _refill(s, p, s.turn_placed)
    _begin_turn(s, (p + 1) % s.n)

cdef void _finish_turn(BBPos* s) noexcept nogil:
    """After the placement and any Eye: score a full row, then draw and pass the turn."""
    cdef int p = s.to_move, r = s.turn_row, i, c, total = 0, sign = 1, jar = 0
    if s.row_n[r] == ROWLEN:
        for i in range(ROWLEN):
            c = s.row[r][i]
            s.known[c] = ALL
            total += VAL[c & 15]
            if i % 2 == 0:
                if (c & 15) == K_REV:
                    sign = -sign
                elif (c & 15) == K_JAR:
                    jar = 1
        s.row_n[r] = 0
        memset(s.row[r], 0, ROWLEN)
        if s.target_row == r:
            s.target_row = -1
        total *= sign
        if jar:
            if s.n == 2:
                _award(s, 1 - p, total)
            else:
                s.pending = total
                s.phase = PH_JAR
                return
        else:
            _award(s, p, total)
        _after_completion(s)
        return
    _refill(s, p, s.turn_placed)
    _begin_turn(s, (p + 1) % s.n)

cdef inline bint _has_colour(BBPos* s, int p, int colour) noexcept nogil:
    cdef int i
    for i in range(s.hand_n[p]):
        if (s.hand[p][i] >> 4) == colour:
            return True
    return False

cdef void _end_placement(BBPos* s) noexcept nogil:
    cdef int p = s.to_move, r = s.turn_row, i
    if s.eye_pending:
        s.eye_pending = 0
        for i in range(1, s.row_n[r], 2):
            s.known[s.row[r][i]] |= 1 << p
        if s.row_n[r] >= 2 and _has_colour(s, p, s.turn_colour):
            s.phase = PH_EYE
            return
    _finish_turn(s)

cdef void _place(BBPos* s, int r, int c) noexcept nogil:
    cdef int p = s.to_move, i = s.row_n[r], k = c & 15
    _remove_from_hand(s, p, c)
    s.row[r][i] = c
    s.row_n[r] = i + 1
    if i % 2 == 0:
        s.known[c] = ALL
        if k == K_TARGET:
            s.target_row = r
        elif k == K_EYE:
            s.eye_pending = 1
    else:
        _blur_colour(s, p, c)
    s.turn_placed += 1
    s.turn_row = r
    s.turn_colour = c >> 4
    s.pass_streak = 0
    if i + 1 < ROWLEN and _has_colour(s, p, c >> 4):
        return
    _end_placement(s)

cdef void _eye_swap(BBPos* s, int j, int h) noexcept nogil:
    cdef int p = s.to_move, r = s.turn_row
    cdef int x = s.row[r][2 * j + 1]
    s.row[r][2 * j + 1] = h
    _remove_from_hand(s, p, h)
    _blur_colour(s, p, h)
    s.hand[p][s.hand_n[p]] = x
    s.hand_n[p] += 1
    s.phase = PH_PLAY
    _finish_turn(s)

cdef void _discard_done(BBPos* s) noexcept nogil:
    cdef int p = s.to_move, k
    if s.discarded == 0:
        s.pass_streak += 1
        # every player in turn unable and discarding nothing: the position would repeat forever
        if s.pass_streak >= s.n:
            s.phase = PH_OVER
            return
    else:
        s.pass_streak = 0
        for k in range(s.discarded):
            _draw_to_hand(s, p)
    _begin_turn(s, (p + 1) % s.n)

cdef void _apply(BBPos* s, int a) noexcept nogil:
    cdef int ph = s.phase
    if ph == PH_PLAY:
        if a == END_TURN:
            _end_placement(s)
        else:
            _place(s, a // 80, a % 80)
    elif ph == PH_EYE:
        if a == EYE_KEEP:
            s.phase = PH_PLAY
            _finish_turn(s)
        else:
            _eye_swap(s, a // 80, a % 80)
    elif ph == PH_JAR:
        _award(s, a - JAR_BASE, s.pending)
        s.pending = 0
        _after_completion(s)
    elif ph == PH_DISCARD:
        if a == DISCARD_DONE:
            _discard_done(s)
        else:
            _remove_from_hand(s, s.to_move, a)
            s.known[a] = ALL
            s.discarded += 1

cdef int _legal(BBPos* s, action_t* out) noexcept nogil:
    cdef int n = 0, p = s.to_move, r, i, j, c, k, colour
    cdef int ph = s.phase
    if ph == PH_PLAY:
        if s.turn_placed == 0:
            for r in range(3):
                if s.target_row >= 0 and r != s.target_row:
                    continue
                k = s.row_n[r]
                if k < 6:
                    for i in range(s.hand_n[p]):
                        out[n] = 80 * r + s.hand[p][i]
                        n += 1
                else:
                    colour = s.row[r][5] >> 4
                    for i in range(s.hand_n[p]):
                        c = s.hand[p][i]
                        if (c >> 4) == colour:
                            out[n] = 80 * r + c
                            n += 1
        else:
            r = s.turn_row
            for i in range(s.hand_n[p]):
                c = s.hand[p][i]
                if (c >> 4) == s.turn_colour:
                    out[n] = 80 * r + c
                    n += 1
            out[n] = END_TURN
            n += 1
    elif ph == PH_EYE:
        out[0] = EYE_KEEP
        n = 1
        r = s.turn_row
        for j in range(s.row_n[r] // 2):
            for i in range(s.hand_n[p]):
                c = s.hand[p][i]
                if (c >> 4) == s.turn_colour:
                    out[n] = 80 * j + c
                    n += 1
    elif ph == PH_JAR:
        for i in range(s.n):
            if i != p and (s.jar_any or not _teammates(s, i, p)):
                out[n] = JAR_BASE + i
                n += 1
    elif ph == PH_DISCARD:
        if s.discarded < s.deck_n:
            for i in range(s.hand_n[p]):
                out[n] = s.hand[p][i]
                n += 1
        out[n] = DISCARD_DONE
        n += 1
    return n

cdef void _deal(BBPos* s, Rng* chance) noexcept nogil:
    """A fresh game on s's parameters: shuffle, deal 5 each, start the three rows, pick the first player."""
    cdef int i, j, t, p, r
    for i in range(4):
        s.score[i] = 5 if s.easy else 0
        s.hand_n[i] = 0
    s.pending = 0
    for i in range(NCARDS):
        s.deck[i] = i
        s.known[i] = 0
    for i in range(NCARDS - 1, 0, -1):
        j = rng_below(chance, i + 1)
        t = s.deck[i]; s.deck[i] = s.deck[j]; s.deck[j] = t
    s.deck_n = NCARDS
    for p in range(s.n):
        for i in range(HAND):
            _draw_to_hand(s, p)
    for r in range(3):
        _start_row(s, r)
    s.target_row = -1
    s.pass_streak = 0
    s.first = rng_below(chance, s.n)
    _begin_turn(s, s.first)


cdef double _row_outlook(BBPos* s, int viewer, int q, int r) noexcept nogil:
    """What row r is worth to q when q is about to complete it, as `viewer` can estimate it:
    known values (unknown ones count 0, the mean of a colour), times the Reverse sign; 0 when q
    cannot fill it with the colours q holds or would have to give it away (Jar)."""
    cdef int need = ROWLEN - s.row_n[r], i, c, sign = 1, v = 0, best = 0
    cdef int counts[5]
    if need > 3 or s.row_n[r] == 0 or (s.target_row >= 0 and r != s.target_row):
        return 0.0
    for i in range(5):
        counts[i] = 0
    for i in range(s.hand_n[q]):
        counts[s.hand[q][i] >> 4] += 1
    if need == 1:
        best = counts[s.row[r][5] >> 4]
    else:
        for i in range(5):
            if counts[i] > best:
                best = counts[i]
    if best < need:
        return 0.0
    for i in range(s.row_n[r]):
        c = s.row[r][i]
        if i % 2 == 0 or (s.known[c] >> viewer) & 1:
            v += VAL[c & 15]
        if i % 2 == 0:
            if (c & 15) == K_REV:
                sign = -sign
            elif (c & 15) == K_JAR:
                return 0.0
    v *= sign
    return v if v > 0 else 0.0

cdef double _standing(BBPos* s, int viewer, int q) noexcept nogil:
    cdef double best = 0.0, x
    cdef int r
    for r in range(3):
        x = _row_outlook(s, viewer, q, r)
        if x > best:
            best = x
    # the player to move can act on it now; anyone else only if it survives a turn
    return s.score[q] + (best if q == s.to_move else 0.5 * best)


cdef inline int _card_sig(int c, int viewer, int mask) noexcept nogil:
    """What c_infoset_key hashes of card c with knowledge mask `mask` for `viewer`: its colour, the
    mask, and its kind when the viewer is in the mask."""
    return ((c >> 4) << 13) | (((c & 15) if (mask >> viewer) & 1 else 16) << 8) | mask

cdef inline int _hand_key(BBPos* s, int viewer, int c) noexcept nogil:
    """What `viewer` can tell about hand card c: its colour, its value if known, who knows it."""
    cdef int kind = (c & 15) if (s.known[c] >> viewer) & 1 else 16
    return ((c >> 4) << 13) | (kind << 8) | s.known[c]

cdef void _sort_hand_for(BBPos* s, int q, int viewer) noexcept nogil:
    """Orders q's hand by what `viewer` sees of it: the order a hand happens to have depends on
    which cards left it, face down too, so otherwise it would tell the viewer's worlds apart."""
    cdef int i, j, c, key
    for i in range(1, s.hand_n[q]):
        c = s.hand[q][i]
        key = _hand_key(s, viewer, c)
        j = i - 1
        while j >= 0 and _hand_key(s, viewer, s.hand[q][j]) > key:
            s.hand[q][j + 1] = s.hand[q][j]
            j -= 1
        s.hand[q][j + 1] = c


SPECIALS = {"rev": "Reverse", "target": "Target", "jar": "Jar", "eye": "Eye"}


def _value(card: str) -> int:
    """A card's printed value; specials are 0 (RULES.md 3.1)."""
    return 0 if card[2:] in SPECIALS else int(card[1:])


cdef class BelladoneBluffState(GameState):
    cdef BBPos s

    def __cinit__(self, *args, **kwargs):
        self._pos = &self.s
        self._pos_size = sizeof(BBPos)

    def __init__(self, dict params, seed=0):
        params = engine_params("belladone_bluff", params, 4)     # defaults and player counts
        n = params["players"]
        self.game_id = "belladone_bluff"
        self.params = params
        self.num_players = n
        self.num_distinct_actions = NACTIONS
        memset(&self.s, 0, sizeof(BBPos))
        self.s.n = n
        self.s.teams = 1 if (n == 4 and params["teams"]) else 0
        self.s.easy = 1 if params["easy"] else 0
        self.s.jar_any = 1 if (params["jar_team_any"] or not self.s.teams) else 0
        self.s.top_public = 1 if params["deck_top_colour_public"] else 0
        self.c_reset(<uint64_t>seed)

    cdef int c_reset(self, uint64_t seed) except -1 nogil:
        rng_seed(&self.chance, seed)
        _deal(&self.s, &self.chance)
        return 0

    @classmethod
    def from_deal(cls, hands, deck, preparations, first=0, scores=None, seen=None, **params):
        """An explicit position at the start of `first`'s turn. `hands`: one list of card names per
        player; `deck`: card names, top first; `preparations`: three lists of card names from
        position 1 (face up, odd positions; face down, even ones); `seen`: {card name: [players]}
        who know the value of a face-down or hand card (its holder always does); `scores`: points so
        far. Every card not named is in the discard pile."""
        from engines.registry import resolve
        full = resolve("belladone_bluff", players=len(hands), **params)
        cdef BelladoneBluffState st = cls(full, 0)
        cdef BBPos* s = &st.s
        cdef int p, r, i, c
        used = set()
        st.seat(first)
        if scores is not None and len(scores) != st.num_players:
            raise ValueError(f"give one score per player ({st.num_players})")
        for who in (seen or {}).values():
            for q in who:
                st.seat(q)
        if len(preparations) != 3:
            raise ValueError("there are exactly three preparations")
        memset(s.hand, 0, sizeof(s.hand))
        memset(s.hand_n, 0, sizeof(s.hand_n))
        memset(s.row, 0, sizeof(s.row))
        memset(s.deck, 0, sizeof(s.deck))
        for p, h in enumerate(hands):
            if len(h) > HAND:
                raise ValueError("a hand holds at most 5 cards")
            for name in h:
                c = _take(name, used)
                s.hand[p][s.hand_n[p]] = c
                s.hand_n[p] += 1
                s.known[c] = 1 << p
        s.target_row = -1
        for r, row in enumerate(preparations):
            if len(row) > 6:
                raise ValueError("a preparation in play holds at most 6 cards")
            s.row_n[r] = len(row)
            for i, name in enumerate(row):
                c = _take(name, used)
                s.row[r][i] = c
                s.known[c] = ALL if i % 2 == 0 else 0
                if i % 2 == 0 and (c & 15) == K_TARGET:
                    s.target_row = r
        s.deck_n = len(deck)
        for i, name in enumerate(deck):
            c = _take(name, used)
            s.deck[len(deck) - 1 - i] = c
            s.known[c] = 0
        for c in range(NCARDS):
            if c not in used:
                s.known[c] = ALL
        for name, who in (seen or {}).items():
            c = parse_card(name)
            for p in who:
                s.known[c] |= 1 << p
        for p in range(st.num_players):
            s.score[p] = (scores[p] if scores else (5 if s.easy else 0))
        s.first = first
        s.pass_streak = 0
        _begin_turn(s, first)
        return st

    # ---- the hot path ----
    cdef int c_apply(self, action_t a) except -1 nogil:
        _apply(&self.s, a)
        return 0

    cdef int c_legal_actions(self, action_t* out) noexcept nogil:
        return _legal(&self.s, out)

    cdef int c_current_player(self) noexcept nogil:
        return -1 if self.s.phase == PH_OVER else self.s.to_move

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.s.phase == PH_OVER

    cdef double c_returns(self, int p) noexcept nogil:   # the score so far too (GameState.c_score)
        return self.s.score[p]

    cdef int c_round(self) noexcept nogil:
        return 0

    cdef double c_evaluate(self, int p) noexcept nogil:
        """Own (team) score plus what the row p is closest to winning is worth, minus the same
        for the best-placed opponent; values p does not know count as 0 (each colour's mean)."""
        cdef double mine, theirs = -1e9, x
        cdef int q
        if self.s.phase == PH_OVER:
            mine = self.s.score[p]
            for q in range(self.s.n):
                if not _teammates(&self.s, p, q) and self.s.score[q] > theirs:
                    theirs = self.s.score[q]
            return mine - theirs
        mine = -1e9
        for q in range(self.s.n):
            x = _standing(&self.s, p, q)
            if _teammates(&self.s, p, q):
                if x > mine:
                    mine = x
            elif x > theirs:
                theirs = x
        return mine - theirs

    cdef int c_rollout(self, Rng* rng, int horizon) except -1 nogil:
        cdef action_t buf[MAX_ACTIONS]
        cdef int n
        cdef BBPos* s = &self.s
        while s.phase != PH_OVER:
            n = _legal(s, buf)
            _apply(s, buf[rng_below(rng, n)])
        return 0

    # ---- imperfect information ----
    cdef action_t c_action_view(self, int o, action_t a) noexcept nogil:
        """How o sees the mover's action a, keyed exactly as c_infoset_key tells the results apart:
        a face-down placement is its colour in its row (the holder's other cards of that colour are
        blurred with it, so even a card o knew is no longer told apart); an Eye swap is its
        position, unless the card swapped in looks to o like the card taken out (then, with the
        blur, it looks like keeping: EYE_KEEP, or one class for all such positions), and seen whole
        when the row is full (it is turned up and scored at once); a Jar row given to either of two
        teammates is one outcome (their shared score). Everything else (face-up placements, discards, Jar gifts, ends of turn) is seen whole."""
        cdef BBPos* s = &self.s
        cdef int p = s.to_move, r, j, i, h, d, tc, n_tc = 0, all_p = 1, placed
        if o == p or s.phase == PH_OVER:
            return a
        if s.phase == PH_PLAY and a < END_TURN:
            r = a // 80
            if s.row_n[r] % 2 == 1:
                return 80 * r + (a % 80 & ~15)
            return a
        if s.phase == PH_JAR and s.teams and s.n == 4:
            return JAR_BASE + ((a - JAR_BASE) & 1)     # teammates share one score: same outcome
        if s.phase == PH_EYE and a != EYE_KEEP:
            j = a // 80
            h = a % 80
            tc = s.turn_colour
            r = s.turn_row
            if s.row_n[r] == ROWLEN:
                return a            # the row is won at once: every card is turned up
            for i in range(s.hand_n[p]):
                d = s.hand[p][i]
                if (d >> 4) == tc:
                    n_tc += 1
                    if s.known[d] != (1 << p):
                        all_p = 0
            placed = _card_sig(h, o, (1 << p) if n_tc >= 2 else s.known[h])
            d = s.row[r][2 * j + 1]
            if _card_sig(d, o, s.known[d]) != placed:
                return 80 * j + 16 * tc
            if n_tc == 1 or all_p:
                return EYE_KEEP
            for i in range(s.row_n[r] // 2):
                d = s.row[r][2 * i + 1]
                if _card_sig(d, o, s.known[d]) == placed:
                    return 80 * i + 16 * tc
        return a

    cdef uint64_t c_infoset_key(self, int p) noexcept nogil:
        cdef BBPos* s = &self.s
        cdef uint64_t acc = 0, h
        cdef int q, i, r, c, m
        cdef uint8_t where[80]
        for c in range(NCARDS):
            where[c] = 0
        for q in range(s.n):
            for i in range(s.hand_n[q]):
                c = s.hand[q][i]
                m = s.known[c]
                where[c] = 1
                if (m >> p) & 1:
                    acc += _mix(ZSALT[1] ^ (<uint64_t>c << 8) ^ (<uint64_t>q << 16) ^ (<uint64_t>m << 24))
                else:
                    acc += _mix(ZSALT[2] ^ (<uint64_t>(c >> 4) << 8) ^ (<uint64_t>q << 16) ^ (<uint64_t>m << 24))
        for r in range(3):
            for i in range(s.row_n[r]):
                c = s.row[r][i]
                m = s.known[c]
                where[c] = 1
                h = (<uint64_t>r << 32) ^ (<uint64_t>i << 40) ^ (<uint64_t>m << 24)
                if (m >> p) & 1:
                    acc += _mix(ZSALT[3] ^ h ^ (<uint64_t>c << 8))
                else:
                    acc += _mix(ZSALT[4] ^ h ^ (<uint64_t>(c >> 4) << 8))
        for i in range(s.deck_n):
            c = s.deck[i]
            where[c] = 1
            if i == s.deck_n - 1 and s.top_public:
                acc += _mix(ZSALT[5] ^ <uint64_t>(c >> 4))
            else:
                acc += _mix(ZSALT[6])
        for c in range(NCARDS):
            if not where[c]:
                acc += _mix(ZSALT[7] ^ <uint64_t>c)
        h = ZSALT[8] ^ <uint64_t>p
        h = _mix(h ^ acc)
        h = _mix(h ^ (<uint64_t>s.phase | (<uint64_t>s.to_move << 8) | (<uint64_t>(s.turn_row + 1) << 16)
                      | (<uint64_t>(s.turn_colour + 1) << 24) | (<uint64_t>s.turn_placed << 32)
                      | (<uint64_t>s.eye_pending << 40) | (<uint64_t>s.discarded << 48)
                      | (<uint64_t>s.pass_streak << 56)))
        h = _mix(h ^ (<uint64_t><uint16_t>s.pending) ^ (<uint64_t>(s.target_row + 1) << 16))
        for q in range(s.n):
            h = _mix(h ^ <uint64_t><uint16_t>s.score[q] ^ (<uint64_t>q << 20))
        return h

    cdef int c_determinize(self, int p, Rng* rng) except -1 nogil:
        """Re-deals, within each colour, every value p does not know: other players' hands,
        face-down cards p has not seen, the deck (only its top card's colour is public). Which
        players know which slot is kept, so the public record of who saw what stays true."""
        cdef BBPos* s = &self.s
        cdef int8_t* slot[80]          # where each unseen card sits
        cdef uint8_t slot_mask[80]
        cdef int8_t slot_colour[80]    # -1: any colour (deck below the top)
        cdef int8_t pool[80]
        cdef uint8_t unseen[80]
        cdef int8_t bucket[5][16]
        cdef int bucket_n[5]
        cdef int bucket_at[5]
        cdef int n = 0, q, i, r, c, j, t, k, free_n = 0
        for q in range(s.n):
            if q == p:
                continue
            _sort_hand_for(s, q, p)
            for i in range(s.hand_n[q]):
                c = s.hand[q][i]
                if not (s.known[c] >> p) & 1:
                    slot[n] = &s.hand[q][i]
                    slot_colour[n] = c >> 4
                    n += 1
        for r in range(3):
            for i in range(1, s.row_n[r], 2):
                c = s.row[r][i]
                if not (s.known[c] >> p) & 1:
                    slot[n] = &s.row[r][i]
                    slot_colour[n] = c >> 4
                    n += 1
        for i in range(s.deck_n):
            c = s.deck[i]
            slot[n] = &s.deck[i]
            slot_colour[n] = (c >> 4) if (i == s.deck_n - 1 and s.top_public) else -1
            n += 1
        for k in range(5):
            bucket_n[k] = 0
            bucket_at[k] = 0
        for c in range(NCARDS):
            unseen[c] = 0
        for i in range(n):
            c = slot[i][0]
            slot_mask[i] = s.known[c]
            unseen[c] = 1
        # the unseen cards in card order, so the result depends on p's information and rng alone
        t = 0
        for c in range(NCARDS):
            if unseen[c]:
                pool[t] = c
                t += 1
        # shuffle the unseen cards, then hand them out colour by colour
        for i in range(n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            t = pool[i]; pool[i] = pool[j]; pool[j] = t
        for i in range(n):
            c = pool[i]
            bucket[c >> 4][bucket_n[c >> 4]] = c
            bucket_n[c >> 4] += 1
        for i in range(n):
            k = slot_colour[i]
            if k >= 0:
                c = bucket[k][bucket_at[k]]
                bucket_at[k] += 1
                slot[i][0] = c
                s.known[c] = slot_mask[i]
        for k in range(5):
            for j in range(bucket_at[k], bucket_n[k]):
                pool[free_n] = bucket[k][j]
                free_n += 1
        for i in range(free_n - 1, 0, -1):
            j = rng_below(rng, i + 1)
            t = pool[i]; pool[i] = pool[j]; pool[j] = t
        t = 0
        for i in range(n):
            if slot_colour[i] < 0:
                c = pool[t]
                t += 1
                slot[i][0] = c
                s.known[c] = slot_mask[i]
        rng_seed(&self.chance, rng_next(rng))
        return 0

    # ---- Python face ----
    def action_to_string(self, int action):
        ph = self.s.phase
        if not 0 <= action < NACTIONS:
            raise ValueError(f"no action {action}")
        if action == END_TURN:
            return "end turn"
        if action == EYE_KEEP:
            return "eye: no swap"
        if action == DISCARD_DONE:
            return "stop discarding"
        if action >= JAR_BASE:
            return f"give row to P{action - JAR_BASE}"
        if action >= 240:
            return f"unused {action}"
        if ph == PH_EYE:
            return f"eye: swap {card_name(action % 80)} into position {2 * (action // 80) + 2}"
        if ph == PH_DISCARD and action < 80:
            return f"discard {card_name(action)}"
        return f"play {card_name(action % 80)} on {ROW_NAMES[action // 80]}"

    def phase(self):
        return PHASE_NAMES[self.s.phase]

    def hand(self, player):
        player = self.seat(player)
        return sorted(card_name(self.s.hand[player][i]) for i in range(self.s.hand_n[player]))

    def preparation(self, int r):
        """Row r's cards from position 1, all names (the full truth, not a player's view)."""
        return [card_name(self.s.row[r][i]) for i in range(self.s.row_n[r])]

    def deck(self):
        """Deck card names, top first."""
        return [card_name(self.s.deck[i]) for i in range(self.s.deck_n - 1, -1, -1)]

    def target_row(self):
        return None if self.s.target_row < 0 else int(self.s.target_row)

    def knows(self, player, card):
        player = self.seat(player)
        c = parse_card(card) if isinstance(card, str) else card
        return bool((self.s.known[c] >> player) & 1)

    def discards(self):
        here = set()
        for q in range(self.s.n):
            here.update(self.s.hand[q][i] for i in range(self.s.hand_n[q]))
        for r in range(3):
            here.update(self.s.row[r][i] for i in range(self.s.row_n[r]))
        here.update(self.s.deck[i] for i in range(self.s.deck_n))
        return sorted(card_name(c) for c in range(NCARDS) if c not in here)

    @cython.boundscheck(True)       # plain Python indexing here, negative indices included
    @cython.wraparound(True)
    def _events(self, GameState before, int action):
        """Belladone Bluff's events of `action`, played from `before` to here (GameState.apply_with_events)."""
        p = before.current_player()
        name = before.action_to_string(action)
        turn = before.observation(p)["turn"]
        rows = {"I": 0, "II": 1, "III": 2}
        row = turn["row"]
        cards = before.preparation(rows[row]) if row else []
        out = []
        if name.startswith("play "):
            card, row = name[5:].split(" on ")
            cards = before.preparation(rows[row]) + [card]
            pos = len(cards)
            out.append(Event("card_placed", p, card, f"{row} {pos}"))
            if card[2:] in SPECIALS:
                out.append(Event("special_played", p, SPECIALS[card[2:]], "face up" if pos % 2 else "face down"))
        elif name.startswith("eye: swap "):
            card, pos = name[10:].split(" into position ")
            out.append(Event("eye_swap", p, card, cards[int(pos) - 1]))
            cards[int(pos) - 1] = card
        elif name == "eye: no swap":
            out.append(Event("eye_look", p, "Eye", row))
        elif name.startswith("discard "):
            out.append(Event("card_discarded", p, name[8:]))
        elif name.startswith("give row to P"):
            q = int(name[13:])
            out.append(Event("row_scored", q, row, str(before.observation(p)["jar_score"])))
        if len(cards) == 7 and len(self.preparation(rows[row])) < 7:      # the row was scored just now
            up = cards[0::2]
            score = sum(_value(c) for c in cards) * (-1) ** sum(c.endswith("-rev") for c in up)
            out.append(Event("row_won", p, row, str(score)))
            out.extend(Event("special_in_won_row", p, SPECIALS[c[2:]], "face up" if i % 2 == 0 else "face down")
                       for i, c in enumerate(cards) if c[2:] in SPECIALS)
            if self.phase() != "jar":
                jar = any(c.endswith("-jar") for c in up)
                out.append(Event("row_scored", 1 - p if jar else p, row, str(score)))
        if ended(before, self):
            out.extend(Event("held_at_end", q, c) for q in range(self.num_players) for c in self.hand(q))
        return out

    def observation(self, player):
        cdef int q, r, i, c
        player = self.seat(player)
        hands = []
        for q in range(self.s.n):
            cards = [self.s.hand[q][i] for i in range(self.s.hand_n[q])]
            colours = "".join(sorted((COLOURS[c >> 4] for c in cards), key=COLOURS.index))
            hands.append({
                "colours": colours,
                "known": sorted(card_name(c) for c in cards if (self.s.known[c] >> player) & 1),
                "seen_by": sorted(sorted(q2 for q2 in range(self.s.n) if (self.s.known[c] >> q2) & 1)
                                  for c in cards),
            })
        rows = []
        for r in range(3):
            row = []
            for i in range(self.s.row_n[r]):
                c = self.s.row[r][i]
                if i % 2 == 0:
                    row.append(card_name(c))
                else:
                    shown = card_name(c) if (self.s.known[c] >> player) & 1 else COLOURS[c >> 4] + "?"
                    row.append({"card": shown, "seen_by": [q for q in range(self.s.n)
                                                           if (self.s.known[c] >> q) & 1]})
            rows.append(row)
        obs = {
            "player": player,
            "to_move": self.c_current_player(),
            "phase": PHASE_NAMES[self.s.phase],
            "scores": [int(self.s.score[q]) for q in range(self.s.n)],
            "teams": bool(self.s.teams),
            "hand": self.hand(player),
            "hands": hands,
            "preparations": rows,
            "target": self.target_row(),
            "deck_size": int(self.s.deck_n),
            "deck_top_colour": (COLOURS[self.s.deck[self.s.deck_n - 1] >> 4]
                                if self.s.deck_n and self.s.top_public else None),
            "discards": self.discards(),
            "turn": {"row": None if self.s.turn_row < 0 else ROW_NAMES[self.s.turn_row],
                     "colour": None if self.s.turn_colour < 0 else COLOURS[self.s.turn_colour],
                     "placed": int(self.s.turn_placed), "eye_pending": bool(self.s.eye_pending),
                     "discarded": int(self.s.discarded)},
            "jar_score": int(self.s.pending) if self.s.phase == PH_JAR else None,
            "passes": int(self.s.pass_streak),
        }
        if player == self.c_current_player():
            obs["legal"] = [self.action_to_string(a) for a in self.legal_actions()]
        return obs

    def __str__(self):
        out = []
        for r in range(3):
            cells = []
            for i in range(self.s.row_n[r]):
                name = card_name(self.s.row[r][i])
                cells.append(name if i % 2 == 0 else f"[{name}]")
            mark = "  <- target" if self.s.target_row == r else ""
            out.append(f"{ROW_NAMES[r]:>3}: " + " ".join(cells) + mark)
        for q in range(self.s.n):
            arrow = ">" if q == self.c_current_player() else " "
            team = f" team {q & 1}" if self.s.teams else ""
            out.append(f"{arrow}P{q}{team} ({self.s.score[q]:+d}): " + " ".join(self.hand(q)))
        top = (f", top {COLOURS[self.s.deck[self.s.deck_n - 1] >> 4]}"
               if self.s.deck_n and self.s.top_public else "")
        out.append(f"deck {self.s.deck_n}{top}; phase {PHASE_NAMES[self.s.phase]}"
                   + (f"; turn on {ROW_NAMES[self.s.turn_row]}, {self.s.turn_placed} placed"
                      if self.s.turn_row >= 0 else "")
                   + ("; game over" if self.s.phase == PH_OVER else "")
                   + "; [ ] face down")
        return "\n".join(out)
