"""A double-dummy solver for the play of one Wizard round (RULES.md 1.4-1.5), and its plain reference.

Given a determinized deal (every hand known), the trump suit, the trick in progress, the tricks won
so far and a bid, it computes exactly the value of the rest of the round for one player `p`.

Solution concept (more than two players): *paranoid per player*. For player p with bid b, the value
is the round score p can guarantee, score(t) = 20 + 10 t if t == b else -10 |t - b| (t: p's tricks
at the end of the round), when p maximises it and every other player minimises it, as one coalition
that sees all cards. This is the standard tractable choice for multi-player trick-taking: it turns
the n-player game into a two-sided zero-sum game, so alpha-beta prunes and a transposition table of
value bounds applies (max-n has no deep pruning and needs a rule to break the many ties of a score
that depends on one's own tricks only; with 15 cards in 4 hands it is out of reach). It is also what
a player needs to know: the score it can *guarantee*, i.e. make without anyone's help. Its flaw is
pessimism (real opponents chase their own bids rather than spoil p's), so the solver also offers the
opposite bound, `optimistic` (everyone maximises p's score: the best p can hope for); the true
outcome against any opponents lies between the two. `solve_all` gives every player's paranoid value.
The value depends on no other bid than p's, which is why bids hidden from p do not matter to it.

Search: alpha-beta over single card plays (min at the other players' turns, max at p's; every node
max in optimistic mode), fail-soft, with:
- a transposition table at trick boundaries, keyed on the cards still in hands (their union: within
  one deal a card's owner is fixed), the player to lead and p's tricks so far, storing a lower and
  an upper bound of the value and the best lead (one generation per (deal, p, bid, mode)), in
  buckets of two entries (the one standing for more cards, and the latest);
- equivalent cards merged: of the cards a player may play, a run of one suit with nothing between
  them but the player's own cards and cards out of play (played in finished tricks, turned up, not
  dealt) is one move; so are the Wizards (all alike) and the Jesters;
- move ordering: the table's best lead first; then by strength in the trick as it stands, p's
  weakest card first and the others' strongest first (measured against orderings by what each
  mover wants of the trick: see `_moves`; 2.1 times fewer card plays than those at 6-8 cards);
- quick-trick bounds (sound for any play, so for both modes) on p's final tricks t at a trick
  boundary with k tricks left, from *sure cards*: Wizards, and trumps above every trump of the other
  side. Each of p's sure cards takes its trick unless a Wizard of another player is in it (p plays
  one card a trick, so each such Wizard spoils one), hence t >= t0 + max(0, S_p - W_others); each
  sure card of another player q (its trumps above all of p's) keeps p from its trick unless p plays
  a Wizard to it, hence t <= t0 + k - max_q max(0, S_q - W_p); and t <= t0 + (p's non-Jester cards)
  + min over all players of their Jesters (a Jester wins only a trick of Jesters alone). The last
  trick is played out directly. The score range cuts the search when it falls outside the window.

Speed (`python -m arena.bench.pimc wizard`, one core's CPU time, 4 players, the engine's deals 0-2,
first lead, bid n // 4, 2026-11-30, the machine shared with other work): 5-card hands 66.6
solved/s (826 card plays each, median; the rate is bounded by clearing the 64 MB table per hand)
against 5.33/s for the plain reference (9.3 million card plays); 8-card hands 8.8/s (1.4 million);
full 10-card hands 0.04/s: all three solved, 285 million card plays (median), some 25 s each; 15-card
hands: none within 5 million. With the earlier ordering (by what each mover wants of the trick) the
first two of these 10-card hands passed 300 million card plays unsolved. The coalition's three replies per trick are the cost: proving that p
makes its bid (or misses by at most k) means refuting every joint reply. Partition search (table
entries valid for every position sharing the relevant ranks) would be the next step. Within a
budget the solver deepens by tricks (`horizon`).

The playout (`playout`, `Deal.playout`): every player plays the round out under `policy_card`, a
bid-chasing rule that sees every hand (the world is determinized): short of its bid, a player plays
its cheapest card that takes the trick whatever the later players hold (else, not leading, its
strongest winner; else its lowest card); at or past it, its highest card that already loses, else
its lowest (its highest when last and every card wins). The players named `blind` judge "whatever
the later players hold" by the cards they cannot see instead (`beatable_unseen`: any unseen Wizard,
any higher unseen card of the led suit, and any unseen trump, since a void player may trump), as
they must at the table (and, short of their bid with no sure card, lead their strongest card, not
their lowest: to them few cards are sure): `pimc` plays its own seat blind, so that its plan for the
rest of the round does not count on sight it will not have. About a million playouts a second at
5 to 10 cards; `pimc` bids and plays by them.

`plain_value` is the reference: plain minimax over every card (Wizards and Jesters one by one), no
pruning, no table, no bounds, no ordering, with its own trick resolution written from RULES.md 1.4
(first Wizard, else highest trump, else highest of the led suit, else first Jester).

Cards are the Wizard engine's hand bits: suited card suit*13 + rank (0..51), Wizards 52..55,
Jesters 56..59. `Deal.from_state(state)` reads a WizardState through its Python face (hands, trick,
trump, tricks, bids), so this module depends on no engine internals.
"""
from libc.stdint cimport uint64_t, uint32_t, int16_t, int8_t, uint8_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from engines.wizard_rules cimport may_play, hand_promise

