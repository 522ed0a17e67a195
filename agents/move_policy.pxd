# A learned playout policy's weights (agents/move_policy.pyx), declared here so that a search can
# choose its play-out moves with them in C.
from engines.core cimport GameState, Rng, action_t

cdef class MovePolicy:
    cdef readonly int patterns
    cdef double[::1] gamma

    cdef int c_choose(self, GameState s, const action_t* acts, int k, Rng* rng) noexcept nogil
