"""Single-observer information set MCTS (Cowling, Powley and Whitehouse, 2012), registered as `ismcts`.

One tree per move, searched from the acting player's point of view. Every iteration copies the root
into a scratch state and determinizes it for the acting player (`c_determinize`), so the search reads
nothing the player cannot see. It then descends the tree by UCB among the actions legal in this
determinization, counting for every child how often it was available (the subset-armed bandit),
expands one untried action, rolls out with the engine's `c_rollout` and backs up the rewards. The
move played is the most visited root child. The whole loop runs in C without the GIL.

Tree: flat arrays grown with realloc, no Python object per node. Each node's outgoing edges lie
contiguously in one edge pool, and an edge holds the statistics of the child it leads to (visits,
availability, reward sum of the player who takes it, which is all UCB needs there), so choosing a
child scans one short array. An edge is keyed by (action, player who takes it), since where chance
decides who moves next the same action may be taken by different players in different worlds.
Memory: 24 bytes per edge plus 12 per internal node, plus the unused room of edge blocks
(measured in `stats()["bytes_per_node"]`).

Solver (MCTS-Solver, Winands, Bjornsson and Saito 2008), where it is sound: two-player games of
perfect information without chance after the setup (Insert), where each node is one state. An edge
that ends the game is proven a win, a draw or a loss for its mover, counted in plies; a node is
proven once one of its edges is a proven win (the fastest) or once every legal action has an edge
and all are proven (a draw if one draws, else the slowest loss), and that proves the edge into it.
Selection takes a proven win at once, skips proven losses while anything else is left, and backs up a
proven edge's value without playing it out again; the search stops when the root is proven. The move
played is the fastest proven win, else the most visited child that is not a proven loss.

Rewards, in [0, 1] for each player p: a blend of the rank of p's value among the players (1 best,
0 worst, ties shared) and of p's margin, weighted by `margin` (default 0.5). The margin is p's value
minus the mean of the others', on the game's scale (`score_span`: a fixed span per game, never one
rollout's spread): 0.5 + margin / (2 span), clipped to [0, 1]. So with two players a rollout won by
1 point and one won by 40 are told apart (min-max normalising within a rollout made the margin the
rank again). A game without a span falls back to the min-max normalised value.
The value is the final return when the game is over; when a `round` horizon stops the rollout first,
it is the points p gained since the root (c_score now minus c_score at the root), so a Wizard round
is judged by its own points, bid made or missed. When a `cutoff` stops the rollout after k plies,
the engine's evaluation c_evaluate(p) (p's expected lead in points) is ranked and read as the margin.

Partially observable moves (`pom`, SO-ISMCTS+POM after Cowling, Powley and Whitehouse): without it
another player's edges are keyed by the action itself, and where the action names a card the
searcher cannot see (a face-down Belladone placement names its card), the searcher's tree splits by
that card and its later nodes are searched as if it knew it. With `pom`, at a node where another
player moves, the legal actions are partitioned by how the searcher sees them: the engine's
c_action_view(searcher, action), an id that is the same for all the actions the searcher cannot
tell apart, in every world it cannot tell from this one (a face-down Belladone placement is its
colour in its row, a hidden Wizard bid is "a bid", a Royal Ball gift is "a gift"). The node has one
edge per class, keyed by that view id, so the merge is complete across determinizations; when the
search takes the edge it plays a uniformly random legal member of the class in this
determinization. Cost: one c_action_view per legal action at such a node, no apply or undo.

Progressive bias (`bias=W`, Chaslot et al. 2008): an edge's UCB value adds W (2 r - 1) / (n + 1),
n its visits and r its rank from 0 to 1 among its siblings by the engine's evaluation for its mover
(c_evaluate after each legal action, in the world where it was expanded). A rank rather than the
evaluation itself, because the engines' evaluations have no common scale. Cost: one evaluation per
legal action at each expansion; memory: a float per edge, only in searches with a bias.

Root halving (`root=halving`): the root's visits follow sequential halving instead of UCB, rounds of
equal budgets after each of which the worse half of the root actions by mean leaves (only under an
iteration budget, and not with the solver).

Root parallelisation (`threads`): independent trees, each with its own scratch state and seed, run
in threads without the GIL; their root statistics are summed and the move chosen as above. Under an
iteration budget each tree's share of the iterations is fixed and the trees share nothing while
they search, so the move does not depend on how the threads were scheduled; under `time` it does.
Every decision reseeds every tree from the match seed and the number of decisions played
(`Agent.next_seed`), so one decision that draws more random numbers leaves the next ones' unchanged. With the
solver on (perfect information) a child's availability is its node's visit count, i.e. plain UCT.
"""
cimport cython
from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t, uint32_t
from libc.stdlib cimport realloc, free
from libc.string cimport memset, memcpy
from libc.math cimport log, sqrt, isfinite

from engines.core cimport (GameState, Rng, action_t, rng_seed, rng_below, rng_uniform,
                           MAX_ACTIONS, HORIZON_GAME, HORIZON_ROUND, monotonic_seconds)

from agents.forest cimport Forest
from agents.leaf cimport c_leaf_features
from agents.move_policy cimport MovePolicy
from agents.world_weights cimport WorldWeights

import json

import engines
from agents import learned
from agents.base import Agent, BadAgentParameter, SEED_LIMITS, TIME_LIMITS

DEF MAX_PLAYERS = 16
DEF CLOCK_EVERY = 8        # iterations between clock reads under a time budget
DEF LOG_TABLE = 4096       # log(n) precomputed below this
DEF MAX_ITERATIONS = 10000000   # per search, also under a time budget: bounds the tree's memory
DEF MAX_WORLDS = 10000    # inference=learned: worlds weighed a move
DEF PROOF_DRAW = 127       # Edge.proof of a proven draw; wins and losses count plies up to MAX_PROOF
DEF MAX_PROOF = 126
DEF MAST_RECORD = 1024     # rollout plies per iteration whose MAST statistics are updated


cdef struct Edge:
    # One action out of a node, with the statistics of the child it leads to.
    double reward          # sum of the rewards of `player` over the visits through this edge
    int32_t visits
    int32_t avail          # times this action was legal when its node was visited
    int32_t child          # node index of the position after it; -1 until the search goes below
    int16_t action
    int8_t player          # player who takes it
    int8_t proof           # solver: 0 unknown, +k a win for `player` in k plies (this one included),
                           # -k a loss in k plies, PROOF_DRAW a draw

cdef struct Node:
    # A node's edges lie contiguously in the edge pool: [first, first + count), room for cap.
    int32_t first
    int16_t count          # at most MAX_ACTIONS * MAX_PLAYERS = 4096 edges (action, player)
    int16_t cap            # a power of two, at most 8192
    int32_t legal          # solver: legal actions in the node's (one) state, set on the first visit

cdef struct SearchConfig:
    # One search's settings, validated and resolved by SearchSettings, read by every phase.
    long iterations        # the budget (MAX_ITERATIONS under a time budget)
    double seconds         # the time budget, 0 for none
    double c               # UCB's exploration
    int horizon            # HORIZON_ROUND or HORIZON_GAME: where descents and rollouts stop
    double margin          # the reward's weight of the margin against the rank
    double span            # the margin's scale (0: min-max within each rollout)
    bint solver            # MCTS-Solver: two players, perfect information, each node one state
    int cutoff             # rollout plies before the evaluation scores the rollout (0: to the horizon)
    double epsilon         # in a cut-off rollout, the chance of a ply by _rollout_ply, not the evaluation
    int decisive           # the decisive policy of the plies that would be random (_decisive_ply)
    double mast            # the chance of MAST's action at such a ply
    double policy          # the chance of the engine's playout policy at such a ply
    bint expand_eval       # expand the untried action the engine's evaluation rates best
    bint pom               # another player's edges keyed by how the searcher sees the action
    bint opponent_policy   # another player's moves in the tree: the playout policy's
    int infer              # worlds drawn at most per iteration (kept by c_plausibility)
    int worlds             # inference=learned: worlds drawn and weighed at each move (0: none)
    bint halving           # sequential halving at the root
    double bias            # progressive bias: the weight of an edge's evaluated rank
    bint valued            # a learned leaf value (Search.value) scores every leaf short of the game's end
    bint value_ranked      # its shares ranked and blended with their margin, not taken as they are
    double value_mix       # the value's weight against the play-out's rewards (1: no play-out)
    bint patterned         # a learned playout policy (Search.playout) plays the plies that would be random

cdef struct Views:
    # pom, at another player's node: its legal actions in this world (members), in classes of the
    # actions the searcher cannot tell apart (Search.view_class maps a view id to its class)
    action_t members[MAX_ACTIONS]
    int16_t cls[MAX_ACTIONS]       # the class of members[i]
    int cls_n[MAX_ACTIONS]         # members per class
    int k                          # members

cdef double LOG[LOG_TABLE]
cdef int _i
LOG[0] = 0.0
for _i in range(1, LOG_TABLE):
    LOG[_i] = log(<double>_i)


cdef inline int _log2(int n) noexcept nogil:
    cdef int k = 0
    while n > 1:
        n >>= 1
        k += 1
    return k


cdef inline double _log_avail(Edge* ed) noexcept nogil:
    return LOG[ed.avail] if ed.avail < LOG_TABLE else log(<double>ed.avail)


cdef inline double _mean_ucb(Edge* ed, double c) noexcept nogil:
    """UCB on an unproven edge's mean reward (its availability not yet counted for this visit)."""
    return ed.reward / ed.visits + c * sqrt(_log_avail(ed) / ed.visits)


