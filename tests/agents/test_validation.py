"""Parameters are validated up front: an agent or game either refuses them with one clean line
(a ValueError) or plays. Never a crash, a hang or a failure at the first match."""
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import agents
import engines
from agents.base import BadAgentParameter
from agents.registry import agent_class, agent_names
from engines.registry import GAMES, GameSpec, resolve

# Budgets small enough to play a few moves at once; a constructed agent above them is not played.
CHEAP = {"iterations": 200, "determinizations": 3, "depth": 3, "time": 0.05, "tt_bits": 16}
MOVES = 4


def numeric_params():
    return [(name, p) for name in agent_names() for p, d in agent_class(name).PARAMS.items()
            if isinstance(d, (int, float)) and not isinstance(d, bool)]


FLOAT_PARAMS = [(name, p) for name, p in numeric_params() if isinstance(agent_class(name).PARAMS[p], float)]


def assert_one_line(err, *words):
    text = str(err)
    assert text and "\n" not in text and "\r" not in text
    for w in words:
        assert w in text


def play_a_few_moves(agent):
    """`agent` moves for every seat of the first game it can play (Insert for most) for a few plies;
    every move must be legal."""
    game = next(g for g in engines.game_ids() if type(agent).cannot_play(g, resolve(g)["players"]) is None)
    game = "insert" if type(agent).cannot_play("insert", 2) is None else game
    state = engines.make(game, seed=3)
    agent.reset(game, resolve(game), 0, 7)
    for _ in range(MOVES):
        if state.is_terminal():
            break
        action = agent.act(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def cheap(agent):
    return all(agent.params[k] <= limit for k, limit in CHEAP.items() if k in agent.params)


# ---- agents ------------------------------------------------------------------------------------

def test_every_numeric_parameter_has_a_range_and_every_text_parameter_its_choices():
    for name in agent_names():
        cls = agent_class(name)
        for p, default in cls.PARAMS.items():
            if isinstance(default, bool):
                continue
            if isinstance(default, (int, float)):
                lo, hi = cls.LIMITS[p]
                assert lo <= default <= hi and math.isfinite(hi), (name, p)
            elif isinstance(default, str) and p not in cls.FILE_PARAMS:
                assert default in cls.CHOICES[p], (name, p)


@pytest.mark.parametrize("name,param", FLOAT_PARAMS, ids=[f"{n}.{p}" for n, p in FLOAT_PARAMS])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e308, -1e308, "nan", "inf", "-inf",
                                   "1e999", "-1e999", "NaN", pytest.param(10**400, id="10**400")])
def test_a_float_parameter_that_is_not_finite_or_huge_is_refused(name, param, value):
    with pytest.raises(BadAgentParameter) as err:
        agents.make(name, **{param: value})
    assert_one_line(err.value, name, repr(param), "from")


@pytest.mark.parametrize("name,param", numeric_params(), ids=[f"{n}.{p}" for n, p in numeric_params()])
def test_numeric_parameters_are_checked_at_both_ends_of_their_range(name, param):
    cls = agent_class(name)
    lo, hi = cls.LIMITS[param]
    step = 1 if isinstance(lo, int) else 1e-9 * max(1.0, abs(hi))
    needs = dict([cls.NEEDS[param]]) if param in cls.NEEDS else {}
    for ok in (lo, hi):
        assert cls(**{param: ok}, **needs).params[param] == ok
    for bad in (lo - step, hi + step, 10**30, -10**30, str(hi + step)):
        with pytest.raises(BadAgentParameter) as err:
            cls(**{param: bad}, **needs)
        assert_one_line(err.value, name, repr(param))


@pytest.mark.parametrize("spec", ["ismcts", "minimax", "alphabeta"])
def test_the_budgets_of_the_issue_are_refused(spec):
    for params in ({"iterations": "1000000000000"}, {"depth": "1000"}, {"time": "nan"}, {"c": "nan"},
                   {"c": "inf"}, {"time": "1e308"}, {"determinizations": "10000000000"}):
        if set(params) <= set(agent_class(spec).PARAMS):
            with pytest.raises(BadAgentParameter):
                agents.make(spec, **params)


def test_an_integer_parameter_takes_a_whole_float_but_not_a_fraction():
    assert agents.make("ismcts", iterations=50.0).params["iterations"] == 50
    with pytest.raises(BadAgentParameter, match="iterations"):
        agents.make("ismcts", iterations=50.5)


def test_the_search_itself_refuses_a_budget_that_is_not_finite():
    """Search.search is callable without the agent: a nan c used to select no child (a crash)."""
    from agents.ismcts import Search
    state = engines.make("insert", seed=1)
    for kwargs in ({"c": math.nan}, {"c": math.inf}, {"c": -1.0}, {"seconds": math.nan},
                   {"seconds": math.inf}, {"margin": math.nan}):
        with pytest.raises(ValueError):
            Search().search(state, 10, **kwargs)


TEXTS = st.one_of(
    st.sampled_from(["nan", "inf", "-inf", "1e999", "1e308", "-0", "0", "1", "2", "3", "0.5", "1e12",
                     "1000000000000", "-1", "", " ", "true", "round", "game", "vote", "maxn",
                     "average", "paranoid", "0x10", "1_0", "\x1b[31m", "a\nb"]),
    st.integers(-10, 300).map(str), st.floats().map(repr), st.text(max_size=12))
