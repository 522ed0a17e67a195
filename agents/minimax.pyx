"""Depth-limited search agents: `alphabeta` (exact two-player perfect-information search) and
`minimax` (determinized minimax, a.k.a. perfect information Monte Carlo).

Both search one scratch copy of the state with `c_apply_undoable`/`c_undo` (no clone per node) and
read positions only through the C-level contract of engines/core.pxd.

`alphabeta` (two-player perfect-information games only; it refuses others with a ValueError):
iterative-deepening negamax with alpha-beta, a transposition table keyed by `c_infoset_key` of the
player to move (for Insert: the Zobrist key and the tile layout), move ordering by the table's best
move, then a history heuristic. Leaves are scored with the engine's `c_evaluate` for the player to
move (assumed antisymmetric between the two players, as Insert's is). Terminal positions score
+-(1e6 + c_evaluate), minus 1/1024 per ply from the root, so any win beats any heuristic value and
faster wins (slower losses) are preferred. A subtree searched without reaching the depth horizon is
stored as exact at any depth; when a whole iteration reaches no horizon the value is the game's
and deepening stops (exact play once the rest of the game fits in the budget). Parameters: `depth`
(maximum plies), `time` (seconds per move, 0 for none; a completed iteration is always kept),
`seed` (ties between equal root moves are broken by a seeded shuffle), `tt_bits` (table size).

`minimax` (every game): for each of `determinizations` samples, copy the state, resample everything
the acting player cannot see (`c_determinize`, which also reseeds the future chance events, so a
sample is a deterministic game tree), and score every root action with a `depth`-ply search (plies
are decisions, whoever makes them).
Search is *paranoid* by default (`opponents`="paranoid"): the acting player maximizes, every
other player minimizes, whoever is to move at each node (`c_current_player`), so consecutive
decisions by one player (Belladone Bluff's multi-step turns) and any number of players are handled;
with two players it is plain minimax. The leaf utility is c_evaluate(me) - max over the others of
c_evaluate(other), plus +-1e6 at the end of the game for winning or losing it. Paranoid is the
default because it allows alpha-beta pruning (deeper search at equal cost) and needs one scalar per
leaf. `opponents`="maxn" searches max-n instead (no pruning): every player to move picks the child
best for its own margin over the best of the others; with two players it gives the same values.
`align`=true extends the search past `depth` (by at most players - 1 plies) until the acting player
is to move again, so that every leaf is evaluated at the same point of the turn cycle (heuristics
that credit the player to move then compare fairly); it can cost much more on some games.
Action values are combined over samples by `combine`: "average" (mean value) or "vote" (each sample votes for its best
actions; ties on votes go to the better average). `time` caps the seconds per move (0 for none;
at least one sample always completes). With `time` = 0 the agent is deterministic for a seed.
No transposition table: within one sample two histories can reach positions the mover cannot tell
apart that still differ in hidden cards, so the infoset key is not a position key there.
"""
from libc.stdint cimport uint64_t, uint32_t, int16_t, int8_t, uint8_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset, memcpy
from engines.core cimport GameState, Rng, action_t, rng_seed, rng_below, MAX_ACTIONS, monotonic_seconds

import engines
from agents.base import Agent, SEED_LIMITS, TIME_LIMITS

DEF EXACT_DEPTH = 127      # TT depth of a subtree searched to the end of the game
DEPTH_LIMITS = (1, 64)     # plies, for both agents; below EXACT_DEPTH (the table stores depths in 8 bits)
DEF MAX_PLAYERS = 16
DEF EVAL_BITS = 12         # entries of the alphabeta evaluation cache (16 bytes each)
DEF F_EXACT = 1
DEF F_LOWER = 2
DEF F_UPPER = 3

cdef double WIN = 1e6          # terminal bonus: wins and losses dominate any heuristic value
cdef double DECAY = 1.0 / 1024.0   # per ply from the root: prefer faster wins, slower losses
cdef double INF = 1e300
cdef double ABORTED = -7.25e299    # sentinel return of an aborted search (never a real value)


cdef struct EvalEntry:
    uint64_t key
    double value


cdef struct TTEntry:
    uint64_t key
    double value
    uint32_t gen
    int16_t move
    int8_t depth
    uint8_t flag


