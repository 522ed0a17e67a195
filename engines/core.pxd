# The game-state contract shared by every engine and every search agent.
#
# An engine is a subclass of GameState whose whole position lives in one plain C struct. It sets
# `_pos`/`_pos_size` to that struct in __cinit__, and the base class gives it, for free and exactly:
# undo (a stack of position snapshots), copies into scratch states, cloning and pickling.
# An engine implements the `c_*` methods marked "engine" below; search loops call them without the GIL.
from libc.stdint cimport uint64_t, uint32_t, int32_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

ctypedef int32_t action_t

cdef enum:
    MAX_ACTIONS = 256       # upper bound on num_distinct_actions for every engine
    HORIZON_GAME = 0        # c_rollout: play to the end of the game
    HORIZON_ROUND = 1       # c_rollout: stop when the current round ends (multi-round games)

# ---- a small, fast, seedable RNG (xorshift64*, seeded through splitmix64), usable without the GIL ----
cdef struct Rng:
    uint64_t s

cdef inline void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    cdef uint64_t z = seed + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    z = z ^ (z >> 31)
    r.s = z if z != 0 else 0x2545F4914F6CDD1DULL

cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    r.s ^= r.s >> 12
    r.s ^= r.s << 25
    r.s ^= r.s >> 27
    return r.s * 0x2545F4914F6CDD1DULL

cdef inline int rng_below(Rng* r, int n) noexcept nogil:
    # Lemire's multiply-shift: uniform enough for n << 2**32, and no division.
    return <int>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)

cdef inline double rng_uniform(Rng* r) noexcept nogil:
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)

cdef inline void rng_shuffle(Rng* r, int* items, int n) noexcept nogil:
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = rng_below(r, i + 1)
        t = items[i]; items[i] = items[j]; items[j] = t

cdef inline double monotonic_seconds() noexcept nogil:
    """A clock for search budgets in seconds, readable without the GIL."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

cdef class GameState:
    cdef readonly str game_id          # registry id, e.g. "insert"
    cdef readonly dict params          # the full, validated game parameters (rule variants included)
    cdef readonly int num_players
    cdef readonly int num_distinct_actions   # actions are ints in [0, num_distinct_actions)
    cdef Rng chance                    # the state's own chance RNG: deals, draws, turn-ups
    cdef void* _pos                    # the engine's position struct (set by the engine's __cinit__)
    cdef size_t _pos_size              # sizeof that struct
    cdef char* _undo                   # undo stack: records of (Rng, position) snapshots
    cdef int _undo_len                 # records on the stack
    cdef int _undo_cap                 # records allocated
    cdef list _history                 # actions applied through the Python face (for display/replay)

    # ---- engine: the hot path ----
    cdef int c_apply(self, action_t a) except -1 nogil        # must be legal; no undo record
    cdef int c_legal_actions(self, action_t* out) noexcept nogil   # writes them, returns the count
    cdef int c_current_player(self) noexcept nogil            # -1 once terminal
    cdef bint c_is_terminal(self) noexcept nogil
    cdef double c_returns(self, int p) noexcept nogil         # final score of p (valid when terminal)
    cdef double c_score(self, int p) noexcept nogil           # p's points so far (cumulative)
    cdef int c_round(self) noexcept nogil                     # index of the current round (0 if one)
    cdef double c_evaluate(self, int p) noexcept nogil        # heuristic value of the position for p
    cdef int c_reset(self, uint64_t seed) except -1 nogil     # a fresh game, same params, new deal
    # ---- engine: imperfect information ----
    cdef uint64_t c_infoset_key(self, int p) noexcept nogil   # equal iff p cannot tell states apart
    cdef int c_determinize(self, int p, Rng* rng) except -1 nogil  # resample all p cannot see
    cdef action_t c_action_view(self, int observer, action_t a) noexcept nogil  # a as observer sees it
    # ---- engine: playouts ----
    cdef action_t c_policy_action(self, Rng* rng) noexcept nogil  # a cheap playout policy's move (default: random)
    cdef double c_plausibility(self, int observer) noexcept nogil  # (0, 1]: how likely the others' moves are in this world
    # ---- engine: learned playout policies (agents/move_policy.pyx) ----
    cdef int c_move_pattern_count(self) noexcept nogil      # patterns the engine describes moves by (0: none)
    cdef void c_move_patterns(self, const action_t* acts, int k, int32_t* out) noexcept nogil  # each act's pattern
    # ---- provided by the base (engines may override c_rollout with a faster one) ----
    cdef int c_rollout(self, Rng* rng, int horizon) except -1 nogil
    cdef int c_apply_undoable(self, action_t a) except -1 nogil   # push a snapshot, then c_apply
    cdef int c_undo(self) except -1 nogil                     # pop the last snapshot
    cdef int c_copy_from(self, GameState other) except -1 nogil    # position only; undo stack emptied
    cdef size_t c_position_bytes(self) noexcept nogil          # what c_save_position writes
    cdef void c_save_position(self, char* out) noexcept nogil   # the chance RNG and the position
    cdef void c_load_position(self, const char* src) noexcept nogil   # from c_save_position; undo stack emptied
    cdef int _push_snapshot(self) except -1 nogil
    cdef GameState _new_empty(self)
    # ---- the Python face's one seat check: every public method taking a seat calls it first ----
    cdef int seat(self, player) except -1                     # player as an index; ValueError if no such seat