VALUES = st.one_of(TEXTS, st.integers(-10, 300), st.integers(), st.floats(), st.booleans(), st.none())


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_agent_parameters_give_a_clean_error_or_an_agent_that_plays(data):
    name = data.draw(st.sampled_from(agent_names()))
    cls = agent_class(name)
    keys = list(cls.PARAMS) + ["bogus", "Depth"]
    likely = st.one_of(st.integers(0, 4), st.floats(0, 1), st.sampled_from([c for cs in cls.CHOICES.values() for c in cs]
                                                                           or ["x"]))
    params = data.draw(st.dictionaries(st.sampled_from(keys), st.one_of(likely, VALUES), max_size=3))
    tiny = {k: v for k, v in CHEAP.items() if k in cls.PARAMS and k != "time"}
    try:
        agent = agents.make(name, **{**tiny, **params})
    except ValueError as e:
        assert_one_line(e, name)
        event("refused")
        return
    if name != "human" and cheap(agent):
        play_a_few_moves(agent)
        event("played")


# ---- games ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("game_id,params,words", [
    ("insert", {"tiles": "XYZ"}, ["tiles"]),
    ("insert", {"tiles": "ABCDE"}, ["tiles"]),
    ("insert", {"tiles": "H" * 35 + "x"}, ["tiles"]),
    ("wizard", {"hands": "0"}, ["hand sizes"]),
    ("wizard", {"hands": "-1"}, ["hand sizes"]),
    ("wizard", {"hands": "16"}, ["hand sizes"]),
    ("wizard", {"hands": "99"}, ["hand sizes"]),
    ("wizard", {"hands": "3,99999999999999999999999"}, ["hand sizes"]),
    ("wizard", {"five_rounds": "true", "amigo_tournament": "true"}, ["five_rounds", "amigo_tournament"]),
    ("wizard", {"five_rounds": True, "hands": "3"}, ["hands"]),
    ("wizard", {"players": "7"}, ["players"]),
])
def test_resolve_refuses_what_the_engine_would_refuse_at_the_first_match(game_id, params, words):
    with pytest.raises(ValueError) as err:
        resolve(game_id, **params)
    assert_one_line(err.value, game_id, *words)


def test_wizard_hands_are_checked_against_the_player_count():
    assert resolve("wizard", players=3, hands="20")["hands"] == (20,)
    with pytest.raises(ValueError, match="1..15"):
        resolve("wizard", players=4, hands="20")


def test_a_float_game_parameter_must_be_finite(monkeypatch):
    monkeypatch.setitem(GAMES, "fake_float", GameSpec("fake_float", "engines.insert", "InsertState", 2, 2, 2,
                                                      params={"x": 0.5}))
    assert resolve("fake_float", x="0.25")["x"] == 0.25
    for bad in ("nan", "inf", "-inf", "1e999", math.nan, math.inf, 10**400, "x"):
        with pytest.raises(ValueError) as err:
            resolve("fake_float", x=bad)
        assert_one_line(err.value, "'x'", "fake_float")


def test_make_refuses_a_seed_out_of_range_with_one_line():
    assert engines.make("insert", seed=2**64 - 1).legal_actions()
    for bad in (-1, 2**64, "x", math.nan, math.inf):
        with pytest.raises(ValueError) as err:
            engines.make("insert", seed=bad)
        assert_one_line(err.value, "seed")


def game_params(game_id):
    s = GAMES[game_id]
    keys = ["players"] + list(s.params) + ["bogus"]
    native = st.one_of(st.integers(-3, 25), st.booleans(), st.lists(st.integers(-2, 22), max_size=4).map(tuple),
                       st.sampled_from([c for cs in s.choices.values() for c in cs] or ["x"]),
                       st.sampled_from(["ABCD", "DCBA", "BADC", "HV/\\" * 9, "H" * 36]))
    texts = st.one_of(TEXTS, st.lists(st.integers(-2, 22), min_size=1, max_size=4).map(lambda v: ",".join(map(str, v))))
    return st.dictionaries(st.sampled_from(keys), st.one_of(native, texts, VALUES), max_size=4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_game_parameters_give_a_clean_error_or_a_game_that_make_accepts(data):
    game_id = data.draw(st.sampled_from(engines.game_ids()))
    params = data.draw(game_params(game_id))
    try:
        full = resolve(game_id, **params)
    except ValueError as e:
        assert_one_line(e, game_id)
        event("refused")
        return
    seed = data.draw(st.integers(0, 2**64 - 1))
    state = engines.make(game_id, seed=seed, **full)
    assert state.num_players == full["players"]
    for _ in range(MOVES):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[0])
    event("played")


# ---- the command line: the cases of the issue exit 2 with one line, before any run is created ----

@pytest.mark.parametrize("args", [
    ["--game", "wizard", "--agents", "ismcts[c=nan,iterations=50],greedy"],
    ["--game", "wizard", "--agents", "ismcts[c=inf,iterations=50],greedy"],
    ["--game", "wizard", "--agents", "ismcts[time=nan],greedy"],
    ["--game", "insert", "--agents", "ismcts[iterations=1000000000000],greedy"],
    ["--game", "insert", "--agents", "minimax[depth=1000],greedy"],
    ["--game", "insert", "--agents", "random,greedy", "--param", "tiles=XYZ"],
    ["--game", "wizard", "--agents", "random,greedy", "--param", "hands=16"],
    ["--game", "wizard", "--agents", "random,greedy", "--param", "five_rounds=true",
     "--param", "amigo_tournament=true"],
], ids=["c-nan", "c-inf", "time-nan", "iterations-huge", "depth-huge", "tiles", "hands", "five-amigo"])
def test_arena_run_refuses_bad_parameters_before_the_run(tmp_path, args):
    store = tmp_path / "arena.sqlite"
    arena = Path(sys.executable).parent / "arena"
    proc = subprocess.run([str(arena), "run", "--games", "1", "--store", str(store), *args],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
