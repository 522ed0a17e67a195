# How likely a sampled Wizard world is, given the bids seen (agents/world_weights.pyx), for a search in C.
from engines.core cimport GameState
from agents.forest cimport Forest

cdef enum:
    MAX_CLASSES = 32

cdef class WorldWeights:
    cdef Forest forest
    cdef int n_classes
    cdef int classes[MAX_CLASSES]
    cdef readonly double temperature

    cdef double c_bid_chance(self, const double* features, const int* facts) noexcept nogil
    cdef double c_weight(self, GameState world, int observer) noexcept nogil
