# What Wizard's engine (engines/wizard.pyx) gives other C code beyond the game-state contract.
from engines.core cimport GameState

cdef enum:
    BID_VIEW_FEATURES = 27    # len(agents.learned.bid_feature_names())
    BID_VIEW_FACTS = 4        # wizards held, hand size, the bid, the bid it could not make (-1: none)

cdef bint bid_view(GameState state, int observer, int q, double* features, int* facts) noexcept nogil
