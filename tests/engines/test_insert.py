"""Insert (DONUTS) against RULES.md sections 2 and 7.1.

Boards are drawn rank 6 first; R is player 0, W is player 1, '.' is empty.
"""
import random

import pytest
from engines.insert import InsertState, layout_from_tiles
from hypothesis import given
from hypothesis import strategies as st

import engines

FILES = "abcdef"
# A layout with only vertical lines on the left half and horizontal on the right does not matter
# for flips; the tile set is the RULES.md 7.1 default placed A B / C D.
LAYOUT = "ABCD"


def board(state):
    return state.observation(0)["board"]


def sq(name):
    return (int(name[1]) - 1) * 6 + FILES.index(name[0])


def play(rows, move, to_move=0, last=None, **params):
    s = InsertState.from_board(rows, to_move=to_move, last=last, tiles=LAYOUT, **params)
    s.apply_action(sq(move))
    return s


EMPTY = ["......"] * 6


def test_sandwich_of_one_flips_both_ends():
    """RULES.md 2.3.4: W_W -> WRW -> RRR."""
    s = play(EMPTY[:5] + ["W.W..."], "b1")
    assert board(s)[5] == "RRR..."


def test_longer_run_flips_only_the_two_bounding_rings():
    """RULES.md 2.3.4: WRR_RW -> WRRRW -> RRRRR (here with a W run behind that must stay)."""
    s = play(EMPTY[:5] + ["WRR.RW"], "d1")
    assert board(s)[5] == "RRRRRR"
    s = play(EMPTY[:4] + [".WRR.R", "......"], "e2")
    assert board(s)[4] == ".WRRRR", "a flip needs an opponent ring at both ends"


def test_only_the_adjacent_opponent_ring_flips_not_the_run_behind_it():
    """RULES.md 2.3.4 and 7.1: exactly the two bounding rings flip."""
    s = play(EMPTY[:5] + ["WWR.WW"], "d1")
    assert board(s)[5] == "WRRRRW"


def test_flanking_flips_nothing():
    """RULES.md 2.3.4: R W W _ -> R W W R changes nothing (not Othello)."""
    s = play(EMPTY[:5] + ["RWW..."], "d1")
    assert board(s)[5] == "RWWR.."


def test_a_flip_needs_both_ends():
    """RULES.md 2.3.4: a board edge or an empty square at either end means no flip."""
    assert board(play(EMPTY[:5] + [".W...."], "a1"))[5] == "RW...."   # edge on the left
    assert board(play(EMPTY[:5] + ["W..W.."], "b1"))[5] == "WR.W.."   # empty on the right


def test_no_chain_reaction():
    """RULES.md 2.3.4 and 7.1: a flipped ring never triggers further insertions."""
    rows = ["......", "......", "......", "..W...", "W.W...", "..W..."]
    s = play(rows, "b2")
    # c2 flipped to R now sits between W c1 and W c3, which must stay white
    assert board(s) == ["......", "......", "......", "..W...", "RRR...", "..W..."]


def test_several_axes_in_one_move():
    """RULES.md 2.3.4: axes are independent; one placement can make several insertions."""
    rows = ["......", "......", "......", ".W....", "W.W...", ".W...."]
    s = play(rows, "b2")
    assert board(s) == ["......", "......", "......", ".R....", "RRR...", ".R...."]


def test_diagonal_insertion_and_the_orthogonal_flag():
    """RULES.md 2.6 and 7.1: all four axes count; insert_axes=orthogonal ignores diagonals."""
    rows = ["......", "......", "......", "..W...", "......", "W....."]
    assert board(play(rows, "b2"))[3:] == ["..R...", ".R....", "R....."]
    assert board(play(rows, "b2", insert_axes="orthogonal"))[3:] == ["..W...", ".R....", "W....."]


def with_ring(rows, square, ring):
    """rows with `ring` placed on the square numbered `square`."""
    rank, f = divmod(square, 6)
    row = rows[5 - rank]
    return rows[:5 - rank] + [row[:f] + ring + row[f + 1:]] + rows[6 - rank:]