cdef class SearchSettings:
    """The settings of one search from `state`, validated, the per-state defaults resolved, in the C
    struct the search reads (`SearchConfig`, by pointer).

    A search runs for `iterations`, or when seconds > 0 for `seconds` (and at most MAX_ITERATIONS
    iterations). `c`: UCB's exploration. `horizon`: rollouts (and descents) stop at the end of the
    current round (`round`) or of the game (`game`). `margin`: the weight of the margin against the
    rank in the reward. `solver`: prove wins and losses; None (the default) turns it on where it is
    sound, in two-player games of perfect information (the registry's flag) such as Insert. `span`:
    the scale of the margin reward, by default `score_span(state, horizon)`. `cutoff`: rollouts stop
    after that many plies and the engine's evaluation scores them (0: none). `expand`: `random` or
    `eval` (the untried action the engine's evaluation rates best first). `pom`: merge the other
    players' edges by how the player to move sees their actions (not with the solver, where every
    action is seen). `epsilon`: in a cut-off rollout, the chance of a uniformly random ply; the
    others take the action the engine's evaluation rates best for its mover. `decisive`: the rollout
    policy of the plies that would be uniformly random (`_decisive_ply`): 0 uniformly random (the
    engine's c_rollout), 1 an immediate win when there is one, 2 also never a move that leaves the
    next player an immediate win while another move does not. `mast`: the chance that such a ply
    plays instead the action with the best mean reward so far for its mover (MAST); 0, the default,
    never. `policy`: the chance that such a ply (not taken by MAST) plays the engine's playout
    policy's move (`c_policy_action`); 0, the default, never. `opponents`: `search` (the other
    players' moves are chosen by UCB on their rewards, as the searcher's) or `policy` (they are the
    engine's playout policy's moves in each determinized world: what each would do with the hand it
    holds there; not with the solver). `infer`: worlds drawn at most per iteration, each kept with
    the chance the engine's `c_plausibility` gives it (how likely the others' moves so far are with
    what they hold there; Wizard: their bids against their hands), the last kept; 1, the default,
    keeps the first: uniform worlds. `root`: how the root's visits are shared, `ucb` like every
    other node's, or `halving` (sequential halving, for the best final choice rather than the best
    sum of rewards; not under a time budget, which leaves the rounds unknown, nor with the solver,
    which stops once the root is proven). `bias`: progressive bias (Chaslot et al. 2008), the weight
    of an edge's evaluated rank among its siblings in its UCB value, fading as 1 / (visits + 1); 0,
    the default, none. Another player's edges merged by `pom` have none. `playout`: a learned
    playout policy (agents/move_policy.pyx) that plays the rollout plies that would be uniformly
    random (after MAST's and the engine policy's chances), or None."""
    cdef SearchConfig cfg
    cdef readonly Forest value
    cdef readonly WorldWeights weights
    cdef readonly MovePolicy playout

    def __init__(self, GameState state, long iterations=1000, double seconds=0.0, double c=0.7,
                 str horizon="round", double margin=0.5, solver=None, span=None, int cutoff=0,
                 str expand="random", bint pom=False, double epsilon=1.0, int decisive=0, double mast=0.0,
                 double policy=0.0, str opponents="search", int infer=1, str root="ucb", double bias=0.0,
                 Forest value=None, str value_reward="share", double value_mix=1.0,
                 WorldWeights weights=None, int worlds=200, MovePolicy playout=None):
        cdef bint solve
        if state.c_is_terminal():
            raise ValueError("cannot search from a terminal state")
        if not (isfinite(seconds) and isfinite(c) and c >= 0 and 0 <= margin <= 1):
            raise ValueError("ismcts needs finite seconds, a finite c >= 0 and a margin in [0, 1]")
        if not 0 <= epsilon <= 1:
            raise ValueError("ismcts needs an epsilon in [0, 1]")
        if not 0 <= decisive <= 2:
            raise ValueError("ismcts needs decisive 0, 1 or 2")
        if not 1 <= infer <= 1000:
            raise ValueError("ismcts needs infer in [1, 1000]")
        if opponents not in ("search", "policy"):
            raise ValueError(f"ismcts opponents must be search or policy, not {opponents!r}")
        if root not in ("ucb", "halving"):
            raise ValueError(f"ismcts root must be ucb or halving, not {root!r}")
        if not (0 <= mast <= 1 and 0 <= policy <= 1):
            raise ValueError("ismcts needs mast and policy chances in [0, 1]")
        if not (isfinite(bias) and 0 <= bias <= 100):
            raise ValueError("ismcts needs a bias in [0, 100]")
        if seconds > 0:
            iterations = MAX_ITERATIONS
        if iterations < 1:
            raise ValueError("ismcts needs iterations >= 1 or seconds > 0")
        if horizon not in ("round", "game"):
            raise ValueError(f"ismcts horizon must be round or game, not {horizon!r}")
        if state.num_players > MAX_PLAYERS:
            raise ValueError(f"ismcts supports at most {MAX_PLAYERS} players")
        if state.num_distinct_actions > MAX_ACTIONS:
            raise ValueError(f"ismcts supports at most {MAX_ACTIONS} distinct actions")
        sound = solver_is_sound(state)
        if solver and not sound:
            raise ValueError("the ismcts solver needs a two-player game of perfect information")
        solve = sound if solver is None else bool(solver)
        cdef double sp = score_span(state, horizon) if span is None else span
        if expand not in ("random", "eval"):
            raise ValueError(f"ismcts expand must be random or eval, not {expand!r}")
        if not (isfinite(sp) and sp >= 0):
            raise ValueError("ismcts needs a finite span >= 0")
        if value is not None and value.features != 2 + 4 * state.num_players:
            raise ValueError(f"the leaf value reads {value.features} features, not the "
                             f"{2 + 4 * state.num_players} of a {state.num_players}-player position")
        if value_reward not in ("share", "ranked"):
            raise ValueError(f"ismcts value_reward must be share or ranked, not {value_reward!r}")
        if not 0 <= value_mix <= 1:
            raise ValueError("ismcts needs a value_mix in [0, 1]")
        if weights is not None:
            weights.check(state)
        if playout is not None:
            playout.check(state)
        self.playout = playout
        self.cfg.patterned = playout is not None
        if weights is not None and not 2 <= worlds <= MAX_WORLDS:
            raise ValueError(f"ismcts needs worlds in [2, {MAX_WORLDS}]")
        self.weights = weights
        self.cfg.worlds = worlds if weights is not None else 0
        self.value = value
        self.cfg.valued = value is not None
        self.cfg.value_ranked = value_reward == "ranked"
        self.cfg.value_mix = value_mix
        self.cfg.iterations = iterations
        self.cfg.seconds = seconds
        self.cfg.c = c
        self.cfg.horizon = HORIZON_ROUND if horizon == "round" else HORIZON_GAME
        self.cfg.margin = margin
        self.cfg.span = sp
        self.cfg.solver = solve
        self.cfg.cutoff = cutoff
        self.cfg.epsilon = epsilon
        self.cfg.decisive = decisive
        self.cfg.mast = mast
        self.cfg.policy = policy
        self.cfg.expand_eval = expand == "eval"
        self.cfg.pom = pom and not solve
        self.cfg.opponent_policy = opponents == "policy" and not solve
        self.cfg.infer = infer
        self.cfg.halving = root == "halving" and not solve and seconds <= 0
        self.cfg.bias = bias

    @property
    def config(self):
        """The C struct as a dict."""
        return self.cfg


