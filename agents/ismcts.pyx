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

Rewards, in [0, 1] for each player p: a blend of the rank of p's value among the players (1 best,
0 worst, ties shared) and of p's min-max normalised value, weighted by `margin` (default 0.5).
The value is the final return when the game is over; when a `round` horizon stops the rollout first,
it is the points p gained since the root (c_score now minus c_score at the root), so a Wizard round
is judged by its own points, bid made or missed.
"""
from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t, uint32_t
from libc.stdlib cimport realloc, free
from libc.string cimport memset, memcpy
from libc.math cimport log, sqrt, isfinite

from engines.core cimport (GameState, Rng, action_t, rng_seed, rng_below,
                           MAX_ACTIONS, HORIZON_GAME, HORIZON_ROUND, monotonic_seconds)

from agents.base import Agent, SEED_LIMITS, TIME_LIMITS

DEF MAX_PLAYERS = 16
DEF CLOCK_EVERY = 8        # iterations between clock reads under a time budget
DEF LOG_TABLE = 4096       # log(n) precomputed below this
DEF MAX_ITERATIONS = 10000000   # per search, also under a time budget: bounds the tree's memory


cdef struct Edge:
    # One action out of a node, with the statistics of the child it leads to.
    double reward          # sum of the rewards of `player` over the visits through this edge
    int32_t visits
    int32_t avail          # times this action was legal when its node was visited
    int32_t child          # node index of the position after it; -1 until the search goes below
    int16_t action
    int8_t player          # player who takes it
    int8_t _pad

cdef struct Node:
    # A node's edges lie contiguously in the edge pool: [first, first + count), room for cap.
    int32_t first
    int32_t count
    int32_t cap

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
    cdef int* path             # edges taken this iteration
    cdef int path_cap
    cdef long root_visits
    cdef GameState scratch
    cdef Rng rng
    cdef uint32_t stamp
    cdef uint32_t legal_mark[MAX_ACTIONS]
    cdef uint32_t child_mark[MAX_ACTIONS]
    # statistics of the last search
    cdef public long iterations
    cdef public double elapsed
    cdef public int max_depth

    def __cinit__(self):
        self.nodes = NULL
        self.edges = NULL
        self.path = NULL
        self.n_nodes = self.node_cap = self.n_edges = self.edge_cap = self.path_cap = 0
        self.live_edges = 0
        self.root_visits = 0
        self.stamp = 0
        memset(self.legal_mark, 0, sizeof(self.legal_mark))
        memset(self.child_mark, 0, sizeof(self.child_mark))
        rng_seed(&self.rng, 0)

    def __dealloc__(self):
        free(self.nodes)
        free(self.edges)
        free(self.path)

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
            if nd.count:
                memcpy(&self.edges[first], &self.edges[nd.first], nd.count * sizeof(Edge))
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
        self.edges[e]._pad = 0
        self.live_edges += 1
        return e

    cdef inline void _next_stamp(self) noexcept nogil:
        self.stamp += 1
        if self.stamp == 0:
            memset(self.legal_mark, 0, sizeof(self.legal_mark))
            memset(self.child_mark, 0, sizeof(self.child_mark))
            self.stamp = 1

    cdef void _rewards(self, GameState s, int n, bint terminal, double* base,
                       double margin, double* out) noexcept nogil:
        cdef double v[MAX_PLAYERS]
        cdef double lo, hi, r
        cdef int p, q
        for p in range(n):
            v[p] = s.c_returns(p) if terminal else s.c_score(p) - base[p]
        lo = hi = v[0]
        for p in range(1, n):
            if v[p] < lo:
                lo = v[p]
            if v[p] > hi:
                hi = v[p]
        for p in range(n):
            r = 0.0
            for q in range(n):
                if q != p:
                    if v[q] < v[p]:
                        r += 1.0
                    elif v[q] == v[p]:
                        r += 0.5
            r = r / (n - 1) if n > 1 else 0.5
            out[p] = (1.0 - margin) * r + margin * ((v[p] - lo) / (hi - lo) if hi > lo else 0.5)

    cdef int run(self, GameState root, GameState s, long iterations, double seconds, double c,
                 int horizon, double margin) except -1 nogil:
        """Searches from `root` for its player to move, with `s` (the same game) as scratch state,
        for `iterations` or until `seconds` have passed when seconds > 0, whichever comes first;
        leaves the tree in `nodes` and `edges`."""
        cdef int n = root.num_players
        cdef int me = root.c_current_player()
        cdef int root_round = root.c_round()
        cdef action_t legal[MAX_ACTIONS]
        cdef action_t untried[MAX_ACTIONS]
        cdef double base[MAX_PLAYERS]
        cdef double reward[MAX_PLAYERS]
        cdef double start = monotonic_seconds(), deadline = start + seconds
        cdef double best_ucb, u, logn
        cdef long it = 0
        cdef int node, e, end, best, k, n_untried, i, mover, depth
        cdef bint terminal
        cdef Edge* ed
        self.n_nodes = self.n_edges = self.live_edges = 0
        for i in range(32):
            self.free_block[i] = -1
        self.root_visits = 0
        self.max_depth = 0
        self._new_node()
        while True:
            if it >= iterations:
                break
            if seconds > 0 and it % CLOCK_EVERY == 0 and it > 0 and monotonic_seconds() >= deadline:
                break
            it += 1
            s.c_copy_from(root)
            s.c_determinize(me, &self.rng)
            for i in range(n):
                base[i] = s.c_score(i)
            node = 0
            depth = 0
            # selection and expansion, within the horizon
            while not s.c_is_terminal() and (horizon == HORIZON_GAME or s.c_round() == root_round):
                mover = s.c_current_player()
                k = s.c_legal_actions(legal)
                self._next_stamp()
                for i in range(k):
                    self.legal_mark[legal[i]] = self.stamp
                best = -1
                best_ucb = -1.0
                e = self.nodes[node].first
                end = e + self.nodes[node].count
                while e < end:
                    ed = &self.edges[e]
                    if ed.player == mover and self.legal_mark[ed.action] == self.stamp:
                        self.child_mark[ed.action] = self.stamp
                        if ed.avail < LOG_TABLE:
                            logn = LOG[ed.avail]
                        else:
                            logn = log(<double>ed.avail)
                        u = ed.reward / ed.visits + c * sqrt(logn / ed.visits)
                        if u > best_ucb:
                            best_ucb = u
                            best = e
                        ed.avail += 1
                    e += 1
                n_untried = 0
                for i in range(k):
                    if self.child_mark[legal[i]] != self.stamp:
                        untried[n_untried] = legal[i]
                        n_untried += 1
                if depth == self.path_cap:
                    self.path = <int*>self._grow(self.path, &self.path_cap, depth + 1, sizeof(int))
                if n_untried:
                    i = rng_below(&self.rng, n_untried)
                    e = self._add_edge(node, untried[i], mover, n_untried)
                    self.edges[e].avail = 1
                    self.path[depth] = e
                    depth += 1
                    s.c_apply(untried[i])
                    break
                self.path[depth] = best
                depth += 1
                s.c_apply(self.edges[best].action)
                node = self.edges[best].child
                if node < 0:
                    node = self._new_node()
                    self.edges[best].child = node
            if depth > self.max_depth:
                self.max_depth = depth
            # a descent that ended the root's round has reached the horizon: no rollout into the next
            if not s.c_is_terminal() and (horizon == HORIZON_GAME or s.c_round() == root_round):
                s.c_rollout(&self.rng, horizon)
            terminal = s.c_is_terminal()
            self._rewards(s, n, terminal, base, margin, reward)
            self.root_visits += 1
            for i in range(depth):
                ed = &self.edges[self.path[i]]
                ed.visits += 1
                ed.reward += reward[ed.player]
        self.iterations = it
        self.elapsed = monotonic_seconds() - start
        return 0

    cdef int best_action(self) noexcept nogil:
        """The most visited root child; ties go to the higher mean reward, then the lower action."""
        cdef int e = self.nodes[0].first, end = e + self.nodes[0].count, best = e
        cdef Edge* ch
        cdef Edge* b
        for e in range(e + 1, end):
            ch = &self.edges[e]
            b = &self.edges[best]
            if (ch.visits > b.visits or (ch.visits == b.visits and (
                    ch.reward * b.visits > b.reward * ch.visits or (
                    ch.reward * b.visits == b.reward * ch.visits and ch.action < b.action)))):
                best = e
        return self.edges[best].action

    def search(self, GameState state, long iterations=1000, double seconds=0.0, double c=0.7,
               str horizon="round", double margin=0.5):
        """Runs one search from `state` for its player to move and returns the chosen action: for
        `iterations`, or when seconds > 0 for `seconds` (and at most MAX_ITERATIONS iterations)."""
        cdef int h = HORIZON_ROUND if horizon == "round" else HORIZON_GAME
        cdef int a
        if state.c_is_terminal():
            raise ValueError("cannot search from a terminal state")
        if not (isfinite(seconds) and isfinite(c) and c >= 0 and 0 <= margin <= 1):
            raise ValueError("ismcts needs finite seconds, a finite c >= 0 and a margin in [0, 1]")
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
        if self.scratch is None or type(self.scratch) is not type(state) or self.scratch.params != state.params:
            self.scratch = state.clone()
        cdef GameState scratch = self.scratch
        with nogil:
            self.run(state, scratch, iterations, seconds, c, h, margin)
            a = self.best_action()
        return a

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
        used = self.n_edges * sizeof(Edge) + self.n_nodes * sizeof(Node)
        return {
            "iterations": self.iterations,
            "root_visits": self.root_visits,
            "nodes": nodes,
            "bytes_per_node": round(used / nodes, 1),
            "tree_bytes": used,
            "max_depth": self.max_depth,
            "elapsed": self.elapsed,
            "children": self.root_children(),
        }


def _mix(*values):
    """A 64-bit seed from several integers (splitmix64 steps)."""
    cdef uint64_t h = 0x6A09E667F3BCC909ULL, z
    for v in values:
        z = h ^ (<uint64_t>(int(v) & 0xFFFFFFFFFFFFFFFF))
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
        h = z ^ (z >> 31)
    return h


class ISMCTSAgent(Agent):
    """Information set MCTS in Cython: one tree over determinizations, C-level rollouts, any game.

    `iterations` per move (or `time` seconds per move when time > 0, which then replaces it),
    UCB exploration `c` on rewards in [0, 1], rollouts to the end of the current round
    (`horizon=round`) or of the game (`horizon=game`), `margin` the weight of the normalised score
    margin against the rank in the reward, `seed` (combined with the match seed and the seat).

    Limits (LIMITS): iterations 1 to 10,000,000 (about a minute a move at the fastest measured
    rate, and a tree of a few hundred MB); time 0 to 3600 seconds, and a timed search also stops
    after 10,000,000 iterations, so that its tree stays as small; c 0 to 100; margin 0 to 1;
    seed 0 to 2**64 - 1."""

    name = "ismcts"
    # 10000 iterations: a mean move takes 0.05 to 0.12 s on each default game on the shared 2-core
    # machine (20k to 200k iterations/s depending on the game and the stage of a Wizard game).
    PARAMS = {"iterations": 10000, "time": 0.0, "c": 0.7, "horizon": "round", "margin": 0.5, "seed": 0}
    LIMITS = {"iterations": (1, MAX_ITERATIONS), "time": TIME_LIMITS, "c": (0.0, 100.0),
              "margin": (0.0, 1.0), "seed": SEED_LIMITS}
    CHOICES = {"horizon": ("round", "game")}

    def __init__(self, **params):
        super().__init__(**params)
        self._search = Search()
        self._search.seed(_mix(self.params["seed"]))
        self._stats = None

    def reset(self, game_id, game_params, seat, seed):
        super().reset(game_id, game_params, seat, seed)
        self._search.seed(_mix(self.params["seed"], seed, seat))
        self._stats = None

    def act(self, state):
        cdef action_t buf[MAX_ACTIONS]
        cdef GameState s = state
        if s.c_legal_actions(buf) == 1 and not s.c_is_terminal():
            self._stats = {"iterations": 0, "root_visits": 0, "nodes": 0, "forced": True}
            return int(buf[0])
        p = self.params
        a = self._search.search(state, p["iterations"], p["time"], p["c"], p["horizon"], p["margin"])
        self._stats = self._search.stats()
        return a

    def last_stats(self):
        """Statistics of the last move: iterations, root_visits, nodes, bytes_per_node, tree_bytes,
        max_depth, elapsed (seconds) and the root children {action: (visits, availability, mean)}.
        A forced move (one legal action) is played without searching: iterations 0, forced True."""
        return self._stats

    @staticmethod
    def bytes_per_node():
        return Search.bytes_per_node()
