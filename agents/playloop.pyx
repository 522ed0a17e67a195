"""Whole matches between the cheap built-in agents (`random`, `greedy`), played in C.

`play(state, kinds, seeds, view_base)` plays `state` to its end and returns its actions: exactly the
moves the referee's loop (arena/referee.py) gets from `agents.simple.RandomAgent` and `GreedyAgent`
reset with the same seeds, with none of its per-move Python calls. So it repeats, step for step:

* the view: the mover's determinized copy of the true state, seeded by `arena.seeds.view_seed`
  (view_base + move * WEYL, 63 bits) through `rng_seed`, as `GameState.determinize` does;
* the agents' draws: for each decision afresh, Python's `random.Random(agents.base.decision_seed(
  seed, k))` for the seat's k-th decision (MT19937 seeded by `init_by_array` with the seed's 32-bit
  words) and its `choice` (`_randbelow`: getrandbits of the length's bit length,
  redrawn while out of range), over the view's legal actions in increasing order;
* greedy's choice: every legal action of the view applied, evaluated with `c_evaluate` for the
  view's player to move and undone, in increasing order; the best ones (ties kept in that order)
  go to `choice`.

`play` returns None when the referee's loop would not simply play on (a view with no legal
action, or an action the true state does not allow): the caller then plays the match through the
referee, which reports what happened as it always does. tests/agents/test_playloop.py checks that
both loops give the same actions on every game.
"""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from engines.core cimport GameState, Rng, action_t, rng_seed, MAX_ACTIONS

RANDOM = 0   # agents.simple.RandomAgent
GREEDY = 1   # agents.simple.GreedyAgent
KINDS = {"random": RANDOM, "greedy": GREEDY}

DEF MT_N = 624
DEF MT_M = 397
cdef uint64_t WEYL = 0x9E3779B97F4A7C15ULL      # arena.seeds.WEYL
cdef uint64_t SEED_MASK = 0x7FFFFFFFFFFFFFFFULL  # arena.seeds.step keeps 63 bits


cdef struct MT:
    uint32_t mt[MT_N]
    int mti


cdef void mt_init_genrand(MT* m, uint32_t s) noexcept nogil:
    cdef int i
    m.mt[0] = s
    for i in range(1, MT_N):
        m.mt[i] = <uint32_t>(1812433253U * (m.mt[i - 1] ^ (m.mt[i - 1] >> 30)) + <uint32_t>i)
    m.mti = MT_N


cdef void mt_init_by_array(MT* m, uint32_t* key, int length) noexcept nogil:
    cdef int i = 1, j = 0, k
    mt_init_genrand(m, 19650218U)
    k = MT_N if MT_N > length else length
    while k > 0:
        m.mt[i] = <uint32_t>((m.mt[i] ^ ((m.mt[i - 1] ^ (m.mt[i - 1] >> 30)) * 1664525U)) + key[j] + <uint32_t>j)
        i += 1
        j += 1
        if i >= MT_N:
            m.mt[0] = m.mt[MT_N - 1]
            i = 1
        if j >= length:
            j = 0
        k -= 1
    k = MT_N - 1
    while k > 0:
        m.mt[i] = <uint32_t>((m.mt[i] ^ ((m.mt[i - 1] ^ (m.mt[i - 1] >> 30)) * 1566083941U)) - <uint32_t>i)
        i += 1
        if i >= MT_N:
            m.mt[0] = m.mt[MT_N - 1]
            i = 1
        k -= 1
    m.mt[0] = 0x80000000U


cdef uint32_t mt_next(MT* m) noexcept nogil:
    cdef uint32_t y
    cdef int kk
    if m.mti >= MT_N:
        for kk in range(MT_N - MT_M):
            y = (m.mt[kk] & 0x80000000U) | (m.mt[kk + 1] & 0x7fffffffU)
            m.mt[kk] = m.mt[kk + MT_M] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
        for kk in range(MT_N - MT_M, MT_N - 1):
            y = (m.mt[kk] & 0x80000000U) | (m.mt[kk + 1] & 0x7fffffffU)
            m.mt[kk] = m.mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
        y = (m.mt[MT_N - 1] & 0x80000000U) | (m.mt[0] & 0x7fffffffU)
        m.mt[MT_N - 1] = m.mt[MT_M - 1] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
        m.mti = 0
    y = m.mt[m.mti]
    m.mti += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= y >> 18
    return y


