# Wizard's rules that the engine (engines/wizard.pyx) and the double-dummy solver
# (agents/wizard_solver.pyx) share, as inline functions on card bit sets: bits 0-51 are the suited
# cards (13 per suit, suit s at bits 13s..13s+12), bits 52-55 the Wizards, 56-59 the Jesters.
from libc.stdint cimport uint64_t


cdef inline uint64_t may_play(uint64_t hand, int led) noexcept nogil:
    """The cards of `hand` its owner may play when suit `led` was led (4 or more: no suit led yet):
    the led suit when it holds one, together with its Wizards and Jesters (RULES.md 1.4); else any."""
    cdef uint64_t suited
    if led < 4:
        suited = hand & ((<uint64_t>0x1FFF) << (13 * led))
        if suited:
            return suited | (hand & ((<uint64_t>0xFF) << 52))
    return hand