cdef extern from *:
    """
    static inline int ws_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int ws_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int ws_clz(unsigned long long x) { return __builtin_clzll(x); }
    """
    int ws_popcount(unsigned long long x) nogil
    int ws_ctz(unsigned long long x) nogil
    int ws_clz(unsigned long long x) nogil

cdef enum:
    MAXP = 6
    NCARDS = 60
    LED_FREE = 4          # a Wizard was led: nothing to follow
    LED_NONE = 5          # no card but Jesters yet
    C_WIZ = 4             # card codes: suit 0..3, Wizard 4, Jester 6
    C_JES = 6
    MODE_PARANOID = 0
    MODE_OPTIMISTIC = 1
    F_LOWER = 1
    F_UPPER = 2

cdef uint64_t SUITED = (<uint64_t>1 << 52) - 1
cdef uint64_t WIZ = (<uint64_t>0xF) << 52
cdef uint64_t JES = (<uint64_t>0xF) << 56
cdef uint64_t ALL = (<uint64_t>1 << 60) - 1
cdef uint64_t SUIT_MASK[4]
cdef int i_
for i_ in range(4):
    SUIT_MASK[i_] = ((<uint64_t>1 << 13) - 1) << (13 * i_)

cdef int VAL_INF = 1000000


cdef struct SPos:
    uint64_t hand[MAXP]
    uint64_t dead          # out of play: in no hand and not in the trick in progress
    uint64_t trick_cards
    int8_t n
    int8_t trump           # -1: no trump
    int8_t to_move
    int8_t trick_len
    int8_t led             # LED_NONE, LED_FREE or the led suit
    int8_t win_player
    int8_t win_str         # -1 before the first card
    int8_t tricks[MAXP]    # tricks won this round
    int8_t tcard[MAXP]     # the trick in progress, in play order


cdef struct TTEntry:
    uint64_t check         # a second hash of the position, independent of the one that indexes
    int16_t lo
    int16_t hi
    int8_t best            # the best lead, relative (see rel_card), -1 if none
    int8_t depth           # cards left in all hands: the size of the subtree it stands for
    int8_t _pad[2]


cdef inline int card_code(int c) noexcept nogil:
    if c < 52:
        return c // 13
    return C_WIZ if c < 56 else C_JES


cdef inline int strength(SPos* s, int c, int led) noexcept nogil:
    """The card's strength in the trick (first card of the greatest strength takes it); `led` is
    the led code after it is played."""
    cdef int code = card_code(c)
    if code == C_WIZ:
        return 64
    if code == C_JES:
        return 0
    if code == s.trump:
        return 32 + c % 13
    if code == led:
        return 16 + c % 13
    return 0


cdef inline void add_to_trick(SPos* s, int c, int q) noexcept nogil:
    """Card c (already out of q's hand) joins the trick; ends the trick when everyone has played."""
    cdef int code = card_code(c), st, w
    s.trick_cards |= <uint64_t>1 << c
    s.tcard[s.trick_len] = c
    if s.led == LED_NONE:
        if code == C_WIZ:
            s.led = LED_FREE
        elif code < 4:
            s.led = code
    st = strength(s, c, s.led)
    if st > s.win_str:
        s.win_str = st
        s.win_player = q
    s.trick_len += 1
    if s.trick_len < s.n:
        s.to_move = q + 1 if q + 1 < s.n else 0
        return
    w = s.win_player
    s.tricks[w] += 1
    s.dead |= s.trick_cards
    s.trick_cards = 0
    s.trick_len = 0
    s.led = LED_NONE
    s.win_str = -1
    s.win_player = -1
    s.to_move = w


cdef inline uint64_t playable(SPos* s) noexcept nogil:
    return may_play(s.hand[s.to_move], s.led)


cdef inline int score_of(int t, int bid) noexcept nogil:
    if t == bid:
        return 20 + 10 * t
    return -10 * (t - bid if t > bid else bid - t)


cdef inline uint64_t mix64(uint64_t k) noexcept nogil:
    k = (k ^ (k >> 30)) * 0xBF58476D1CE4E5B9ULL
    k = (k ^ (k >> 27)) * 0x94D049BB133111EBULL
    return k ^ (k >> 31)


cdef inline int rel_card(uint64_t rem, int c) noexcept nogil:
    """A card as suit * 16 + its rank among the live cards of its suit (from the top); Wizard 64,
    Jester 65; -1 stays -1."""
    if c < 0:
        return -1
    if c >= 52:
        return 64 if c < 56 else 65
    cdef int su = c // 13
    return su * 16 + ws_popcount(rem & SUIT_MASK[su] & ~((<uint64_t>2 << c) - 1))


cdef inline int abs_card(SPos* s, uint64_t rem, int r) noexcept nogil:
    """The card of the player to move that rel_card(rem, .) maps to r; -1 if none (the entry
    came from another deal with the same relative position: then it is the same card class)."""
    cdef uint64_t m
    cdef int su, k, c
    if r < 0:
        return -1
    if r >= 64:
        m = s.hand[s.to_move] & (WIZ if r == 64 else JES)
        return ws_ctz(m) if m else -1
    su = r // 16
    k = r % 16
    m = rem & SUIT_MASK[su]
    while m:
        c = 63 - ws_clz(m)
        if k == 0:
            return c
        m &= ~(<uint64_t>1 << c)
        k -= 1
    return -1


