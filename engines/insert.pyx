"""Insert (BGA), published as DONUTS: rules in RULES.md sections 2 and 7.1.

Squares are numbered rank * 6 + file (a1 = 0, f1 = 5, a6 = 30, f6 = 35); player 0 plays red (R),
player 1 white (W). An action is the square a ring is placed on.
"""
import json
import os
from functools import lru_cache
from libc.stdint cimport uint64_t, int8_t
from libc.string cimport memset
from engines.core cimport GameState, Rng, action_t, rng_seed, rng_next, rng_below
from engines.registry import engine_params
from engines.events import Event, ended
cimport cython

DEF N = 36          # squares
DEF RINGS = 30      # 15 per player: the game ends after 30 plies

cdef struct InsertPos:
    uint64_t key            # Zobrist key: rings, side to move, last square (tile layout excluded)
    uint64_t layout_key     # hash of the tile layout (part of the infoset key)
    int8_t owner[N]         # -1 empty, else the player whose ring is there
    int8_t orient[N]        # line through each square: 0 H, 1 V, 2 rising /, 3 falling backslash
    int8_t last             # square of the previous ring, -1 before the first move
    int8_t to_move
    int8_t ply              # rings placed
    int8_t winner           # -1 while playing, 0 or 1, 2 for a draw
    int8_t axes             # insertion axes counted: 4 (all) or 2 (orthogonal)
    int8_t tiebreak_next    # compare next largest groups on equal largest groups
    int8_t first_player
    int8_t _pad

# Rays from each square in 8 directions; direction 2k and 2k+1 form axis k (same codes as orient).
cdef int8_t RAY[N][8][5]
cdef int8_t RAY_LEN[N][8]
cdef uint64_t Z_RING[N][2]
cdef uint64_t Z_LAST[N + 1]
cdef uint64_t Z_SIDE
cdef int8_t WINDOWS[32][5]       # every 5-square segment of a row, column or diagonal
cdef int N_WINDOWS = 0

ORIENT_CHARS = "HV/\\"
LINE_MARKS = "-|/\\"
RING_CHARS = "RW"


cdef void _init_tables():
    cdef int dfs[8]
    cdef int drs[8]
    cdef int s, d, f, r, k, i
    cdef Rng rng
    dfs[:] = [1, -1, 0, 0, 1, -1, 1, -1]
    drs[:] = [0, 0, 1, -1, 1, -1, -1, 1]
    for s in range(N):
        for d in range(8):
            f, r, k = s % 6 + dfs[d], s // 6 + drs[d], 0
            while 0 <= f < 6 and 0 <= r < 6:
                RAY[s][d][k] = r * 6 + f
                k += 1
                f += dfs[d]
                r += drs[d]
            RAY_LEN[s][d] = k
    rng_seed(&rng, 0x1A5E27)
    for s in range(N):
        Z_RING[s][0] = rng_next(&rng)
        Z_RING[s][1] = rng_next(&rng)
    for s in range(N + 1):
        Z_LAST[s] = rng_next(&rng)
    global Z_SIDE, N_WINDOWS
    Z_SIDE = rng_next(&rng)
    # a window starts at s going in the positive direction of each axis (E, N, NE, SE)
    for s in range(N):
        for d in range(0, 8, 2):
            if RAY_LEN[s][d] >= 4:
                WINDOWS[N_WINDOWS][0] = s
                for i in range(4):
                    WINDOWS[N_WINDOWS][i + 1] = RAY[s][d][i]
                N_WINDOWS += 1

_init_tables()


def _load_tiles():
    with open(os.path.join(os.path.dirname(__file__), "data", "insert_tiles.json")) as f:
        raw = json.load(f)["tiles"]
    return {name: [row.split() for row in rows] for name, rows in raw.items()}

TILES = _load_tiles()


