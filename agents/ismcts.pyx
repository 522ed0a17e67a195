"""Single-observer information set MCTS (Cowling, Powley and Whitehouse, 2012), registered as `ismcts`.

One tree per move, searched from the acting player's point of view. Every iteration copies the root
into a scratch state and determinizes it for the acting player (`c_determinize`), so the search reads
nothing the player cannot see. It then descends the tree by UCB among the actions legal in this
determinization, counting for every child how often it was available (the subset-armed bandit),
expands one untried action, rolls out with the engine's `c_rollout` and backs up the rewards. The
move played is the most visited root child. The whole loop runs in C without the GIL.

Tree: one flat array of 32-byte `Node` structs, grown with realloc; children are a first-child /
next-sibling list. A child is keyed by (action, player who took it), since in games where chance
decides who moves next the same action may be taken by different players in different worlds.
Each node keeps the reward sum of the player who took its action, which is all UCB needs there.

Rewards, in [0, 1] for each player p: a blend of the rank of p's value among the players (1 best,
0 worst, ties shared) and of p's min-max normalised value, weighted by `margin` (default 0.5).
The value is the final return when the game is over; when a `round` horizon stops the rollout first,
it is the points p gained since the root (c_score now minus c_score at the root), so a Wizard round
is judged by its own points, bid made or missed.
"""
from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t, uint32_t
from libc.stdlib cimport realloc, free
from libc.string cimport memset
from libc.math cimport log, sqrt
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engines.core cimport (GameState, Rng, action_t, rng_seed, rng_next, rng_below,
                           MAX_ACTIONS, HORIZON_GAME, HORIZON_ROUND)

from agents.base import Agent, BadAgentParameter

DEF MAX_PLAYERS = 16
DEF CLOCK_EVERY = 8        # iterations between clock reads under a time budget