cdef class Solver:
    """The double-dummy solver (see the module docstring). Options, all on by default, switch its
    refinements off one by one (`merge`, `tt`, `bounds`, `ordering`) for tests and benchmarks;
    every setting gives the same values. `nodes` counts the card plays searched since creation."""
    cdef TTEntry* tt
    cdef uint64_t tt_mask
    cdef public bint merge
    cdef public bint use_tt
    cdef public bint bounds
    cdef public bint ordering
    cdef public long nodes
    cdef public long tests            # null-window searches from the top since creation
    cdef public long node_limit       # > 0: give up (aborted) past this many nodes
    cdef public bint aborted
    cdef public int horizon           # tricks searched; beyond, the score is estimated (see _estimate)
    cdef int p
    cdef int bid
    cdef int mode

    def __cinit__(self, int tt_bits=18, bint merge=True, bint tt=True, bint bounds=True, bint ordering=True):
        if not 1 <= tt_bits <= 28:
            raise ValueError(f"tt_bits must be 1..28, not {tt_bits}")
        self.tt = <TTEntry*>calloc(<size_t>1 << tt_bits, sizeof(TTEntry))
        if self.tt == NULL:
            raise MemoryError("transposition table")
        self.tt_mask = (<uint64_t>1 << tt_bits) - 1
        self.merge, self.use_tt, self.bounds, self.ordering = merge, tt, bounds, ordering
        self.nodes = 0
        self.tests = 0
        self.node_limit = 0
        self.aborted = False
        self.horizon = 99

    def __dealloc__(self):
        free(self.tt)

    def clear(self):
        """Forgets the transposition table (its entries stay valid across deals otherwise)."""
        memset(self.tt, 0, (self.tt_mask + 1) * sizeof(TTEntry))

    cdef void _begin(self, int p, int bid, int mode) noexcept nogil:
        self.p, self.bid, self.mode = p, bid, mode
        self.aborted = False

    cdef int _estimate(self, SPos* s) noexcept nogil:
        """Past the horizon (not exact): p's score if it takes its tricks so far plus what its hand
        promises (wizard_rules' hand_promise: Wizards, trumps by rank, high cards of other suits)."""
        return score_of(<int>(hand_promise(s.hand[self.p], s.trump, s.tricks[self.p]) + 0.5), self.bid)

    cdef void _key(self, SPos* s, uint64_t rem, int budget, uint64_t* k1, uint64_t* k2) noexcept nogil:
        """Two independent hashes of the position at a trick boundary up to relative ranks: each
        suit's live cards renumbered 0.. from the lowest (dead cards never come back, so only the
        order of the live ones matters), each player's holding as bits of those numbers, the
        Wizard and Jester counts, trump, leader, p's tricks, and the question (p, bid, mode).
        Positions with equal keys have equal values, whatever the deal they come from."""
        cdef uint64_t comp[MAXP]
        cdef uint64_t m, a, b, x
        cdef int q, su, off = 0, c, i
        for q in range(s.n):
            comp[q] = 0
        a = 0x243F6A8885A308D3ULL ^ (<uint64_t>(s.trump + 1) | (<uint64_t>s.to_move << 3)
                                      | (<uint64_t>s.tricks[self.p] << 6) | (<uint64_t>self.p << 12)
                                      | (<uint64_t>self.bid << 16) | (<uint64_t>self.mode << 22)
                                      | (<uint64_t>s.n << 24)
                                      | (<uint64_t>(budget if budget < ws_popcount(s.hand[s.to_move]) else 63) << 28))
        b = mix64(a ^ 0x13198A2E03707344ULL)
        for su in range(4):
            m = rem & SUIT_MASK[su]
            i = 0
            while m:
                c = ws_ctz(m)
                m &= m - 1
                for q in range(s.n):
                    if (s.hand[q] >> c) & 1:
                        comp[q] |= <uint64_t>1 << ((off + i) & 63)
                        break
                i += 1
            x = <uint64_t>i
            a = mix64(a ^ (x << (8 * su)))
            b = mix64(b + (x << (8 * su)) + 0x9E3779B97F4A7C15ULL)
            off += i
        for q in range(s.n):
            x = (<uint64_t>ws_popcount(s.hand[q] & WIZ) << 8) | <uint64_t>ws_popcount(s.hand[q] & JES)
            a = mix64(a ^ comp[q])
            a = mix64(a + x + 0x9E3779B97F4A7C15ULL)
            b = mix64(b ^ (comp[q] * 0xD6E8FEB86659FD93ULL) ^ (x << 16) ^ <uint64_t>q)
        k1[0] = a
        k2[0] = b | 1

    cdef inline bint _is_max(self, int q) noexcept nogil:
        return q == self.p or self.mode == MODE_OPTIMISTIC

    cdef int _moves(self, SPos* s, int* out, int best) noexcept nogil:
        """The moves to search at s, ordered, equivalent cards merged (when `merge`)."""
        cdef uint64_t m = playable(s), h = s.hand[s.to_move], run, between, suit_m
        cdef int n = 0, c, prev, i, j, k, led, key_i, su, cost
        cdef int keys[NCARDS]
        cdef bint mine
        if self.merge:
            if m & WIZ:
                out[n] = ws_ctz(m & WIZ); n += 1
            if m & JES:
                out[n] = ws_ctz(m & JES); n += 1
            # runs of one suit: keep the highest card of each run
            for su in range(4):
                suit_m = m & SUIT_MASK[su]
                prev = -1
                while suit_m:
                    c = 63 - ws_clz(suit_m)
                    suit_m &= ~(<uint64_t>1 << c)
                    if prev >= 0:
                        # cards strictly between c and prev: all in the mover's hand or out of play?
                        between = ((<uint64_t>1 << prev) - 1) & ~((<uint64_t>2 << c) - 1)
                        if (between & ~(h | s.dead)) == 0:
                            prev = c
                            continue
                    out[n] = c; n += 1
                    prev = c
        else:
            while m:
                out[n] = ws_ctz(m); n += 1
                m &= m - 1
        if not self.ordering or n < 2:
            return n
        # By strength in the trick as it stands: p's weakest card first, the others' strongest
        # first, the table's best lead before all. Measured on 36 paranoid solves of 6-8 cards
        # (4 players, the engine's deals 0-3, bids 1, 3 and n // 4): 15.1 million card plays,
        # against 31.8 million when every mover was ordered by what it wants of the trick (p
        # short of its bid wants it, the others the opposite), 22.9 million unordered, 19.6
        # million with p's wants kept, 33.4 million with the others weakest first.
        mine = s.to_move == self.p
        for i in range(n):
            c = out[i]
            led = s.led
            if led == LED_NONE:
                k = card_code(c)
                led = LED_FREE if k == C_WIZ else (k if k < 4 else LED_NONE)
            cost = strength(s, c, led) * 16 + (c % 13 if c < 52 else 0)
            keys[i] = 1000000 if c == best else (-cost if mine else cost)
        for i in range(1, n):
            key_i = keys[i]
            c = out[i]
            j = i - 1
            while j >= 0 and keys[j] < key_i:
                keys[j + 1] = keys[j]
                out[j + 1] = out[j]
                j -= 1
            keys[j + 1] = key_i
            out[j + 1] = c
        return n

    cdef void _bounds(self, SPos* s, int* vmin, int* vmax) noexcept nogil:
        """The range of p's score over every way to finish the round (at a trick boundary)."""
        cdef int p = self.p, q, t0 = s.tricks[p], lo, hi, wo = 0, jmin = 99, j, a, v, k, wp, sq, smax = 0
        cdef uint64_t hp = s.hand[p], top_p = 0, top_o = 0, tr
        k = ws_popcount(hp)
        wp = ws_popcount(hp & WIZ)
        if s.trump >= 0:
            # the highest live trump of p, and of everyone else
            tr = hp & SUIT_MASK[s.trump]
            top_p = tr
            for q in range(s.n):
                if q != p:
                    top_o |= s.hand[q] & SUIT_MASK[s.trump]
        for q in range(s.n):
            j = ws_popcount(s.hand[q] & JES)
            if j < jmin:
                jmin = j
            if q == p:
                continue
            wo += ws_popcount(s.hand[q] & WIZ)
            # q's sure cards against p: Wizards, and trumps above every trump of p (p takes
            # such a trick only with a Wizard of its own)
            sq = ws_popcount(s.hand[q] & WIZ)
            if top_p:
                sq += ws_popcount(s.hand[q] & SUIT_MASK[s.trump] & ~((<uint64_t>2 << (63 - ws_clz(top_p))) - 1))
            elif s.trump >= 0:
                sq += ws_popcount(s.hand[q] & SUIT_MASK[s.trump])
            if sq > smax:
                smax = sq
        # p's sure cards: Wizards and trumps above every other trump; each Wizard of another
        # player spoils at most one of them (p plays one card a trick)
        lo = wp
        if top_p:
            if top_o:
                lo += ws_popcount(top_p & ~((<uint64_t>2 << (63 - ws_clz(top_o))) - 1))
            else:
                lo += ws_popcount(top_p)
        lo -= wo
        if lo < 0:
            lo = 0
        hi = ws_popcount(hp & ~JES) + jmin
        smax -= wp
        if smax > 0 and k - smax < hi:
            hi = k - smax
        lo += t0
        hi += t0
        if lo <= self.bid <= hi:
            vmax[0] = score_of(self.bid, self.bid)
        else:
            vmax[0] = score_of(lo, self.bid) if lo > self.bid else score_of(hi, self.bid)
        a = score_of(lo, self.bid)
        v = score_of(hi, self.bid)
        vmin[0] = a if a < v else v

    cdef int search(self, SPos* s, int alpha, int beta, int budget) noexcept nogil:
        cdef int moves[NCARDS]
        cdef int n, i, v, best, best_move = -1, vmin, vmax, tt_move = -1, q = s.to_move
        cdef int alpha0, beta0
        cdef bint mx
        cdef uint64_t rem = 0, idx = 0, check = 0
        cdef TTEntry* e = NULL
        cdef TTEntry* b0
        cdef bint tt_on = False
        cdef int depth
        cdef SPos child
        if s.trick_len == 0:
            for i in range(s.n):
                rem |= s.hand[i]
            if rem == 0:
                return score_of(s.tricks[self.p], self.bid)
            if budget <= 0:
                return self._estimate(s)
            if ws_popcount(s.hand[q]) == 1:
                # the last trick: every card is forced
                child = s[0]
                for i in range(s.n):
                    n = child.to_move
                    v = ws_ctz(child.hand[n])
                    child.hand[n] = 0
                    add_to_trick(&child, v, n)
                self.nodes += s.n
                return score_of(child.tricks[self.p], self.bid)
            if self.node_limit and self.nodes > self.node_limit:
                self.aborted = True
                return 0
            if self.bounds:
                self._bounds(s, &vmin, &vmax)
                if vmax <= alpha or vmin == vmax:
                    return vmax
                if vmin >= beta:
                    return vmin
            if self.use_tt:
                self._key(s, rem, budget, &idx, &check)
                tt_on = True
                b0 = &self.tt[idx & self.tt_mask & ~(<uint64_t>1)]
                if b0.check == check:
                    e = b0
                elif b0[1].check == check:
                    e = &b0[1]
                if e != NULL:
                    if e.lo >= beta:
                        return e.lo
                    if e.hi <= alpha:
                        return e.hi
                    if e.lo == e.hi:
                        return e.lo
                    if e.lo > alpha:
                        alpha = e.lo
                    if e.hi < beta:
                        beta = e.hi
                    tt_move = abs_card(s, rem, e.best)
        alpha0, beta0 = alpha, beta
        mx = self._is_max(q)
        n = self._moves(s, moves, tt_move)
        best = -VAL_INF if mx else VAL_INF
        for i in range(n):
            child = s[0]
            child.hand[q] &= ~(<uint64_t>1 << moves[i])
            add_to_trick(&child, moves[i], q)
            self.nodes += 1
            v = self.search(&child, alpha, beta, budget - 1 if child.trick_len == 0 else budget)
            if self.aborted:
                return 0
            if mx:
                if v > best:
                    best = v
                    best_move = moves[i]
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            else:
                if v < best:
                    best = v
                    best_move = moves[i]
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        if tt_on:
            # buckets of two: the deeper subtree's entry, and the latest one
            if e == NULL or e.check != check:
                b0 = &self.tt[idx & self.tt_mask & ~(<uint64_t>1)]
                if b0.check == check:
                    e = b0
                elif b0[1].check == check:
                    e = &b0[1]
                else:
                    depth = ws_popcount(rem)
                    if depth >= b0.depth:
                        b0[1] = b0[0]
                        e = b0
                    else:
                        e = &b0[1]
                    e.check = check
                    e.depth = depth
                    e.lo = -32000
                    e.hi = 32000
            if best <= alpha0:
                if best < e.hi:
                    e.hi = best
            elif best >= beta0:
                if best > e.lo:
                    e.lo = best
            else:
                e.lo = e.hi = best
            e.best = rel_card(rem, best_move)
        return best

    cdef int solve(self, SPos* s) noexcept nogil:
        """The exact value by null-window tests from the top (MTD(f) downwards): a test at
        `ub` either proves the value is ub or returns a smaller upper bound. The best score there
        is, 20 + 10 * bid, is tried first; every other score is a penalty of 10 per trick off."""
        cdef int ub = score_of(self.bid, self.bid), v
        while True:
            v = self.search(s, ub - 1, ub, self.horizon)
            self.tests += 1
            if self.aborted:
                return 0
            if v >= ub:
                return ub
            ub = v

    # ---- Python face ----
    def value(self, Deal deal, int player, int bid, bint optimistic=False):
        """Player's exact round score (paranoid, or optimistic) from this position with that bid;
        None if the search passed `node_limit` (exact only while `horizon` covers the round)."""
        if not 0 <= player < deal.s.n:
            raise ValueError(f"no player {player}")
        self._begin(player, bid, MODE_OPTIMISTIC if optimistic else MODE_PARANOID)
        with nogil:
            v = self.solve(&deal.s)
        return None if self.aborted else v

    def move_values(self, Deal deal, int bid, bint optimistic=False):
        """{card: value} for every card the player to move may play (alike Wizards or Jesters under
        the lowest bit), each the player's exact score after playing it; None if the search
        passed `node_limit`."""
        cdef int q = deal.s.to_move, c
        cdef uint64_t m = playable(&deal.s)
        cdef SPos child
        cdef int v
        self._begin(q, bid, MODE_OPTIMISTIC if optimistic else MODE_PARANOID)
        out = {}
        while m:
            c = ws_ctz(m)
            m &= m - 1
            if (c >= 52 and c < 56 and c != ws_ctz(playable(&deal.s) & WIZ)) or (
                    c >= 56 and c != ws_ctz(playable(&deal.s) & JES)):
                continue
            child = deal.s
            child.hand[q] &= ~(<uint64_t>1 << c)
            add_to_trick(&child, c, q)
            with nogil:
                v = self.solve(&child)
            if self.aborted:
                return None
            out[c] = v
        return out

    def solve_all(self, Deal deal, bids):
        """Every player's paranoid value: [value(deal, q, bids[q]) for each seat q]."""
        return [self.value(deal, q, int(bids[q])) for q in range(deal.s.n)]

    def trick_range(self, Deal deal, int player):
        """(pushed, secured), in tricks at the end of the round: the fewest tricks the player can
        keep to while everyone else tries to give it tricks, and the most it can secure while
        everyone else tries to deny them (its paranoid values for a bid of 0 and of every trick,
        as trick counts). They need not be ordered: both coalitions hold the other cards."""
        # the most p can end with: its tricks so far and every trick left (the player to move
        # has not played to the trick in progress, so it holds one card per trick left)
        cdef int total = deal.s.tricks[player] + ws_popcount(deal.s.hand[deal.s.to_move])
        v0 = self.value(deal, player, 0)
        v1 = self.value(deal, player, total)
        lo = 0 if v0 == 20 else -v0 // 10
        hi = total if v1 == 20 + 10 * total else total + v1 // 10
        return lo, hi


