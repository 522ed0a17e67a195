"""The game-state contract, checked on every registered game, player count and test variant."""
import inspect
import json
import pickle
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import engines
from engines.registry import GAMES


def configurations():
    for game_id in engines.game_ids():
        s = GAMES[game_id]
        for n in range(s.min_players, s.max_players + 1):
            for variant in s.test_variants:
                label = ",".join(f"{k}={v}" for k, v in variant.items())
                yield pytest.param(game_id, n, variant, id=f"{game_id}-{n}p-{label or 'default'}")


CONFIGS = list(configurations())


def random_play(state, rng, check):
    """Plays random legal actions to the end, calling check(state) before every move."""
    while not state.is_terminal():
        check(state)
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_random_playouts_reach_the_end(game_id, players, variant):
    for seed in range(8):
        state = engines.make(game_id, players=players, seed=seed, **variant)
        assert state.num_players == players

        def check(s):
            legal = s.legal_actions()
            assert legal, "no legal action before the end"
            assert all(0 <= a < s.num_distinct_actions for a in legal)
            assert len(set(legal)) == len(legal)
            assert 0 <= s.current_player() < players

        random_play(state, random.Random(seed), check)
        assert state.legal_actions() == []
        assert state.current_player() < 0
        places = state.placements()
        assert len(places) == players and min(places) == 1
        assert all(1 <= p <= players for p in places)
        r = state.returns()
        for i in range(players):
            for j in range(players):
                assert (r[i] > r[j]) == (places[i] < places[j])


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_apply_then_undo_restores_the_exact_state(game_id, players, variant):
    state = engines.make(game_id, players=players, seed=11, **variant)
    rng = random.Random(5)

    def check(s):
        before = s.snapshot()
        for a in s.legal_actions()[:6]:
            s.apply_action(a)
            assert s.undo_action() == a
            assert s.snapshot() == before

    random_play(state, rng, check)
    # and the whole game unwinds to the start
    start = engines.make(game_id, players=players, seed=11, **variant)
    while state.history():
        state.undo_action()
    assert state.snapshot() == start.snapshot()


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_clones_are_independent_and_pickling_round_trips(game_id, players, variant):
    state = engines.make(game_id, players=players, seed=3, **variant)
    rng = random.Random(3)
    step = 0

    def check(s):
        nonlocal step
        step += 1
        if step % 5:
            return
        before = s.snapshot()
        c = s.clone()
        assert c.snapshot() == before and c.history() == s.history()
        c.apply_action(c.legal_actions()[0])
        assert s.snapshot() == before
        p = pickle.loads(pickle.dumps(s))
        assert p == s and p.history() == s.history()
        a = rng.choice(s.legal_actions())
        p.apply_action(a)
        q = s.clone()
        q.apply_action(a)
        assert p == q

    random_play(state, rng, check)


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_determinize_keeps_the_observers_information(game_id, players, variant):
    state = engines.make(game_id, players=players, seed=21, **variant)
    rng = random.Random(21)
    step = 0

    def check(s):
        nonlocal step
        step += 1
        if step % 3:
            return
        me = s.current_player()
        before = s.snapshot()
        key = s.information_state_key(me)
        for seed in range(3):
            d = s.determinize(me, seed=seed)
            assert s.snapshot() == before, "determinize changed the original"
            assert d.information_state_key(me) == key
            assert d.observation(me) == s.observation(me)
            assert d.current_player() == me
            assert d.legal_actions() == s.legal_actions()
            rollout = d.clone()
            rollout.rollout(seed=seed)
            assert rollout.is_terminal()

    random_play(state, rng, check)


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_a_world_and_the_truth_determinize_alike(game_id, players, variant):
    """A world sampled for an observer cannot be told apart from the truth by that observer, so
    under one seed both must resample to the very same state (search agents rely on it)."""
    state = engines.make(game_id, players=players, seed=33, **variant)
    rng = random.Random(33)
    step = 0

    def check(s):
        nonlocal step
        step += 1
        if step % 4:
            return
        for observer in range(players):
            world = s.determinize(observer, seed=step)
            assert world.information_state_key(observer) == s.information_state_key(observer)
            for seed in (0, 1):
                assert world.determinize(observer, seed=seed) == s.determinize(observer, seed=seed)

    random_play(state, rng, check)