cdef class Searcher:
    """Alpha-beta negamax over one scratch state, for the root player against everyone else.

    `margin` False: leaf utility c_evaluate(root) (two-player zero-sum evaluations, alphabeta).
    `margin` True: c_evaluate(root) - max others' c_evaluate (paranoid minimax, any player count).
    """
    cdef GameState st
    cdef int root
    cdef int nplayers
    cdef bint margin
    cdef bint use_tt
    cdef bint use_order
    cdef public int tt_min_depth        # nodes closer to the horizon than this skip the table
    cdef public bint use_history
    cdef public int align               # > 0: past the depth, search on (at most this many plies)
                                        # until the root player is to move, and evaluate there
    cdef TTEntry* tt
    cdef int evals_root                 # the root player whose evaluations `evals` holds
    cdef uint64_t tt_mask
    cdef EvalEntry* evals               # leaf evaluations by position key (with the table only)
    cdef uint64_t evals_mask
    cdef uint32_t gen
    cdef public long nodes
    cdef public long evaluations        # leaf values computed with c_evaluate (not found in the cache)
    cdef long horizon_hits
    cdef double deadline
    cdef bint can_abort
    cdef public bint aborted
    cdef int history[2][MAX_ACTIONS]

    def __cinit__(self, int tt_bits=0, bint margin=False, bint ordering=True):
        self.tt = NULL
        self.evals = NULL
        self.evals_root = -1
        self.use_tt = tt_bits > 0
        self.use_order = ordering
        self.tt_min_depth = 3     # measured on Insert: the fastest to a given depth
        self.use_history = True
        self.align = 0
        self.margin = margin
        if self.use_tt:
            if tt_bits > 28:
                raise ValueError(f"tt_bits must be at most 28, not {tt_bits}")
            self.tt = <TTEntry*>calloc(<size_t>1 << tt_bits, sizeof(TTEntry))
            if self.tt == NULL:
                raise MemoryError("transposition table")
            self.tt_mask = (<uint64_t>1 << tt_bits) - 1
            if not margin:
                self.evals = <EvalEntry*>calloc(<size_t>1 << EVAL_BITS, sizeof(EvalEntry))
                if self.evals == NULL:
                    raise MemoryError("evaluation cache")
                self.evals_mask = (<uint64_t>1 << EVAL_BITS) - 1
        self.gen = 1
        memset(self.history, 0, sizeof(self.history))

    def __dealloc__(self):
        free(self.tt)
        free(self.evals)

    def clear(self):
        """Forgets the transposition table and the move-ordering history."""
        if self.tt != NULL:
            memset(self.tt, 0, (self.tt_mask + 1) * sizeof(TTEntry))
        if self.evals != NULL:
            memset(self.evals, 0, (self.evals_mask + 1) * sizeof(EvalEntry))
        self.evals_root = -1
        memset(self.history, 0, sizeof(self.history))

    cdef void begin(self, GameState st, int root, double time_budget) noexcept:
        self.st = st
        if self.evals != NULL and root != self.evals_root:
            # the cache holds c_evaluate(root): another root player makes it stale (-1: still empty)
            if self.evals_root != -1:
                memset(self.evals, 0, (self.evals_mask + 1) * sizeof(EvalEntry))
            self.evals_root = root
        self.root = root
        self.nplayers = st.num_players
        self.nodes = 0
        self.evaluations = 0
        self.horizon_hits = 0
        self.aborted = False
        self.can_abort = False
        self.deadline = monotonic_seconds() + time_budget if time_budget > 0 else 0.0
        self.gen += 1
        cdef int i, j
        for i in range(2):     # age the history so old cutoffs fade
            for j in range(MAX_ACTIONS):
                self.history[i][j] >>= 2

    cdef inline double utility(self) noexcept nogil:
        """The leaf value for the root player."""
        cdef double v, best = -INF, e
        cdef int o
        cdef uint64_t key
        cdef EvalEntry* hit
        if self.evals != NULL:
            # Two-player perfect information: equal keys are equal positions (as for the table), so
            # a position reached again by another order of moves is not evaluated again.
            key = self.st.c_infoset_key(self.root)
            hit = &self.evals[key & self.evals_mask]
            if hit.key != key or key == 0:
                hit.key = key
                hit.value = self.st.c_evaluate(self.root)
                self.evaluations += 1
            return hit.value
        v = self.st.c_evaluate(self.root)
        self.evaluations += 1
        if self.margin:
            for o in range(self.nplayers):
                if o != self.root:
                    e = self.st.c_evaluate(o)
                    if e > best:
                        best = e
            v -= best
        return v

    cdef inline double terminal_value(self, int ply) noexcept nogil:
        cdef double v = self.utility()
        if v > 0:
            return WIN + v - ply * DECAY
        if v < 0:
            return -WIN + v + ply * DECAY
        return 0.0

    cdef double negamax(self, int depth, double alpha, double beta, bint rs, int ply) except? -7.25e299 nogil:
        """The value for the root player's side (rs) or the opponents' side (not rs)."""
        cdef action_t moves[MAX_ACTIONS]
        cdef int score[MAX_ACTIONS]
        cdef int n, i, j, q, tt_move = -1, side = 0 if rs else 1, sc
        cdef action_t a, best_move
        cdef double v, best, alpha0 = alpha
        cdef TTEntry* e = NULL
        cdef uint64_t key = 0
        cdef long hits0 = self.horizon_hits
        self.nodes += 1
        if self.st.c_is_terminal():
            v = self.terminal_value(ply)
            return v if rs else -v
        if depth <= 0 and (self.align == 0 or depth <= -self.align
                           or self.st.c_current_player() == self.root):
            self.horizon_hits += 1
            v = self.utility()
            return v if rs else -v
        if self.can_abort and (self.nodes & 1023) == 0 and monotonic_seconds() > self.deadline:
            self.aborted = True
            return 0.0
        if self.use_tt and depth >= self.tt_min_depth:
            key = self.st.c_infoset_key(self.st.c_current_player())
            e = &self.tt[key & self.tt_mask]
            if e.flag and e.key == key:
                tt_move = e.move
                if e.depth >= depth:
                    v = e.value
                    if v > WIN / 2:
                        v -= ply * DECAY
                    elif v < -WIN / 2:
                        v += ply * DECAY
                    if e.flag == F_EXACT or (e.flag == F_LOWER and v >= beta) or (e.flag == F_UPPER and v <= alpha):
                        if e.depth < EXACT_DEPTH:
                            self.horizon_hits += 1
                        return v
        n = self.st.c_legal_actions(moves)
        if self.use_order and n > 1:
            # insertion sort by (TT move, history), stable on the engine's order
            for i in range(n):
                a = moves[i]
                sc = 0x7FFFFFFF if a == tt_move else (self.history[side][a] if self.use_history else 0)
                j = i
                while j > 0 and score[j - 1] < sc:
                    score[j] = score[j - 1]
                    moves[j] = moves[j - 1]
                    j -= 1
                score[j] = sc
                moves[j] = a
        best = -INF
        best_move = moves[0]
        for i in range(n):
            a = moves[i]
            self.st.c_apply_undoable(a)
            q = self.st.c_current_player()
            if q < 0 or (q == self.root) == rs:
                v = self.negamax(depth - 1, alpha, beta, rs, ply + 1)
            else:
                v = -self.negamax(depth - 1, -beta, -alpha, not rs, ply + 1)
            self.st.c_undo()
            if self.aborted:
                return 0.0
            if v > best:
                best = v
                best_move = a
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        if self.use_order:
                            self.history[side][a] += depth * depth
                        break
        if e != NULL and (e.gen != self.gen or e.key == key or e.depth <= depth):
            e.key = key
            e.gen = self.gen
            e.move = best_move
            e.depth = EXACT_DEPTH if self.horizon_hits == hits0 else depth
            e.flag = F_UPPER if best <= alpha0 else (F_LOWER if best >= beta else F_EXACT)
            v = best
            if v > WIN / 2:
                v += ply * DECAY
            elif v < -WIN / 2:
                v -= ply * DECAY
            e.value = v
        return best

    cdef double child_value(self, action_t a, int depth, double alpha, double beta) except? -7.25e299 nogil:
        """The root player's value of playing `a` at the root, searched `depth` - 1 plies below."""
        cdef double v
        cdef int q
        self.st.c_apply_undoable(a)
        q = self.st.c_current_player()
        if q < 0 or q == self.root:
            v = self.negamax(depth - 1, alpha, beta, True, 1)
        else:
            v = -self.negamax(depth - 1, -beta, -alpha, False, 1)
        self.st.c_undo()
        return v

    cdef void leaf_vector(self, double* out, bint terminal, int ply) noexcept nogil:
        """Every player's margin over the best of the others (max-n leaf utilities)."""
        cdef int p, top = 0
        cdef double second = -INF
        for p in range(self.nplayers):
            out[p] = self.st.c_evaluate(p)
            if out[p] > out[top]:
                top = p
        for p in range(self.nplayers):
            if p != top and out[p] > second:
                second = out[p]
        cdef double first = out[top]
        for p in range(self.nplayers):
            out[p] -= second if p == top else first
            if terminal:
                if out[p] > 0:
                    out[p] += WIN - ply * DECAY
                elif out[p] < 0:
                    out[p] += -WIN + ply * DECAY

    cdef int maxn(self, int depth, int ply, double* out) except -1 nogil:
        """Max-n: the player to move picks the child best for itself; `out` gets every player's value."""
        cdef action_t moves[MAX_ACTIONS]
        cdef double child[MAX_PLAYERS]
        cdef int n, i, q
        cdef double best = -INF
        self.nodes += 1
        if self.st.c_is_terminal():
            self.leaf_vector(out, True, ply)
            return 0
        if depth <= 0 and (self.align == 0 or depth <= -self.align
                           or self.st.c_current_player() == self.root):
            self.horizon_hits += 1
            self.leaf_vector(out, False, ply)
            return 0
        if self.can_abort and (self.nodes & 1023) == 0 and monotonic_seconds() > self.deadline:
            self.aborted = True
            return 0
        q = self.st.c_current_player()
        n = self.st.c_legal_actions(moves)
        for i in range(n):
            self.st.c_apply_undoable(moves[i])
            self.maxn(depth - 1, ply + 1, child)
            self.st.c_undo()
            if self.aborted:
                return 0
            if child[q] > best:
                best = child[q]
                memcpy(out, child, self.nplayers * sizeof(double))
        return 0

    cdef double child_value_maxn(self, action_t a, int depth) except? -7.25e299 nogil:
        """The root player's max-n value of playing `a` at the root."""
        cdef double vec[MAX_PLAYERS]
        self.st.c_apply_undoable(a)
        self.maxn(depth - 1, 1, vec)
        self.st.c_undo()
        return vec[self.root]

    def search_nodes(self, GameState state, int depth):
        """Benchmark: one fixed-depth search of `state` for the player to move; returns nodes."""
        cdef GameState st = state.clone()
        cdef action_t moves[MAX_ACTIONS]
        cdef int n, i
        cdef double best = -INF, v
        self.begin(st, st.c_current_player(), 0.0)
        n = st.c_legal_actions(moves)
        with nogil:
            for i in range(n):
                v = self.child_value(moves[i], depth, best, INF)
                if v > best:
                    best = v
        return self.nodes