cdef bint _played_in_trick(SPos* s, int q) noexcept nogil:
    """Has q already played to the trick in progress?"""
    cdef int first = s.to_move - s.trick_len
    cdef int k
    if first < 0:
        first += s.n
    for k in range(s.trick_len):
        if (first + k) % s.n == q:
            return True
    return False


cdef int hand_estimate(SPos* s, int q) noexcept nogil:
    """A rough count of the tricks q's hand will take (its bid when unknown): what it promises,
    rounded (wizard_rules' hand_promise: Wizards, trumps by rank, high cards of other suits)."""
    return <int>(hand_promise(s.hand[q], s.trump, 0.0) + 0.5)


cdef inline int top_strength(SPos* s, uint64_t h, int led) noexcept nogil:
    """The greatest strength among the cards of h (all playable) in a trick led `led`."""
    cdef uint64_t m
    if h & WIZ:
        return 64
    if s.trump >= 0:
        m = h & SUIT_MASK[s.trump]
        if m:
            return 32 + (63 - ws_clz(m)) % 13
    if led < 4:
        m = h & SUIT_MASK[led]
        if m:
            return 16 + (63 - ws_clz(m)) % 13
    return 0


cdef bint beatable(SPos* s, int st, int led) noexcept nogil:
    """Can a player still to play to the trick beat strength st, the mover's card played (the
    deal is known: the playouts see every hand)?"""
    cdef int k, q = s.to_move
    cdef uint64_t h
    if led == LED_FREE:
        return False
    for k in range(s.n - s.trick_len - 1):
        q = q + 1 if q + 1 < s.n else 0
        h = s.hand[q]
        if led == LED_NONE:
            if h & ~JES:
                return True
        elif top_strength(s, may_play(h, led), led) > st:
            return True
    return False


