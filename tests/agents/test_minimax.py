"""The `alphabeta` and `minimax` agents (agents/minimax.pyx): exact play on small Insert positions,
refusals, hidden information, determinism and complete games on every registered engine."""
import random

import pytest
from engines.insert import InsertState

import agents
import engines
from agents.base import WEYL
from engines.registry import GAMES, GameSpec


def exhaustive(s):
    """Plain minimax over the Python face: the final result (+1, 0, -1) for the player to move."""
    p = s.current_player()
    best = -2
    for a in s.legal_actions():
        s.apply_action(a)
        if s.is_terminal():
            v = s.returns()[p]
        else:
            v = exhaustive(s) if s.current_player() == p else -exhaustive(s)
        s.undo_action()
        best = max(best, v)
        if best == 1:
            break
    return best


def outcome(value):
    """alphabeta's root value as a game result: wins and losses score beyond +-1e6."""
    if value > 5e5:
        return 1
    if value < -5e5:
        return -1
    assert value == 0, f"an exact value must be a win, a loss or a draw, not {value}"
    return 0


def alphabeta(state, **params):
    agent = agents.make("alphabeta", **dict({"time": 0.0, "tt_bits": 16}, **params))
    agent.reset(state.game_id, state.params, state.current_player(), 7)
    return agent.analyse(state)


def immediate_win(s, a):
    """Whether playing `a` ends the game with a win for the player to move."""
    p = s.current_player()
    s.apply_action(a)
    won = s.is_terminal() and s.returns()[p] == 1
    s.undo_action()
    return won


def can_win_now(s):
    return any(immediate_win(s, a) for a in s.legal_actions())


# Insert positions, tiles ABCD (rank 6 first): lines per square are
#   6 - | / | / \      3 / \ - \ - |
#   5 \ - | - | /      2 | / \ / \ -
#   4 / \ - \ - |      1 - | / | / \

def five_threat():
    """R has a3-d3 and may play on the e file (e5 carries a vertical line): e3 wins at once."""
    return InsertState.from_board(["......", "....W.", "...W..", "RRRR..", "..W...", "......"],
                                  to_move=0, last="e5")


def test_takes_the_five_when_it_is_legal():
    """RULES.md 2.3: legal squares lie on the line of the last ring; 2.4: five in a row wins at once."""
    s = five_threat()
    # e5 carries a vertical line: R may play on the e file, and e3 completes a3-e3
    assert s.string_to_action("e3") in s.legal_actions()
    for depth in (1, 2, 5):
        info = alphabeta(s, depth=depth)
        assert s.action_to_string(info["action"]) == "e3"
        assert outcome(info["value"]) == 1


def test_prefers_the_fastest_win():
    """RULES.md 2.4: a win by five in a row is immediate; the agent takes it rather than a slower one."""
    s = five_threat()
    info = alphabeta(s, depth=7)
    assert immediate_win(s, info["action"])


def test_blocks_or_escapes_a_threat_of_five():
    """RULES.md 2.3-2.4: W to move must not leave R a legal square that completes five."""
    s = InsertState.from_board([
        "......",
        "......",
        "W.W...",
        "RRRR..",
        "..W...",
        "...R.."], to_move=1, last="d1")
    # d1's vertical line lets W play d2..d6 (not e3): most of them let R reach e3 next
    losing = []
    for a in s.legal_actions():
        s.apply_action(a)
        if can_win_now(s):
            losing.append(a)
        s.undo_action()
    assert losing and len(losing) < len(s.legal_actions())
    for depth in (2, 4):
        info = alphabeta(s, depth=depth)
        assert info["action"] not in losing