cdef class _Core:
    """Scratch state, RNG and searcher of one agent (C-level parts of the Python agent classes)."""
    cdef Searcher srch
    cdef Rng rng
    cdef GameState scratch

    def __cinit__(self, int tt_bits, bint margin):
        self.srch = Searcher(tt_bits, margin, True)

    def seed(self, uint64_t seed):
        rng_seed(&self.rng, seed)
        self.srch.clear()
        self.scratch = None

    cdef GameState _scratch(self, GameState state):
        if self.scratch is None or type(self.scratch) is not type(state) or self.scratch.params != state.params:
            self.scratch = state.clone()
        self.scratch.c_copy_from(state)
        return self.scratch

    def iterative(self, GameState state, int max_depth, double time_budget, bint force=False):
        """alphabeta: iterative deepening from `state` (skipped for a single legal move unless
        `force`); returns (action, stats dict)."""
        cdef GameState st = self._scratch(state)
        cdef Searcher s = self.srch
        cdef action_t moves[MAX_ACTIONS]
        cdef int n, i, j, d, done_depth = 0
        cdef action_t a, best_move, it_best
        cdef double v, best, it_value = 0.0, value = 0.0
        cdef long hits0, nodes = 0
        cdef bint exact = False
        cdef double t0 = monotonic_seconds()
        me = st.c_current_player()
        s.begin(st, me, time_budget)
        n = st.c_legal_actions(moves)
        # a seeded shuffle: ties between equal root moves go to the earliest in this order
        for i in range(n - 1, 0, -1):
            j = rng_below(&self.rng, i + 1)
            a = moves[i]; moves[i] = moves[j]; moves[j] = a
        best_move = moves[0]
        if n == 1 and not force:
            return best_move, {"depth": 0, "value": None, "nodes": 0, "evaluations": 0, "exact": False,
                               "seconds": 0.0}
        for d in range(1, max_depth + 1):
            hits0 = s.horizon_hits
            best = -INF
            it_best = moves[0]
            with nogil:
                for i in range(n):
                    v = s.child_value(moves[i], d, best, INF)
                    if s.aborted:
                        break
                    if v > best:
                        best = v
                        it_best = moves[i]
            if s.aborted:
                break
            done_depth = d
            value = best
            best_move = it_best
            exact = s.horizon_hits == hits0
            # the previous iteration's best move is searched first in the next one
            for i in range(n):
                if moves[i] == best_move:
                    for j in range(i, 0, -1):
                        moves[j] = moves[j - 1]
                    moves[0] = best_move
                    break
            if exact:
                break
            if time_budget > 0:
                s.can_abort = True
                if monotonic_seconds() - t0 > 0.5 * time_budget:
                    break
        nodes = s.nodes
        return best_move, {"depth": done_depth, "value": value, "nodes": nodes, "evaluations": s.evaluations,
                           "exact": bool(exact),
                           "seconds": monotonic_seconds() - t0}

    def pimc(self, GameState state, int samples, int depth, double time_budget, bint vote, bint maxn=False,
             bint align=False):
        """minimax: determinized search from `state`; returns (action, stats dict)."""
        cdef GameState st
        cdef Searcher s = self.srch
        cdef action_t legal[MAX_ACTIONS]
        cdef action_t moves[MAX_ACTIONS]
        cdef double total[MAX_ACTIONS]
        cdef double votes[MAX_ACTIONS]
        cdef double vals[MAX_ACTIONS]
        cdef int count[MAX_ACTIONS]
        cdef char is_legal[MAX_ACTIONS]
        cdef int n, m, i, j, k, ties, done = 0
        cdef action_t a
        cdef double v, best, t0 = monotonic_seconds()
        cdef int me = state.c_current_player()
        n = state.c_legal_actions(legal)
        if n == 1:
            return legal[0], {"determinizations": 0, "nodes": 0, "seconds": 0.0}
        memset(total, 0, sizeof(total))
        memset(votes, 0, sizeof(votes))
        memset(count, 0, sizeof(count))
        memset(is_legal, 0, sizeof(is_legal))
        for i in range(n):
            is_legal[legal[i]] = 1
        st = self._scratch(state)
        s.begin(st, me, time_budget)
        s.align = state.num_players - 1 if align else 0
        nodes = 0
        for k in range(samples):
            if k > 0 and time_budget > 0 and monotonic_seconds() - t0 >= time_budget:
                break
            s.can_abort = k > 0 and time_budget > 0
            st.c_copy_from(state)
            st.c_determinize(me, &self.rng)
            m = st.c_legal_actions(moves)
            best = -INF
            with nogil:
                for i in range(m):
                    a = moves[i]
                    if not is_legal[a]:
                        vals[i] = -INF
                    elif maxn:
                        vals[i] = s.child_value_maxn(a, depth)
                    else:
                        vals[i] = s.child_value(a, depth, -INF, INF)
                    if s.aborted:
                        break
                    if vals[i] > best:
                        best = vals[i]
            if s.aborted:
                break
            done += 1
            ties = 0
            for i in range(m):
                if is_legal[moves[i]] and vals[i] == best:
                    ties += 1
            for i in range(m):
                a = moves[i]
                if is_legal[a]:
                    total[a] += vals[i]
                    count[a] += 1
                    if vals[i] == best:
                        votes[a] += 1.0 / ties
        # choose: best combined value over the real legal actions; ties by a seeded draw
        cdef double key1, key2, b1 = -INF, b2 = -INF
        cdef int nbest = 0
        cdef action_t chosen = legal[0]
        for i in range(n):
            a = legal[i]
            if count[a] == 0:
                continue
            key2 = total[a] / count[a]
            key1 = votes[a] if vote else key2
            if key1 > b1 or (key1 == b1 and key2 > b2):
                b1, b2, nbest = key1, key2, 1
                chosen = a
            elif key1 == b1 and key2 == b2:
                nbest += 1
                if rng_below(&self.rng, nbest) == 0:
                    chosen = a
        return chosen, {"determinizations": done, "nodes": s.nodes, "seconds": monotonic_seconds() - t0,
                        "value": b2 if b2 > -INF else None}