def test_the_line_through_the_last_ring_constrains_the_next_move():
    """RULES.md 2.3.3: legal squares are the empty squares on the full line through the last ring."""
    s = InsertState.from_board(EMPTY, tiles=LAYOUT)
    layout = s.layout()
    for last in range(36):
        s = InsertState.from_board(with_ring(EMPTY, last, "W"), last=last, tiles=LAYOUT)
        f, r = last % 6, last // 6
        step = {"H": (1, 0), "V": (0, 1), "/": (1, 1), "\\": (1, -1)}[layout[last]]
        line = set()
        for sign in (1, -1):
            x, y = f + sign * step[0], r + sign * step[1]
            while 0 <= x < 6 and 0 <= y < 6:
                line.add(y * 6 + x)
                x, y = x + sign * step[0], y + sign * step[1]
        # a corner whose diagonal leaves the board has an empty line: the move is free
        assert set(s.legal_actions()) == (line or set(range(36)) - {last})


def test_a_full_line_frees_the_next_move():
    """RULES.md 2.3.3: with no empty square on the line, any empty square is legal."""
    s = InsertState.from_board(EMPTY, tiles=LAYOUT)
    row1 = [sq(f + "1") for f in FILES]
    horizontal = next(x for x in row1 if s.layout()[x] == "H")
    s = InsertState.from_board(EMPTY[:5] + ["RWRWRW"], to_move=1 - horizontal % 2, last=horizontal, tiles=LAYOUT)
    assert s.legal_actions() == list(range(6, 36))


def test_five_in_a_row_made_by_a_flip_wins_at_once():
    """RULES.md 2.3.5: the win check comes after the flips."""
    rows = ["......", "W.W...", "R.....", "R.....", "R.....", "R....."]
    s = play(rows, "b5")
    assert board(s)[1] == "RRR..."
    assert s.is_terminal() and s.winner() == 0 and s.returns() == [1.0, -1.0]


def test_five_in_a_diagonal_wins():
    """RULES.md 2.3.5: five in a row horizontally, vertically or diagonally."""
    rows = ["......", "...R..", "..R...", ".R....", "R.....", "......"]
    s = play(rows, "e6")
    assert s.is_terminal() and s.winner() == 0


def largest_groups(rows, ring):
    """An independent flood fill (4-neighbourhood) for the end of the game."""
    seen, sizes = set(), []
    for r in range(6):
        for f in range(6):
            if rows[r][f] != ring or (r, f) in seen:
                continue
            stack, size = [(r, f)], 0
            seen.add((r, f))
            while stack:
                y, x = stack.pop()
                size += 1
                for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    ny, nx = y + dy, x + dx
                    if 0 <= ny < 6 and 0 <= nx < 6 and rows[ny][nx] == ring and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            sizes.append(size)
    return sorted(sizes, reverse=True)


def test_after_30_rings_the_largest_orthogonal_group_wins_or_it_is_a_draw():
    """RULES.md 2.4 and 7.1: largest orthogonal group after 30 plies; equal largest groups draw."""
    outcomes = set()
    for seed in range(5000):
        s = engines.make("insert", seed=seed)
        s.rollout(seed=seed)
        rows = board(s)
        if s.observation(0)["rings_placed"] < 30 or five_in_a_row(rows, "R") or five_in_a_row(rows, "W"):
            continue
        r, w = largest_groups(rows, "R")[0], largest_groups(rows, "W")[0]
        expected = [0.0, 0.0] if r == w else ([1.0, -1.0] if r > w else [-1.0, 1.0])
        assert s.returns() == expected, "\n".join(rows)
        outcomes.add(tuple(expected))
    assert len(outcomes) == 3, "the sample should contain wins for both and a draw"


def test_the_next_largest_tiebreak():
    """RULES.md 7.1: tiebreak=next_largest compares second-largest groups, then third, ..."""
    decided = 0
    for seed in range(5000):
        s = engines.make("insert", seed=seed, tiebreak="next_largest")
        s.rollout(seed=seed)
        rows = board(s)
        if s.observation(0)["rings_placed"] < 30 or five_in_a_row(rows, "R") or five_in_a_row(rows, "W"):
            continue
        r, w = largest_groups(rows, "R"), largest_groups(rows, "W")
        n = max(len(r), len(w))
        r, w = r + [0] * (n - len(r)), w + [0] * (n - len(w))
        expected = [0.0, 0.0] if r == w else ([1.0, -1.0] if r > w else [-1.0, 1.0])
        assert s.returns() == expected
        decided += r[0] == w[0] and r != w
    assert decided, "no game was decided by the tie-break in the sample"