cdef bint beatable_unseen(SPos* s, int st, int led) noexcept nogil:
    """Could a card the mover cannot see beat strength st, the mover's card played, if a player
    still to play to the trick held it? The unseen cards are every other hand, any of them with
    any holder, void in any suit (so a trump may always come): what the mover can tell from its
    own hand and the cards out of play."""
    cdef int r, q = s.to_move
    cdef uint64_t u = 0
    if led == LED_FREE or s.trick_len == s.n - 1:
        return False
    for r in range(s.n):
        if r != q:
            u |= s.hand[r]
    if led == LED_NONE:
        return (u & ~JES) != 0
    return top_strength(s, u, led) > st


cdef int policy_card(SPos* s, int* bids, uint64_t blind=0) noexcept nogil:
    """The card of the player to move under a simple bid-chasing rule: short of its bid, it plays
    its cheapest card that takes the trick whatever comes after (else, not leading, its strongest
    winner; else its lowest card); at or past its bid, it plays its highest card that loses
    already, else its lowest card (its highest when last and every card wins). "Whatever comes
    after" sees every hand, except for the players of the bit mask `blind`, who judge it by the
    cards they cannot see (beatable_unseen), as a player at the table must; as few cards are sure
    to them, a blind leader short of its bid without one leads its strongest card, not its lowest."""
    cdef uint64_t m = playable(s)
    cdef int q = s.to_move, need = bids[q] - s.tricks[q], c, led, k, st, cost
    cdef int win_hi = -1, safe_lo = -1, lose_hi = -1, any_lo = -1, any_hi = -1
    cdef int c_win_hi = 0, c_safe_lo = 0, c_lose_hi = 0, c_any_lo = 0, c_any_hi = 0
    cdef bint last = s.trick_len == s.n - 1, leading = s.trick_len == 0
    while m:
        c = ws_ctz(m)
        m &= m - 1
        led = s.led
        if led == LED_NONE:
            k = card_code(c)
            led = LED_FREE if k == C_WIZ else (k if k < 4 else LED_NONE)
        st = strength(s, c, led)
        cost = st * 16 + (c % 13 if c < 52 else 0)
        if any_lo < 0 or cost < c_any_lo:
            any_lo, c_any_lo = c, cost
        if any_hi < 0 or cost > c_any_hi:
            any_hi, c_any_hi = c, cost
        if st > s.win_str:
            if win_hi < 0 or cost > c_win_hi:
                win_hi, c_win_hi = c, cost
            if need > 0 and (safe_lo < 0 or cost < c_safe_lo) and not (
                    beatable_unseen(s, st, led) if blind >> q & 1 else beatable(s, st, led)):
                safe_lo, c_safe_lo = c, cost
        elif lose_hi < 0 or cost > c_lose_hi:
            lose_hi, c_lose_hi = c, cost
    if need > 0:
        if safe_lo >= 0:
            return safe_lo
        if win_hi >= 0 and (not leading or blind >> q & 1):
            return win_hi
        return any_lo
    if lose_hi >= 0:
        return lose_hi
    return any_hi if last else any_lo


