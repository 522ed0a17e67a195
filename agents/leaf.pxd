# The leaf value's features of a position (agents/leaf.pyx), computed in C for a search.
from engines.core cimport GameState

cdef int c_leaf_features(GameState s, int seat, double* out) noexcept nogil