def run_determinizations(GameState state, long n, uint64_t seed):
    """Benchmark baseline: n copies of `state` into a scratch state, each resampled for the player
    to move (what minimax does before each search)."""
    cdef GameState st = state.clone()
    cdef Rng rng
    cdef long i
    cdef int me = state.c_current_player()
    rng_seed(&rng, seed)
    with nogil:
        for i in range(n):
            st.c_copy_from(state)
            st.c_determinize(me, &rng)


class AlphaBetaAgent(Agent):
    """Alpha-beta with a transposition table; two-player perfect-information games only (Insert).

    Iterative deepening within `depth` plies and `time` seconds; exact once the rest of the game
    fits in the budget. Limits (LIMITS): depth 1 to 64 plies (an Insert game lasts at most 30);
    time 0 to 3600 seconds; tt_bits 1 to 28 (2**tt_bits entries of 24 bytes); seed 0 to 2**64 - 1."""

    name = "alphabeta"
    # Budgets default to plies, not seconds, so tournaments give the same results on any machine.
    PARAMS = {"depth": 10, "time": 0.0, "seed": 0, "tt_bits": 20}
    LIMITS = {"depth": DEPTH_LIMITS, "time": TIME_LIMITS, "seed": SEED_LIMITS, "tt_bits": (1, 28)}

    def __init__(self, **params):
        super().__init__(**params)
        self._core = None
        self.last = {}

    @classmethod
    def cannot_play(cls, game_id, players):
        if not engines.spec(game_id).perfect_information or players != 2:
            return "it plays only two-player perfect-information games (use minimax)"
        return None

    def _check(self, game_id, players):
        reason = self.cannot_play(game_id, players)
        if reason:
            raise ValueError(f"agent alphabeta cannot play {game_id} with {players} players: {reason}")

    def reset(self, game_id, game_params, seat, seed):
        super().reset(game_id, game_params, seat, seed)
        self._check(game_id, game_params.get("players", engines.spec(game_id).default_players))
        if self._core is None:
            self._core = _Core(self.params["tt_bits"], False)

    def act(self, state):
        return self._search(state, False)

    def analyse(self, state):
        """The move, its value for the player to move (beyond +-1e6: a forced win or loss), the
        depth reached, whether the value is exact (the game's), nodes and seconds, as a dict."""
        action = self._search(state, True)
        return dict(self.last, action=action)

    def _search(self, state, force):
        if state.is_terminal():
            raise ValueError(f"agent alphabeta was asked to move in a finished game of {state.game_id}")
        if self._core is None:
            self.reset(state.game_id, state.params, state.current_player(), 0)
        self._check(state.game_id, state.num_players)
        self._core.seed(_mix(self.params["seed"], self.next_seed()))   # each decision's ties drawn afresh
        action, self.last = self._core.iterative(state, self.params["depth"], self.params["time"], force)
        return int(action)