cdef void playout(SPos* s, int* bids, uint64_t blind=0) noexcept nogil:
    """Plays the round out under policy_card (s ends with the final trick counts)."""
    cdef int q, c
    while s.hand[s.to_move]:
        q = s.to_move
        c = policy_card(s, bids, blind)
        s.hand[q] &= ~(<uint64_t>1 << c)
        add_to_trick(s, c, q)


cdef class Deal:
    """A position of a Wizard round with every hand known: the solver's input."""
    cdef SPos s

    def __init__(self, hands, trump=None, to_move=0, trick=(), tricks=None):
        """`hands`: one card list per player (ints as in the module docstring, or text "13h", "W",
        "J"); `trump`: suit 0..3, a letter of "degh" or None; `trick`: the trick in progress as
        (player, card) pairs in play order, the last one's left neighbour being to move;
        `tricks`: tricks won so far per player."""
        n = len(hands)
        if not 3 <= n <= MAXP:
            raise ValueError(f"3 to {MAXP} hands, not {n}")
        memset(&self.s, 0, sizeof(SPos))
        self.s.n = n
        if isinstance(trump, str):
            trump = "degh".index(trump)
        self.s.trump = -1 if trump is None else int(trump)
        used = 0
        wiz, jes = [52, 53, 54, 55], [56, 57, 58, 59]

        def bit(card):
            nonlocal used
            if isinstance(card, str):
                t = card.strip().lower()
                if t == "w":
                    card = 52
                elif t == "j":
                    card = 56
                else:
                    card = "degh".index(t[len(t) - 1]) * 13 + int(t[:len(t) - 1]) - 1
            card = int(card)
            if 52 <= card < 56 or 56 <= card < 60:
                pool = wiz if card < 56 else jes
                pool[:] = [b for b in pool if not used >> b & 1]
                if not pool:
                    raise ValueError("more than 4 Wizards or Jesters")
                card = pool.pop(0)
            if not 0 <= card < NCARDS or used >> card & 1:
                raise ValueError(f"card {card} dealt twice or out of range")
            used |= 1 << card
            return card

        for q, h in enumerate(hands):
            for c in h:
                self.s.hand[q] |= <uint64_t>1 << bit(c)
        self.s.led = LED_NONE
        self.s.win_str = -1
        self.s.win_player = -1
        trick = list(trick)
        if trick:
            first = trick[0][0]
            for k, (q, c) in enumerate(trick):
                if q != (first + k) % n:
                    raise ValueError("the trick's cards must come from consecutive seats")
            if len(trick) >= n:
                raise ValueError("a finished trick is not in progress")
            self.s.to_move = first
            for q, c in trick:
                add_to_trick(&self.s, bit(c), q)
        else:
            self.s.to_move = int(to_move) % n
        for q in range(n):
            self.s.tricks[q] = int(tricks[q]) if tricks is not None else 0
        self.s.dead = ALL & ~self.s.trick_cards
        for q in range(n):
            self.s.dead &= ~self.s.hand[q]
        sizes = {ws_popcount(self.s.hand[q]) + (1 if _played_in_trick(&self.s, q) else 0) for q in range(n)}
        if len(sizes) != 1:
            raise ValueError("every player must hold as many cards (counting the one played to the trick)")

    @classmethod
    def from_state(cls, state):
        """The deal of a WizardState in its play or bid phase (every hand as the state holds them:
        determinize it first for a seat's view). In the bid phase play starts from the first lead."""
        phase = state.phase()
        n = state.num_players
        hands = [state.hand(q) for q in range(n)]
        if phase == "play":
            return cls(hands, state.trump(), state.current_player(), state.trick(), state.tricks())
        if phase == "bid":
            return cls(hands, state.trump(), (state.dealer() + 1) % n)
        raise ValueError(f"no deal to solve in the {phase} phase")

    @property
    def to_move(self):
        return int(self.s.to_move)

    @property
    def players(self):
        return int(self.s.n)

    def cards_left(self, int player):
        return ws_popcount(self.s.hand[player])

    def hand_bits(self, int player):
        return int(self.s.hand[player])

    def tricks(self):
        return [int(self.s.tricks[q]) for q in range(self.s.n)]

    def legal_cards(self):
        """Every card the player to move may play (hand bits)."""
        cdef uint64_t m = playable(&self.s)
        out = []
        while m:
            out.append(ws_ctz(m))
            m &= m - 1
        return out

    def play(self, int card):
        """A new Deal: this one after the player to move plays `card` (must be legal)."""
        cdef Deal d = Deal.__new__(Deal)
        if not (playable(&self.s) >> card) & 1:
            raise ValueError(f"card {card} is not playable")
        d.s = self.s
        d.s.hand[d.s.to_move] &= ~(<uint64_t>1 << card)
        add_to_trick(&d.s, card, self.s.to_move)
        return d

    def is_over(self):
        cdef int q
        for q in range(self.s.n):
            if self.s.hand[q]:
                return False
        return self.s.trick_len == 0

    def estimate(self, int player):
        """hand_estimate: a rough count of the tricks the player's hand will take."""
        return hand_estimate(&self.s, player)

    cdef void _bids(self, bids, int* b):
        cdef int q
        for q in range(self.s.n):
            b[q] = hand_estimate(&self.s, q) + self.s.tricks[q] if bids[q] is None else int(bids[q])

    def playout(self, bids, blind=()):
        """Every player's tricks at the end of the round when all play the bid-chasing rule of
        policy_card from here (a bid of None: the player's hand estimate); the players in `blind`
        judge sure winners by the cards they cannot see."""
        cdef SPos t = self.s
        cdef int b[MAXP]
        self._bids(bids, b)
        playout(&t, b, _mask(blind))
        return [int(t.tricks[q]) for q in range(self.s.n)]

    def policy_card(self, bids, blind=()):
        """The card policy_card plays here (bids and blind as for playout)."""
        cdef int b[MAXP]
        self._bids(bids, b)
        return policy_card(&self.s, b, _mask(blind))


