"""The game-state contract: the C-level methods search agents call, and the Python face users call.

The Python face uses OpenSpiel's vocabulary (legal_actions, apply_action, clone, returns, ...).
Undo, copies, clones and pickling are generic: an engine keeps its whole position in one plain C
struct, and the base class snapshots, copies and serialises those bytes.
"""
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy

import operator as _operator
import random as _random


cdef class GameState:
    """Abstract base of every engine. Subclasses set `_pos` and `_pos_size` in `__cinit__`."""

    def __cinit__(self, *args, **kwargs):
        self._undo = NULL
        self._undo_len = 0
        self._undo_cap = 0
        self._history = []
        self.params = {}
        self.game_id = ""

    def __dealloc__(self):
        free(self._undo)

    # ------------------------------------------------------------------ engine methods (abstract)
    cdef int c_apply(self, action_t a) except -1 nogil:
        with gil:
            raise NotImplementedError(f"{type(self).__name__} does not implement c_apply")

    cdef int c_legal_actions(self, action_t* out) noexcept nogil:
        return 0

    cdef int c_current_player(self) noexcept nogil:
        return -1

    cdef bint c_is_terminal(self) noexcept nogil:
        return True

    cdef double c_returns(self, int p) noexcept nogil:
        return 0.0

    cdef double c_score(self, int p) noexcept nogil:
        return self.c_returns(p)

    cdef int c_round(self) noexcept nogil:
        return 0

    cdef double c_evaluate(self, int p) noexcept nogil:
        return self.c_score(p)

    cdef uint64_t c_infoset_key(self, int p) noexcept nogil:
        return 0

    cdef action_t c_action_view(self, int observer, action_t a) noexcept nogil:
        # The action as `observer` sees it, taken in this state: one action id standing for every
        # action the observer cannot tell apart from it, in any world it cannot tell from this one
        # (a face-down card seen as its back). By default every action is seen as itself.
        return a

    cdef action_t c_policy_action(self, Rng* rng) noexcept nogil:
        # The move of a playout policy for the player to move, from what that player sees: by
        # default uniformly random; an engine may override it with a cheap rule of thumb.
        cdef action_t buf[MAX_ACTIONS]
        return buf[rng_below(rng, self.c_legal_actions(buf))]

    cdef int c_move_pattern_count(self) noexcept nogil:
        # How many move patterns the engine describes its moves by, for a learned playout policy
        # (a weight per pattern, learned from a teacher's moves): 0, the default, none.
        return 0

    cdef void c_move_patterns(self, const action_t* acts, int k, int32_t* out) noexcept nogil:
        # The pattern, in [0, c_move_pattern_count()), of each of the k legal actions `acts` for the
        # player to move, from what that player sees. Only engines with patterns are asked.
        pass

    cdef double c_plausibility(self, int observer) noexcept nogil:
        # How likely, in (0, 1], the other players' public moves so far are with what they hold in
        # this world (a determinization for `observer`), up to a constant: a search may weight its
        # worlds by it. By default every world is as likely.
        return 1.0

    cdef int c_reset(self, uint64_t seed) except -1 nogil:
        with gil:
            raise NotImplementedError(f"{type(self).__name__} does not implement c_reset")

    cdef int c_determinize(self, int p, Rng* rng) except -1 nogil:
        # Perfect-information games: nothing is hidden, but the unseen future (chance) is reseeded.
        rng_seed(&self.chance, rng_next(rng))
        return 0

    # ------------------------------------------------------------------ generic machinery
    cdef int c_rollout(self, Rng* rng, int horizon) except -1 nogil:
        cdef action_t buf[MAX_ACTIONS]
        cdef int n
        cdef int start_round = self.c_round()
        while not self.c_is_terminal():
            if horizon == HORIZON_ROUND and self.c_round() != start_round:
                break
            n = self.c_legal_actions(buf)
            if n == 0:
                with gil:
                    raise RuntimeError(f"{self.game_id}: no legal action in a state that is not terminal")
            self.c_apply(buf[rng_below(rng, n)])
        return 0

    cdef int _push_snapshot(self) except -1 nogil:
        cdef size_t rec = sizeof(Rng) + self._pos_size
        cdef int cap
        cdef char* grown
        cdef char* dst
        if self._undo_len == self._undo_cap:
            cap = self._undo_cap * 2 if self._undo_cap else 64
            grown = <char*>realloc(self._undo, cap * rec)
            if grown == NULL:
                with gil:
                    raise MemoryError("undo stack")
            self._undo = grown
            self._undo_cap = cap
        dst = self._undo + self._undo_len * rec
        memcpy(dst, &self.chance, sizeof(Rng))
        memcpy(dst + sizeof(Rng), self._pos, self._pos_size)
        self._undo_len += 1
        return 0

    cdef int c_apply_undoable(self, action_t a) except -1 nogil:
        self._push_snapshot()
        if self.c_apply(a) < 0:
            self.c_undo()
            return -1
        return 0

    cdef int c_undo(self) except -1 nogil:
        cdef size_t rec = sizeof(Rng) + self._pos_size
        cdef char* src
        if self._undo_len == 0:
            with gil:
                raise IndexError("nothing to undo")
        self._undo_len -= 1
        src = self._undo + self._undo_len * rec
        memcpy(&self.chance, src, sizeof(Rng))
        memcpy(self._pos, src + sizeof(Rng), self._pos_size)
        return 0

    # the undo stack's record of a position, for a caller that keeps positions of its own
    cdef size_t c_position_bytes(self) noexcept nogil:
        return sizeof(Rng) + self._pos_size

    cdef void c_save_position(self, char* out) noexcept nogil:
        memcpy(out, &self.chance, sizeof(Rng))
        memcpy(out + sizeof(Rng), self._pos, self._pos_size)

    cdef void c_load_position(self, const char* src) noexcept nogil:
        memcpy(&self.chance, src, sizeof(Rng))
        memcpy(self._pos, src + sizeof(Rng), self._pos_size)
        self._undo_len = 0

    cdef int c_copy_from(self, GameState other) except -1 nogil:
        self.chance = other.chance
        memcpy(self._pos, other._pos, self._pos_size)
        self._undo_len = 0
        return 0

    cdef GameState _new_empty(self):
        cdef GameState s = type(self).__new__(type(self))
        s.game_id = self.game_id
        s.params = self.params
        s.num_players = self.num_players
        s.num_distinct_actions = self.num_distinct_actions
        return s

    # ------------------------------------------------------------------ the Python face
    def legal_actions(self):
        """The legal actions for the player to move, in increasing order; empty once terminal."""
        cdef action_t buf[MAX_ACTIONS]
        if self.c_is_terminal():
            return []
        cdef int n = self.c_legal_actions(buf)
        return sorted(buf[i] for i in range(n))

    def apply_action(self, action):
        """Plays `action` for the player to move; raises ValueError if it is not legal."""
        legal = self.legal_actions()
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            who = self.c_current_player()
            raise ValueError(f"illegal action {action!r} for player {who} in {self.game_id}; "
                             f"legal: {', '.join(self.action_to_string(a) for a in legal) or 'none'}")
        self.c_apply_undoable(action)
        self._history.append(int(action))

    def apply_with_events(self, action):
        """Plays `action` exactly as `apply_action` does and returns what happened in it, as a list of
        `engines.events.Event` (the referee's view: hidden cards named; the vocabulary of each game is
        in engines/events.py). The action that ends the game also reports what each seat holds then.
        Nothing in the engine records events: they are read off the position before and after the
        action, here only, so `apply_action`, `c_apply` and the search loops pay nothing for them."""
        cdef GameState before = self._new_empty()
        before.c_copy_from(self)
        self.apply_action(action)
        return self._events(before, action)

    def _events(self, GameState before, int action):
        """engine: the events of `action`, just played from `before` to this position (position only:
        `before` has no history), as a list of engines.events.Event."""
        raise NotImplementedError(f"{self.game_id} reports no events")

    def undo_action(self):
        """Takes back the last action applied through `apply_action` and returns it."""
        if not self._history or self._undo_len == 0:
            raise IndexError("nothing to undo")
        self.c_undo()
        return self._history.pop()

    def history(self):
        """The actions applied through the Python face since this state (or its original) was made."""
        return list(self._history)

    def clone(self):
        """An independent copy, undo stack and history included."""
        cdef GameState s = self._new_empty()
        cdef size_t rec = sizeof(Rng) + self._pos_size
        s.c_copy_from(self)
        if self._undo_len:
            s._undo = <char*>realloc(NULL, self._undo_len * rec)
            if s._undo == NULL:
                raise MemoryError("clone")
            memcpy(s._undo, self._undo, self._undo_len * rec)
            s._undo_len = s._undo_cap = self._undo_len
        s._history = list(self._history)
        return s

    cdef int seat(self, player) except -1:
        """`player` as an index into the engine's per-player arrays; a seat that does not exist is refused
        before any array is read (the fast build has no bounds checks). Non-integers raise TypeError."""
        cdef object p = _operator.index(player)
        if not 0 <= p < self.num_players:
            raise ValueError(f"no player {p} in this {self.num_players}-player game of {self.game_id}")
        return p

    def current_player(self):
        return self.c_current_player()

    def is_terminal(self):
        return bool(self.c_is_terminal())

    def returns(self):
        """Each player's final score (meaningful once terminal)."""
        return [self.c_returns(p) for p in range(self.num_players)]

    def scores(self):
        """Each player's points so far."""
        return [self.c_score(p) for p in range(self.num_players)]

    def round(self):
        return self.c_round()

    def evaluate(self, player):
        """The engine's heuristic value of this position for `player` (used by greedy and minimax)."""
        return self.c_evaluate(self.seat(player))

    def placements(self):
        """Final places for rating, 1 = best; equal returns share a place (1, 1, 3 for a shared win)."""
        r = self.returns()
        return [1 + sum(1 for other in r if other > mine) for mine in r]

    def information_state_key(self, player):
        """A 64-bit key, equal for states `player` cannot tell apart and different otherwise."""
        return self.c_infoset_key(self.seat(player))

    def action_view(self, observer, action):
        """How `observer` sees `action` taken here: the id of its class of actions the observer
        cannot tell apart (the action itself when the observer sees it whole)."""
        cdef int p = self.seat(observer)
        if not 0 <= action < self.num_distinct_actions:
            raise ValueError(f"action {action} is out of range for {self.game_id}")
        return self.c_action_view(p, action)

    def policy_action(self, seed=0):
        """The move the engine's playout policy makes here (`c_policy_action`; a draw seeded by
        `seed` where it is random)."""
        cdef Rng rng
        if self.c_is_terminal():
            raise ValueError("the game is over: no player to move")
        rng_seed(&rng, <uint64_t>seed)
        return self.c_policy_action(&rng)

    def move_patterns(self):
        """The move pattern of each legal action, in the order of `legal_actions`
        (`c_move_patterns`), for a learned playout policy."""
        cdef action_t buf[MAX_ACTIONS]
        cdef int32_t out[MAX_ACTIONS]
        if self.c_move_pattern_count() == 0:
            raise ValueError(f"{self.game_id} describes its moves by no patterns")
        if self.c_is_terminal():
            raise ValueError("the game is over: no player to move")
        cdef int k = self.c_legal_actions(buf)
        self.c_move_patterns(buf, k, out)
        return [int(out[i]) for i in range(k)]

    def move_pattern_count(self):
        """How many move patterns the engine describes its moves by (0: none)."""
        return self.c_move_pattern_count()

    def plausibility(self, observer):
        """How likely, in (0, 1], the other players' moves so far are with what they hold here, for
        this state as a world `observer` cannot tell from the truth (`c_plausibility`)."""
        return self.c_plausibility(self.seat(observer))

    def determinize(self, player, seed=None):
        """A new state: this one with everything `player` cannot see resampled consistently."""
        cdef int p = self.seat(player)
        cdef Rng rng
        rng_seed(&rng, _random.getrandbits(64) if seed is None else <uint64_t>seed)
        # Position only: the undo stack and history would hold the true past, and cost a copy per move.
        cdef GameState s = self._new_empty()
        s.c_copy_from(self)
        s.c_determinize(p, &rng)
        return s

    def rollout(self, seed=0, horizon="game"):
        """Plays uniformly random actions (C-level) to the end of the game or of the current round."""
        cdef Rng rng
        rng_seed(&rng, <uint64_t>seed)
        self.c_rollout(&rng, HORIZON_ROUND if horizon == "round" else HORIZON_GAME)
        self._undo_len = 0
        self._history = []

    def action_to_string(self, int action):
        return str(action)

    def string_to_action(self, str text):
        """Parses an action name as `action_to_string` prints it (case- and space-insensitive)."""
        wanted = " ".join(text.lower().split())
        for a in (self.legal_actions() + list(range(self.num_distinct_actions))):
            if " ".join(self.action_to_string(a).lower().split()) == wanted:
                return a
        raise ValueError(f"unknown action {text!r} in {self.game_id}")

    def observation(self, player):
        """A JSON-ready dict of exactly what `player` sees (engines check the seat with `seat` first)."""
        raise NotImplementedError

    def metrics(self):
        """Per-game figures of a finished match, stored with it: {name: [one number per seat]}
        (Wizard: bid accuracy); none by default."""
        return {}

    def snapshot(self):
        """The exact position as bytes (chance RNG included): equal snapshots mean equal states."""
        return (PyBytes_FromStringAndSize(<char*>&self.chance, sizeof(Rng))
                + PyBytes_FromStringAndSize(<char*>self._pos, self._pos_size))

    def __reduce__(self):
        cdef size_t rec = sizeof(Rng) + self._pos_size
        undo = PyBytes_FromStringAndSize(self._undo, self._undo_len * rec) if self._undo_len else b""
        return (_restore, (type(self), self.game_id, self.params, self.num_players,
                           self.num_distinct_actions, self.snapshot(), undo, list(self._history)))

    def __eq__(self, other):
        return type(other) is type(self) and other.params == self.params and other.snapshot() == self.snapshot()

    def __hash__(self):
        return hash(self.snapshot())