def test_finds_a_forced_win_in_three():
    """RULES.md 2.3: the mover picks a square whose line leaves the opponent no defence."""
    found = 0
    # positions where the mover cannot win at once but can force a win within three plies
    for seed in range(400):
        s = engines.make("insert", seed=seed)
        r = random.Random(seed)
        while not s.is_terminal() and len(s.history()) < 16 + seed % 8:
            s.apply_action(r.choice(s.legal_actions()))
        if s.is_terminal() or can_win_now(s):
            continue
        winning = [a for a in s.legal_actions() if _forces_win_next(s, a)]
        if not winning:
            continue
        info = alphabeta(s, depth=3)
        assert outcome(info["value"]) == 1
        assert info["action"] in winning
        found += 1
        if found == 3:
            break
    assert found == 3, "no forced win in three found among the sampled positions"


def _forces_win_next(s, a):
    p = s.current_player()
    s.apply_action(a)
    try:
        if s.is_terminal():
            return False
        if s.current_player() == p:
            return can_win_now(s)
        for b in s.legal_actions():
            s.apply_action(b)
            ok = not s.is_terminal() and can_win_now(s)
            s.undo_action()
            if not ok:
                return False
        return True
    finally:
        s.undo_action()


def near_the_end(seed, plies):
    """A position `plies` rings into a game played mostly greedily (so rarely decided early)."""
    r = random.Random(seed)
    while True:
        s = engines.make("insert", seed=r.randrange(10**6), tiebreak="next_largest" if seed % 2 else "draw")
        g = agents.make("greedy")
        g.reset("insert", s.params, 0, seed)
        while not s.is_terminal() and len(s.history()) < plies:
            s.apply_action(g.act(s) if r.random() < 0.7 else r.choice(s.legal_actions()))
        if not s.is_terminal():
            return s


def test_value_agrees_with_exhaustive_minimax_near_the_end():
    """RULES.md 2.4: once the rest of the game fits in the budget, the value is the game's result."""
    truths, shallow_exact = [], 0
    for seed in range(24):
        s = near_the_end(seed, 16 + seed % 12)
        truth = exhaustive(s)
        truths.append(truth)
        info = alphabeta(s, depth=30)
        assert info["exact"]
        assert outcome(info["value"]) == truth
        # the chosen move keeps that value
        mover = s.current_player()
        s.apply_action(info["action"])
        after = s.returns()[mover] if s.is_terminal() else (
            exhaustive(s) if s.current_player() == mover else -exhaustive(s))
        assert after == truth
        s.undo_action()
        # a shallow budget claims an exact value only when it is right
        for depth in (1, 2, 3):
            info = alphabeta(s, depth=depth)
            if info["exact"]:
                shallow_exact += 1
                assert outcome(info["value"]) == truth
    assert {1, -1} <= set(truths)
    assert shallow_exact, "no shallow search reached the end of the game: the check above never ran"


def test_deterministic_under_a_seed_and_seed_breaks_ties():
    s = engines.make("insert", seed=5)
    first = [alphabeta(s, depth=3, seed=k)["action"] for k in range(12)]
    again = [alphabeta(s, depth=3, seed=k)["action"] for k in range(12)]
    assert first == again
    # the empty board is symmetric enough to have many equal first moves
    assert len(set(first)) > 1


def test_a_time_budget_still_completes_an_iteration():
    s = engines.make("insert", seed=8)
    info = alphabeta(s, depth=64, time=1e-6)
    assert info["action"] in s.legal_actions()
    assert info["depth"] >= 1 and info["nodes"] > 0


def test_refuses_games_it_cannot_play(monkeypatch):
    """alphabeta plays two-player perfect-information games only, and says so."""
    monkeypatch.setitem(GAMES, "fake_cards", GameSpec(
        "fake_cards", "engines.insert", "InsertState", 3, 4, 3, perfect_information=False))
    agent = agents.make("alphabeta")
    with pytest.raises(ValueError, match="fake_cards"):
        agent.reset("fake_cards", {"players": 3}, 0, 0)
    for game_id in engines.game_ids():
        spec = GAMES[game_id]
        for n in range(spec.min_players, spec.max_players + 1):
            if spec.perfect_information and n == 2:
                agent.reset(game_id, engines.registry.resolve(game_id, players=n), 0, 0)
                continue
            with pytest.raises(ValueError, match=game_id) as err:
                agent.reset(game_id, engines.registry.resolve(game_id, players=n), 0, 0)
            assert "\n" not in str(err.value)


