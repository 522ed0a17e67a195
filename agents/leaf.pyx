"""The features a learned leaf value reads (`leaf`, version LEAF_FEATURES_VERSION), computed in C
from the game-state contract alone (engines/core.pxd), so every game has them.

From `seat`'s view of a determinized (perfect-information) position, with the seats taken in turn
from `seat` (seat, seat + 1, ...): the current round (`c_round`), who moves (their place after
`seat`, -1 when the game is over), and for each seat its points so far (`c_score`) and the engine's
evaluation of the position for it (`c_evaluate`, its expected lead in points), each as it is and
less the mean over the seats (a lead: the trees cannot extrapolate, and read points beyond those of
their data by the leads they are). 2 + 4 x players numbers. A change to them is a new LEAF_FEATURES_VERSION, which refuses models built on the old.

`bench_values` and `bench_rollouts` time a leaf value and the random play-out it replaces from the
same position, in C, for `arena bench` (arena/bench/learned.py).
"""
from engines.core cimport GameState, Rng, rng_seed, HORIZON_GAME, HORIZON_ROUND
from agents.forest cimport Forest

LEAF_FEATURES = "leaf"
LEAF_FEATURES_VERSION = 2
DEF MAX_SEATS = 16


def leaf_feature_names(int players):
    names = ["round", "mover"]
    for k in range(players):
        names += [f"score{k}", f"eval{k}", f"score_lead{k}", f"eval_lead{k}"]
    return names


cdef int c_leaf_features(GameState s, int seat, double* out) noexcept nogil:
    """Writes the 2 + 4 x players features of `s` from `seat`'s view into `out`."""
    cdef int n = s.num_players, k, q, mover = s.c_current_player()
    cdef double scores = 0.0, evals = 0.0
    out[0] = s.c_round()
    out[1] = -1 if mover < 0 else (mover - seat + n) % n
    for k in range(n):
        q = (seat + k) % n
        out[2 + 4 * k] = s.c_score(q)
        out[3 + 4 * k] = s.c_evaluate(q)
        scores += out[2 + 4 * k]
        evals += out[3 + 4 * k]
    for k in range(n):
        out[4 + 4 * k] = out[2 + 4 * k] - scores / n
        out[5 + 4 * k] = out[3 + 4 * k] - evals / n
    return 0


def leaf_features(GameState state, seat):
    """The features of `state` (taken as it is: a determinized or whole position) from `seat`'s view."""
    cdef double out[2 + 4 * MAX_SEATS]
    cdef int p = state.seat(seat)
    if state.num_players > MAX_SEATS:
        raise ValueError(f"leaf features cover at most {MAX_SEATS} players")
    c_leaf_features(state, p, out)
    return [out[i] for i in range(2 + 4 * state.num_players)]


def leaf_value(GameState state, Forest forest, seat):
    """The forest's value of `state` from `seat`'s view, by the C path a search takes per leaf
    (features, then the trees walked from raw pointers; not clipped)."""
    cdef double x[2 + 4 * MAX_SEATS]
    cdef int p = state.seat(seat)
    if forest.features != 2 + 4 * state.num_players:
        raise ValueError(f"the forest reads {forest.features} features, not {2 + 4 * state.num_players}")
    c_leaf_features(state, p, x)
    return forest.c_value(x)


def bench_values(GameState state, Forest forest, long calls):
    """`calls` leaf values of `state`: every seat's features and the forest's value, in C."""
    cdef double x[2 + 4 * MAX_SEATS]
    cdef double total = 0.0
    cdef long i
    cdef int p, n = state.num_players
    if forest.features != 2 + 4 * n:
        raise ValueError(f"the forest reads {forest.features} features, not {2 + 4 * n}")
    with nogil:
        for i in range(calls):
            for p in range(n):
                c_leaf_features(state, p, x)
                total += forest.c_value(x)
    return total


def bench_rollouts(GameState state, long calls, str horizon="game", unsigned long long seed=0):
    """`calls` random play-outs from `state` (the engine's c_rollout to `horizon`), each from a copy."""
    cdef GameState s = state.clone()
    cdef Rng rng
    cdef long i
    cdef int h = HORIZON_GAME if horizon == "game" else HORIZON_ROUND
    rng_seed(&rng, seed)
    with nogil:
        for i in range(calls):
            s.c_copy_from(state)
            s.c_rollout(&rng, h)
    return calls