cdef uint64_t _mask(players):
    cdef uint64_t m = 0
    for q in players:
        if not 0 <= q < MAXP:
            raise ValueError(f"no player {q}")
        m |= <uint64_t>1 << <int>q
    return m


# ---- the plain reference: minimax over every card, the trick decided from RULES.md 1.4 ----

cdef struct PPos:
    uint64_t hand[MAXP]
    int8_t trick_card[MAXP]
    int8_t trick_by[MAXP]
    int8_t n
    int8_t trump
    int8_t to_move
    int8_t trick_len
    int8_t tricks_p


cdef int plain_winner(PPos* s) noexcept nogil:
    """Index in the trick of the card that takes it."""
    cdef int i, c, best = -1, best_rank = -1, led = -1
    for i in range(s.trick_len):          # 1. the first Wizard
        if 52 <= s.trick_card[i] < 56:
            return i
    for i in range(s.trick_len):          # the led suit: the first non-Jester card's
        if s.trick_card[i] < 52:
            led = s.trick_card[i] // 13
            break
    if led < 0:                           # 4. only Jesters: the first
        return 0
    if s.trump >= 0:                      # 2. the highest trump
        for i in range(s.trick_len):
            c = s.trick_card[i]
            if c < 52 and c // 13 == s.trump and c % 13 > best_rank:
                best, best_rank = i, c % 13
        if best >= 0:
            return best
    for i in range(s.trick_len):          # 3. the highest card of the led suit
        c = s.trick_card[i]
        if c < 52 and c // 13 == led and c % 13 > best_rank:
            best, best_rank = i, c % 13
    return best