def test_bad_parameters_are_refused():
    with pytest.raises(agents.BadAgentParameter, match="combine"):
        agents.make("minimax", combine="median")
    with pytest.raises(agents.BadAgentParameter, match="depth"):
        agents.make("alphabeta", depth=0)
    with pytest.raises(agents.BadAgentParameter, match="tt_bits"):
        agents.make("alphabeta", tt_bits=29)
    with pytest.raises(agents.BadAgentParameter, match="opponents"):
        agents.make("minimax", opponents="friendly")
    with pytest.raises(agents.BadAgentParameter, match="determinizations"):
        agents.make("minimax", determinizations=0)
    with pytest.raises(agents.BadAgentParameter, match="bogus"):
        agents.make("minimax", bogus=1)


def test_alphabeta_beats_greedy_on_insert():
    wins = 0
    for g in range(4):
        seats = ["alphabeta", "greedy"] if g % 2 == 0 else ["greedy", "alphabeta"]
        r = play("insert", None, seats, g, {"alphabeta": {"depth": 4, "time": 0.0}})
        me = seats.index("alphabeta")
        wins += r[me] > r[1 - me]
    assert wins >= 3


# ---------------------------------------------------------------- minimax on every registered game

def configurations():
    for game_id in engines.game_ids():
        s = GAMES[game_id]
        for n in sorted({s.min_players, s.max_players}):
            yield pytest.param(game_id, n, id=f"{game_id}-{n}p")


CONFIGS = list(configurations())
SMALL = {"determinizations": 2, "depth": 2, "time": 0.0}


def play(game_id, players, names, seed, params=None):
    """A whole game; hidden-information games hand each agent a determinized copy for its seat."""
    params = params or {}
    s = engines.make(game_id, players=players, seed=seed)
    seats = [agents.make(n, **params.get(n, {})) for n in names]
    for i, a in enumerate(seats):
        a.reset(game_id, s.params, i, seed * 31 + i)
    hidden = not GAMES[game_id].perfect_information
    k = 0
    while not s.is_terminal():
        p = s.current_player()
        view = s.determinize(p, seed=seed * 7919 + k) if hidden else s.clone()
        a = seats[p].act(view)
        assert a in s.legal_actions()
        s.apply_action(a)
        k += 1
    return s.returns()


@pytest.mark.parametrize("game_id,players", CONFIGS)
def test_minimax_completes_games(game_id, players):
    for combine, opponents, align in (("average", "paranoid", False), ("vote", "maxn", False),
                                      ("average", "paranoid", True)):
        names = ["minimax"] + ["random"] * (players - 1)
        params = dict(SMALL, combine=combine, opponents=opponents, align=align)
        r = play(game_id, players, names, 3, {"minimax": params})
        assert len(r) == players


@pytest.mark.parametrize("game_id", [g for g in engines.game_ids() if GAMES[g].min_players == 2])
def test_with_two_players_maxn_is_paranoid_minimax(game_id):
    """With two players each margin is the other's negation: max-n and paranoid search agree."""
    for i, s in enumerate(_midgame_states(game_id, 2, 4, 60)):
        me = s.current_player()
        results = []
        for opponents in ("paranoid", "maxn"):
            agent = agents.make("minimax", determinizations=3, depth=3, time=0.0, seed=i, opponents=opponents)
            agent.reset(game_id, s.params, me, 1)
            results.append((agent.act(s), agent.last["value"]))
        assert results[0] == results[1]