def layout_from_tiles(order, rotations=(0, 0, 0, 0)):
    """The 36 line orientations (rank-major from a1) of tiles placed top-left, top-right,
    bottom-left, bottom-right, each turned clockwise by 90 degrees times its rotation."""
    swap = {"H": "V", "V": "H", "/": "\\", "\\": "/"}
    grid = [[None] * 6 for _ in range(6)]          # grid[visual row from the top][file]
    for pos, (name, turns) in enumerate(zip(order, rotations)):
        cells = [list(row) for row in TILES[name]]
        for _ in range(turns % 4):
            cells = [[swap[cells[2 - c][r]] for c in range(3)] for r in range(3)]
        for r in range(3):
            for c in range(3):
                grid[3 * (pos // 2) + r][3 * (pos % 2) + c] = cells[r][c]
    return "".join(grid[5 - rank][f] for rank in range(6) for f in range(6))


cdef inline int _run_end(InsertPos* p, int s, int d, int me) noexcept nogil:
    """The first square beyond the run of `me`'s rings from s in direction d; -1 off the board."""
    cdef int i
    for i in range(RAY_LEN[s][d]):
        if p.owner[RAY[s][d][i]] != me:
            return RAY[s][d][i]
    return -1

cdef inline int _line_length(InsertPos* p, int s, int axis, int me) noexcept nogil:
    cdef int n = 1, i, d
    for d in range(2 * axis, 2 * axis + 2):
        for i in range(RAY_LEN[s][d]):
            if p.owner[RAY[s][d][i]] != me:
                break
            n += 1
    return n

cdef inline void _flip(InsertPos* p, int s, int me) noexcept nogil:
    p.key ^= Z_RING[s][1 - me] ^ Z_RING[s][me]
    p.owner[s] = me

cdef inline bint _has_five(InsertPos* p, int s, int me) noexcept nogil:
    cdef int axis
    for axis in range(4):
        if _line_length(p, s, axis, me) >= 5:
            return True
    return False

cdef bint _any_five(InsertPos* p, int me) noexcept nogil:
    cdef int s
    for s in range(N):
        if p.owner[s] == me and _has_five(p, s, me):
            return True
    return False

cdef int _groups(InsertPos* p, int me, int* sizes) noexcept nogil:
    """Sizes of `me`'s orthogonal groups, largest first; returns how many."""
    cdef int seen[N]
    cdef int stack[N]
    cdef int s, t, top, n = 0, size, d, i, j, k
    memset(seen, 0, sizeof(seen))
    for s in range(N):
        if p.owner[s] != me or seen[s]:
            continue
        seen[s] = 1
        stack[0] = s
        top, size = 1, 0
        while top:
            top -= 1
            t = stack[top]
            size += 1
            for d in range(4):
                if RAY_LEN[t][d]:
                    i = RAY[t][d][0]
                    if p.owner[i] == me and not seen[i]:
                        seen[i] = 1
                        stack[top] = i
                        top += 1
        # insertion sort, descending
        j = n
        while j > 0 and sizes[j - 1] < size:
            sizes[j] = sizes[j - 1]
            j -= 1
        sizes[j] = size
        n += 1
    return n

cdef int _legal(InsertPos* p, action_t* out) noexcept nogil:
    cdef int n = 0, d, i, s, o
    if p.last >= 0:
        o = p.orient[p.last]
        for d in range(2 * o, 2 * o + 2):
            for i in range(RAY_LEN[p.last][d]):
                s = RAY[p.last][d][i]
                if p.owner[s] < 0:
                    out[n] = s
                    n += 1
        if n:
            return n
    for s in range(N):
        if p.owner[s] < 0:
            out[n] = s
            n += 1
    return n

cdef void _finish_by_groups(InsertPos* p) noexcept nogil:
    cdef int a[N]
    cdef int b[N]
    cdef int na = _groups(p, 0, a), nb = _groups(p, 1, b), i
    cdef int limit = (na if na > nb else nb) if p.tiebreak_next else 1
    p.winner = 2
    for i in range(limit):
        if (a[i] if i < na else 0) != (b[i] if i < nb else 0):
            p.winner = 0 if (a[i] if i < na else 0) > (b[i] if i < nb else 0) else 1
            return

cdef void _place(InsertPos* p, int s) noexcept nogil:
    cdef int me = p.to_move, opp = 1 - p.to_move, axis, x, y
    cdef int flipped[8]
    cdef int nflip = 0, i
    p.owner[s] = me
    p.key ^= Z_RING[s][me] ^ Z_LAST[p.last + 1] ^ Z_LAST[s + 1] ^ Z_SIDE
    p.last = s
    p.ply += 1
    p.to_move = opp
    # insertion: on each axis, the two opponent rings bounding the run through s flip (no chain)
    for axis in range(p.axes):
        x = _run_end(p, s, 2 * axis, me)
        y = _run_end(p, s, 2 * axis + 1, me)
        if x >= 0 and y >= 0 and p.owner[x] == opp and p.owner[y] == opp:
            flipped[nflip] = x
            flipped[nflip + 1] = y
            nflip += 2
    for i in range(nflip):
        _flip(p, flipped[i], me)
    if _has_five(p, s, me):
        p.winner = me
        return
    for i in range(nflip):
        if _has_five(p, flipped[i], me):
            p.winner = me
            return
    if p.ply == RINGS:
        _finish_by_groups(p)


QUADRANTS = ("top-left", "top-right", "bottom-left", "bottom-right")


@lru_cache(maxsize=64)
def _tiles(layout: str) -> tuple:
    """(tile, turns) in each quadrant of a board layout, found by matching every tile and turn."""
    found = []
    for q in range(4):
        squares = [sq for sq in range(36) if _quadrant(sq) == q]
        found.append(next(((t, k) for t in sorted(TILES) for k in range(4)
                           if all(layout_from_tiles([t] * 4, (k,) * 4)[sq] == layout[sq] for sq in squares)),
                          ("", 0)))       # a layout given square by square, not made of the tiles
    return tuple(found)


def _quadrant(sq: int) -> int:
    rank, file = divmod(sq, 6)
    return 2 * ((5 - rank) // 3) + file // 3


cdef class InsertState(GameState):
    cdef InsertPos s

    def __cinit__(self, *args, **kwargs):
        self._pos = &self.s
        self._pos_size = sizeof(InsertPos)

    def __init__(self, dict params, seed=0):
        cdef int i
        params = engine_params("insert", params, 2)     # defaults, player count and choices
        self.game_id = "insert"
        self.params = params
        self.num_players = params["players"]
        self.num_distinct_actions = N
        rng_seed(&self.chance, <uint64_t>seed)
        tiles = params["tiles"]
        if len(tiles) == N:
            layout = tiles
        elif sorted(tiles) == ["A", "B", "C", "D"]:
            layout = layout_from_tiles(tiles)
        elif tiles == "":
            order = ["A", "B", "C", "D"]
            for i in range(3, 0, -1):
                j = rng_below(&self.chance, i + 1)
                order[i], order[j] = order[j], order[i]
            turns = [rng_below(&self.chance, 4) if params["tile_rotation"] == "random" else 0
                     for _ in range(4)]
            layout = layout_from_tiles(order, turns)
        else:
            raise ValueError("tiles must be a permutation of ABCD or 36 line marks from H V / \\")
        if any(c not in ORIENT_CHARS for c in layout):
            raise ValueError("tiles must be a permutation of ABCD or 36 line marks from H V / \\")
        memset(&self.s, 0, sizeof(InsertPos))
        for i in range(N):
            self.s.orient[i] = ORIENT_CHARS.index(layout[i])
            self.s.layout_key = self.s.layout_key * 1099511628211ULL + <uint64_t>(self.s.orient[i] + 1)
        self.s.axes = 2 if params["insert_axes"] == "orthogonal" else 4
        self.s.tiebreak_next = params["tiebreak"] == "next_largest"
        self._start(rng_below(&self.chance, 2))

    cdef void _start(self, int first_player) noexcept nogil:
        """An empty board on the current layout, first_player to move."""
        cdef int i
        for i in range(N):
            self.s.owner[i] = -1
        self.s.last = -1
        self.s.ply = 0
        self.s.winner = -1
        self.s.first_player = first_player
        self.s.to_move = first_player
        self.s.key = Z_LAST[0] ^ (Z_SIDE if first_player else 0)

    cdef int c_reset(self, uint64_t seed) except -1 nogil:
        # The tile layout is part of the game's parameters here; a new game re-draws the first player.
        rng_seed(&self.chance, seed)
        self._start(rng_below(&self.chance, 2))
        return 0

    @classmethod
    def from_board(cls, rows, to_move=0, last=None, tiles="ABCD", **params):
        """A position drawn as 6 strings, rank 6 first, using R (player 0), W (player 1) and '.'.
        `last` is the square of the previous ring (`"c3"`), which fixes the legal moves; None leaves the
        next move free. A position the rules cannot reach is refused (ValueError); one where the game is
        over (a five just made, or all 30 rings placed: RULES.md 2.3.5 and 2.4) is terminal."""
        from engines.registry import resolve
        full = resolve("insert", tiles=tiles, **params)
        cdef InsertState st = cls(full, 0)
        cdef int rank, f, sq
        cdef int moving = st.seat(to_move), moved = 1 - moving     # moved: who placed the previous ring
        if len(rows) != 6 or any(len(r.replace(" ", "")) != 6 for r in rows):
            raise ValueError("the board is 6 rows of 6 squares")
        for rank in range(6):
            for f, ch in enumerate(rows[5 - rank].replace(" ", "")):
                sq = rank * 6 + f
                if ch in RING_CHARS:
                    st.s.owner[sq] = RING_CHARS.index(ch)
                    st.s.key ^= Z_RING[sq][st.s.owner[sq]]
                    st.s.ply += 1
                elif ch != ".":
                    raise ValueError(f"unknown square mark {ch!r}")
        if st.s.ply > RINGS:
            raise ValueError(f"{st.s.ply} rings on the board: the players have {RINGS} (RULES.md 2.1)")
        st.s.key ^= Z_SIDE if st.s.to_move else 0
        st.s.to_move = moving
        st.s.first_player = moving if st.s.ply % 2 == 0 else moved
        st.s.key ^= Z_SIDE if st.s.to_move else 0
        if last is not None:
            sq = st.string_to_action(last if isinstance(last, str) else st.action_to_string(last))
            if st.s.owner[sq] != moved:
                raise ValueError(f"the previous ring, on {st.action_to_string(sq)}, must be {RING_CHARS[moved]}'s: "
                                 f"{RING_CHARS[moved]} moved last when {RING_CHARS[moving]} is to move")
            st.s.key ^= Z_LAST[0] ^ Z_LAST[sq + 1]
            st.s.last = sq
        if _any_five(&st.s, moving):
            raise ValueError(f"{RING_CHARS[moving]}, to move, already has five in a row: the game ended "
                             "when that line was made (RULES.md 2.3.5)")
        if _any_five(&st.s, moved):
            st.s.winner = moved
        elif st.s.ply == RINGS:
            _finish_by_groups(&st.s)
        return st

    cdef int c_apply(self, action_t a) except -1 nogil:
        _place(&self.s, a)
        return 0

    cdef int c_legal_actions(self, action_t* out) noexcept nogil:
        if self.s.winner >= 0:
            return 0
        return _legal(&self.s, out)

    cdef int c_current_player(self) noexcept nogil:
        return -1 if self.s.winner >= 0 else self.s.to_move

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.s.winner >= 0

    cdef double c_returns(self, int p) noexcept nogil:
        if self.s.winner < 0 or self.s.winner == 2:
            return 0.0
        return 1.0 if self.s.winner == p else -1.0

    cdef double c_evaluate(self, int p) noexcept nogil:
        """Terminal: +-1000. A five the player to move can complete at once (a window of four of its
        rings whose fifth square is legal now; fives made by flips are not looked for): +-500 for
        the mover. Otherwise open five-windows (squared ring counts) and largest groups."""
        cdef int w, i, mine, theirs, sq, empty, n
        cdef int mover = self.s.to_move
        cdef double v = 0.0
        cdef int ga[N]
        cdef int gb[N]
        cdef action_t buf[N]
        cdef int8_t legal[N]
        if self.s.winner >= 0:
            return 1000.0 * self.c_returns(p)
        memset(legal, 0, sizeof(legal))
        n = _legal(&self.s, buf)
        for i in range(n):
            legal[buf[i]] = 1
        for w in range(N_WINDOWS):
            mine = theirs = 0
            empty = -1
            for i in range(5):
                sq = self.s.owner[WINDOWS[w][i]]
                if sq == p:
                    mine += 1
                elif sq >= 0:
                    theirs += 1
                else:
                    empty = WINDOWS[w][i]
            if mine + theirs == 4 and (mine == 4 if p == mover else theirs == 4) and legal[empty]:
                return 500.0 if p == mover else -500.0
            if theirs == 0:
                v += mine * mine
            elif mine == 0:
                v -= theirs * theirs
        ga[0] = gb[0] = 0
        _groups(&self.s, p, ga)
        _groups(&self.s, 1 - p, gb)
        return v + 3.0 * (ga[0] - gb[0])

    cdef uint64_t c_infoset_key(self, int p) noexcept nogil:
        return self.s.key ^ (self.s.layout_key * 0x9E3779B97F4A7C15ULL)

    cdef int c_rollout(self, Rng* rng, int horizon) except -1 nogil:
        cdef action_t buf[N]
        cdef int n
        while self.s.winner < 0:
            n = _legal(&self.s, buf)
            _place(&self.s, buf[rng_below(rng, n)])
        return 0

    # ---- Python face ----
    def zobrist_key(self):
        return self.s.key

    def action_to_string(self, int action):
        if not 0 <= action < N:
            raise ValueError(f"no square {action}")
        return "abcdef"[action % 6] + str(action // 6 + 1)

    def string_to_action(self, str text):
        t = text.strip().lower()
        if len(t) == 2 and t[0] in "abcdef" and t[1] in "123456":
            return (int(t[1]) - 1) * 6 + "abcdef".index(t[0])
        raise ValueError(f"unknown square {text!r}: squares are a1..f6")

    def winner(self):
        """0 or 1, None for a draw or while playing."""
        return self.s.winner if self.s.winner in (0, 1) else None

    def groups(self, player):
        """Sizes of `player`'s orthogonal groups, largest first."""
        cdef int sizes[N]
        cdef int n = _groups(&self.s, self.seat(player), sizes)
        return [sizes[i] for i in range(n)]

    def layout(self):
        return "".join(ORIENT_CHARS[self.s.orient[i]] for i in range(N))

    @cython.boundscheck(True)       # plain Python indexing here, negative indices included
    @cython.wraparound(True)
    def _events(self, GameState before, int action):
        """Insert's events of `action`, played from `before` to here (GameState.apply_with_events)."""
        p = before.current_player()
        tiles = _tiles(before.layout())
        out = []
        if before.observation(p)["rings_placed"] == 0:
            out.extend(Event("tile_laid", -1, t, f"{QUADRANTS[q]} turned {k}") for q, (t, k) in enumerate(tiles))
        rank, file = divmod(action, 6)
        where = "centre" if 1 <= rank <= 4 and 1 <= file <= 4 else "edge"
        sq_name = before.action_to_string(action)
        out.append(Event("ring_placed", p, tiles[_quadrant(action)][0], f"{sq_name} {where}"))
        board_before, board_after = before.observation(p)["board"], self.observation(p)["board"]
        for sq in range(36):
            r, f = divmod(sq, 6)
            if sq != action and board_before[5 - r][f] != board_after[5 - r][f]:
                out.append(Event("ring_flipped", p, tiles[_quadrant(sq)][0], before.action_to_string(sq)))
        if ended(before, self):
            out.extend(Event("largest_group_at_end", q, "group", str(max(self.groups(q), default=0)))
                       for q in range(self.num_players))
        return out

    def observation(self, player):
        player = self.seat(player)
        return {
            "board": ["".join(".RW"[self.s.owner[r * 6 + f] + 1] for f in range(6)) for r in range(5, -1, -1)],
            "lines": ["".join(ORIENT_CHARS[self.s.orient[r * 6 + f]] for f in range(6)) for r in range(5, -1, -1)],
            "to_move": self.c_current_player(),
            "last": None if self.s.last < 0 else self.action_to_string(self.s.last),
            "rings_placed": int(self.s.ply),
            "legal": [self.action_to_string(a) for a in self.legal_actions()],
        }

    def __str__(self):
        legal = set(self.legal_actions())
        out = []
        for r in range(5, -1, -1):
            cells = []
            for f in range(6):
                sq = r * 6 + f
                ring = ".RW"[self.s.owner[sq] + 1]
                cell = ring + LINE_MARKS[self.s.orient[sq]]
                cells.append(f"[{cell}]" if sq == self.s.last else (f"<{cell}>" if sq in legal else f" {cell} "))
            out.append(f"{r + 1} " + "".join(cells))
        out.append("    a   b   c   d   e   f")
        if self.s.winner >= 0:
            out.append("draw" if self.s.winner == 2 else f"{RING_CHARS[self.s.winner]} wins")
        else:
            out.append(f"{RING_CHARS[self.s.to_move]} to move, ring {self.s.ply + 1} of 30; "
                       "[ ] last ring, < > legal squares")
        return "\n".join(out)