cdef int mt_below(MT* m, int n) noexcept nogil:
    """random.Random._randbelow(n) for 1 <= n < 2**31: getrandbits(n.bit_length()) until below n."""
    cdef int k = 0
    cdef uint32_t r
    while (n >> k) != 0:
        k += 1
    r = mt_next(m) >> (32 - k)
    while r >= <uint32_t>n:
        r = mt_next(m) >> (32 - k)
    return <int>r


cdef void seed_mt(MT* m, uint64_t s) noexcept nogil:
    """random.Random(s) for an int 0 <= s < 2**64 (its 32-bit words, least significant first)."""
    cdef uint32_t key[2]
    key[0] = <uint32_t>(s & 0xFFFFFFFFU)
    key[1] = <uint32_t>(s >> 32)
    mt_init_by_array(m, key, 2 if key[1] else 1)


cdef void sort_actions(action_t* a, int n) noexcept nogil:
    cdef int i, j
    cdef action_t x
    for i in range(1, n):
        x = a[i]
        j = i
        while j > 0 and a[j - 1] > x:
            a[j] = a[j - 1]
            j -= 1
        a[j] = x


cdef int greedy_best(GameState view, action_t* legal, int n, action_t* best) except -1:
    """greedy's candidates: the actions (in the order of `legal`) whose position evaluates best for
    the view's player to move; returns how many."""
    cdef int me = view.c_current_player(), i, count = 0
    cdef double value, best_value = 0.0
    for i in range(n):
        view.c_apply_undoable(legal[i])
        value = view.c_evaluate(me)
        view.c_undo()
        if count == 0 or value > best_value:
            best[0] = legal[i]
            count = 1
            best_value = value
        elif value == best_value:
            best[count] = legal[i]
            count += 1
    return count


def play(GameState state, kinds, seeds, uint64_t view_base):
    """Plays `state` to its end, seat s played by agent `kinds[s]` (RANDOM or GREEDY) reset with
    seed `seeds[s]`, the views seeded from `view_base` (arena.seeds.view_base); returns the list of
    actions played, or None (nothing to trust: the caller replays the match through the referee)."""
    cdef int players = state.num_players, seat, n, m, i, move = 0, chosen
    cdef action_t legal[MAX_ACTIONS]
    cdef action_t best[MAX_ACTIONS]
    cdef action_t truth[MAX_ACTIONS]
    cdef action_t a
    cdef Rng view_rng
    cdef GameState view = state._new_empty()
    cdef int* kind = <int*>malloc(players * sizeof(int))
    cdef uint64_t* base = <uint64_t*>malloc(players * sizeof(uint64_t))
    cdef uint64_t* decisions = <uint64_t*>malloc(players * sizeof(uint64_t))
    cdef MT gen
    if kind == NULL or base == NULL or decisions == NULL:
        free(kind)
        free(base)
        free(decisions)
        raise MemoryError("play loop")
    out = []
    try:
        if len(kinds) != players or len(seeds) != players:
            raise ValueError(f"one agent and one seed per seat: {players} seats")
        for seat in range(players):
            kind[seat] = kinds[seat]
            base[seat] = seeds[seat]
            decisions[seat] = 0
        while not state.c_is_terminal():
            seat = state.c_current_player()
            view.c_copy_from(state)
            rng_seed(&view_rng, (view_base + <uint64_t>move * WEYL) & SEED_MASK)
            view.c_determinize(seat, &view_rng)
            if view.c_is_terminal():
                return None
            n = view.c_legal_actions(legal)
            if n == 0:
                return None
            sort_actions(legal, n)
            decisions[seat] += 1   # agents.base.decision_seed: the k-th decision (from 0) steps k + 1 times
            seed_mt(&gen, base[seat] + decisions[seat] * WEYL)
            if kind[seat] == GREEDY:
                n = greedy_best(view, legal, n, best)
                a = best[mt_below(&gen, n)]
            else:
                a = legal[mt_below(&gen, n)]
            m = state.c_legal_actions(truth)
            chosen = 0
            for i in range(m):
                if truth[i] == a:
                    chosen = 1
                    break
            if not chosen:
                return None
            state.c_apply(a)
            out.append(a)
            move += 1
    finally:
        free(kind)
        free(base)
        free(decisions)
    return out