@cython.final
cdef class Search:
    """The tree and the search loop. Reused across moves: its arrays only ever grow.

    Every node but the root is reached through one edge, so the tree has n_edges + 1 nodes; the
    statistics UCB reads live in the edges, contiguous per node, so choosing a child scans one
    short array instead of chasing pointers through the tree."""

    cdef Node* nodes
    cdef int n_nodes
    cdef int node_cap
    cdef Edge* edges
    cdef int n_edges           # edge slots in use or on a free list
    cdef int free_block[32]    # per block size 2**k: the first free block (its next in .child), -1 if none
    cdef int live_edges
    cdef int edge_cap
    cdef float* priors         # progressive bias: each edge's evaluated rank, parallel to `edges`
    cdef int prior_cap         # (allocated only for searches with a bias)
    cdef bint with_priors
    cdef int* path             # edges taken this iteration
    cdef int* path_nodes       # the node each of them leaves
    cdef int path_cap
    cdef long root_visits
    cdef GameState scratch
    cdef Rng rng
    cdef uint32_t stamp
    cdef uint32_t legal_mark[MAX_ACTIONS]
    cdef uint32_t child_mark[MAX_ACTIONS]
    # pom: the view classes of the legal actions at one node, indexed by the view id
    cdef uint32_t view_mark[MAX_ACTIONS]
    cdef int16_t view_class[MAX_ACTIONS]
    # MAST: each (player, action)'s reward sum and count over this search's iterations, and the
    # rollout plies of the current iteration
    cdef double mast_sum[MAX_PLAYERS * MAX_ACTIONS]
    cdef uint32_t mast_n[MAX_PLAYERS * MAX_ACTIONS]
    cdef action_t played[MAST_RECORD]
    cdef int8_t played_by[MAST_RECORD]
    cdef int n_played
    # the search under way: who searches, how many play, the root's round, the points of the
    # players in this iteration's world and the iteration's rewards
    cdef int me
    cdef int n_players
    cdef Forest value                      # the learned leaf value of the current search (cfg.valued)
    cdef MovePolicy playout                # its learned playout policy (cfg.patterned)
    cdef WorldWeights weights              # inference=learned: how likely a world is (cfg.worlds)
    cdef char* pool                        # cfg.worlds: the worlds drawn at the move's start,
    cdef double* pool_sum                  # and the running sum of their weights
    cdef int pool_cap
    cdef int pool_len                      # the worlds in it this move
    cdef size_t pool_rec                   # bytes of one world (c_position_bytes)
    cdef public double effective_worlds    # cfg.worlds: (sum of weights)**2 / sum of squared weights
    cdef double leaf_x[2 + 4 * MAX_PLAYERS]   # its features of one seat
    cdef int root_round
    cdef double base[MAX_PLAYERS]
    cdef double reward[MAX_PLAYERS]
    cdef char halving_alive[MAX_ACTIONS]   # root halving: 1 for an action still in the race
    cdef int halving_round[MAX_ACTIONS]    # root halving: an action's visits this round
    cdef int halving_left                  # root halving: actions still in the race
    cdef int halving_quota                 # root halving: visits per action this round
    cdef long halving_budget               # root halving: iterations per round
    # statistics of the last search
    cdef public long iterations
    cdef public double elapsed
    cdef public int max_depth
    cdef public int root_proof     # solver: the root's proven value for its player (Edge.proof's code), 0 if none

    def __cinit__(self):
        self.nodes = NULL
        self.edges = NULL
        self.path = NULL
        self.path_nodes = NULL
        self.priors = NULL
        self.prior_cap = 0
        self.pool = NULL
        self.pool_sum = NULL
        self.pool_cap = self.pool_len = 0
        self.effective_worlds = 0.0
        self.with_priors = False
        self.root_proof = 0
        self.n_nodes = self.node_cap = self.n_edges = self.edge_cap = self.path_cap = 0
        self.live_edges = 0
        self.root_visits = 0
        self.stamp = 0
        memset(self.legal_mark, 0, sizeof(self.legal_mark))
        memset(self.child_mark, 0, sizeof(self.child_mark))
        memset(self.view_mark, 0, sizeof(self.view_mark))
        rng_seed(&self.rng, 0)

    def __dealloc__(self):
        free(self.nodes)
        free(self.edges)
        free(self.path)
        free(self.path_nodes)
        free(self.priors)
        free(self.pool)
        free(self.pool_sum)

    def seed(self, uint64_t seed):
        rng_seed(&self.rng, seed)

    @staticmethod
    def bytes_per_node():
        """Fixed tree memory per node: its edge (the statistics) plus its node record (the edge
        list). Leaves have no node record and the edge pool keeps some slack; `stats()` reports
        the measured figure of the last search."""
        return sizeof(Edge) + sizeof(Node)

    cdef void* _grow(self, void* buf, int* cap, int need, size_t item) except NULL nogil:
        cdef int c = cap[0] * 2 if cap[0] else 1024
        cdef void* grown
        while c < need:
            c *= 2
        grown = realloc(buf, c * item)
        if grown == NULL:
            with gil:
                raise MemoryError("ismcts tree")
        cap[0] = c
        return grown

    cdef inline int _new_node(self) except -1 nogil:
        cdef int i = self.n_nodes
        if i == self.node_cap:
            self.nodes = <Node*>self._grow(self.nodes, &self.node_cap, i + 1, sizeof(Node))
        self.nodes[i].first = 0
        self.nodes[i].count = 0
        self.nodes[i].cap = 0
        self.nodes[i].legal = 0
        self.n_nodes = i + 1
        return i

    cdef int _add_edge(self, int node, action_t a, int player, int room) except -1 nogil:
        """Appends an edge to `node` and returns its index. Edge blocks hold a power of two of
        edges (a node's first block room for `room`, at most 8); a full block moves to one twice
        its size, and the old one goes on a free list for its size, so the pool has no holes."""
        cdef Node* nd = &self.nodes[node]
        cdef int cap, first, cls, old_cls
        cdef int e
        if nd.count == nd.cap:
            if nd.cap:
                cap = nd.cap * 2
            else:
                cap = 1
                while cap < room and cap < 8:
                    cap *= 2
            cls = _log2(cap)
            first = self.free_block[cls]
            if first >= 0:
                self.free_block[cls] = self.edges[first].child
            else:
                first = self.n_edges
                if first + cap > self.edge_cap:
                    self.edges = <Edge*>self._grow(self.edges, &self.edge_cap, first + cap, sizeof(Edge))
                    nd = &self.nodes[node]
                self.n_edges = first + cap
            if self.with_priors and self.prior_cap < self.edge_cap:
                self._grow_priors()
            if nd.count:
                memcpy(&self.edges[first], &self.edges[nd.first], nd.count * sizeof(Edge))
                if self.with_priors:
                    memcpy(&self.priors[first], &self.priors[nd.first], nd.count * sizeof(float))
                old_cls = _log2(nd.cap)
                self.edges[nd.first].child = self.free_block[old_cls]
                self.free_block[old_cls] = nd.first
            nd.first = first
            nd.cap = cap
        e = nd.first + nd.count
        nd.count += 1
        self.edges[e].reward = 0.0
        self.edges[e].visits = 0
        self.edges[e].avail = 0
        self.edges[e].child = -1
        self.edges[e].action = <int16_t>a
        self.edges[e].player = <int8_t>player
        self.edges[e].proof = 0
        if self.with_priors:
            self.priors[e] = 0.5
        self.live_edges += 1
        return e

    cdef int _grow_priors(self) except -1 nogil:
        cdef float* grown = <float*>realloc(self.priors, self.edge_cap * sizeof(float))
        if grown == NULL:
            with gil:
                raise MemoryError("ismcts priors")
        self.priors = grown
        self.prior_cap = self.edge_cap
        return 0

    cdef inline void _next_stamp(self) noexcept nogil:
        self.stamp += 1
        if self.stamp == 0:
            memset(self.legal_mark, 0, sizeof(self.legal_mark))
            memset(self.child_mark, 0, sizeof(self.child_mark))
            memset(self.view_mark, 0, sizeof(self.view_mark))
            self.stamp = 1

    cdef int _node_proof(self, int node) noexcept nogil:
        """The proven value of `node` for its player to move (Edge.proof's code), 0 if unknown:
        a win as soon as one edge wins (the fastest), otherwise, once every legal action has an
        edge and every edge is proven, a draw if one draws, else a loss (the slowest)."""
        cdef Node* nd = &self.nodes[node]
        cdef int e, p, win = 0, loss = 0
        cdef bint unknown = nd.count < nd.legal, draw = False
        for e in range(nd.first, nd.first + nd.count):
            p = self.edges[e].proof
            if p == 0:
                unknown = True
            elif p == PROOF_DRAW:
                draw = True
            elif p > 0:
                if win == 0 or p < win:
                    win = p
            elif -p > loss:
                loss = -p
        if win:
            return win
        if unknown or nd.count == 0:
            return 0
        if draw:
            return PROOF_DRAW
        return -loss

    cdef inline void _prove_edge(self, int e, int proof, int player) noexcept nogil:
        """Proves edge `e` from `proof`, the value of the node it leads to for `player` (its mover)."""
        cdef int k
        if proof == PROOF_DRAW:
            self.edges[e].proof = PROOF_DRAW
            return
        k = (proof if proof > 0 else -proof) + 1
        if k > MAX_PROOF:
            k = MAX_PROOF
        if (proof > 0) == (self.edges[e].player == player):
            self.edges[e].proof = <int8_t>k
        else:
            self.edges[e].proof = <int8_t>(-k)

    cdef int _view_classes(self, GameState s, action_t* legal, int k, Views* views) noexcept nogil:
        """pom: partitions the legal actions legal[:k] in `s` by how the searcher sees them, the
        engine's c_action_view (an id in [0, num_distinct_actions), the same in every world the
        searcher cannot tell from this one): keeps them in views.members with their classes, counts
        each class's members, writes each class's view id into legal (the node's actions now) and
        returns the number of classes. view_class maps a view id to its class."""
        cdef action_t v
        cdef int i, c, nc = 0
        self._next_stamp()
        memcpy(views.members, legal, k * sizeof(action_t))
        views.k = k
        for i in range(k):
            v = s.c_action_view(self.me, views.members[i])
            if self.view_mark[v] != self.stamp:
                self.view_mark[v] = self.stamp
                self.view_class[v] = <int16_t>nc
                views.cls_n[nc] = 0
                legal[nc] = v
                nc += 1
            c = self.view_class[v]
            views.cls[i] = <int16_t>c
            views.cls_n[c] += 1
        return nc

    cdef int _best_evaluated(self, GameState s, action_t* acts, int k, int start) except -1 nogil:
        """The index of the action in acts[:k] after which the engine's evaluation is best for the
        player to move (ties: the first from `start` on, cyclically)."""
        cdef int mover = s.c_current_player(), i, j, best = start
        cdef double u, best_u = -1e300
        for j in range(k):
            i = start + j if start + j < k else start + j - k
            u = self._value_after(s, acts[i], mover)
            if u > best_u:
                best_u = u
                best = i
        return best

    cdef double _evaluated_rank(self, GameState s, action_t* acts, int k, action_t a) except -1 nogil:
        """Progressive bias: where the engine's evaluation for the player to move after `a` ranks
        among its evaluations after each of acts[:k] (`a` among them), from 0 (the worst) to 1
        (the best), ties shared. A rank, not the value, so that one weight suits every game's scale."""
        cdef int mover = s.c_current_player(), i
        cdef double u, va, r = 0.0
        if k < 2:
            return 0.5
        va = self._value_after(s, a, mover)
        for i in range(k):
            if acts[i] != a:
                u = self._value_after(s, acts[i], mover)
                r += 1.0 if u < va else (0.5 if u == va else 0.0)
        return r / (k - 1)

    cdef inline double _value_after(self, GameState s, action_t a, int mover) except? -1.0 nogil:
        """The engine's evaluation for `mover` after `a` in `s`; `s` is left as it was."""
        cdef double u
        s.c_apply_undoable(a)
        u = s.c_evaluate(mover)
        s.c_undo()
        return u

    cdef inline bint _wins(self, GameState s, int p) noexcept nogil:
        """Whether the game in `s` is over with `p` strictly ahead of every other player."""
        cdef int q
        if not s.c_is_terminal():
            return False
        for q in range(s.num_players):
            if q != p and s.c_returns(q) >= s.c_returns(p):
                return False
        return True

    cdef int _decisive_ply(self, GameState s, action_t* acts, int k, int level) except -1 nogil:
        """The index of the rollout ply to play among acts[:k] (decisive and anti-decisive moves,
        Teytaud and Teytaud 2010): with level >= 1, an action that wins the game at once if there is
        one; with level 2 otherwise a uniformly random action after which the next player has no
        immediate win, if there is one; otherwise a uniformly random action. Costs one apply and
        undo per legal action (level 1), times the next player's legal actions (level 2)."""
        cdef int mover = s.c_current_player(), start = rng_below(&self.rng, k), i, j, t, m, nxt, n_safe = 0
        cdef bint safe
        cdef action_t replies[MAX_ACTIONS]
        cdef int16_t safe_idx[MAX_ACTIONS]
        if k < 2:
            return 0
        for j in range(k):
            i = start + j if start + j < k else start + j - k
            s.c_apply_undoable(acts[i])
            safe = self._wins(s, mover)
            s.c_undo()
            if safe:
                return i
        if level < 2:
            return start
        for i in range(k):
            s.c_apply_undoable(acts[i])
            safe = True
            if not s.c_is_terminal():
                nxt = s.c_current_player()
                m = s.c_legal_actions(replies)
                for t in range(m):
                    s.c_apply_undoable(replies[t])
                    if self._wins(s, nxt):
                        safe = False
                    s.c_undo()
                    if not safe:
                        break
            s.c_undo()
            if safe:
                safe_idx[n_safe] = <int16_t>i
                n_safe += 1
        if n_safe == 0:
            return start
        return safe_idx[rng_below(&self.rng, n_safe)]

    cdef action_t _rollout_ply(self, GameState s, action_t* acts, int k, const SearchConfig* cfg) except -1 nogil:
        """The action of a rollout ply among acts[:k] that would otherwise be uniformly random: with
        chance `mast`, the action whose mean reward for the mover is best so far in this search (MAST,
        Finnsson and Bjoernsson 2008; an action never seen first, ties from a random start); else
        with chance `policy` the engine's playout policy's (`c_policy_action`); else with a learned
        playout policy (cfg.patterned) its draw by the moves' patterns; else by the `decisive`
        policy. Records the ply for the MAST update."""
        cdef int mover = s.c_current_player(), i, j, best, start
        cdef action_t a
        cdef double u, best_u = -1.0, mast = cfg.mast, policy = cfg.policy
        cdef uint32_t cnt
        if mast > 0.0 and k > 1 and rng_uniform(&self.rng) < mast:
            start = rng_below(&self.rng, k)
            best = start
            for j in range(k):
                i = start + j if start + j < k else start + j - k
                cnt = self.mast_n[mover * MAX_ACTIONS + acts[i]]
                u = self.mast_sum[mover * MAX_ACTIONS + acts[i]] / cnt if cnt else 2.0
                if u > best_u:
                    best_u = u
                    best = i
            a = acts[best]
        elif policy > 0.0 and k > 1 and (policy >= 1.0 or rng_uniform(&self.rng) < policy):
            a = s.c_policy_action(&self.rng)
        elif cfg.patterned and k > 1:
            a = acts[self.playout.c_choose(s, acts, k, &self.rng)]
        elif cfg.decisive > 0:
            a = acts[self._decisive_ply(s, acts, k, cfg.decisive)]
        else:
            a = acts[rng_below(&self.rng, k)]
        if self.n_played < MAST_RECORD:
            self.played[self.n_played] = a
            self.played_by[self.n_played] = <int8_t>mover
            self.n_played += 1
        return a

    cdef void _mast_update(self, int depth, double* reward) noexcept nogil:
        """Adds this iteration's rewards to the MAST statistics of every action it took: the tree's
        edges (under pom an opponent's edge counts for the view it stands for) and the rollout's."""
        cdef int i, idx
        cdef Edge* ed
        for i in range(depth):
            ed = &self.edges[self.path[i]]
            idx = ed.player * MAX_ACTIONS + ed.action
            self.mast_sum[idx] += reward[ed.player]
            self.mast_n[idx] += 1
        for i in range(self.n_played):
            idx = self.played_by[i] * MAX_ACTIONS + self.played[i]
            self.mast_sum[idx] += reward[self.played_by[i]]
            self.mast_n[idx] += 1

    cdef inline action_t _member(self, action_t r, Views* views) noexcept nogil:
        """pom: a uniformly random legal action of the class whose view is `r`."""
        cdef int c = self.view_class[r], i, j
        if views.cls_n[c] == 1:
            return r
        j = rng_below(&self.rng, views.cls_n[c])
        for i in range(views.k):
            if views.cls[i] == c:
                if j == 0:
                    return views.members[i]
                j -= 1
        return r

    cdef void _rewards(self, GameState s, int n, bint terminal, double* base,
                       double margin, double span, double* out) noexcept nogil:
        cdef double v[MAX_PLAYERS]
        cdef double lo, hi, r, total = 0.0, m
        cdef int p, q
        for p in range(n):
            v[p] = s.c_returns(p) if terminal else s.c_score(p) - base[p]
            total += v[p]
        lo = hi = v[0]
        if span <= 0:
            for p in range(1, n):
                lo = v[p] if v[p] < lo else lo
                hi = v[p] if v[p] > hi else hi
        for p in range(n):
            # p's rank without a branch per player (whose outcome a rollout makes unpredictable):
            # 1 per player below, 1/2 per tie, p's tie with itself taken off; sums of halves are exact
            r = -0.5
            for q in range(n):
                r += (v[q] < v[p]) + 0.5 * (v[q] == v[p])
            r = r / (n - 1) if n > 1 else 0.5
            if span > 0:
                # p's margin over the mean of the others, on the game's scale
                m = 0.5 + (v[p] - (total - v[p]) / (n - 1)) / (2.0 * span) if n > 1 else 0.5
            else:
                m = (v[p] - lo) / (hi - lo) if hi > lo else 0.5
            m = 0.0 if m < 0.0 else m
            m = 1.0 if m > 1.0 else m
            out[p] = (1.0 - margin) * r + margin * m

    cdef void _evaluated_rewards(self, GameState s, int n, double margin, double span,
                                 double* out) noexcept nogil:
        """Rewards of a rollout cut off before the end: the engine's evaluation e_p (p's expected
        lead, in points) takes the place of the final margin, ranked among the players."""
        cdef double v[MAX_PLAYERS]
        cdef double r, m
        cdef int p, q
        for p in range(n):
            v[p] = s.c_evaluate(p)
        for p in range(n):
            r = 0.0
            for q in range(n):
                if q != p:
                    r += 1.0 if v[q] < v[p] else (0.5 if v[q] == v[p] else 0.0)
            r = r / (n - 1) if n > 1 else 0.5
            m = 0.5 + v[p] / (2.0 * (span if span > 0 else 1.0))
            m = 0.0 if m < 0.0 else (1.0 if m > 1.0 else m)
            out[p] = (1.0 - margin) * r + margin * m

    cdef void _valued_rewards(self, GameState s, int n, bint ranked, double margin) noexcept nogil:
        """Rewards of a leaf short of the game's end scored by the learned leaf value: each player's
        expected score share at the game's end, the trees walked in C from its features, clipped to
        [0, 1]; `ranked`: instead the shares ranked among the players, blended by `margin` with the
        share's lead over the others' mean (as a play-out's rank and margin)."""
        cdef int p, q
        cdef double v[MAX_PLAYERS]
        cdef double r, m, total = 0.0
        for p in range(n):
            c_leaf_features(s, p, self.leaf_x)
            v[p] = self.value.c_value(self.leaf_x)
            v[p] = 0.0 if v[p] < 0.0 else (1.0 if v[p] > 1.0 else v[p])
            total += v[p]
        for p in range(n):
            if not ranked or n < 2:
                self.reward[p] = v[p]
                continue
            r = 0.0
            for q in range(n):
                if q != p:
                    r += 1.0 if v[q] < v[p] else (0.5 if v[q] == v[p] else 0.0)
            m = 0.5 + (v[p] - (total - v[p]) / (n - 1))
            self.reward[p] = (1.0 - margin) * (r / (n - 1)) + margin * (0.0 if m < 0.0 else (1.0 if m > 1.0 else m))

    # ---- one search: each iteration in phases ----

    cdef int run(self, GameState root, GameState s, const SearchConfig* cfg) except -1 nogil:
        """Searches from `root` for its player to move, with `s` (the same game) as scratch state,
        for cfg.iterations or until cfg.seconds have passed when seconds > 0, whichever comes first;
        leaves the tree in `nodes` and `edges`. Each iteration samples a world (`_sample_world`),
        descends the tree in it and expands one edge (`_descend`), plays out below (`_play_out`),
        backs the rewards up the path (`_back_up`) and, with the solver, carries proofs up
        (`_carry_proofs`), stopping as soon as the root is proven."""
        cdef double start = monotonic_seconds(), deadline = start + cfg.seconds
        cdef long it = 0
        cdef int depth
        cdef bint proven
        self._begin(root, cfg)
        if cfg.worlds:
            self._weigh_worlds(root, s, cfg, deadline)
        while it < cfg.iterations:
            if cfg.seconds > 0 and it % CLOCK_EVERY == 0 and it > 0 and monotonic_seconds() >= deadline:
                break
            it += 1
            self._sample_world(root, s, cfg)
            self.n_played = 0
            depth = self._descend(s, cfg, &proven)
            if depth > self.max_depth:
                self.max_depth = depth
            self._play_out(s, depth, proven, cfg)
            self._back_up(depth, cfg)
            if cfg.solver and self._carry_proofs(depth):
                break
        self.iterations = it
        self.elapsed = monotonic_seconds() - start
        return 0

    cdef int _begin(self, GameState root, const SearchConfig* cfg) except -1 nogil:
        """Empties the tree (its arrays are kept for the next search) and the MAST statistics, and
        notes who searches, how many play and the root's round."""
        cdef int i
        self.me = root.c_current_player()
        self.n_players = root.num_players
        self.root_round = root.c_round()
        self.n_nodes = self.n_edges = self.live_edges = 0
        for i in range(32):
            self.free_block[i] = -1
        self.root_visits = 0
        self.max_depth = 0
        self.root_proof = 0
        self.with_priors = cfg.bias > 0
        if self.with_priors and self.prior_cap < self.edge_cap:
            self._grow_priors()
        self._new_node()
        memset(self.mast_sum, 0, sizeof(self.mast_sum))
        memset(self.mast_n, 0, sizeof(self.mast_n))
        if cfg.halving:
            self._halving_start(root, cfg.iterations)
        return 0

    cdef inline bint _within(self, GameState s, const SearchConfig* cfg) noexcept nogil:
        """Whether play in `s` goes on within the horizon: the game is not over, nor (horizon round)
        the root's round."""
        return not s.c_is_terminal() and (cfg.horizon == HORIZON_GAME or s.c_round() == self.root_round)

    cdef int _weigh_worlds(self, GameState root, GameState s, const SearchConfig* cfg, double deadline) except -1 nogil:
        """inference=learned: cfg.worlds worlds drawn for the searcher (fewer if a time budget runs
        out first: at least one), kept in `pool` with the running sum of their weights
        (WorldWeights: how likely the bids it has seen are in each), so that each iteration draws
        one by its weight: sampling importance resampling. Worlds that all weigh 0 count alike. A
        world drawn again replays the same later deals (horizon=game)."""
        cdef double total = 0.0, squares = 0.0, w
        cdef int i
        self.pool_len = 0
        for i in range(cfg.worlds):
            if cfg.seconds > 0 and i % CLOCK_EVERY == 0 and i > 0 and monotonic_seconds() >= deadline:
                break
            self.pool_len += 1
            s.c_copy_from(root)
            s.c_determinize(self.me, &self.rng)
            s.c_save_position(self.pool + i * self.pool_rec)
            w = self.weights.c_weight(s, self.me)
            total += w
            squares += w * w
            self.pool_sum[i] = total
        if not total > 0:
            for i in range(self.pool_len):
                self.pool_sum[i] = i + 1.0
            total, squares = self.pool_len, self.pool_len
        self.effective_worlds = total * total / squares
        return 0

    cdef inline int _sample_world(self, GameState root, GameState s, const SearchConfig* cfg) except -1 nogil:
        """Determinization: `s` becomes the root with all the searcher cannot see resampled. With
        infer > 1, rejection sampling: a world is kept with the chance the engine's c_plausibility
        gives it, the infer-th in any case. With worlds (inference=learned), one of the worlds
        weighed at the move's start (`_weigh_worlds`), drawn by its weight. Its players' points are
        the base of a round's rewards."""
        cdef int i, lo, hi
        cdef double x
        if cfg.worlds:
            x = rng_uniform(&self.rng) * self.pool_sum[self.pool_len - 1]
            lo, hi = 0, self.pool_len - 1
            while lo < hi:                   # the first world whose running sum passes x
                i = (lo + hi) // 2
                if self.pool_sum[i] > x:
                    hi = i
                else:
                    lo = i + 1
            s.c_load_position(self.pool + lo * self.pool_rec)
        else:
            for i in range(cfg.infer):
                s.c_copy_from(root)
                s.c_determinize(self.me, &self.rng)
                if i == cfg.infer - 1 or rng_uniform(&self.rng) < s.c_plausibility(self.me):
                    break
        for i in range(self.n_players):
            self.base[i] = s.c_score(i)
        return 0

    cdef int _descend(self, GameState s, const SearchConfig* cfg, bint* proven) except -1 nogil:
        """Selection from the root, playing each edge taken in `s`, until it expands one edge
        (`_expand`), the game or the horizon ends, or (solver) it takes a proven edge, whose value
        is known (*proven). The edges taken go to path and the nodes they leave to path_nodes;
        returns their number. At another player's node, with opponent_policy the engine's playout
        policy picks the only action; with pom the node's actions are the view classes of the
        legal ones (`_view_classes`), and taking one plays a random member (`_member`)."""
        cdef action_t legal[MAX_ACTIONS]
        cdef action_t untried[MAX_ACTIONS]
        cdef Views views
        cdef int node = 0, depth = 0, mover, k, best, n_untried
        cdef bint by_view
        proven[0] = False
        while self._within(s, cfg):
            mover = s.c_current_player()
            k = s.c_legal_actions(legal)
            if cfg.solver:
                self.nodes[node].legal = k
            if cfg.opponent_policy and mover != self.me and k > 1:
                # the other players are modelled by the engine's playout policy, in this world
                legal[0] = s.c_policy_action(&self.rng)
                k = 1
            by_view = cfg.pom and mover != self.me and not cfg.opponent_policy
            if by_view:
                k = self._view_classes(s, legal, k, &views)
            best = self._select(node, mover, legal, k, &n_untried, cfg)
            self._path_room(depth)
            self.path_nodes[depth] = node
            if n_untried and (best < 0 or not cfg.solver or self.edges[best].proof <= 0
                              or self.edges[best].proof == PROOF_DRAW):
                self._untried(legal, k, untried)
                self._expand(s, node, depth, mover, legal, k, untried, n_untried, &views, by_view, cfg)
                return depth + 1
            if cfg.halving and depth == 0:
                best = self._halving_pick(best)
            self.path[depth] = best
            depth += 1
            if cfg.solver and self.edges[best].proof:
                proven[0] = True
                return depth
            s.c_apply(self._member(self.edges[best].action, &views) if by_view else self.edges[best].action)
            node = self.edges[best].child
            if node < 0:
                node = self._new_node()
                self.edges[best].child = node
        return depth

    cdef inline int _select(self, int node, int mover, action_t* legal, int k, int* n_untried,
                            const SearchConfig* cfg) noexcept nogil:
        """Selection at `node`, where `mover` may take legal[:k]: each edge of theirs is counted as
        available and the one of highest UCB value (`_ucb`) returned, -1 if none; n_untried: the
        legal actions without an edge (each legal action has at most one edge of its mover), which
        `_untried` lists from the marks (legal_mark, child_mark)."""
        cdef int i, found = 0
        cdef double u, best_ucb = -1e300, c = cfg.c
        cdef bint plain = not (cfg.bias > 0)
        cdef Edge* edges = self.edges
        cdef Edge* ed = &edges[self.nodes[node].first]
        cdef Edge* end = ed + self.nodes[node].count
        cdef Edge* best = NULL
        cdef uint32_t stamp
        # the marks, the stamp and the settings in locals: the edge writes below would make the
        # compiler reload them from memory for every edge
        cdef uint32_t* legal_mark = self.legal_mark
        cdef uint32_t* child_mark = self.child_mark
        self._next_stamp()
        stamp = self.stamp
        for i in range(k):
            legal_mark[legal[i]] = stamp
        while ed < end:
            if ed.player == mover and legal_mark[ed.action] == stamp:
                child_mark[ed.action] = stamp
                if plain and ed.proof == 0:
                    u = _mean_ucb(ed, c)   # _ucb's plain case, with c in a local
                else:
                    u = self._ucb(<int>(ed - edges), ed, cfg)
                if u > best_ucb:
                    best_ucb = u
                    best = ed
                ed.avail += 1
                found += 1
            ed += 1
        n_untried[0] = k - found
        return -1 if best == NULL else <int>(best - edges)

    cdef inline void _untried(self, action_t* legal, int k, action_t* untried) noexcept nogil:
        """Writes into `untried` the legal actions of legal[:k] that `_select` found no edge for,
        in their order."""
        cdef int i, n = 0
        for i in range(k):
            if self.child_mark[legal[i]] != self.stamp:
                untried[n] = legal[i]
                n += 1

    cdef inline double _ucb(self, int e, Edge* ed, const SearchConfig* cfg) noexcept nogil:
        """Edge e's value for selection (its availability not yet counted for this visit): UCB on
        its mean reward, plus the progressive bias; a proven draw as a mean of 0.5; a proven win
        above everything (the fastest first), a proven loss below (the slowest first)."""
        cdef double u
        if ed.proof == 0:
            u = _mean_ucb(ed, cfg.c)
            if cfg.bias > 0:
                u += cfg.bias * (2.0 * self.priors[e] - 1.0) / (ed.visits + 1)
            return u
        if ed.proof == PROOF_DRAW:
            return 0.5 + cfg.c * sqrt(_log_avail(ed) / ed.visits)
        if ed.proof > 0:
            return 1e9 - ed.proof        # the fastest proven win
        return -1e9 - ed.proof           # a proven loss only when all else loses: the slowest

    cdef inline int _path_room(self, int depth) except -1 nogil:
        """Room in path and path_nodes for an edge at `depth`."""
        if depth == self.path_cap:
            self.path_nodes = <int*>realloc(self.path_nodes, (self.path_cap * 2 if self.path_cap else 1024) * sizeof(int))
            if self.path_nodes == NULL:
                with gil:
                    raise MemoryError("ismcts path")
            self.path = <int*>self._grow(self.path, &self.path_cap, depth + 1, sizeof(int))
        return 0

    cdef inline int _expand(self, GameState s, int node, int depth, int mover, action_t* legal, int k,
                            action_t* untried, int n_untried, Views* views, bint by_view,
                            const SearchConfig* cfg) except -1 nogil:
        """Expansion: a new edge at `node`, path[depth], for one of untried[:n_untried] (a random
        one; with expand_eval, the one the engine's evaluation likes best for its mover), played in
        `s`. With a bias its prior is its evaluated rank among legal[:k]; with the solver its
        availability starts at its node's visits, and an edge that ends the game is proven."""
        cdef int i = rng_below(&self.rng, n_untried), e
        if cfg.expand_eval and n_untried > 1:
            i = self._best_evaluated(s, untried, n_untried, i)
        e = self._add_edge(node, untried[i], mover, n_untried)
        if cfg.bias > 0 and not by_view:
            self.priors[e] = <float>self._evaluated_rank(s, legal, k, untried[i])
        if cfg.solver:
            # perfect information: every action is available on every visit of the node, so its
            # availability is the node's visit count (plain UCT)
            self.edges[e].avail = 1 + (<int>self.root_visits if depth == 0
                                       else self.edges[self.path[depth - 1]].visits)
        else:
            self.edges[e].avail = 1
        self.path[depth] = e
        s.c_apply(self._member(untried[i], views) if by_view else untried[i])
        if cfg.solver and s.c_is_terminal():
            self._terminal_proof(s, e, self.n_players)
        return 0

    cdef inline int _play_out(self, GameState s, int depth, bint proven, const SearchConfig* cfg) except -1 nogil:
        """The iteration's rewards, into `reward`: a proven leaf's from its proof; otherwise from a
        rollout in `s` to the horizon (none when the descent reached it: a descent that ended the
        root's round does not roll into the next) by the engine's c_rollout, or by `_rollout_ply`
        with a decisive, MAST, policy or learned playout policy's rollout, or cut off after
        cfg.cutoff plies (`_cut_rollout`) and then scored by the engine's evaluation. With a learned leaf value
        (cfg.valued) the leaf, or the cut-off rollout's end, short of the game's end is scored by
        it (`_valued_rewards`), with no rollout when there is no cutoff; with a `value_mix` below 1
        the leaf is valued, then played out as without a value, and the two rewards mixed (as
        AlphaGo mixed its value network and its rollouts)."""
        cdef Edge* ed
        cdef double u
        cdef int i
        cdef bint evaluated = False
        cdef bint valued = cfg.valued, mixing = False
        cdef double leaf[MAX_PLAYERS]
        if proven:
            ed = &self.edges[self.path[depth - 1]]
            u = 0.5 if ed.proof == PROOF_DRAW else (1.0 if ed.proof > 0 else 0.0)
            for i in range(self.n_players):
                self.reward[i] = u if i == ed.player else 1.0 - u
            return 0
        if valued and cfg.value_mix < 1.0:
            valued = False
            mixing = not s.c_is_terminal()
            if mixing:
                self._valued_rewards(s, self.n_players, cfg.value_ranked, cfg.margin)
                memcpy(leaf, self.reward, self.n_players * sizeof(double))
        if self._within(s, cfg) and not (valued and cfg.cutoff == 0):
            # a learned leaf value without a cutoff scores the leaf itself: no play-out
            if cfg.cutoff > 0:
                evaluated = self._cut_rollout(s, cfg)
            elif cfg.decisive > 0 or cfg.mast > 0.0 or cfg.policy > 0.0 or cfg.patterned:
                # a full rollout by these policies instead of the engine's random one
                self._policy_rollout(s, cfg)
            else:
                s.c_rollout(&self.rng, cfg.horizon)
        if valued and not s.c_is_terminal():
            self._valued_rewards(s, self.n_players, cfg.value_ranked, cfg.margin)
        elif evaluated:
            self._evaluated_rewards(s, self.n_players, cfg.margin, cfg.span, self.reward)
        else:
            self._rewards(s, self.n_players, s.c_is_terminal(), self.base, cfg.margin, cfg.span, self.reward)
        if mixing:
            for i in range(self.n_players):
                self.reward[i] = cfg.value_mix * leaf[i] + (1.0 - cfg.value_mix) * self.reward[i]
        return 0

    cdef int _policy_rollout(self, GameState s, const SearchConfig* cfg) except -1 nogil:
        """A rollout to the horizon, every ply by `_rollout_ply`."""
        cdef action_t legal[MAX_ACTIONS]
        cdef int k
        while self._within(s, cfg):
            k = s.c_legal_actions(legal)
            s.c_apply(self._rollout_ply(s, legal, k, cfg))
        return 0

    cdef bint _cut_rollout(self, GameState s, const SearchConfig* cfg) except -1 nogil:
        """A rollout of at most cfg.cutoff plies within the horizon: each ply with chance epsilon
        by `_rollout_ply`, else the action the engine's evaluation rates best for its mover.
        Whether the cutoff stopped it (the evaluation then scores it)."""
        cdef action_t legal[MAX_ACTIONS]
        cdef int plies = 0, k
        while self._within(s, cfg):
            if plies == cfg.cutoff:
                return True
            k = s.c_legal_actions(legal)
            if cfg.epsilon < 1.0 and k > 1 and rng_uniform(&self.rng) >= cfg.epsilon:
                s.c_apply(legal[self._best_evaluated(s, legal, k, rng_below(&self.rng, k))])
            else:
                s.c_apply(self._rollout_ply(s, legal, k, cfg))
            plies += 1
        return False

    cdef inline void _back_up(self, int depth, const SearchConfig* cfg) noexcept nogil:
        """Backpropagation: a visit and its mover's reward for every edge on the path, the root's
        visit, the root action's visit in the halving round, and the MAST statistics."""
        cdef int i
        cdef Edge* ed
        self.root_visits += 1
        if cfg.halving and depth > 0:
            self.halving_round[self.edges[self.path[0]].action] += 1
        if cfg.mast > 0.0:
            self._mast_update(depth, self.reward)
        for i in range(depth):
            ed = &self.edges[self.path[i]]
            ed.visits += 1
            ed.reward += self.reward[ed.player]

    cdef inline int _carry_proofs(self, int depth) noexcept nogil:
        """Solver: carries proofs up the path from its last edge, an edge being proven once the
        node it leads to is (`_node_proof`), as far as they go; returns the root's proof (0 while
        it is unknown)."""
        cdef int i = depth - 1, proof
        while i >= 0 and self.edges[self.path[i]].proof != 0:
            proof = self._node_proof(self.path_nodes[i])
            if proof == 0:
                break
            if i == 0:
                self.root_proof = proof
                break
            self._prove_edge(self.path[i - 1], proof, self.edges[self.path[i]].player)
            i -= 1
        return self.root_proof

    cdef void _halving_start(self, GameState root, long iterations) noexcept nogil:
        """Sequential halving at the root (Karnin, Koren and Somekh 2013; at an MCTS root, Pepels
        et al. 2014): ceil(log2 k) rounds of iterations / rounds visits each, shared equally among
        the actions still in the race, the worse half by mean reward leaving after each round."""
        cdef action_t legal[MAX_ACTIONS]
        cdef int k = root.c_legal_actions(legal), i
        self.halving_left = k
        self.halving_budget = iterations // max(1, _log2(2 * k - 1))
        self.halving_quota = <int>max(1, self.halving_budget // k)
        memset(self.halving_alive, 0, sizeof(self.halving_alive))
        for i in range(k):
            self.halving_alive[legal[i]] = 1
            self.halving_round[legal[i]] = 0

    cdef int _halving_pick(self, int fallback) noexcept nogil:
        """The root edge sequential halving visits next: the legal action in the race with the
        fewest visits this round, ending the round when all have their quota; the last action left
        takes every remaining visit. `fallback` (UCB's choice) when none is legal here."""
        cdef int first = self.nodes[0].first, end = first + self.nodes[0].count, e, pick
        cdef Edge* ed
        while True:
            pick = -1
            for e in range(first, end):
                ed = &self.edges[e]
                if not self.halving_alive[ed.action] or self.legal_mark[ed.action] != self.stamp:
                    continue
                if self.halving_left == 1:
                    return e
                if self.halving_round[ed.action] < self.halving_quota and (
                        pick < 0 or self.halving_round[ed.action] < self.halving_round[self.edges[pick].action]):
                    pick = e
            if pick >= 0:
                return pick
            if self.halving_left <= 1:
                return fallback
            self._halve()       # at most half stay, so this loop ends

    cdef void _halve(self) noexcept nogil:
        """Ends a halving round: the better half of the actions in the race by mean reward (ties to
        the lower action) stay."""
        cdef int first = self.nodes[0].first, end = first + self.nodes[0].count, e, f, better
        cdef int keep = (self.halving_left + 1) // 2
        cdef Edge* ed
        cdef Edge* other
        for e in range(first, end):
            ed = &self.edges[e]
            if not self.halving_alive[ed.action]:
                continue
            # its place in the race: the actions in it that are better
            better = 0
            for f in range(first, end):
                other = &self.edges[f]
                if f != e and self.halving_alive[other.action] and (
                        other.reward * ed.visits > ed.reward * other.visits or (
                        other.reward * ed.visits == ed.reward * other.visits and other.action < ed.action)):
                    better += 1
            if better >= keep:
                self.halving_alive[ed.action] = 2      # leaves after this pass
        self.halving_left = 0
        for e in range(first, end):
            ed = &self.edges[e]
            if self.halving_alive[ed.action] == 2:
                self.halving_alive[ed.action] = 0
            elif self.halving_alive[ed.action]:
                self.halving_left += 1
                self.halving_round[ed.action] = 0
        self.halving_quota = <int>max(1, self.halving_budget // max(1, self.halving_left))

    cdef void _terminal_proof(self, GameState s, int e, int n) noexcept nogil:
        """Proves edge `e`, which ended the game, by its mover's final result (two players)."""
        cdef int p = self.edges[e].player
        cdef double mine = s.c_returns(p), theirs = s.c_returns(1 - p)
        if mine > theirs:
            self.edges[e].proof = 1
        elif mine < theirs:
            self.edges[e].proof = -1
        else:
            self.edges[e].proof = PROOF_DRAW

    cdef int best_action(self, GameState root) noexcept nogil:
        """The move to play: the fastest proven win if there is one; otherwise the most visited
        root child that is not a proven loss (ties go to the higher mean reward, then the lower
        action); when every child in the tree is a proven loss, an action the search never tried,
        or else the slowest loss."""
        cdef int e = self.nodes[0].first, end = e + self.nodes[0].count, best = -1, i, k
        cdef int win = -1, loss = -1
        cdef Edge* ch
        cdef Edge* b
        cdef action_t legal[MAX_ACTIONS]
        for e in range(e, end):
            ch = &self.edges[e]
            if ch.proof > 0 and ch.proof != PROOF_DRAW:
                if win < 0 or ch.proof < self.edges[win].proof:
                    win = e
                continue
            if ch.proof < 0:
                if loss < 0 or ch.proof < self.edges[loss].proof:
                    loss = e
                continue
            if best < 0:
                best = e
                continue
            b = &self.edges[best]
            if (ch.visits > b.visits or (ch.visits == b.visits and (
                    ch.reward * b.visits > b.reward * ch.visits or (
                    ch.reward * b.visits == b.reward * ch.visits and ch.action < b.action)))):
                best = e
        if win >= 0:
            return self.edges[win].action
        if best >= 0:
            return self.edges[best].action
        k = root.c_legal_actions(legal)
        if self.nodes[0].count < k:
            self._next_stamp()
            for e in range(self.nodes[0].first, end):
                self.legal_mark[self.edges[e].action] = self.stamp
            for i in range(k):
                if self.legal_mark[legal[i]] != self.stamp:
                    return legal[i]
        return self.edges[loss].action

    def search(self, GameState state, *args, **kwargs):
        """Runs one search from `state` for its player to move and returns the chosen action. The
        arguments after `state` are SearchSettings's (iterations, seconds, c, horizon, margin, ...),
        which says what each does."""
        return self.search_with(state, SearchSettings(state, *args, **kwargs))

    def search_with(self, GameState state, SearchSettings settings):
        """`search` with settings made for `state` (`SearchSettings(state, ...)`)."""
        cdef int a
        if self.scratch is None or type(self.scratch) is not type(state) or self.scratch.params != state.params:
            self.scratch = state.clone()
        cdef GameState scratch = self.scratch
        self.value = settings.value
        self.weights = settings.weights
        self.playout = settings.playout
        if settings.cfg.worlds:
            self._reserve_pool(settings.cfg.worlds, scratch.c_position_bytes())
        with nogil:
            self.run(state, scratch, &settings.cfg)
            a = self.best_action(state)
        return a

    cdef int _reserve_pool(self, int worlds, size_t rec) except -1:
        """Room in `pool` for `worlds` worlds of `rec` bytes each."""
        cdef char* pool
        cdef double* sums
        if worlds > self.pool_cap or rec != self.pool_rec:
            pool = <char*>realloc(self.pool, worlds * rec)
            if pool == NULL:
                raise MemoryError("ismcts worlds")
            self.pool = pool
            sums = <double*>realloc(self.pool_sum, worlds * sizeof(double))
            if sums == NULL:
                raise MemoryError("ismcts worlds")
            self.pool_sum = sums
            self.pool_cap, self.pool_rec = worlds, rec
        return 0

    def rollout_action(self, GameState state, int decisive):
        """The action one ply of a rollout plays in `state` with the `decisive` policy (0 uniformly
        random, 1 an immediate win first, 2 also no move that leaves the next player an immediate
        win), drawn with this search's random generator; `state` is left as it was."""
        cdef action_t legal[MAX_ACTIONS]
        cdef GameState s = state.clone()
        cdef int k = s.c_legal_actions(legal)
        if k == 0:
            raise ValueError("no legal action")
        if not 0 <= decisive <= 2:
            raise ValueError("ismcts needs decisive 0, 1 or 2")
        if decisive == 0:
            return int(legal[rng_below(&self.rng, k)])
        return int(legal[self._decisive_ply(s, legal, k, decisive)])

    def mast_stats(self):
        """{(player, action): (count, reward sum)} of the MAST statistics of the last search
        (empty when it ran without MAST)."""
        cdef int i
        return {(i // MAX_ACTIONS, i % MAX_ACTIONS): (self.mast_n[i], self.mast_sum[i])
                for i in range(MAX_PLAYERS * MAX_ACTIONS) if self.mast_n[i]}

    def root_edges(self):
        """[(action, visits, availability, reward sum, proof code)] of the root after the last search."""
        cdef int e
        cdef list out = []
        if self.n_nodes:
            for e in range(self.nodes[0].first, self.nodes[0].first + self.nodes[0].count):
                out.append((self.edges[e].action, self.edges[e].visits, self.edges[e].avail,
                            self.edges[e].reward, self.edges[e].proof))
        return out

    def edges_below(self, int action):
        """[(action, player, visits, availability)] of the node the root edge `action` leads to
        after the last search ([] if the search never went below it). With pom another player's
        edge stands for the class of actions the searcher cannot tell apart (the action is its
        view id, the engine's c_action_view)."""
        cdef int e, node = -1
        cdef list out = []
        if self.n_nodes:
            for e in range(self.nodes[0].first, self.nodes[0].first + self.nodes[0].count):
                if self.edges[e].action == action:
                    node = self.edges[e].child
        if node >= 0:
            for e in range(self.nodes[node].first, self.nodes[node].first + self.nodes[node].count):
                out.append((self.edges[e].action, self.edges[e].player, self.edges[e].visits,
                            self.edges[e].avail))
        return out

    def root_proofs(self):
        """{action: proof} for the root children the solver proved after the last search: "win in k"
        or "loss in k" (k plies, this move included) or "draw"."""
        out = {}
        cdef int e
        if self.n_nodes:
            for e in range(self.nodes[0].first, self.nodes[0].first + self.nodes[0].count):
                if self.edges[e].proof:
                    out[self.edges[e].action] = _proof_text(self.edges[e].proof)
        return dict(sorted(out.items()))

    def root_children(self):
        """{action: (visits, availability, mean reward)} of the root after the last search."""
        out = {}
        cdef Edge ed
        cdef int e
        if self.n_nodes:
            for e in range(self.nodes[0].first, self.nodes[0].first + self.nodes[0].count):
                ed = self.edges[e]
                out[ed.action] = (ed.visits, ed.avail, ed.reward / ed.visits)
        return dict(sorted(out.items()))

    def stats(self):
        nodes = self.live_edges + 1
        edge_bytes = sizeof(Edge) + (sizeof(float) if self.with_priors else 0)    # + a prior with bias
        used = self.n_edges * edge_bytes + self.n_nodes * sizeof(Node)
        return {
            "iterations": self.iterations,
            "root_visits": self.root_visits,
            "nodes": nodes,
            "bytes_per_node": round(used / nodes, 1),
            "tree_bytes": used,
            "max_depth": self.max_depth,
            "elapsed": self.elapsed,
            "children": self.root_children(),
            "proofs": self.root_proofs(),
            "root_proof": _proof_text(self.root_proof) if self.root_proof else None,
            **({"worlds": self.pool_len, "effective_worlds": round(self.effective_worlds, 2)}
               if self.weights is not None else {}),
        }


def _proof_text(int proof):
    if proof == PROOF_DRAW:
        return "draw"
    return f"win in {proof}" if proof > 0 else f"loss in {-proof}"


# How far apart the players' points can be at the end of the game (horizon "game"), for the margin
# reward: the 99th percentile of |a player's points - the mean of the others'| over 300 random games
# at the default player count (random play spreads the points wider than good play does), or the
# exact range where it is small. Not the theoretical extremes: Belladone Bluff's 210 (every value
# card in one player's rows) would squeeze every real margin into a few hundredths of the reward.
SPANS = {
    "insert": 2.0,               # returns +1, 0, -1: the margin is the result
    "belladone_bluff": 60.0,     # random play: p99 65, max 73 (2 players)
    "belle_of_the_ball": 25.0,   # random play: p99 22.75, max 30.5 (3 players)
    "royal_ball": 3.0,           # favours: first to three (single_round: 1)
    "wizard": 360.0,             # random play: p99 357 (4 players, 15 rounds)
}


# How far apart the points of one round can be (horizon "round"), per game: (the span from a
# position of the round, whether the whole game is that one round).
ROUND_SPANS = {
    "wizard": (lambda state: 20.0 + 20.0 * state.cards_this_round(), lambda state: False),
    "royal_ball": (lambda state: 1.0, lambda state: state.params.get("match") == "single_round"),
}


# Rollout cutoffs (plies below the tree before the engine's evaluation scores the rollout) where
# they beat full random rollouts against minimax (cutoff=-1, the default, reads this table; 0 plays
# every rollout to its horizon). Belladone Bluff's rollouts run a hundred plies of random placements
# whose noise swamps the points: 4 plies chosen by the evaluation (EPSILONS) scored best against
# minimax (README). Insert: 4 plies (evaluation-chosen but for EPSILONS' random ones, which take
# immediate wins: DECISIVE) with expand=eval scored best against OpenSpiel's MCTS-Solver (README).
CUTOFFS = {
    "belladone_bluff": 4,
    "insert": 4,
}


# Games whose searches merge the other players' edges by the searcher's view (pom=-1, the default,
# reads this table): those where it measured better (see the README).
POM_GAMES = set()


def partial_moves(GameState state, int pom=-1):
    """Whether a search from `state` merges partially observable moves for the `pom` parameter:
    -1 the game's default (POM_GAMES), otherwise pom itself."""
    return state.game_id in POM_GAMES if pom < 0 else bool(pom)


# The chance of a uniformly random ply in a cut-off rollout, per game (epsilon=-1, the default, reads
# this table; 1 where a game is not listed): the other plies take the action the engine's evaluation
# rates best for its mover. Measured against minimax and the previous default (see the README).
EPSILONS = {
    "belladone_bluff": 0.2,
    "insert": 0.2,
}


def rollout_epsilon(GameState state, double epsilon=-1.0):
    """The random-ply chance of a search from `state` for the `epsilon` parameter: -1 the game's
    default (EPSILONS, 1 when not listed), otherwise `epsilon` itself."""
    return EPSILONS.get(state.game_id, 1.0) if epsilon < 0 else epsilon


# The rollout policy of the plies that would be uniformly random, per game (decisive=-1, the
# default, reads this table; 0, uniformly random rollouts, where a game is not listed): 1 takes an
# immediate win, 2 also avoids leaving the next player one (`Search._decisive_ply`). Measured
# against OpenSpiel's MCTS-Solver and minimax (see the README).
DECISIVE = {
    "insert": 1,
}


# Games whose searches expand first the untried action the engine's evaluation rates best
# (expand=default reads this set; the others expand a random untried action). Measured against
# OpenSpiel's MCTS-Solver (see the README).
EXPAND_EVAL = {"insert"}


# Games whose searches score their leaves by the shipped learned leaf value mixed with the play-out
# (value=default): where that measured stronger at equal time per move (docs/training.md).
LEAF_VALUES = {"belle_of_the_ball"}


# Games whose searches play their play-outs by the shipped learned playout policy (playout=default):
# where that measured stronger at equal time per move (docs/training.md).
PLAYOUT_POLICIES = {"royal_ball", "belle_of_the_ball"}


_defaults = {}   # (parameter, game, its parameters as JSON) -> default_model's answer: a file read once


def _unsearched(**flags):
    """The statistics of a move played without a search (`forced` unless a flag says otherwise)."""
    return {"iterations": 0, "root_visits": 0, "nodes": 0, "forced": False, "children": {}, "proofs": {},
            "root_proof": None, **flags}


def default_model(str param, str game_id, dict game_params):
    """(model file, model) of the shipped model of `param` (`value`: a leaf value and its Forest;
    `playout`: a playout policy and its MovePolicy) when it is `game_id`'s default (LEAF_VALUES,
    PLAYOUT_POLICIES) and was trained for these players and parameters, else None: the play-outs
    alone, uniformly random."""
    games, loader = (LEAF_VALUES, learned.value_forest) if param == "value" else (PLAYOUT_POLICIES, learned.move_policy)
    if game_id not in games:
        return None
    key = (param, game_id, json.dumps(game_params, sort_keys=True))
    if key not in _defaults:
        try:
            model = loader("shipped", game_id, game_params.get("players", 0))
            learned.check_for(model[0], game_id, game_params, model[0]["path"])
        except learned.BadModel:
            model = None   # none shipped for this player count or variant: it was not measured there
        _defaults[key] = model
    return _defaults[key]


def expansion(GameState state, str expand="default"):
    """The expansion order of a search from `state` for the `expand` parameter: `default` the
    game's (`eval` in EXPAND_EVAL, else `random`), otherwise `expand` itself."""
    if expand == "default":
        return "eval" if state.game_id in EXPAND_EVAL else "random"
    return expand


def rollout_decisive(GameState state, int decisive=-1):
    """The rollout policy of a search from `state` for the `decisive` parameter: -1 the game's
    default (DECISIVE, 0 when not listed), otherwise `decisive` itself."""
    return DECISIVE.get(state.game_id, 0) if decisive < 0 else decisive


def rollout_cutoff(GameState state, int cutoff=-1):
    """The rollout cutoff a search from `state` uses for the `cutoff` parameter: -1 the game's
    default (CUTOFFS, 0 when not listed), otherwise `cutoff` itself."""
    return CUTOFFS.get(state.game_id, 0) if cutoff < 0 else cutoff


def score_span(GameState state, str horizon="round"):
    """The scale of points on which the margin reward reads a player's lead (SPANS), for a search
    from `state` with `horizon`. A round of Wizard with h cards spans 20 + 20h (an exact bid of h
    scores 20 + 10h, a miss by h loses 10h); a round of Royal Ball gives at most one favour. 0 for
    a game not listed: the margin is then min-max normalised within each rollout."""
    round_span = ROUND_SPANS.get(state.game_id)
    if round_span is not None and (horizon == "round" or round_span[1](state)):
        return round_span[0](state)
    return SPANS.get(state.game_id, 0.0)


def solver_is_sound(GameState state):
    """Whether proven values are exact in `state`'s game: two players, perfect information and no
    chance after the setup (the registry's `perfect_information`: Insert), so that each tree node
    is one state and every legal action is there on each visit."""
    from engines.registry import GAMES
    spec = GAMES.get(state.game_id)
    return state.num_players == 2 and spec is not None and spec.perfect_information


def _mix(*values):
    """A 64-bit seed from several integers (splitmix64 steps)."""
    cdef uint64_t h = 0x6A09E667F3BCC909ULL, z
    for v in values:
        z = h ^ (<uint64_t>(int(v) & 0xFFFFFFFFFFFFFFFF))
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
        h = z ^ (z >> 31)
    return h


def _proof_key(int proof):
    """Orders proven values for the player who takes them: faster wins first, slower losses last."""
    if proof == PROOF_DRAW:
        return 0
    return 1000 - proof if proof > 0 else -1000 - proof


def merge_roots(searches, legal):
    """Root parallelisation: sums the root statistics of independent searches of one position and
    returns (action, {action: (visits, availability, mean)}, {action: proof code}, root proof code).
    The action follows `Search.best_action`: the fastest proven win, else the most visited child
    not proven lost (ties: higher mean, then lower action), else an untried legal action, else the
    slowest loss. A proof from any one tree holds in all (the solver runs only where it is exact)."""
    stats, proofs, root = {}, {}, 0
    for search in searches:
        for a, visits, avail, reward, proof in search.root_edges():
            v = stats.setdefault(a, [0, 0, 0.0])
            v[0] += visits
            v[1] += avail
            v[2] += reward
            if proof:
                proofs[a] = proof
        if search.root_proof:
            root = search.root_proof
    wins = [a for a, p in proofs.items() if p > 0 and p != PROOF_DRAW]
    if wins:
        action = max(wins, key=lambda a: (_proof_key(proofs[a]), stats[a][0], -a))
    else:
        open_ = [a for a in stats if proofs.get(a, 0) >= 0]
        if open_:
            action = max(open_, key=lambda a: (stats[a][0], stats[a][2] / stats[a][0], -a))
        else:
            untried = [a for a in legal if a not in stats]
            action = untried[0] if untried else max(stats, key=lambda a: (_proof_key(proofs[a]), -a))
    children = {a: (v, av, r / v) for a, (v, av, r) in sorted(stats.items())}
    return action, children, dict(sorted(proofs.items())), root


class ISMCTSAgent(Agent):
    """Information set MCTS in Cython: one tree over determinizations, C-level rollouts, any game.

    `iterations` per move (or `time` seconds per move when time > 0, which then replaces it),
    UCB exploration `c` on rewards in [0, 1], rollouts to the end of the current round
    (`horizon=round`) or of the game (`horizon=game`), `margin` the weight of the normalised score
    margin against the rank in the reward, `solver` (proven wins and losses, in two-player games of
    perfect information: Insert), `cutoff` (rollouts stop after that many plies and the engine's
    evaluation scores them; -1, the default, takes the game's entry in CUTOFFS, 0 where it has none),
    `expand` (which untried action a node expands first: `random`, or `eval`, the one the engine's
    evaluation rates best for its mover; `default` takes `eval` for the games in EXPAND_EVAL, else
    `random`), `pom` (partially observable moves: the other players' edges
    merged by how the searcher sees their actions; -1, the default, takes the game's entry in
    POM_GAMES), `span` (the points a margin reward of 0 or 1 stands for; 0, the default, takes
    the game's `score_span`), `epsilon` (in a cut-off rollout, the chance of a uniformly random
    ply; the others play the action the engine's evaluation rates best for its mover; -1, the
    default, takes the game's entry in EPSILONS, 1 (uniformly random) where it has none), `decisive`
    (the rollout policy of the plies that would be uniformly random: 0 uniformly random, 1 an
    immediate win when there is one, 2 also no move that leaves the next player an immediate win
    while another move does not; -1, the default, takes the game's entry in DECISIVE, 0 where it
    has none), `mast` (the chance that such a ply plays instead the action with the best mean
    reward so far for its mover, MAST; 0, the default, never), `policy` (the chance that such a
    ply, when not MAST's, plays the engine's playout policy, `c_policy_action`; 0, the default,
    never; `mast`, `policy`, `opponents` and `infer` measured no better on Wizard, see the README),
    `opponents` (`search`: the other players' moves in the tree chosen by UCB like the
    searcher's; `policy`: the engine's playout policy's move with the hand each holds in the world
    searched), `infer` (worlds drawn at most per iteration, each kept with the chance the engine's
    `c_plausibility` gives it, the last kept: 1, the default, samples uniform worlds), `root` (`ucb`,
    the default, or `halving`: the root's visits shared by sequential halving, with an iteration
    budget and without the solver), `bias` (progressive bias: the weight of the engine's
    evaluation, as a rank among siblings, in a child's UCB value, fading with its visits; 0, the
    default, none: it measured stronger only at equal iterations, see the README), `threads`
    (root parallelisation: that many independent trees searched at once without the GIL, their
    root statistics summed; `iterations` is the total, shared among them, and `time` the wall time
    of each), `value` (a learned leaf value, the model file `arena train --target value` writes, or
    `shipped`, agents/models/value-GAME-Np.json: every leaf short of the game's end, or with a
    `cutoff` the end of the cut-off rollout, is scored by each player's expected score share, the
    trees walked in C from the position's features, agents/leaf.pyx, in place of the play-out or
    mixed with it; `none` (or "") none; `default`, the default, the shipped one in the games of
    LEAF_VALUES where it was trained for the players and parameters, else none; docs/training.md),
    `value_reward` (`share`, the default: each player's predicted share is its reward; `ranked`:
    the shares ranked among the players and blended by `margin` with each one's lead over the
    others' mean, as a play-out's points are), `value_mix` (the value's weight in a leaf's reward:
    1 the value alone, in place of the play-out; below 1 the leaf is valued and also played out as
    without a value, and the rewards mixed; 0.5, the default), `playout` (a learned playout policy,
    the model file `arena train --target playout` writes, or `shipped`,
    agents/models/playout-GAME-Np.json: each play-out ply that would be uniformly random draws its
    move with chance proportional to the learned weight of the move's pattern, in C,
    agents/move_policy.pyx; `none` (or "") none; `default`, the default, the shipped one in the
    games of PLAYOUT_POLICIES where it was trained for the players and parameters, else none;
    docs/training.md), `bidding` (Wizard's bids: `search`,
    the default, searched as any move; `learned`, the bid of highest expected score under a
    trained bidder's distribution of the tricks the hand takes, agents/learned.py, as
    `pimc[bidding=learned]` bids; the cards are searched either way), `inference` (Wizard's worlds:
    `engine`, the default, drawn as `infer` says; `learned`, `worlds` worlds drawn at the start of
    each move and weighed by how likely the bids the searcher has seen are with the hands in each,
    under the bid model, agents/world_weights.pyx, in C; each iteration then draws one of them by
    its weight), `worlds` (200; only with `inference=learned`), `bid_model` (the model file of
    both; "" or `shipped`, agents/models/wizard-bid-ismcts-4p.json, learned from ismcts's own
    play), `seed` (combined with the match seed, the seat and the thread).

    Limits (LIMITS): iterations 1 to 10,000,000 (about a minute a move at the fastest measured
    rate, and a tree of a few hundred MB); time 0 to 3600 seconds, and a timed search also stops
    after 10,000,000 iterations, so that its tree stays as small; c 0 to 100; margin 0 to 1;
    cutoff -1 to 1000; pom -1 to 1; span 0 to 1e6; epsilon -1 to 1; decisive -1 to 2; mast 0 to 1;
    policy 0 to 1; infer 1 to 1000; bias 0 to 100; threads 1 to 64; value_mix 0 to 1; worlds 2 to
    10,000; seed 0 to 2**64 - 1."""

    name = "ismcts"
    # 10000 iterations: a mean move takes 0.05 to 0.12 s on each default game on the shared 2-core
    # machine (20k to 200k iterations/s depending on the game and the stage of a Wizard game).
    PARAMS = {"iterations": 10000, "time": 0.0, "c": 0.7, "horizon": "round", "margin": 0.5,
              "solver": True, "cutoff": -1, "expand": "default", "pom": -1, "span": 0.0, "epsilon": -1.0,
              "decisive": -1, "mast": 0.0, "policy": 0.0, "opponents": "search", "infer": 1,
              "root": "ucb", "bias": 0.0, "threads": 1, "value": "default", "value_reward": "share",
              "value_mix": 0.5, "playout": "default", "bidding": "search", "inference": "engine", "worlds": 200,
              "bid_model": "", "seed": 0}
    LIMITS = {"iterations": (1, MAX_ITERATIONS), "time": TIME_LIMITS, "c": (0.0, 100.0),
              "margin": (0.0, 1.0), "cutoff": (-1, 1000), "pom": (-1, 1), "span": (0.0, 1e6),
              "epsilon": (-1.0, 1.0), "decisive": (-1, 2), "mast": (0.0, 1.0), "policy": (0.0, 1.0),
              "infer": (1, 1000), "bias": (0.0, 100.0), "threads": (1, 64), "value_mix": (0.0, 1.0),
              "worlds": (2, MAX_WORLDS), "seed": SEED_LIMITS}
    CHOICES = {"horizon": ("round", "game"), "expand": ("default", "random", "eval"),
               "opponents": ("search", "policy"), "root": ("ucb", "halving"), "value_reward": ("share", "ranked"),
               "bidding": ("search", "learned"), "inference": ("engine", "learned")}
    FILE_PARAMS = {"value": ("", "none", "shipped", "default"), "playout": ("", "none", "shipped", "default"),
                   "bid_model": ("", "shipped")}
    # the FILE_PARAMS naming a model the search plays with, and how each is read
    _LOADERS = {"value": learned.value_forest, "playout": learned.move_policy}
    NEEDS = {"worlds": ("inference", "learned")}

    def __init__(self, **params):
        super().__init__(**params)
        # (model file, model) of the learned leaf value (a Forest) and playout policy (a MovePolicy), if any
        self._models = {param: None for param in self._LOADERS}
        for param, load in self._LOADERS.items():
            if self.params[param] not in self.FILE_PARAMS[param]:
                try:
                    self._models[param] = load(self.params[param], "", 0)
                except learned.BadModel as e:
                    raise BadAgentParameter(f"parameter {param!r} of agent ismcts: {e}") from None
        self._bid_body = None      # the Wizard bid model file (bidding=learned, inference=learned)
        self._bidder = None        # its bidder (bidding=learned)
        self._weights = None       # its WorldWeights (inference=learned)
        if self.params["bidding"] == "learned" or self.params["inference"] == "learned":
            try:
                self._bid_body = learned.load(self._bid_model(), learned.BID_FEATURES)
                if self.params["bidding"] == "learned":
                    self._bidder = learned.WizardBidder(self._bid_body)
                if self.params["inference"] == "learned":
                    self._weights = WorldWeights(self._bid_body, self._bid_model())
            except learned.BadModel as e:
                raise BadAgentParameter(f"parameter 'bid_model' of agent ismcts: {e}") from None
        elif self.params["bid_model"]:
            raise BadAgentParameter("parameter 'bid_model' of agent ismcts is for bidding=learned or inference=learned")
        self._searches = [Search() for _ in range(self.params["threads"])]
        self._search = self._searches[0]
        for t, search in enumerate(self._searches):
            search.seed(_mix(self.params["seed"]) if t == 0 else _mix(self.params["seed"], t))
        self._stats = None

    def reset(self, game_id, game_params, seat, seed):
        super().reset(game_id, game_params, seat, seed)
        self._stats = None
        for param, load in self._LOADERS.items():
            path = self.params[param]
            if path == "default":
                self._models[param] = default_model(param, game_id, game_params)
            elif path in ("", "none"):
                self._models[param] = None
            else:
                try:
                    if path == "shipped":
                        self._models[param] = load(path, game_id, game_params.get("players", 0))
                    body, model = self._models[param]
                    learned.check_for(body, game_id, game_params, body["path"])
                    if param == "playout":
                        model.check(engines.make(game_id, **game_params))
                except ValueError as e:        # learned.BadModel, or MovePolicy.check's refusal
                    raise BadAgentParameter(f"parameter {param!r} of agent ismcts: {e}") from None
        if self._bid_body is not None:
            try:
                learned.check_for(self._bid_body, game_id, game_params, self._bid_model())
            except learned.BadModel as e:
                raise BadAgentParameter(f"parameter 'bid_model' of agent ismcts: {e}") from None

    def _bid_model(self):
        """The bidder's model file: the one shipped for ismcts unless another is named."""
        path = self.params["bid_model"]
        return learned.shipped_path(learned.SHIPPED_ISMCTS) if path in self.FILE_PARAMS["bid_model"] else path

    def act(self, state):
        cdef action_t buf[MAX_ACTIONS]
        cdef GameState s = state
        seed = self.next_seed()   # every decision reseeds every tree: the next one's draws depend on this one's none
        for t, search in enumerate(self._searches):
            # thread 0 keeps the single-threaded seed: threads=1 plays exactly as one thread
            search.seed(_mix(self.params["seed"], seed, self.seat) if t == 0 else
                        _mix(self.params["seed"], seed, self.seat, t))
        if s.c_legal_actions(buf) == 1 and not s.c_is_terminal():
            self._stats = _unsearched(forced=True)
            return int(buf[0])
        if self._bidder is not None and state.phase() == "bid":
            self._stats = _unsearched(learned_bid=True)
            return self._bidder.bid(state.observation(state.current_player()), state.legal_actions())
        p = self.params
        solver = None if p["solver"] else False
        if len(self._searches) == 1:
            a = self._search.search_with(state, self._settings(state, solver, p["iterations"]))
            self._stats = self._search.stats()
            return a
        return self._parallel(state, [buf[i] for i in range(s.c_legal_actions(buf))], solver)

    def _settings(self, state, solver, iterations):
        """The SearchSettings of a search from `state`, the per-game tables resolved."""
        p = self.params
        return SearchSettings(
            state, iterations, seconds=p["time"], c=p["c"], horizon=p["horizon"], margin=p["margin"],
            solver=solver, span=p["span"] or None, cutoff=rollout_cutoff(state, p["cutoff"]),
            expand=expansion(state, p["expand"]), pom=partial_moves(state, p["pom"]),
            epsilon=rollout_epsilon(state, p["epsilon"]), decisive=rollout_decisive(state, p["decisive"]),
            mast=p["mast"], policy=p["policy"], opponents=p["opponents"], infer=p["infer"], root=p["root"],
            bias=p["bias"], value=self._model("value"), value_reward=p["value_reward"],
            value_mix=p["value_mix"], weights=self._weights, worlds=p["worlds"], playout=self._model("playout"))

    def _model(self, param):
        """The learned model of `param` (`value`, `playout`) this match plays with, or None."""
        return self._models[param][1] if self._models[param] is not None else None

    def _parallel(self, state, legal, solver):
        import threading
        p = self.params
        n = len(self._searches)
        shares = [p["iterations"] // n + (t < p["iterations"] % n) for t in range(n)]
        errors = []

        def work(search, iterations):
            try:
                if iterations > 0 or p["time"] > 0:
                    search.search_with(state, self._settings(state, solver, max(iterations, 1)))
            except BaseException as e:     # re-raised below, in the caller's thread
                errors.append(e)

        workers = [threading.Thread(target=work, args=(search, k))
                   for search, k in zip(self._searches[1:], shares[1:])]
        for w in workers:
            w.start()
        work(self._search, shares[0])
        for w in workers:
            w.join()
        if errors:
            raise errors[0]
        used = [s for s, k in zip(self._searches, shares) if k > 0 or p["time"] > 0]
        action, children, proofs, root = merge_roots(used, legal)
        each = [s.stats() for s in used]
        self._stats = {
            "iterations": sum(st["iterations"] for st in each),
            "root_visits": sum(st["root_visits"] for st in each),
            "nodes": sum(st["nodes"] for st in each),
            "tree_bytes": sum(st["tree_bytes"] for st in each),
            "bytes_per_node": round(sum(st["tree_bytes"] for st in each) / sum(st["nodes"] for st in each), 1),
            "max_depth": max(st["max_depth"] for st in each),
            "elapsed": max(st["elapsed"] for st in each),
            "threads": len(used),
            "children": children,
            "proofs": {a: _proof_text(c) for a, c in proofs.items()},
            "root_proof": _proof_text(root) if root else None,
        }
        return action

    def last_stats(self):
        """Statistics of the last move: iterations, root_visits, nodes, bytes_per_node, tree_bytes,
        max_depth, elapsed (seconds) and the root children {action: (visits, availability, mean)}.
        A forced move (one legal action) is played without searching: iterations 0, forced True."""
        return self._stats

    @staticmethod
    def bytes_per_node():
        return Search.bytes_per_node()