cdef uint64_t plain_legal(PPos* s) noexcept nogil:
    cdef uint64_t h = s.hand[s.to_move], f
    cdef int i, c, led = -1
    for i in range(s.trick_len):
        c = s.trick_card[i]
        if c < 52:
            led = c // 13
            break
        if c < 56:
            return h          # a Wizard before any suited card: anything goes
    if led >= 0:
        f = h & (((<uint64_t>1 << 13) - 1) << (13 * led))
        if f:
            return f | (h & ~SUITED)
    return h


cdef int plain_search(PPos* s, int p, int bid, bint optimistic, long* nodes) noexcept nogil:
    cdef uint64_t m = plain_legal(s)
    cdef int q = s.to_move, c, v, best, w
    cdef bint mx = q == p or optimistic
    cdef PPos child
    if m == 0:
        return score_of(s.tricks_p, bid)
    best = -VAL_INF if mx else VAL_INF
    while m:
        c = ws_ctz(m)
        m &= m - 1
        nodes[0] += 1
        child = s[0]
        child.hand[q] &= ~(<uint64_t>1 << c)
        child.trick_card[child.trick_len] = c
        child.trick_by[child.trick_len] = q
        child.trick_len += 1
        if child.trick_len == child.n:
            w = child.trick_by[plain_winner(&child)]
            if w == p:
                child.tricks_p += 1
            child.trick_len = 0
            child.to_move = w
        else:
            child.to_move = q + 1 if q + 1 < child.n else 0
        v = plain_search(&child, p, bid, optimistic, nodes)
        if (mx and v > best) or (not mx and v < best):
            best = v
    return best


def plain_value(Deal deal, int player, int bid, bint optimistic=False):
    """The reference: (value, nodes) by plain minimax (see the module docstring)."""
    cdef PPos s
    cdef int q, k, first, i
    cdef long nodes = 0
    memset(&s, 0, sizeof(PPos))
    s.n = deal.s.n
    s.trump = deal.s.trump
    s.to_move = deal.s.to_move
    s.trick_len = deal.s.trick_len
    s.tricks_p = deal.s.tricks[player]
    for q in range(s.n):
        s.hand[q] = deal.s.hand[q]
    first = (s.to_move - s.trick_len + s.n) % s.n
    for i in range(s.trick_len):
        s.trick_card[i] = deal.s.tcard[i]
        s.trick_by[i] = (first + i) % s.n
    with nogil:
        v = plain_search(&s, player, bid, optimistic, &nodes)
    return v, nodes