def _what_it_learns_depends_on_the_hidden(state, observer):
    """Where what the observer learns from the move depends on what it has not seen, so the view
    (a function of what it saw before) can only be as fine as the move itself:
    - Wizard with plus_minus_one and hidden bids: from the bid before its own the dealer learns the
      others' total (the bid it may not make), which depends on the bids it has not seen; the view
      is that total, so it differs between worlds too;
    - Royal Ball, the gift phase's last decision: the King's pile is resolved at once, and two gifts
      (an Apple and a Carrot a King's Horse eats) can leave the same result, depending on the face-down
      cards in the pile; the view of that gift is the gift itself (RULES.md 5.5, 5.6)."""
    obs = state.observation(observer)
    p = state.params
    if state.game_id == "wizard":
        return (p["plus_minus_one"] and (p["hidden_bids"] or p["secret_bids"]) and obs["phase"] == "bid"
                and observer == obs["dealer"]
                and sum(b is not None for b in obs["bids"]) == state.num_players - 2)
    if state.game_id == "royal_ball":
        a_gift = 16   # the engine's first gift action (A_GIVE), the view of a gift not yet revealed
        return any(state.action_to_string(a).startswith("give") and state.action_view(observer, a) != a_gift
                   for a in state.legal_actions())
    return False


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_the_playout_policy_plays_legal_moves_from_what_the_mover_sees(game_id, players, variant):
    """policy_action(seed) is a legal action, the same for a seed, and the same in any world
    determinized for the mover: the policy reads nothing the mover cannot see."""
    def check(s):
        mover = s.current_player()
        legal = s.legal_actions()
        for seed in range(3):
            a = s.policy_action(seed)
            assert a in legal and s.policy_action(seed) == a
            assert s.determinize(mover, seed=seed + 7).policy_action(seed) == a

    for seed in range(3):
        random_play(engines.make(game_id, players=players, seed=seed, **variant), random.Random(seed), check)
    done = engines.make(game_id, players=players, seed=0, **variant)
    done.rollout(1, "game")
    with pytest.raises(ValueError, match="over"):
        done.policy_action()


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_plausibility_weighs_worlds_in_the_unit_interval(game_id, players, variant):
    """plausibility(o) lies in (0, 1] in the true state and in every world determinized for o,
    and is 1 in a game that does not weigh its worlds (every engine but Wizard)."""
    def check(s):
        for o in range(players):
            for w in (s, s.determinize(o, seed=3)):
                v = w.plausibility(o)
                assert 0.0 < v <= 1.0
                if game_id != "wizard":
                    assert v == 1.0

    random_play(engines.make(game_id, players=players, seed=1, **variant), random.Random(1), check)


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_action_views_tell_apart_exactly_what_the_observer_can(game_id, players, variant):
    """action_view(o, a) == action_view(o, b) iff o's information set key is the same after a and
    after b (only "if" where what o learns depends on what it has not seen, see above); o's own actions are seen whole; the ids lie in [0, num_distinct_actions); and the
    views depend only on what o sees: in a world determinized for o an action legal in both has
    the same view there."""
    merged = 0

    def check(s):
        nonlocal merged
        mover = s.current_player()
        legal = s.legal_actions()
        after = {}
        for a in legal:
            t = s.clone()
            t.apply_action(a)
            after[a] = t
        for o in range(players):
            views = {a: s.action_view(o, a) for a in legal}
            assert all(0 <= v < s.num_distinct_actions for v in views.values())
            if o == mover:
                assert all(v == a for a, v in views.items())
                continue
            keys = {a: after[a].information_state_key(o) for a in legal}
            finest = _what_it_learns_depends_on_the_hidden(s, o)
            for a in legal:
                for b in legal:
                    if views[a] == views[b]:
                        assert keys[a] == keys[b], (s.action_to_string(a), s.action_to_string(b))
                    elif not finest:
                        assert keys[a] != keys[b], (s.action_to_string(a), s.action_to_string(b))
            merged += len(legal) - len(set(views.values()))
            if finest and s.game_id == "wizard":
                continue
            for seed in (1, 2):
                d = s.determinize(o, seed=seed)
                for a in set(d.legal_actions()) & set(legal):
                    assert d.action_view(o, a) == views[a], s.action_to_string(a)

    for game_seed in range(3):
        state = engines.make(game_id, players=players, seed=44 + game_seed, **variant)
        rng = random.Random(44 + game_seed)
        random_play(state, rng, check)
    if game_id == "belladone_bluff" or (game_id == "wizard" and (variant.get("hidden_bids")
                                                                  or variant.get("secret_bids"))):
        assert merged > 0, "no partially observable action was merged"


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_names_observations_and_drawing(game_id, players, variant):
    state = engines.make(game_id, players=players, seed=8, **variant)
    rng = random.Random(8)

    def check(s):
        for a in s.legal_actions():
            assert s.string_to_action(s.action_to_string(a)) == a
        for p in range(players):
            json.dumps(s.observation(p))
        assert str(s).strip()

    random_play(state, rng, check)
    assert str(state).strip()


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_c_level_rollout_matches_the_rules(game_id, players, variant):
    for seed in range(20):
        state = engines.make(game_id, players=players, seed=seed, **variant)
        state.rollout(seed=seed)
        assert state.is_terminal() and state.legal_actions() == []
        again = engines.make(game_id, players=players, seed=seed, **variant)
        again.rollout(seed=seed)
        assert again == state, "a seeded rollout is not reproducible"


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_unknown_parameters_are_refused_by_name(game_id):
    with pytest.raises(engines.BadParameter, match="valid parameters"):
        engines.make(game_id, no_such_rule=True)