def reference_move(rows, move, me, axes):
    """RULES.md 2.3.4 written plainly in Python: the rings a placement flips."""
    grid = [list(row) for row in reversed(rows)]       # grid[rank][file]
    mine, theirs = "RW"[me], "RW"[1 - me]
    f0, r0 = move % 6, move // 6
    grid[r0][f0] = mine
    dirs = [((1, 0), (-1, 0)), ((0, 1), (0, -1)), ((1, 1), (-1, -1)), ((1, -1), (-1, 1))][:axes]
    flips = []
    for pair in dirs:
        ends = []
        for dx, dy in pair:
            x, y = f0 + dx, r0 + dy
            while 0 <= x < 6 and 0 <= y < 6 and grid[y][x] == mine:
                x, y = x + dx, y + dy
            ends.append((x, y) if 0 <= x < 6 and 0 <= y < 6 else None)
        if all(e and grid[e[1]][e[0]] == theirs for e in ends):
            flips += ends
    for x, y in flips:
        grid[y][x] = mine
    return ["".join(row) for row in reversed(grid)]


def five_in_a_row(rows, ring):
    grid = list(reversed(rows))
    for r in range(6):
        for f in range(6):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(f + i * dx, r + i * dy) for i in range(5)]
                if all(0 <= x < 6 and 0 <= y < 6 and grid[y][x] == ring for x, y in cells):
                    return True
    return False


@given(seed=st.integers(0, 2**31), axes=st.sampled_from(["all4", "orthogonal"]))
def test_every_move_agrees_with_a_plain_reference(seed, axes):
    """RULES.md 2.3: flips, the immediate win and the turn order, checked move by move."""
    s = engines.make("insert", seed=seed, insert_axes=axes)
    rng = random.Random(seed)
    while not s.is_terminal():
        me = s.current_player()
        move = rng.choice(s.legal_actions())
        expected = reference_move(board(s), move, me, 4 if axes == "all4" else 2)
        s.apply_action(move)
        assert board(s) == expected
        if five_in_a_row(expected, "RW"[me]):
            assert s.is_terminal() and s.winner() == me
        elif s.observation(0)["rings_placed"] < 30:
            assert not s.is_terminal() and s.current_player() == 1 - me


def test_tiles_are_data_and_the_board_is_a_permutation_of_them():
    """RULES.md 7.1: the four tiles in a random permutation of the 2x2 positions, no rotation."""
    layouts = {engines.make("insert", seed=seed).layout() for seed in range(200)}
    assert len(layouts) == 24
    assert layout_from_tiles("ABCD") in layouts
    rotated = {engines.make("insert", seed=seed, tile_rotation="random").layout() for seed in range(50)}
    assert len(rotated - layouts) > 0


def test_actions_print_as_squares_and_the_board_draws():
    s = engines.make("insert", seed=0)
    assert [s.action_to_string(a) for a in (0, 5, 30, 35)] == ["a1", "f1", "a6", "f6"]
    assert s.string_to_action("C4") == sq("c4")
    with pytest.raises(ValueError, match="a1..f6"):
        s.string_to_action("g7")
    first = "RW"[s.current_player()]
    s.apply_action(sq("c3"))
    drawing = str(s)
    assert f"[{first}" in drawing and "a   b   c" in drawing and f"{'RW'[1 - 'RW'.index(first)]} to move" in drawing


def test_an_illegal_action_is_refused_with_the_legal_ones_named():
    s = InsertState.from_board(EMPTY[:5] + ["W....."], last="a1", tiles=LAYOUT)
    illegal = next(a for a in range(36) if a not in s.legal_actions())
    with pytest.raises(ValueError, match="illegal action"):
        s.apply_action(illegal)