cdef struct Node:
    double reward          # sum of the rewards of `player` over the visits of this node
    int32_t parent
    int32_t first_child
    int32_t next_sibling
    int32_t visits
    int32_t avail          # times this node's action was legal when its parent was visited
    int16_t action         # action taken at the parent (-1 at the root)
    int8_t player          # player who took it (-1 at the root)
    int8_t _pad


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef class Search:
    """The tree and the search loop. Reused across moves: its node array only ever grows."""

    cdef Node* nodes
    cdef int n_nodes
    cdef int cap
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
        self.n_nodes = 0
        self.cap = 0
        self.stamp = 0
        memset(self.legal_mark, 0, sizeof(self.legal_mark))
        memset(self.child_mark, 0, sizeof(self.child_mark))
        rng_seed(&self.rng, 0)

    def __dealloc__(self):
        free(self.nodes)

    def seed(self, uint64_t seed):
        rng_seed(&self.rng, seed)

    @staticmethod
    def bytes_per_node():
        """Bytes of tree memory per node (the whole per-node cost: there is no other per-node data)."""
        return sizeof(Node)

    cdef int _reserve(self, int need) except -1 nogil:
        cdef int cap
        cdef Node* grown
        if need <= self.cap:
            return 0
        cap = self.cap * 2 if self.cap else 1024
        while cap < need:
            cap *= 2
        grown = <Node*>realloc(self.nodes, cap * sizeof(Node))
        if grown == NULL:
            with gil:
                raise MemoryError("ismcts tree")
        self.nodes = grown
        self.cap = cap
        return 0

    cdef inline int _new_node(self, int parent, action_t a, int player) except -1 nogil:
        cdef int i = self.n_nodes
        cdef Node* nd
        if i == self.cap:
            self._reserve(i + 1)
        nd = &self.nodes[i]
        nd.reward = 0.0
        nd.parent = parent
        nd.first_child = -1
        nd.next_sibling = -1
        nd.visits = 0
        nd.avail = 0
        nd.action = <int16_t>a
        nd.player = <int8_t>player
        nd._pad = 0
        if parent >= 0:
            nd.next_sibling = self.nodes[parent].first_child
            self.nodes[parent].first_child = i
        self.n_nodes = i + 1
        return i

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
        """Searches from `root` for its player to move, with `s` (the same game) as scratch state;
        leaves the tree in `nodes`."""
        cdef int n = root.num_players
        cdef int me = root.c_current_player()
        cdef int root_round = root.c_round()
        cdef action_t legal[MAX_ACTIONS]
        cdef action_t untried[MAX_ACTIONS]
        cdef double base[MAX_PLAYERS]
        cdef double reward[MAX_PLAYERS]
        cdef double start = _now(), deadline = start + seconds
        cdef double best_ucb, u, logn
        cdef long it = 0
        cdef int node, child, best, k, n_untried, i, mover, depth
        cdef bint terminal
        cdef Node* ch
        self.n_nodes = 0
        self.max_depth = 0
        self._reserve(iterations + 1 if seconds <= 0 and iterations < 1 << 24 else 1 << 16)
        self._new_node(-1, -1, -1)
        while True:
            if seconds > 0:
                if it % CLOCK_EVERY == 0 and it > 0 and _now() >= deadline:
                    break
            elif it >= iterations:
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
                child = self.nodes[node].first_child
                while child >= 0:
                    ch = &self.nodes[child]
                    if ch.player == mover and self.legal_mark[ch.action] == self.stamp:
                        self.child_mark[ch.action] = self.stamp
                        logn = log(<double>ch.avail) if ch.avail > 1 else 0.0
                        u = ch.reward / ch.visits + c * sqrt(logn / ch.visits)
                        if u > best_ucb:
                            best_ucb = u
                            best = child
                        ch.avail += 1
                    child = ch.next_sibling
                n_untried = 0
                for i in range(k):
                    if self.child_mark[legal[i]] != self.stamp:
                        untried[n_untried] = legal[i]
                        n_untried += 1
                depth += 1
                if n_untried:
                    i = rng_below(&self.rng, n_untried)
                    node = self._new_node(node, untried[i], mover)
                    self.nodes[node].avail = 1
                    s.c_apply(untried[i])
                    break
                node = best
                s.c_apply(self.nodes[node].action)
            if depth > self.max_depth:
                self.max_depth = depth
            if not s.c_is_terminal():
                s.c_rollout(&self.rng, horizon)
            terminal = s.c_is_terminal()
            self._rewards(s, n, terminal, base, margin, reward)
            while node >= 0:
                ch = &self.nodes[node]
                ch.visits += 1
                if ch.player >= 0:
                    ch.reward += reward[ch.player]
                node = ch.parent
        self.iterations = it
        self.elapsed = _now() - start
        return 0

    cdef int best_action(self) noexcept nogil:
        """The most visited root child; ties go to the higher mean reward, then the lower action."""
        cdef int child = self.nodes[0].first_child, best = -1
        cdef Node* ch
        cdef Node* b
        while child >= 0:
            ch = &self.nodes[child]
            if best < 0:
                best = child
            else:
                b = &self.nodes[best]
                if (ch.visits > b.visits or (ch.visits == b.visits and (
                        ch.reward * b.visits > b.reward * ch.visits or (
                        ch.reward * b.visits == b.reward * ch.visits and ch.action < b.action)))):
                    best = child
            child = ch.next_sibling
        return self.nodes[best].action

    def search(self, GameState state, long iterations=1000, double seconds=0.0, double c=0.7,
               str horizon="round", double margin=0.5):
        """Runs one search from `state` for its player to move and returns the chosen action."""
        cdef int h = HORIZON_ROUND if horizon == "round" else HORIZON_GAME
        cdef int a
        if state.c_is_terminal():
            raise ValueError("cannot search from a terminal state")
        if state.num_players > MAX_PLAYERS:
            raise ValueError(f"ismcts supports at most {MAX_PLAYERS} players")
        if state.num_distinct_actions > 32767:
            raise ValueError("ismcts supports at most 32767 distinct actions")
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
        cdef int child = self.nodes[0].first_child if self.n_nodes else -1
        cdef Node nd
        while child >= 0:
            nd = self.nodes[child]
            out[nd.action] = (nd.visits, nd.avail, nd.reward / nd.visits)
            child = nd.next_sibling
        return dict(sorted(out.items()))

    def stats(self):
        return {
            "iterations": self.iterations,
            "root_visits": self.nodes[0].visits if self.n_nodes else 0,
            "nodes": self.n_nodes,
            "bytes_per_node": sizeof(Node),
            "tree_bytes": self.n_nodes * sizeof(Node),
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
    """Information set MCTS: `iterations` per move (or `time` seconds per move when time > 0, in
    which case iterations is ignored), UCB exploration `c` on rewards in [0, 1], rollouts to the end
    of the current round (`horizon=round`) or of the game (`horizon=game`), `margin` the weight of the
    normalised score margin against the rank in the reward, and `seed` (combined with the match seed)."""

    name = "ismcts"
    # 3000 iterations take about 0.1 s a move on Insert and well under that on the card games.
    PARAMS = {"iterations": 3000, "time": 0.0, "c": 0.7, "horizon": "round", "margin": 0.5, "seed": 0}

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        if p["horizon"] not in ("round", "game"):
            raise BadAgentParameter(f"parameter 'horizon' of agent ismcts must be round or game, not {p['horizon']!r}")
        if p["time"] < 0:
            raise BadAgentParameter("parameter 'time' of agent ismcts must be >= 0")
        if p["time"] == 0 and p["iterations"] < 1:
            raise BadAgentParameter("parameter 'iterations' of agent ismcts must be >= 1")
        if p["c"] < 0:
            raise BadAgentParameter("parameter 'c' of agent ismcts must be >= 0")
        if not 0.0 <= p["margin"] <= 1.0:
            raise BadAgentParameter("parameter 'margin' of agent ismcts must be between 0 and 1")
        self._search = Search()
        self._search.seed(_mix(p["seed"]))
        self._stats = None

    def reset(self, game_id, game_params, seat, seed):
        super().reset(game_id, game_params, seat, seed)
        self._search.seed(_mix(self.params["seed"], seed, seat))
        self._stats = None

    def act(self, state):
        cdef action_t buf[MAX_ACTIONS]
        cdef GameState s = state
        if s.c_legal_actions(buf) == 1 and not s.c_is_terminal():
            self._stats = {"iterations": 0, "root_visits": 0, "nodes": 0,
                           "bytes_per_node": sizeof(Node), "forced": True}
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
        return sizeof(Node)
