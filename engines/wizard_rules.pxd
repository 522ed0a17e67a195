# Wizard's rules that the engine (engines/wizard.pyx) and the double-dummy solver
# (agents/wizard_solver.pyx) share, as inline functions on card bit sets: bits 0-51 are the suited
# cards (13 per suit, suit s at bits 13s..13s+12), bits 52-55 the Wizards, 56-59 the Jesters.
from libc.stdint cimport uint64_t

cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil


cdef inline uint64_t may_play(uint64_t hand, int led) noexcept nogil:
    """The cards of `hand` its owner may play when suit `led` was led (4 or more: no suit led yet):
    the led suit when it holds one, together with its Wizards and Jesters (RULES.md 1.4); else any."""
    cdef uint64_t suit, follow
    if led < 4:
        suit = (<uint64_t>0x1FFF) << (13 * led)
        # all ones when the hand holds the led suit: no branch (a coin flip in a random playout)
        follow = <uint64_t>0 - ((hand & suit) != 0)
        return hand & (suit | ((<uint64_t>0xFF) << 52) | ~follow)
    return hand


cdef inline int round_score(int bid, int tricks) noexcept nogil:
    """A seat's points for a round (RULES.md 1.5): 20 + 10 per trick for a bid met, -10 per trick
    of difference otherwise."""
    if bid == tricks:
        return 20 + 10 * tricks
    return -10 * (tricks - bid if tricks > bid else bid - tricks)


# ---- the tricks a hand promises: the one estimate of the engine's evaluation, playout policy and
# plausibility, and of the solver's horizon and unknown bids (so of pimc's playouts) ----

cdef inline double suited_promise(uint64_t suited, int trump, double est) noexcept nogil:
    """est plus the tricks the suited cards of `suited` promise, added lowest card first: a trump
    0.2 + 0.65 rank / 12 by its rank (0-12), the top three ranks of another suit 0.6, 0.3 and 0.1.
    `trump` is the trump suit, -1 for none."""
    cdef int c, rank
    suited &= (<uint64_t>1 << 52) - 1
    while suited:
        c = __builtin_ctzll(suited)
        suited &= suited - 1
        rank = c % 13
        if c // 13 == trump:
            est += 0.2 + 0.65 * rank / 12.0
        elif rank == 12:
            est += 0.6
        elif rank == 11:
            est += 0.3
        elif rank == 10:
            est += 0.1
    return est


cdef inline double hand_promise(uint64_t hand, int trump, double est) noexcept nogil:
    """est plus the tricks `hand` promises: 0.9 a Wizard (added first), then suited_promise of its
    suited cards; Jesters promise nothing."""
    cdef uint64_t w = hand & ((<uint64_t>0xF) << 52)
    cdef int wizards = 0
    while w:
        w &= w - 1
        wizards += 1
    return suited_promise(hand, trump, est + 0.9 * wizards)
