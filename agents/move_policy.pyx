"""A learned playout policy: a weight per move pattern, and each legal move played with chance
proportional to the weight of its pattern (Coulom 2007, "Computing Elo ratings of move patterns":
a softmax over learned logits, one per pattern).

The engine describes each legal move by a pattern (`c_move_patterns`, engines/core.pxd), from what
the mover sees: Royal Ball's is the move's card, the mover's count of it and the King's; Belle of
the Ball's what a taken card costs and brings, and where a guest or a Belle goes;
`arena train --target playout` learns a logit per pattern from a teacher's moves (arena/learn/fit.py
`fit_move_policy`), and `ismcts[playout=FILE]` plays its play-outs with them, in C.

`MovePolicy(logits)` checks them before any draw: a flat list of finite numbers within
±MAX_LOGIT; `check(state)` refuses a game whose engine has another number of patterns
(ValueError, one line).
"""
import numpy as np

from engines.core cimport GameState, Rng, action_t, rng_seed, rng_uniform, MAX_ACTIONS
from libc.stdint cimport int32_t, uint64_t

MAX_PATTERNS = 1 << 20
MAX_LOGIT = 50.0   # the weights' spread stays far from overflow: exp(100) is a finite double


cdef class MovePolicy:
    def __init__(self, logits):
        try:
            w = np.asarray(logits, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise ValueError("its logits are not numbers") from None
        if w.ndim != 1 or not 1 <= len(w) <= MAX_PATTERNS:
            raise ValueError(f"its logits are not a list of 1 to {MAX_PATTERNS} numbers")
        if not (np.all(np.isfinite(w)) and np.all(np.abs(w) <= MAX_LOGIT)):
            raise ValueError(f"its logits are not all finite numbers within +-{MAX_LOGIT:g}")
        self.patterns = len(w)
        self.gamma = np.exp(w - w.max())

    def check(self, GameState state):
        """:raises ValueError: `state`'s engine describes its moves by another number of patterns."""
        count = state.c_move_pattern_count()
        if count != self.patterns:
            raise ValueError(f"its {self.patterns} move patterns are not the {count} of {state.game_id}'s engine")

    cdef int c_choose(self, GameState s, const action_t* acts, int k, Rng* rng) noexcept nogil:
        """The index among acts[:k] (the legal moves, k >= 1) of the move drawn with chance
        proportional to its pattern's weight."""
        cdef int32_t pattern[MAX_ACTIONS]
        cdef double w[MAX_ACTIONS]
        cdef double total = 0.0, u
        cdef int i
        s.c_move_patterns(acts, k, pattern)
        for i in range(k):
            w[i] = self.gamma[pattern[i]]
            total += w[i]
        u = rng_uniform(rng) * total
        for i in range(k - 1):
            u -= w[i]
            if u < 0.0:
                return i
        return k - 1

    def probabilities(self, GameState state):
        """{action: chance} of each legal move of `state` under the policy."""
        self.check(state)
        patterns = state.move_patterns()
        w = np.asarray([self.gamma[p] for p in patterns])
        return dict(zip(state.legal_actions(), (w / w.sum()).tolist()))

    def choose(self, GameState state, uint64_t seed=0):
        """The move the policy draws in `state` (as a play-out does), seeded by `seed`."""
        cdef action_t buf[MAX_ACTIONS]
        cdef Rng rng
        self.check(state)
        if state.c_is_terminal():
            raise ValueError("the game is over: no player to move")
        rng_seed(&rng, seed)
        cdef int k = state.c_legal_actions(buf)
        return int(buf[self.c_choose(state, buf, k, &rng)])


def bench_playouts(GameState state, MovePolicy policy, long calls, str horizon="game", unsigned long long seed=0):
    """`calls` play-outs from `state` to `horizon` (the end of the game, or of the round under way),
    each from a copy, every ply with two or more legal moves drawn by `policy`: as a search plays
    them out (agents/ismcts.pyx)."""
    cdef GameState s = state.clone()
    cdef Rng rng
    cdef long i
    cdef int k, start = state.c_round()
    cdef bint whole = horizon == "game"
    cdef action_t buf[MAX_ACTIONS]
    policy.check(state)
    rng_seed(&rng, seed)
    with nogil:
        for i in range(calls):
            s.c_copy_from(state)
            while not s.c_is_terminal() and (whole or s.c_round() == start):
                k = s.c_legal_actions(buf)
                s.c_apply(buf[policy.c_choose(s, buf, k, &rng) if k > 1 else 0])
    return calls