# ---- throughput loops for `arena bench`: whole loops in C, timed by the caller ----

def run_rollouts(GameState proto, long n, uint64_t seed, int horizon=HORIZON_GAME):
    """n random playouts, each from a fresh deal (c_reset) of proto's game to its end."""
    cdef GameState s = proto.clone()
    cdef Rng rng
    cdef long i
    rng_seed(&rng, seed)
    with nogil:
        for i in range(n):
            s.c_reset(seed + <uint64_t>i)
            s.c_rollout(&rng, horizon)


def run_clones(GameState proto, long n):
    """n copies of proto's position into a scratch state (what search agents do per iteration)."""
    cdef GameState s = proto.clone()
    cdef long i
    with nogil:
        for i in range(n):
            s.c_copy_from(proto)


def run_apply_undo(GameState proto, long n, uint64_t seed):
    """n apply+undo pairs on random legal actions of proto's position."""
    cdef GameState s = proto.clone()
    cdef action_t buf[MAX_ACTIONS]
    cdef Rng rng
    cdef long i
    cdef int k = s.c_legal_actions(buf)
    rng_seed(&rng, seed)
    if k == 0:
        raise ValueError("the position has no legal action")
    with nogil:
        for i in range(n):
            s.c_apply_undoable(buf[rng_below(&rng, k)])
            s.c_undo()


def _restore(cls, game_id, params, num_players, num_distinct_actions, snap, undo, history):
    cdef GameState s = cls.__new__(cls)
    cdef const unsigned char[:] view
    cdef size_t rec
    s.game_id, s.params = game_id, params
    s.num_players, s.num_distinct_actions = num_players, num_distinct_actions
    if len(snap) != sizeof(Rng) + s._pos_size:
        raise ValueError("state snapshot does not match this engine build")
    view = snap
    memcpy(&s.chance, &view[0], sizeof(Rng))
    memcpy(s._pos, &view[sizeof(Rng)], s._pos_size)
    rec = sizeof(Rng) + s._pos_size
    if undo:
        view = undo
        s._undo = <char*>realloc(NULL, len(undo))
        memcpy(s._undo, &view[0], len(undo))
        s._undo_len = s._undo_cap = len(undo) // rec
    s._history = list(history)
    return s