class MinimaxAgent(Agent):
    """Determinized (perfect information Monte Carlo) paranoid minimax with alpha-beta, any game.

    Limits (LIMITS): determinizations 1 to 100,000; depth 1 to 64 plies (far beyond what any game
    here searches in reasonable time without a `time` budget); time 0 to 3600 seconds; seed 0 to
    2**64 - 1."""

    name = "minimax"
    PARAMS = {"determinizations": 24, "depth": 4, "time": 0.0, "combine": "average", "opponents": "paranoid",
              "align": False, "seed": 0}
    LIMITS = {"determinizations": (1, 100000), "depth": DEPTH_LIMITS, "time": TIME_LIMITS, "seed": SEED_LIMITS}
    CHOICES = {"combine": ("average", "vote"), "opponents": ("paranoid", "maxn")}

    def __init__(self, **params):
        super().__init__(**params)
        self._core = _Core(0, True)
        self._core.seed(_mix(self.params["seed"], 0))
        self.last = {}

    @classmethod
    def cannot_play(cls, game_id, players):
        return f"it plays at most {MAX_PLAYERS} players" if players > MAX_PLAYERS else None

    def reset(self, game_id, game_params, seat, seed):
        super().reset(game_id, game_params, seat, seed)
        reason = self.cannot_play(game_id, game_params.get("players", 0))
        if reason:
            raise ValueError(f"agent minimax cannot play {game_id}: {reason}")

    def act(self, state):
        p = self.params
        if state.is_terminal():
            raise ValueError(f"agent minimax was asked to move in a finished game of {state.game_id}")
        self._core.seed(_mix(p["seed"], self.next_seed()))   # each decision's worlds and ties drawn afresh
        action, self.last = self._core.pimc(state, p["determinizations"], p["depth"], p["time"],
                                            p["combine"] == "vote", p["opponents"] == "maxn", p["align"])
        return int(action)


def _mix(a, b):
    return (int(a) * 0x9E3779B97F4A7C15 + int(b) * 0xBF58476D1CE4E5B9 + 1) & 0xFFFFFFFFFFFFFFFF