def test_unknown_game_names_the_valid_ones():
    with pytest.raises(engines.UnknownGame, match="insert"):
        engines.make("chess")


class ApplyUndoClone(RuleBasedStateMachine):
    """Random interleavings of apply, undo and clone agree with a replay from the start."""

    def __init__(self):
        super().__init__()
        self.state = None

    @rule(config=st.sampled_from([c.values for c in CONFIGS]), seed=st.integers(0, 2**32))
    @precondition(lambda self: self.state is None)
    def start(self, config, seed):
        game_id, players, variant = config
        self.make = lambda: engines.make(game_id, players=players, seed=seed, **variant)
        self.state = self.make()

    @rule(pick=st.integers(0, 10**6))
    @precondition(lambda self: self.state is not None and not self.state.is_terminal())
    def apply(self, pick):
        legal = self.state.legal_actions()
        self.state.apply_action(legal[pick % len(legal)])

    @rule()
    @precondition(lambda self: self.state is not None and self.state.history())
    def undo(self):
        self.state.undo_action()

    @rule()
    @precondition(lambda self: self.state is not None)
    def clone(self):
        self.state = self.state.clone()

    @invariant()
    def equals_a_replay(self):
        if self.state is None:
            return
        replay = self.make()
        for a in self.state.history():
            replay.apply_action(a)
        assert replay == self.state


TestApplyUndoClone = ApplyUndoClone.TestCase


@given(config=st.sampled_from([c.values for c in CONFIGS]), seed=st.integers(0, 2**32),
       steps=st.integers(0, 400), observer_offset=st.integers(0, 5), world=st.integers(0, 2**32))
def test_determinize_property(config, seed, steps, observer_offset, world):
    """For any state and any observer: a determinization leaves the original alone, keeps the observer's
    information set and view, and is reproducible from its seed."""
    game_id, players, variant = config
    state = engines.make(game_id, players=players, seed=seed, **variant)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    observer = observer_offset % players
    before = state.snapshot()
    d = state.determinize(observer, seed=world)
    assert state.snapshot() == before
    assert d.information_state_key(observer) == state.information_state_key(observer)
    assert d.observation(observer) == state.observation(observer)
    assert d.is_terminal() == state.is_terminal()
    assert d == state.determinize(observer, seed=world)
    if not state.is_terminal() and state.current_player() == observer:
        assert d.legal_actions() == state.legal_actions()


# ---- seats: every public method or constructor that takes one refuses a seat that does not exist ----
# The fast build has no bounds checks: a bad seat would read past the per-player arrays (a 3-player
# Wizard hand(7) once returned 33 cards). Every public parameter name is classified below, so a new
# method taking a seat is found by test_every_public_parameter_is_classified and must join SEAT_CALLS.