def _midgame_states(game_id, players, count, seed):
    """States a few random moves into seeded games, with the player to move having a choice."""
    out = []
    r = random.Random(seed)
    for g in range(count * 4):
        s = engines.make(game_id, players=players, seed=seed + g)
        for _ in range(r.randrange(1, 12)):
            if s.is_terminal():
                break
            s.apply_action(r.choice(s.legal_actions()))
        if not s.is_terminal() and len(s.legal_actions()) > 1:
            out.append(s)
        if len(out) == count:
            break
    assert out, f"no {game_id} state with a choice to test"
    return out


def _minimax_action(view, me, seed):
    agent = agents.make("minimax", determinizations=3, depth=2, time=0.0, seed=seed)
    agent.reset(view.game_id, view.params, me, 5)
    return agent.act(view)


def _with_chance(state, chance):
    """`state` with its chance RNG (the future draws, which no player sees) replaced."""
    fn, args = state.__reduce__()
    snap = args[5]
    return fn(*args[:5], bytes(chance) + snap[len(chance):], b"", [])


@pytest.mark.parametrize("game_id,players", CONFIGS)
def test_minimax_ignores_the_future_chance_draws(game_id, players):
    """States that differ only in the chance RNG (what the deck will deal) get the same action."""
    for i, s in enumerate(_midgame_states(game_id, players, 4, 40)):
        me = s.current_player()
        other = _with_chance(s, random.Random(i).randbytes(8))
        assert other.snapshot() != s.snapshot()
        assert other.information_state_key(me) == s.information_state_key(me)
        assert _minimax_action(s, me, i) == _minimax_action(other, me, i)


@pytest.mark.parametrize("game_id,players", CONFIGS)
def test_minimax_never_uses_hidden_information(game_id, players):
    """States the acting player cannot tell apart get the same action under the same seed."""
    states = _midgame_states(game_id, players, 4, 40)
    for i, s in enumerate(states):
        me = s.current_player()
        worlds = [s.determinize(me, seed=i), s.determinize(me, seed=i + 1000)]
        for w in worlds:
            assert w.snapshot() != s.snapshot(), "the test needs worlds that differ"
            assert w.information_state_key(me) == s.information_state_key(me)
            assert _minimax_action(w, me, i) == _minimax_action(s, me, i)


@pytest.mark.parametrize("game_id,players", CONFIGS)
def test_minimax_is_deterministic_under_a_seed(game_id, players):
    names = ["minimax"] * players
    for opponents in ("paranoid", "maxn"):
        params = {"minimax": dict(SMALL, seed=9, opponents=opponents)}
        first = play(game_id, players, names, 11, params)
        assert play(game_id, players, names, 11, params) == first


def test_minimax_leaves_the_given_state_alone():
    for game_id in engines.game_ids():
        for s in _midgame_states(game_id, GAMES[game_id].default_players, 1, 77):
            before = s.snapshot()
            agent = agents.make("minimax", **SMALL)
            agent.reset(game_id, s.params, s.current_player(), 0)
            agent.act(s)
            assert s.snapshot() == before


def test_minimax_on_insert_takes_the_five():
    """RULES.md 2.4: with two players minimax is plain minimax; it takes a win in one."""
    s = five_threat()
    for combine in ("average", "vote"):
        agent = agents.make("minimax", determinizations=2, depth=2, time=0.0, combine=combine)
        agent.reset("insert", s.params, 0, 0)
        assert s.action_to_string(agent.act(s)) == "e3"


def test_bench_rows_have_the_shape_arena_bench_prints():
    from arena.bench.minimax import cases
    rows = list(cases(["insert"], repeats=1))
    names = {r["case"] for r in rows}
    assert {"alphabeta/insert/opening", "alphabeta/insert/midgame", "minimax/insert/first_decision"} <= names
    for r in rows:
        assert set(r) >= {"case", "unit", "rates", "median_per_s"}
        assert r["median_per_s"] > 0 and len(r["rates"]) == 1
        if "baseline" in r:
            assert r["baseline"] in names


WIN, DECAY = 1e6, 1.0 / 1024