def test_the_zobrist_key_includes_side_to_move_and_last_square():
    """RULES.md 2.5: the last square fixes the next legal moves, so it is part of the key."""
    a = InsertState.from_board(EMPTY[:5] + ["R....."], to_move=1, last="a1", tiles=LAYOUT)
    b = InsertState.from_board(EMPTY[:5] + ["R....."], to_move=1, last=None, tiles=LAYOUT)
    c = InsertState.from_board(EMPTY[:5] + ["R....."], to_move=0, last=None, tiles=LAYOUT)
    assert len({a.zobrist_key(), b.zobrist_key(), c.zobrist_key()}) == 3
    # reaching the same position by another order gives the same key
    x = InsertState.from_board(EMPTY, tiles=LAYOUT)
    y = InsertState.from_board(EMPTY, tiles=LAYOUT)
    for s, order in ((x, ["a1", "f6", "b1"]), (y, ["b1", "f6", "a1"])):
        for m in order:
            a_ = sq(m)
            if a_ in s.legal_actions():
                s.apply_action(a_)
    if board(x) == board(y) and x.observation(0)["last"] == y.observation(0)["last"]:
        assert x.zobrist_key() == y.zobrist_key()


# ---- from_board: only positions the rules can reach, and the game ends where the rules end it ----

# 30 rings (15 + 15 placements, RULES.md 2.1), no five in a row anywhere; R's largest group is 10, W's 5.
THIRTY = ["RWRW.R",
          "RRWW.R",
          ".RRRWW",
          "WRWR.W",
          "WRWR.W",
          "WWR.RW"]


def test_thirty_rings_without_a_five_end_the_game_by_the_largest_group():
    """RULES.md 2.4 and 2.7.7: the game ends when all 30 rings are placed; no 31st ring is offered."""
    assert not five_in_a_row(THIRTY, "R") and not five_in_a_row(THIRTY, "W")
    assert largest_groups(THIRTY, "R")[0] > largest_groups(THIRTY, "W")[0]
    for to_move in (0, 1):
        s = InsertState.from_board(THIRTY, to_move=to_move, tiles=LAYOUT)
        assert s.is_terminal() and s.legal_actions() == [] and s.current_player() == -1
        assert s.winner() == 0 and s.returns() == [1.0, -1.0]


def test_more_than_thirty_rings_are_refused():
    """RULES.md 2.1: 15 rings per player, 30 in all."""
    with pytest.raises(ValueError, match="31 rings"):
        InsertState.from_board(with_ring(THIRTY, sq("e6"), "W"), tiles=LAYOUT)


def test_a_five_made_by_the_last_mover_is_a_finished_game():
    """RULES.md 2.3.5: five in a row wins at once, before the 30-ring count (2.4) is looked at."""
    rows = ["......", "......", "......", "......", "......", "RRRRRW"]
    s = InsertState.from_board(rows, to_move=1, last="e1", tiles=LAYOUT)
    assert s.is_terminal() and s.winner() == 0 and s.legal_actions() == []
    # 30 rings and R's diagonal a1-f6: R wins though W has the largest group (6 against 5)
    rows = [".RRWRR", "RWWWR.", "WR.RW.", "WWRWR.", "RRR.WW", "RWWWWR"]
    assert largest_groups(rows, "W")[0] > largest_groups(rows, "R")[0]
    s = InsertState.from_board(rows, to_move=1, last="e5", tiles=LAYOUT)
    assert s.is_terminal() and s.winner() == 0


def test_a_five_of_the_player_to_move_is_refused():
    """RULES.md 2.3.5: that five ended the game when it was made; the opponent's moves can only break
    it (flips turn rings into the mover's colour), never make it, so the position cannot be reached."""
    rows = ["......", "......", "......", "......", "W.....", "RRRRR."]
    with pytest.raises(ValueError, match="R, to move, already has five"):
        InsertState.from_board(rows, to_move=0, tiles=LAYOUT)
    with pytest.raises(ValueError, match="already has five"):
        InsertState.from_board(["RRRRR.", "WWWWW.", *EMPTY[:4]], to_move=1, tiles=LAYOUT)


def test_the_previous_ring_must_be_the_previous_movers():
    """RULES.md 2.3.1-3: players alternate, and `last` is the ring the opponent of the player to move
    just placed, so it lies on the board in that opponent's colour (flips only go the mover's way)."""
    rows = EMPTY[:5] + ["RW...."]
    with pytest.raises(ValueError, match="must be W's"):
        InsertState.from_board(rows, to_move=0, last="a1", tiles=LAYOUT)
    with pytest.raises(ValueError, match="must be W's"):
        InsertState.from_board(rows, to_move=0, last="c1", tiles=LAYOUT)          # an empty square
    with pytest.raises(ValueError, match="no square"):
        InsertState.from_board(rows, to_move=0, last=36, tiles=LAYOUT)
    with pytest.raises(ValueError, match="no player 2"):
        InsertState.from_board(rows, to_move=2, last="a1", tiles=LAYOUT)
    assert InsertState.from_board(rows, to_move=0, last="b1", tiles=LAYOUT).current_player() == 0