SEAT_PARAMETERS = {"player", "p", "first", "to_move", "dealer", "marker", "observer"}
OTHER_PARAMETERS = {
    "self", "action", "text", "seed", "horizon", "params", "flags", "players", "g", "r", "card", "cards",
    "hands", "deck", "preparations", "scores", "seen", "parties", "guests", "belles", "regrets",
    "guest_regrets", "belle_regrets", "full", "rows", "last", "tiles", "king", "favours", "turn_up",
    "round", "rounds",
}


def _method(name, *extra):
    return lambda state, seat: getattr(state, name)(seat, *extra)


def _wizard_deal(state, seat):
    from engines.wizard import card_to_string
    n = state.num_players
    return type(state).from_deal(n, [[card_to_string(c)] for c in range(n)], dealer=seat)


def _belle_setup(state, seat):
    from engines.belle_of_the_ball import GUEST_NAMES
    return type(state).from_setup([[[], [], []]] * state.num_players, guests=GUEST_NAMES[:1], to_move=seat)


# How to call each seat-taking public method of each game with a given seat.
COMMON_SEAT_CALLS = {**{name: _method(name) for name in ("evaluate", "information_state_key", "determinize", "observation",
                                                         "plausibility")},
                     "action_view": _method("action_view", 0)}
SEAT_CALLS = {
    "belladone_bluff": {
        "hand": _method("hand"),
        "knows": _method("knows", 0),
        "from_deal": lambda s, seat: type(s).from_deal([[]] * s.num_players, [], [[], [], []], first=seat),
    },
    "belle_of_the_ball": {
        "hand": _method("hand"),
        "party": _method("party"),
        "regrets": _method("regrets"),
        "group_is_full": _method("group_is_full", 0),
        "group_points": _method("group_points", 0),
        "from_setup": _belle_setup,
    },
    "insert": {
        "groups": _method("groups"),
        "from_board": lambda s, seat: type(s).from_board(["......"] * 6, to_move=seat),
    },
    "royal_ball": {
        "hand": _method("hand"),
        "deal": lambda s, seat: type(s).deal(players=s.num_players, first=seat),
        "position": lambda s, seat: type(s).position(s.num_players, [[]] * s.num_players, marker=seat),
    },
    "wizard": {
        "hand": _method("hand"),
        "voids": _method("voids"),
        "from_deal": _wizard_deal,
    },
}


def public_parameters(state):
    """{public method or constructor name: its parameter names}, found by introspection."""
    found = {}
    for name, member in inspect.getmembers(type(state), callable):
        if not name.startswith("_") and not inspect.isclass(member):
            found[name] = set(inspect.signature(member).parameters)
    return found


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_every_public_parameter_is_classified(game_id):
    """The seat table below cannot miss a method: each parameter name is known as a seat or not."""
    found = public_parameters(engines.make(game_id))
    unknown = {f"{name}({p})" for name, params in found.items() for p in params - SEAT_PARAMETERS - OTHER_PARAMETERS}
    assert not unknown, f"classify these parameters in SEAT_PARAMETERS or OTHER_PARAMETERS: {sorted(unknown)}"
    taking_a_seat = {name for name, params in found.items() if params & SEAT_PARAMETERS}
    assert taking_a_seat == set(COMMON_SEAT_CALLS) | set(SEAT_CALLS[game_id])


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_every_method_taking_a_seat_refuses_one_that_does_not_exist(game_id, players, variant):
    """A ValueError naming the seat, never a read past the per-player arrays."""
    state = engines.make(game_id, players=players, seed=2, **variant)
    state.rollout(seed=2, horizon="round")      # mid-game, where hands and voids are not empty
    before = state.snapshot()
    for call in {**COMMON_SEAT_CALLS, **SEAT_CALLS[game_id]}.values():
        call(state, players - 1)                # the last seat exists
        for seat in (-1, players, 2**64):
            with pytest.raises(ValueError, match=f"no player {seat} in this {players}-player game"):
                call(state, seat)
    assert state.snapshot() == before


# ---- events: apply_with_events reports what happened, and plays exactly as apply_action ----