def _margins(s, terminal, ply):
    """Every player's evaluation minus the best of the others' (+-1e6 at the end, less per ply)."""
    e = [s.evaluate(p) for p in range(s.num_players)]
    out = []
    for p in range(s.num_players):
        v = e[p] - max(e[o] for o in range(s.num_players) if o != p)
        if terminal and v > 0:
            v = (v + WIN) - ply * DECAY
        elif terminal and v < 0:
            v = (v - WIN) + ply * DECAY
        out.append(v)
    return out


def _paranoid(s, me, depth, ply):
    """Reference paranoid minimax over the Python face: `me` maximizes, everyone else minimizes."""
    if s.is_terminal() or depth == 0:
        return _margins(s, s.is_terminal(), ply)[me]
    values = []
    for a in s.legal_actions():
        s.apply_action(a)
        values.append(_paranoid(s, me, depth - 1, ply + 1))
        s.undo_action()
    return max(values) if s.current_player() == me else min(values)


def _maxn(s, depth, ply):
    """Reference max-n: the player to move takes the first child best for itself."""
    if s.is_terminal() or depth == 0:
        return _margins(s, s.is_terminal(), ply)
    best = None
    for a in s.legal_actions():
        s.apply_action(a)
        v = _maxn(s, depth - 1, ply + 1)
        s.undo_action()
        if best is None or v[s.current_player()] > best[s.current_player()]:
            best = v
    return best


@pytest.mark.parametrize("game_id,players", CONFIGS)
def test_minimax_values_match_a_reference_search(game_id, players):
    """One determinization, searched in C, scores the root actions as a plain Python search of the
    same world does, whoever is to move at each node (several decisions in a row included)."""
    from agents.minimax import _mix

    from agents.base import decision_seed
    for i, s in enumerate(_midgame_states(game_id, players, 3, 80)):
        me = s.current_player()
        world = s.determinize(me, seed=_mix(i, decision_seed(3, 0)))   # the agent's first sample, drawn the same way
        for opponents in ("paranoid", "maxn"):
            agent = agents.make("minimax", determinizations=1, depth=4, time=0.0, seed=i, opponents=opponents)
            agent.reset(game_id, s.params, me, 3)
            action = agent.act(s)
            values = {}
            for a in world.legal_actions():
                world.apply_action(a)
                values[a] = _paranoid(world, me, 3, 1) if opponents == "paranoid" else _maxn(world, 3, 1)[me]
                world.undo_action()
            assert agent.last["value"] == pytest.approx(max(values.values()), abs=1e-9)
            assert values[action] == pytest.approx(max(values.values()), abs=1e-9)


# (seed, random plies, depth) -> (action, value, nodes, depth reached, exact), as the search gave them
# before leaf evaluations were cached: the cache changes how fast it searches, never what it finds.
SEARCHED = [((0, 2, 9), (4, 7.0, 4202, 9, False)), ((1, 6, 9), (25, 33.0, 3406, 9, False)),
            ((2, 10, 10), (6, 1000999.9951171875, 36105, 10, False)),
            ((3, 14, 12), (26, 1000999.9892578125, 1604, 12, False)),
            ((4, 18, 14), (11, -1000999.98828125, 716, 12, True)),
            ((5, 22, 16), (0, -1000999.998046875, 910, 8, True))]


def test_cached_leaf_evaluations_keep_every_search_result():
    for (seed, plies, depth), expected in SEARCHED:
        s = engines.make("insert", seed=seed)
        r = random.Random(seed)
        for _ in range(plies):
            s.apply_action(r.choice(s.legal_actions()))
        agent = agents.make("alphabeta", depth=depth, seed=seed)
        # the match seed whose first decision seed is `seed`: the search is seeded as when these were recorded
        agent.reset("insert", s.params, s.current_player(), (seed - WEYL) % 2**64)
        info = agent.analyse(s)
        assert (info["action"], info["value"], info["nodes"], info["depth"], info["exact"]) == expected
        assert 0 < info["evaluations"] < info["nodes"]