def rebuilt(s):
    """s drawn again with from_board, as a test would draw it."""
    obs = s.observation(0)
    rows, last = obs["board"], obs["last"]
    to_move = s.current_player() if last is None else 1 - "RW".index(rows[6 - int(last[1])][FILES.index(last[0])])
    return InsertState.from_board(rows, to_move=to_move, last=last, tiles=s.layout(),
                                  insert_axes=s.params["insert_axes"], tiebreak=s.params["tiebreak"])


@given(seed=st.integers(0, 2**31), tiebreak=st.sampled_from(["draw", "next_largest"]))
def test_every_position_of_a_game_draws_again_as_itself(seed, tiebreak):
    """Every position play reaches, finished ones included (RULES.md 2.3.5, 2.4), is accepted by
    from_board and is the same position: same view, legal moves, key and result."""
    s = engines.make("insert", seed=seed, tiebreak=tiebreak)
    rng = random.Random(seed)
    while True:
        r = rebuilt(s)
        assert r.observation(0) == s.observation(0)
        assert r.zobrist_key() == s.zobrist_key()
        assert r.is_terminal() == s.is_terminal() and r.returns() == s.returns()
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))


def test_the_evaluation_sees_a_five_the_mover_can_complete():
    """c_evaluate: a window of four of the mover's rings whose fifth square is legal now is a win
    next ply (+-500 for the mover); the same board where the fifth is not legal is scored as usual."""
    rows = ["......", "....W.", "...W..", "RRRR..", "..W...", "......"]
    threat = InsertState.from_board(rows, to_move=0, last="e5", tiles=LAYOUT)   # e3 on the e file
    assert sq("e3") in threat.legal_actions()
    assert threat.evaluate(0) == 500.0 and threat.evaluate(1) == -500.0
    quiet = InsertState.from_board(rows, to_move=0, last="c2", tiles=LAYOUT)    # c2's line: b3 a4 d1
    assert sq("e3") not in quiet.legal_actions()
    assert 0 < quiet.evaluate(0) < 500 and quiet.evaluate(1) == -quiet.evaluate(0)
    # W to move cannot use R's four: no win next ply for W, and R's four is not counted as W's
    w_to_move = InsertState.from_board(["......", "....W.", "...W..", "RRRR..", "..W...", ".....W"],
                                       to_move=1, last="d3", tiles=LAYOUT)
    assert abs(w_to_move.evaluate(0)) < 500


def test_events_of_an_insertion_name_the_tiles_and_squares():
    """RULES.md 2.3.4: W_W -> WRW -> RRR flips both bounding rings; 7.1: tiles A B / C D, so rank 1,
    files a-c are tile C; b1 is on the board's edge."""
    from engines.events import Event
    s = InsertState.from_board(EMPTY[:5] + ["W.W..."], tiles=LAYOUT)
    assert s.apply_with_events(sq("b1")) == [Event("ring_placed", 0, "C", "b1 edge"),
                                             Event("ring_flipped", 0, "C", "a1"), Event("ring_flipped", 0, "C", "c1")]


def test_events_of_the_first_ring_lay_out_the_tiles():
    """RULES.md 7.1: the four tiles in a permutation of the 2x2 positions, reported with the first ring."""
    from engines.events import Event
    s = engines.make("insert", tiles="BADC", seed=0)
    mover = s.current_player()
    events = s.apply_with_events(sq("c3"))
    assert events[:4] == [Event("tile_laid", -1, "B", "top-left turned 0"), Event("tile_laid", -1, "A", "top-right turned 0"),
                          Event("tile_laid", -1, "D", "bottom-left turned 0"),
                          Event("tile_laid", -1, "C", "bottom-right turned 0")]
    assert events[4] == Event("ring_placed", mover, "D", "c3 centre")