def _wizard_events_agree(state, steps):
    """Trick winners add up to each round's tricks, and the round's points follow from the bid and
    tricks the events report (RULES.md 1.5); the cards played left the hands."""
    bids, tricks, total = {}, Counter(), Counter()
    for before, events, after in steps:
        for e in events:
            if e.kind == "card_played":
                assert e.item in before.hand(e.seat)
                assert after.hand(e.seat).count(e.item) == before.hand(e.seat).count(e.item) - 1 or after.round() != before.round()
            elif e.kind == "bid":
                bids[e.seat] = int(e.item)
            elif e.kind == "trick_won":
                tricks[e.seat] += 1
                if after.round() == before.round():
                    assert after.tricks()[e.seat] == before.tricks()[e.seat] + 1
            elif e.kind == "round_scored":
                b, t = bids[e.seat], tricks[e.seat]
                assert int(e.item) == (20 + 10 * t if b == t else -10 * abs(t - b))
                total[e.seat] += int(e.item)
        if any(e.kind == "round_scored" for e in events):
            assert sum(tricks.values()) == before.cards_this_round()
            tricks.clear()
    assert [total[q] for q in range(state.num_players)] == state.returns()


def _belle_events_agree(state, steps):
    """A Belle played leaves the hand; a guest seated is in that group unless the group was scored
    (RULES.md 4.3); the Belles held at the end are those in the hands and parties (4.4)."""
    held = []
    for before, events, after in steps:
        scored = {(e.seat, e.item) for e in events if e.kind == "group_scored"}
        for e in events:
            if e.kind == "belle_played":
                assert e.item in before.hand(e.seat) and e.item not in after.hand(e.seat)
            elif e.kind == "guest_seated":
                g = int(e.detail.split()[1]) - 1
                assert e.item in after.party(e.seat)[g] or (e.seat, e.detail) in scored
            elif e.kind == "group_scored":
                assert int(e.detail) >= 0
            elif e.kind == "belle_held_at_end":
                held.append((e.seat, e.item))
    from engines.belle_of_the_ball import BELLE_NAMES
    expected = ([(q, b) for q in range(state.num_players) for b in state.hand(q)]
                + [(q, c) for q in range(state.num_players) for grp in state.party(q) for c in grp if c in BELLE_NAMES])
    assert sorted(held) == sorted(expected)


def _royal_events_agree(state, steps):
    """Cards taken and kept join the taker's hand, gifts leave it (RULES.md 5.3, 5.4); the round
    scores and favours are the engine's (5.5)."""
    favours = Counter()
    for before, events, after in steps:
        resolved = after.round() != before.round()
        for e in events:
            if e.kind in ("card_taken", "card_kept"):
                assert after.hand(e.seat).get(e.item, 0) == before.hand(e.seat).get(e.item, 0) + 1
            elif e.kind == "gift" and not resolved:
                assert after.hand(e.seat).get(e.item, 0) == before.hand(e.seat)[e.item] - 1
            elif e.kind == "round_scored":
                assert int(e.item) == after.last_round_scores()[e.seat]
            elif e.kind == "favour":
                favours[e.seat] += 1
    assert [favours[q] for q in range(state.num_players)] == state.favours()


def _belladone_events_agree(state, steps):
    """A card placed left the hand for its row position, unless the row was won by it (RULES.md
    3.4, 3.6); the row scores add up to the final scores (teammates share one); the cards held at
    the end are the final hands."""
    rows = {"I": 0, "II": 1, "III": 2}
    received = Counter()
    for before, events, after in steps:
        won = {e.item for e in events if e.kind == "row_won"}
        for e in events:
            if e.kind == "card_placed":
                row, pos = e.detail.split()
                assert e.item in before.hand(e.seat) and e.item not in after.hand(e.seat)
                assert row in won or after.preparation(rows[row])[int(pos) - 1] == e.item
            elif e.kind == "row_scored":
                received[e.seat] += int(e.detail)
    held = sorted((e.seat, e.item) for _, events, _ in steps for e in events if e.kind == "held_at_end")
    assert held == sorted((q, c) for q in range(state.num_players) for c in state.hand(q))
    if not state.params["easy"]:     # easy mode clamps scores at 0
        n = state.num_players
        team = state.params["teams"] and n == 4
        expect = [received[q] + (received[(q + 2) % 4] if team else 0) for q in range(n)]
        assert expect == state.returns()


def _insert_events_agree(state, steps):
    """Rings are placed and flipped where the board says, on the tile the layout has there
    (RULES.md 2.1, 2.3, 7.1); the largest groups at the end are the board's."""
    from engines.insert import layout_from_tiles
    tiles = {}
    for _, events, after in steps:
        board = after.observation(0)["board"]
        for e in events:
            if e.kind == "tile_laid":
                tiles[e.detail.split()[0]] = (e.item, int(e.detail.split()[-1]))
            elif e.kind in ("ring_placed", "ring_flipped"):
                square = e.detail.split()[0]
                sq = after.string_to_action(square)
                assert board[5 - sq // 6][sq % 6] == "RW"[e.seat]
                quadrant = ("top" if sq // 6 >= 3 else "bottom") + ("-left" if sq % 6 < 3 else "-right")
                assert e.item == tiles[quadrant][0]
                assert e.detail.endswith("centre") == (1 <= sq // 6 <= 4 and 1 <= sq % 6 <= 4) or e.kind == "ring_flipped"
            elif e.kind == "largest_group_at_end":
                assert int(e.detail) == max(state.groups(e.seat), default=0)
    order = [tiles[q] for q in ("top-left", "top-right", "bottom-left", "bottom-right")]
    assert layout_from_tiles([t for t, _ in order], [k for _, k in order]) == state.layout()


EVENTS_AGREE = {"wizard": _wizard_events_agree, "belle_of_the_ball": _belle_events_agree,
                "royal_ball": _royal_events_agree, "belladone_bluff": _belladone_events_agree,
                "insert": _insert_events_agree}


@pytest.mark.parametrize("game_id,players,variant", CONFIGS)
def test_events_agree_with_the_game(game_id, players, variant):
    """A random game's events, each of its game's kinds, about seats that exist, and consistent
    with the positions before and after each action (the per-game checks above)."""
    from engines.events import KINDS, Event
    for seed in range(2):
        state = engines.make(game_id, players=players, seed=seed, **variant)
        rng = random.Random(seed)
        steps = []
        while not state.is_terminal():
            before = state.clone()
            events = state.apply_with_events(rng.choice(state.legal_actions()))
            assert all(isinstance(e, Event) and e.kind in KINDS[game_id] and -1 <= e.seat < players
                       and isinstance(e.item, str) and isinstance(e.detail, str) for e in events)
            steps.append((before, events, state.clone()))
        EVENTS_AGREE[game_id](state, steps)
        assert {e.kind for _, events, _ in steps for e in events} >= {k for k in KINDS[game_id] if k in ALWAYS_SEEN}


# kinds every game of that kind reports at least once
ALWAYS_SEEN = {"bid", "trick_won", "round_scored", "belle_taken", "guest_seated", "interest_seated",
               "card_taken", "card_kept", "king_given", "card_placed", "row_won", "row_scored", "ring_placed",
               "tile_laid", "largest_group_at_end", "turn_up", "trump_suit", "card_led"}


@settings(max_examples=30, deadline=None)
@given(config=st.sampled_from([c.values for c in CONFIGS]), seed=st.integers(0, 2**32), steps=st.integers(0, 300))
def test_apply_with_events_plays_exactly_as_apply_action(config, seed, steps):
    """For any position and action, apply_with_events leaves the state (position, undo, history)
    equal to apply_action's, and the undo takes it back the same."""
    game_id, players, variant = config
    state = engines.make(game_id, players=players, seed=seed, **variant)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            return
        a = rng.choice(state.legal_actions())
        plain, evented = state.clone(), state.clone()
        plain.apply_action(a)
        evented.apply_with_events(a)
        assert evented == plain and evented.history() == plain.history()
        assert evented.undo_action() == a and evented == state
        state.apply_action(a)


def test_apply_with_events_refuses_an_illegal_action_and_changes_nothing():
    state = engines.make("insert", seed=1)
    state.apply_action(state.legal_actions()[0])
    before = state.clone()
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_with_events(before.history()[0])
    assert state == before and state.history() == before.history()
