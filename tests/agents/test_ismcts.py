"""The ISMCTS agent: budgets, determinism, no use of hidden information, complete games on every
registered game, and strength on Insert."""
import importlib.util
import os
import random
import statistics

import pytest
from agents.ismcts import ISMCTSAgent
from engines.insert import InsertState

import agents
import engines
from agents.base import BadAgentParameter
from agents.simple import RandomAgent
from engines.registry import GAMES
from engines.wizard import WizardState

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GAME_IDS = engines.game_ids()


def player_counts(game_id):
    s = GAMES[game_id]
    return sorted({s.min_players, s.default_players, s.max_players})


def midgame_states(game_id, players, seed, count=4, **variant):
    """A fresh state and a few states reached by random play, each with a choice to make."""
    rng = random.Random(seed)
    state = engines.make(game_id, players=players, seed=seed, **variant)
    out = []
    while not state.is_terminal() and len(out) < count:
        if len(state.legal_actions()) > 1:
            out.append(state.clone())
        for _ in range(rng.randrange(1, 6)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
    assert out, f"no {game_id} state with a choice to test"
    return out


def agent(seat=0, match_seed=1, **params):
    a = ISMCTSAgent(**params)
    a.reset("any", {}, seat, match_seed)
    return a


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_iteration_budget_is_exact(game_id):
    for state in midgame_states(game_id, GAMES[game_id].default_players, seed=3):
        a = agent(iterations=257)
        action = a.act(state)
        assert action in state.legal_actions()
        st = a.last_stats()
        # the solver (Insert) stops once the root is proven
        n = st["iterations"]
        assert n == st["root_visits"] and (n == 257 or st["root_proof"] and 1 <= n < 257)
        children = st["children"]
        assert sum(v for v, _, _ in children.values()) == n
        assert set(children) <= set(state.legal_actions())
        for visits, avail, mean in children.values():
            assert 1 <= visits <= avail <= n
            assert 0.0 <= mean <= 1.0
        assert 2 <= st["nodes"] <= n + 1
        assert 24 <= st["bytes_per_node"] <= 4 * ISMCTSAgent.bytes_per_node()
        # the move is the most visited root child not proven lost, unless a proven win exists
        proofs = st["proofs"]
        if not any(p.startswith("win") for p in proofs.values()):
            assert children[action][0] == max(v for b, (v, _, _) in children.items()
                                              if not proofs.get(b, "").startswith("loss"))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_seed_makes_it_deterministic(game_id):
    state = midgame_states(game_id, GAMES[game_id].default_players, seed=5)[-1]
    runs = []
    for _ in range(2):
        a = agent(iterations=300, seed=9, match_seed=4)
        runs.append((a.act(state), a.last_stats()["children"], a.act(state), a.last_stats()["children"]))
    assert runs[0] == runs[1]
    other = agent(iterations=300, seed=10, match_seed=4)
    other.act(state)
    assert other.last_stats()["children"] != runs[0][1], "the agent seed is ignored"
    other = agent(iterations=300, seed=9, match_seed=5)
    other.act(state)
    assert other.last_stats()["children"] != runs[0][1], "the match seed is ignored"


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("pom", [0, 1])
def test_it_never_reads_what_the_acting_player_cannot_see(game_id, pom):
    """Worlds that differ only in what the player to move cannot see (hidden cards and bids, and the
    future chance draws of every game) get the same move from the same statistics, in every variant,
    also when the search merges the others' moves by how the player sees them (pom)."""
    for players, variant in ((n, v) for n in player_counts(game_id) for v in GAMES[game_id].test_variants):
        for state in midgame_states(game_id, players, seed=11, count=3, **variant):
            me = state.current_player()
            key = state.information_state_key(me)
            for seed in (1, 2):
                world = state.determinize(me, seed=seed)
                assert world.information_state_key(me) == key
                assert world.snapshot() != state.snapshot(), "the test needs worlds that differ"
                a, b = agent(iterations=200, seed=3, pom=pom), agent(iterations=200, seed=3, pom=pom)
                assert a.act(state) == b.act(world)
                sa, sb = a.last_stats(), b.last_stats()
                assert sa["children"] == sb["children"]
                assert sa["nodes"] == sb["nodes"]


def test_a_time_budget_replaces_the_iteration_budget():
    # No assertion on timers: only that the iteration count no longer bounds the search.
    state = engines.make("insert", seed=2)
    a = agent(time=0.05, iterations=1)
    action = a.act(state)
    st = a.last_stats()
    assert action in state.legal_actions()
    assert st["iterations"] > 1, "time, not iterations, is the budget when time > 0"
    assert st["root_visits"] == st["iterations"] == sum(v for v, _, _ in st["children"].values())


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("horizon", ["round", "game"])
def test_complete_games_against_random(game_id, horizon):
    for players in player_counts(game_id):
        seed = 100 + players
        state = engines.make(game_id, players=players, seed=seed)
        seats = [agent(seat=0, match_seed=seed, iterations=40, horizon=horizon)]
        for seat in range(1, players):
            r = RandomAgent()
            r.reset(game_id, state.params, seat, seed)
            seats.append(r)
        rng = random.Random(seed)
        searched = 0
        while not state.is_terminal():
            p = state.current_player()
            view = state.determinize(p, seed=rng.getrandbits(64))
            action = seats[p].act(view)
            assert action in state.legal_actions()
            if p == 0:
                searched += not seats[0].last_stats().get("forced", False)
            state.apply_action(action)
        assert searched > 0
        assert len(state.placements()) == players


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_self_play_completes_with_tiny_budgets(game_id):
    spec = GAMES[game_id]
    players = spec.max_players
    state = engines.make(game_id, players=players, seed=7)
    seats = [agent(seat=p, match_seed=7, iterations=8) for p in range(players)]
    while not state.is_terminal():
        p = state.current_player()
        state.apply_action(seats[p].act(state.determinize(p, seed=len(state.history()))))
    assert min(state.placements()) == 1


def test_it_beats_random_at_insert():
    """A modest budget wins at least 18 of 20 seeded games against random, seats alternating."""
    wins = 0
    for g in range(20):
        me = g % 2
        state = engines.make("insert", seed=g)
        seats = [None, None]
        seats[me] = agent(seat=me, match_seed=g, iterations=300)
        seats[1 - me] = RandomAgent()
        seats[1 - me].reset("insert", state.params, 1 - me, g)
        while not state.is_terminal():
            state.apply_action(seats[state.current_player()].act(state))
        wins += state.winner() == me
    assert wins >= 18


def test_it_takes_a_five_in_a_row_on_insert():
    """RULES.md 2.4: five in a row wins at once. Red has four on rank 1 and a free e1 it may play
    (the last ring went to e6, whose line runs vertically down the e-file)."""
    rows = ["....W.",
            "......",
            "......",
            "W.....",
            "W.....",
            "RRRR.W"]
    state = InsertState.from_board(rows, to_move=0, last="e6", tiles="VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV")
    assert "e1" in [state.action_to_string(a) for a in state.legal_actions()]
    a = agent(iterations=400)
    assert state.action_to_string(a.act(state)) == "e1"


def test_forced_moves_are_played_without_search():
    # Horizontal lines everywhere: the last ring at a1 leaves only f1 free on its line.
    rows = ["......",
            "......",
            "......",
            "......",
            "......",
            "RWRWR."]
    state = InsertState.from_board(rows, to_move=1, last="a1", tiles="H" * 36)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["f1"]
    a = agent(iterations=100)
    assert state.action_to_string(a.act(state)) == "f1"
    assert a.last_stats()["forced"] and a.last_stats()["iterations"] == 0


def test_it_is_registered_and_refuses_bad_parameters():
    a = agents.make("ismcts", iterations="50", horizon="game", c="1.2")
    assert isinstance(a, ISMCTSAgent) and a.params["iterations"] == 50 and a.params["c"] == 1.2
    with pytest.raises(BadAgentParameter, match="horizon"):
        ISMCTSAgent(horizon="trick")
    with pytest.raises(BadAgentParameter, match="iterations"):
        ISMCTSAgent(iterations=0)
    with pytest.raises(BadAgentParameter, match="time"):
        ISMCTSAgent(time=-1)
    with pytest.raises(BadAgentParameter, match="valid"):
        ISMCTSAgent(depth=3)


def test_the_search_refuses_an_empty_budget():
    """Without one iteration the root has no child to choose (this read past the tree before)."""
    from agents.ismcts import Search
    state = engines.make("insert", seed=1)
    with pytest.raises(ValueError, match="iterations"):
        Search().search(state, 0)
    with pytest.raises(ValueError, match="horizon"):
        Search().search(state, 10, horizon="trick")


@pytest.mark.parametrize("hand,bid", [("W", "bid 1"), ("J", "bid 0")])
def test_wizard_bids_the_sure_thing_in_a_one_card_round(hand, bid):
    """RULES.md 1.4 and 1.5: the first Wizard wins the trick, a lone Jester loses it; an exact bid
    scores 20 + 10 per trick and a miss loses 10, so the round horizon must find the exact bid."""
    others = ["3d", "5e", "J" if hand == "W" else "W"]
    state = WizardState.from_deal(4, [[hand]] + [[c] for c in others], turn_up="7g", dealer=3)
    assert state.current_player() == 0
    a = agent(iterations=1000)
    assert state.action_to_string(a.act(state)) == bid


def test_the_round_horizon_keeps_the_tree_in_the_round():
    """RULES.md 1.2: round 1 deals one card each: 4 bids and 4 cards, so 8 moves remain in it."""
    state = WizardState.from_deal(4, [["W"], ["3d"], ["5e"], ["J"]], turn_up="7g", dealer=3)
    depth = {}
    for horizon in ("round", "game"):
        a = agent(iterations=6000, horizon=horizon)
        a.act(state)
        depth[horizon] = a.last_stats()["max_depth"]
    assert depth["round"] <= 8 < depth["game"]


def test_the_round_horizon_scores_only_the_root_round():
    """RULES.md 1.5: an exact bid scores 20, a miss loses 10. Everyone bid 0 and the Wizard (seat 0)
    takes the one trick, so the last card of round 1 ends it at 20, 20, 20, -10 whatever the seed: the
    round horizon must not roll out into round 2."""
    from agents.ismcts import Search
    state = WizardState.from_deal(4, [["W"], ["3d"], ["5e"], ["J"]], turn_up="7g", dealer=3)
    for _ in range(7):
        state.apply_action(state.legal_actions()[0])     # every bid 0, then the first three cards
    assert state.current_player() == 3 and [state.action_to_string(a) for a in state.legal_actions()] == ["J"]
    # seat 3's reward: rank 2/3 (two ties, one below) and margin 20 - mean(20, 20, -10) = 10 on a
    # one-card round's span of 40 (20 + 20 h), equally weighted
    expected = 0.5 * (2 / 3) + 0.5 * (0.5 + 10 / (2 * 40))
    for seed in (1, 2, 3):
        search = Search()
        search.seed(seed)
        search.search(state, 50, 0.0, 0.7, "round", 0.5)
        (visits, _, mean), = search.root_children().values()
        assert visits == 50 and mean == pytest.approx(expected)


def test_the_benchmark_rows():
    from arena.bench.ismcts import cases
    rows = list(cases(["insert", "wizard"], repeats=2, seconds=0.005, baseline_iterations=300))
    by_case = {r["case"]: r for r in rows}
    for case in ("ismcts/insert/first_decision", "ismcts/wizard/first_decision",
                 "ismcts/wizard_4p_hand10/first_bid", "ismcts/wizard_4p_hand10/first_card"):
        r = by_case[case]
        assert r["unit"] == "iterations/s" and len(r["rates"]) == 2 and r["median_per_s"] > 0
        assert r["iterations"] >= 1000 and r["nodes"] > 1 and r["bytes_per_node"] >= 24
    for game_id in ("insert", "wizard"):
        # the move `arena run --agents ismcts` plays: the agent's own default budget, timed whole
        r = by_case[f"ismcts/{game_id}/default_move"]
        assert r["iterations"] == agents.agent_class("ismcts").PARAMS["iterations"] and len(r["rates"]) == 2
        assert r["seconds_per_move"] == round(r["iterations"] / r["median_per_s"], 4)
    has_pyspiel = importlib.util.find_spec("pyspiel") is not None
    for point in ("first_bid", "first_card"):
        hand = by_case[f"ismcts/wizard_4p_hand10/{point}"]
        if not has_pyspiel:
            assert hand["baseline"] is None and "pyspiel" in hand["note"]
            continue
        base = by_case[hand["baseline"]]
        assert base["case"] == f"openspiel_ismcts/oh_hell_4p_10tricks/{point}"
        assert hand["speedup"] == round(hand["median_per_s"] / base["median_per_s"], 2)



def test_the_openspiel_ratio_in_interleaved_rounds():
    """Each round measures OpenSpiel's row then ours at each Wizard point; the last rows give every
    round's speedup per point and their median."""
    pytest.importorskip("pyspiel")
    from arena.bench.ismcts import openspiel_rounds
    rows = list(openspiel_rounds(rounds=3, repeats=1, seconds=0.005, baseline_iterations=200))
    points = ("first_bid", "first_card")
    timed = rows[:-2]
    assert [(r["round"], r["case"]) for r in timed] == [
        (k, f"{side}/{point}") for k in range(3) for point in points
        for side in ("openspiel_ismcts/oh_hell_4p_10tricks", "ismcts/wizard_4p_hand10")]
    for point, summary in zip(points, rows[-2:]):
        ours = [r for r in timed if r["case"] == f"ismcts/wizard_4p_hand10/{point}"]
        assert summary["case"] == f"ismcts/wizard_4p_hand10/{point}/rounds"
        assert summary["speedups"] == [r["speedup"] for r in ours]
        assert summary["median_speedup"] == round(statistics.median(summary["speedups"]), 2)

# ---- the solver (MCTS-Solver) on Insert: proven wins and losses ----

# plain minimax and the five-in-a-row threat, shared with the alphabeta tests
from test_minimax import exhaustive as _exhaustive  # noqa: E402
from test_minimax import five_threat
from test_minimax import immediate_win as _wins_at_once


def test_the_solver_always_plays_a_proven_win_in_one():
    """RULES.md 2.4: five in a row wins at once. R has a3-d3 and e5's vertical line lets R play e3;
    other moves may win later, but the fastest proven win is played, and the search stops there."""
    state = five_threat()
    for seed in range(12):
        for iterations in (len(state.legal_actions()), 300, 5000):
            a = agent(iterations=iterations, seed=seed)
            assert state.action_to_string(a.act(state)) == "e3"
            st = a.last_stats()
            assert st["root_proof"] == "win in 1" and st["proofs"][state.string_to_action("e3")] == "win in 1"
            assert st["iterations"] <= len(state.legal_actions())
    # without the solver the same search may wander (the budget is spent in full)
    a = agent(iterations=300, solver=False)
    a.act(state)
    assert a.last_stats()["iterations"] == 300 and not a.last_stats()["proofs"]


def test_the_solver_never_chooses_a_proven_loss_when_another_move_is_not():
    """RULES.md 2.3-2.4: W to move on d1's vertical line; most squares let R complete a3-e3 next."""
    state = InsertState.from_board(["......", "......", "W.W...", "RRRR..", "..W...", "...R.."],
                                   to_move=1, last="d1")
    losing = set()
    for a in state.legal_actions():
        state.apply_action(a)
        if any(_wins_at_once(state, b) for b in state.legal_actions()):
            losing.add(a)
        state.undo_action()
    assert losing and len(losing) < len(state.legal_actions())
    for seed in range(12):
        for iterations in (30, 200, 2000):
            a = agent(iterations=iterations, seed=seed)
            assert a.act(state) not in losing
            for action, proof in a.last_stats()["proofs"].items():
                # a proof is right: the losing squares lose in two plies
                assert (proof == "loss in 2") == (action in losing)


def test_a_lost_position_plays_the_slowest_loss():
    """Every move loses: the solver proves the root lost and plays on as long as it can."""
    found = 0
    for seed in range(60):
        s = _near_the_end(seed, 22 + seed % 5)
        if s is None or _exhaustive(s) != -1:
            continue
        a = agent(iterations=20000, seed=seed)
        action = a.act(s)
        st = a.last_stats()
        if st["root_proof"] is None:
            continue
        found += 1
        k = int(st["root_proof"].split()[-1])
        assert st["root_proof"].startswith("loss") and st["proofs"][action] == st["root_proof"]
        assert all(int(p.split()[-1]) <= k for p in st["proofs"].values())
        if found == 3:
            break
    assert found, "no lost position proven among the samples"


def _near_the_end(seed, plies):
    r = random.Random(seed)
    s = engines.make("insert", seed=seed)
    while not s.is_terminal() and len(s.history()) < plies:
        s.apply_action(r.choice(s.legal_actions()))
    return None if s.is_terminal() else s


def test_solver_proofs_agree_with_exhaustive_minimax_near_the_end():
    proven = 0
    for seed in range(40):
        s = _near_the_end(seed, 24 + seed % 4)
        if s is None:
            continue
        truth = _exhaustive(s)
        a = agent(iterations=20000, seed=seed)
        action = a.act(s)
        proof = a.last_stats()["root_proof"]
        if proof is not None:
            proven += 1
            assert proof.split()[0] == {1: "win", 0: "draw", -1: "loss"}[truth]
        # the move played keeps the value whenever the root is proven
        if proof is not None:
            mover = s.current_player()
            s.apply_action(action)
            after = s.returns()[mover] if s.is_terminal() else (
                _exhaustive(s) if s.current_player() == mover else -_exhaustive(s))
            s.undo_action()
            assert after == truth
    assert proven >= 5


# ---- the margin reward ----

def test_margin_changes_the_search_with_two_players():
    """RULES.md 3.6: points decide Belladone Bluff. With two players the margin term reads the points
    on the game's scale, so the search's root statistics depend on `margin` (min-max normalising
    within a rollout made it the rank again: the same statistics for margin 0, 0.5 and 1)."""
    from agents.ismcts import Search, score_span
    differ = 0
    for state in midgame_states("belladone_bluff", 2, seed=13, count=3):
        assert score_span(state, "round") == 60.0
        stats = []
        for margin in (0.0, 0.5, 1.0):
            search = Search()
            search.seed(5)
            search.search(state, 400, 0.0, 0.7, "round", margin)
            stats.append(search.root_children())
        means = {round(m, 9) for v, _, m in stats[2].values()}
        assert not means <= {0.0, 0.5, 1.0}, "margin 1 must see more than win, draw or loss"
        differ += stats[0] != stats[1] != stats[2]
        # margin 0 is the rank alone: win, draw or loss per rollout
        for visits, _, mean in stats[0].values():
            assert (mean * visits * 2) == pytest.approx(round(mean * visits * 2))
    assert differ == 3


def test_the_margin_reward_reads_points_on_the_game_scale():
    """A lead of a full span scores 1, no lead 0.5; the Wizard round horizon scales by hand size."""
    from agents.ismcts import score_span
    assert score_span(engines.make("insert", seed=1)) == 2.0
    w = WizardState.from_deal(4, [["W"], ["3d"], ["5e"], ["J"]], turn_up="7g", dealer=3)
    assert score_span(w, "round") == 40.0 and score_span(w, "game") == 360.0
    assert score_span(engines.make("royal_ball", seed=1), "round") == 1.0
    assert score_span(engines.make("royal_ball", seed=1), "game") == 3.0


# ---- root parallelisation ----

@pytest.mark.parametrize("game_id", ["belladone_bluff", "wizard"])
def test_threads_share_the_iteration_budget_and_are_deterministic(game_id):
    state = midgame_states(game_id, GAMES[game_id].default_players, seed=5)[-1]
    runs = []
    for _ in range(2):
        a = agent(iterations=1001, threads=2, seed=3)
        action = a.act(state)
        st = a.last_stats()
        assert action in state.legal_actions() and st["threads"] == 2
        assert st["iterations"] == st["root_visits"] == sum(v for v, _, _ in st["children"].values()) == 1001
        assert st["children"][action][0] == max(v for v, _, _ in st["children"].values())
        runs.append((action, st["children"]))
    assert runs[0] == runs[1]
    # one thread plays exactly as the plain search; a second tree adds its own statistics
    one = agent(iterations=1001, threads=1, seed=3)
    one.act(state)
    assert one.last_stats()["children"] != runs[0][1]


def test_threads_keep_the_solver_and_a_time_budget():
    state = five_threat()
    a = agent(iterations=400, threads=2)
    assert state.action_to_string(a.act(state)) == "e3" and a.last_stats()["root_proof"] == "win in 1"
    a = agent(time=0.02, iterations=1, threads=2)
    assert a.act(engines.make("belladone_bluff", seed=1)) is not None
    assert a.last_stats()["iterations"] > 2


# ---- rollouts cut off by the engine's evaluation ----

@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_cutoff_rollout_ends_in_the_evaluation(game_id):
    """`cutoff=k` plays at most k random plies below the tree, then scores by c_evaluate: the budget
    stays exact, the rewards stay in [0, 1] and the statistics differ from full rollouts."""
    state = midgame_states(game_id, GAMES[game_id].default_players, seed=3)[0]
    stats = {}
    for cutoff in (0, 3):
        a = agent(iterations=300, cutoff=cutoff, solver=False, seed=2)
        assert a.act(state) in state.legal_actions()
        st = a.last_stats()
        assert st["iterations"] == 300
        assert all(0.0 <= mean <= 1.0 for _, _, mean in st["children"].values())
        stats[cutoff] = st["children"]
    assert stats[0] != stats[3]


def test_the_defaults_are_the_game_s_entries():
    """cutoff, epsilon and pom at -1 read the per-game tables; any other value is taken as given."""
    from agents.ismcts import CUTOFFS, EPSILONS, POM_GAMES, partial_moves, rollout_cutoff, rollout_epsilon
    for game_id in GAME_IDS:
        state = engines.make(game_id, seed=1)
        assert rollout_cutoff(state) == CUTOFFS.get(game_id, 0)
        assert rollout_cutoff(state, 0) == 0 and rollout_cutoff(state, 7) == 7
        assert rollout_epsilon(state) == EPSILONS.get(game_id, 1.0)
        assert rollout_epsilon(state, 1.0) == 1.0 and rollout_epsilon(state, 0.3) == 0.3
        assert partial_moves(state) == (game_id in POM_GAMES)
        assert partial_moves(state, 0) is False and partial_moves(state, 1) is True
    assert ISMCTSAgent().params["cutoff"] == ISMCTSAgent().params["pom"] == -1
    assert ISMCTSAgent().params["epsilon"] == -1.0
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(pom=2)


@pytest.mark.parametrize("game_id", ["belladone_bluff", "insert"])
def test_eval_expansion_tries_the_best_evaluated_action_first(game_id):
    """expand=eval: a node's first child is the action whose result the evaluation rates best (in
    games whose evaluation reads only what the mover knows, so every determinization agrees)."""
    from agents.ismcts import Search
    for state in midgame_states(game_id, 2, seed=4, count=3):
        me = state.current_player()
        values = {}
        for a in state.legal_actions():
            state.apply_action(a)
            values[a] = state.evaluate(me)
            state.undo_action()
        search = Search()
        search.seed(1)
        search.search(state, 1, expand="eval")
        (first,) = search.root_children()
        assert values[first] == max(values.values())
        with pytest.raises(ValueError, match="expand"):
            search.search(state, 1, expand="best")


# ---- partially observable moves ----

def _two_hidden_reds():
    """RULES.md 3.3, 3.8: P1 holds the last two red cards, R+2 and R-3 (every other red is in the
    discard pile), so every determinization gives P1 both; placed face down (rows I and III take
    their 2nd card face down), the searcher P0 sees only "a red card on row I"."""
    from engines.belladone_bluff import BelladoneBluffState
    return BelladoneBluffState.from_deal(
        [["B+1"], ["R+2", "R-3"]], ["G+1", "G+2", "G+3", "G-1", "G-2", "Y+1", "Y+2", "Y+3"],
        [["P+1"], ["P+2", "P-1"], ["Y-4"]], first=0)


def _classes_seen_by(state, me):
    """The other player's legal actions grouped by what `me` sees after each: [{actions}]."""
    groups = {}
    for b in state.legal_actions():
        after = state.clone()
        after.apply_action(b)
        groups.setdefault(after.information_state_key(me), set()).add(b)
    return list(groups.values())


def test_pom_merges_the_moves_the_searcher_cannot_tell_apart():
    """With pom the opponent's face-down R+2 and R-3 on one row are one edge of the searcher's tree
    (so the searcher's later nodes are not split by which red card it was); without pom they are two."""
    from agents.ismcts import Search
    state = _two_hidden_reds()
    edges = {}
    for pom in (False, True):
        search = Search()
        search.seed(3)
        search.search(state, 3000, pom=pom)
        edges[pom] = {a: {e[0]: e[2] for e in search.edges_below(a)} for a in state.legal_actions()}
    merged_somewhere = False
    for a in state.legal_actions():
        after = state.clone()
        after.apply_action(a)
        assert after.current_player() == 1
        classes = _classes_seen_by(after, 0)
        hidden = [c for c in classes if len(c) > 1]
        assert hidden, "the test needs face-down placements"
        for c in hidden:
            assert len(c & set(edges[False][a])) == 2, "without pom each red card has its own edge"
            # with pom one edge stands for the class, keyed by its view (the engine's action_view)
            views = {after.action_view(0, b) for b in c}
            assert len(views) == 1
            assert views <= set(edges[True][a]) and not (c - views) & set(edges[True][a])
            merged_somewhere = True
        # the observed moves keep one edge each, keyed by their view; every class was tried
        assert set(edges[True][a]) == {after.action_view(0, b) for b in after.legal_actions()}
        assert len(edges[True][a]) == len(classes)
    assert merged_somewhere


def _face_down_by_p1(card, other):
    """RULES.md 3.3, 3.8: row I holds P+1 and, face down, P1's `card` (P1 knows it); the other red
    card `other` is in P1's hand. P0 sees two red cards of P1 and knows neither."""
    from engines.belladone_bluff import BelladoneBluffState
    return BelladoneBluffState.from_deal(
        [["B+1", "G+4"], [other, "Y-2"]], ["G+1", "G+2", "G+3", "G-1", "G-2", "Y+1", "Y+2", "Y+3"],
        [["P+1", card], ["P+2", "P-1"], ["Y-4"]], first=0, seen={card: [1]})


@pytest.mark.parametrize("pom", [False, True])
def test_root_statistics_do_not_depend_on_an_opponents_hidden_card(pom):
    """Two roots that differ only in which of P1's two red cards lies face down on row I (Belladone
    Bluff), or only in an opponent's hidden bid (Wizard, hidden_bids, RULES.md 1.6), give the same
    statistics, root and below."""
    from agents.ismcts import Search
    a, b = _face_down_by_p1("R+2", "R-3"), _face_down_by_p1("R-3", "R+2")
    assert a.information_state_key(0) == b.information_state_key(0) and a.snapshot() != b.snapshot()
    pairs = [(a, b)]
    w = engines.make("wizard", players=4, seed=5, hands=(3,), hidden_bids=True)
    first = w.current_player()
    w.apply_action(w.legal_actions()[0])     # `first` bids 0
    worlds = []
    for bid in (1, 2):
        x = w.clone()
        x.apply_action(x.string_to_action(f"bid {bid}"))
        worlds.append(x)
    assert worlds[0].information_state_key(worlds[0].current_player()) == \
        worlds[1].information_state_key(worlds[1].current_player())
    assert first != worlds[0].current_player()
    pairs.append(tuple(worlds))
    for x, y in pairs:
        stats = []
        for state in (x, y):
            search = Search()
            search.seed(9)
            search.search(state, 1500, pom=pom)
            stats.append((search.root_children(),
                          {a: search.edges_below(a) for a in search.root_children()}))
        assert stats[0] == stats[1]


def test_merged_edges_are_keyed_by_the_view():
    """With pom, at an opponent's node the edges are the distinct views of its legal actions
    (Wizard, hidden_bids: another player's bid is "a bid", one edge); without pom one per action."""
    from agents.ismcts import Search
    state = engines.make("wizard", players=4, seed=5, hands=(3,), hidden_bids=True)
    me = state.current_player()
    for pom in (False, True):
        search = Search()
        search.seed(2)
        search.search(state, 2000, pom=pom)
        for a in state.legal_actions():
            after = state.clone()
            after.apply_action(a)
            assert after.current_player() != me
            views = {after.action_view(me, b) for b in after.legal_actions()}
            below = {e[0] for e in search.edges_below(a)}
            if pom:
                assert len(views) == 1 and below == views
            else:
                assert below == set(after.legal_actions()) and len(below) == 4


def test_span_sets_the_scale_of_the_margin_reward():
    """span=0 reads the game's score_span; another span changes the rewards and so the search."""
    state = midgame_states("belladone_bluff", 2, seed=6)[-1]
    runs = {}
    for span in (0.0, 60.0, 15.0):
        a = agent(iterations=400, seed=2, span=span)
        a.act(state)
        runs[span] = a.last_stats()["children"]
    assert runs[0.0] == runs[60.0]      # Belladone Bluff's span is 60 points
    assert runs[15.0] != runs[60.0]
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(span=-1.0)


def test_greedy_cutoff_rollouts():
    """epsilon < 1 plays the cut-off rollout's plies by the engine's evaluation (with chance
    epsilon a random ply): the budget stays exact and the statistics differ from random plies;
    with full rollouts (cutoff 0) epsilon plays no part."""
    from agents.ismcts import Search
    state = midgame_states("belladone_bluff", 2, seed=8)[-1]
    stats = {}
    for cutoff in (0, 4):
        for eps in (1.0, 0.0):
            search = Search()
            search.seed(4)
            search.search(state, 300, cutoff=cutoff, epsilon=eps)
            assert search.stats()["iterations"] == 300
            stats[cutoff, eps] = search.root_children()
    assert stats[4, 1.0] != stats[4, 0.0]
    assert stats[0, 1.0] == stats[0, 0.0]
    with pytest.raises(ValueError, match="epsilon"):
        Search().search(state, 10, epsilon=1.5)
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(epsilon=2.0)


# ---- decisive and anti-decisive rollout plies ----

def _one_safe_move():
    """R to move on a3, c5 or d6 (the line of b4), none of which wins; after a3 or d6 W can make
    five at once on the line R's ring opens, after c5 W cannot (checked below by brute force)."""
    return InsertState.from_board([".....R", ".....W", ".WW.R.", "..R..W", "WRWWW.", "WR.RW."],
                                  to_move=0, last="b4", tiles="/\\HHV/\\HVV/\\HV//\\HV/\\\\HV/\\HHV/\\HVV/\\")


def test_decisive_rollout_plies_take_an_immediate_win():
    """decisive >= 1: a rollout ply takes a move that wins at once whenever there is one; a
    uniformly random ply (decisive 0) often does not."""
    from agents.ismcts import Search
    state = five_threat()
    e3 = state.string_to_action("e3")
    assert len(state.legal_actions()) == 5 and _wins_at_once(state, e3)
    search = Search()
    search.seed(1)
    picks = {d: [search.rollout_action(state, d) for _ in range(60)] for d in (0, 1, 2)}
    assert picks[1] == picks[2] == [e3] * 60
    assert set(picks[0]) == set(state.legal_actions())
    assert state.legal_actions() == five_threat().legal_actions()    # left as it was


def test_anti_decisive_rollout_plies_leave_no_immediate_win():
    """decisive 2: among moves that do not win at once, only those after which the next player
    cannot win at once (here c5 alone); decisive 1 plays any of them."""
    from agents.ismcts import Search
    state = _one_safe_move()
    legal = state.legal_actions()
    assert [state.action_to_string(a) for a in legal] == ["a3", "c5", "d6"]
    assert not any(_wins_at_once(state, a) for a in legal)
    safe = []
    for a in legal:
        t = state.clone()
        t.apply_action(a)
        if not any(_wins_at_once(t, b) for b in t.legal_actions()):
            safe.append(a)
    assert [state.action_to_string(a) for a in safe] == ["c5"]
    search = Search()
    search.seed(2)
    assert {search.rollout_action(state, 2) for _ in range(60)} == set(safe)
    assert {search.rollout_action(state, 1) for _ in range(60)} == set(legal)
    with pytest.raises(ValueError, match="decisive"):
        search.rollout_action(state, 3)


def test_decisive_rollouts_change_the_search():
    """The decisive policy replaces the engine's random rollouts (and the random plies of a cut-off
    rollout): the budget stays exact, the statistics differ; -1 reads the game's DECISIVE entry."""
    from agents.ismcts import DECISIVE, Search, rollout_decisive
    state = midgame_states("insert", 2, seed=5)[1]
    stats = {}
    for cutoff in (0, 4):
        for d in (0, 1, 2):
            search = Search()
            search.seed(3)
            search.search(state, 400, solver=False, cutoff=cutoff, decisive=d)
            assert search.stats()["iterations"] == 400
            stats[cutoff, d] = search.root_children()
        assert stats[cutoff, 0] != stats[cutoff, 1] != stats[cutoff, 2]
    for game_id in GAME_IDS:
        s = engines.make(game_id, seed=0)
        assert rollout_decisive(s) == DECISIVE.get(game_id, 0)
        assert rollout_decisive(s, 0) == 0 and rollout_decisive(s, 2) == 2
    assert ISMCTSAgent().params["decisive"] == -1
    with pytest.raises(ValueError, match="decisive"):
        Search().search(state, 10, decisive=3)
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(decisive=3)


def test_expand_default_reads_the_game_s_entry():
    """expand=default takes `eval` for the games in EXPAND_EVAL and `random` elsewhere; `random` and
    `eval` are taken as given."""
    from agents.ismcts import EXPAND_EVAL, expansion
    for game_id in GAME_IDS:
        s = engines.make(game_id, seed=0)
        assert expansion(s) == ("eval" if game_id in EXPAND_EVAL else "random")
        assert expansion(s, "random") == "random" and expansion(s, "eval") == "eval"
    assert ISMCTSAgent().params["expand"] == "default"


def test_paired_store_comparison(tmp_path):
    """experiments.ismcts_strength.paired: per-deal differences of two stores on the same deals."""
    import json
    import sqlite3

    from experiments.ismcts_strength import paired

    def store(name, results):
        path = tmp_path / name
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE matches (run_id TEXT, seed INTEGER, seats TEXT, returns TEXT)")
        for seed, (first, second) in enumerate(results):
            for swap, margin in ((False, first), (True, second)):
                seats = [{"label": "ismcts[x=1]"}, {"label": "minimax"}]
                returns = [margin, 0]
                if swap:
                    seats.reverse()
                    returns.reverse()
                db.execute("INSERT INTO matches VALUES ('r', ?, ?, ?)", (seed, json.dumps(seats), json.dumps(returns)))
        db.commit()
        return str(path)

    a = store("a.sqlite", [(5, 5), (5, -5), (0, 3)])     # pair scores 1, 0.5, 0.75
    b = store("b.sqlite", [(-5, -5), (5, -5), (-1, 3)])  # pair scores 0, 0.5, 0.5
    out = paired(a, b)
    assert out["deals"] == 3 and out["share_a"] == 0.75 and out["share_b"] == pytest.approx(1 / 3, abs=1e-3)
    assert out["share_difference"][0] == pytest.approx(0.417, abs=1e-3)
    assert out["points_difference"][0] == pytest.approx((20 + 0 + 1) / 3, abs=1e-3)


def _match_rows(scores):
    """--openspiel log rows: {deal: [score of seating AB, of BA]}, margins 10 x (score - 1/2)."""
    return [{"deal": d, "seating": seating, "score": x, "margin": 10 * (x - 0.5), "returns": [0, 0]}
            for d, pair in scores.items() for seating, x in zip(("AB", "BA"), pair)]


def test_openspiel_log_summary_is_over_deals_and_pairs_runs_deal_by_deal(tmp_path):
    """A deal counts once, as the mean of its seatings (an unfinished deal not at all), so the
    interval is over deals, where the seat swap cancels the luck of the cards; a second log is
    also compared deal by deal with the first. A log that is not one gives a one-line error."""
    import json
    import subprocess
    import sys

    from experiments.ismcts_strength import summary
    base = _match_rows({0: (1.0, 0.0), 1: (1.0, 1.0), 2: (0.5, 0.0)})
    out = summary(base + [{"deal": 3, "seating": "AB", "score": 1.0, "margin": 5, "returns": [0, 0]}])
    assert (out["matches"], out["deals"], out["share"]) == (7, 3, round((0.5 + 1.0 + 0.25) / 3, 3))
    per_deal = [0.5, 1.0, 0.25]
    half = 1.96 * statistics.stdev(per_deal) / 3 ** 0.5
    assert out["ci95"] == [round(out["share"] - half, 3), round(out["share"] + half, 3)]
    other = _match_rows({0: (1.0, 1.0), 1: (1.0, 0.0), 2: (1.0, 0.5)})
    paired = summary(other, base)["paired"]
    assert paired["deals"] == 3 and paired["difference"][0] == round((0.5 - 0.5 + 0.5) / 3, 3)
    assert summary(_match_rows({7: (1.0, 0.0)}), base)["paired"] == {"deals": 0}
    logs = []
    for name, rows in (("base", base), ("other", other)):
        logs.append(tmp_path / f"{name}.log")
        logs[-1].write_text("".join(json.dumps(r) + "\n" for r in rows))
    cli = [sys.executable, "-m", "experiments.ismcts_strength", "--logs"]
    done = subprocess.run(cli + [str(x) for x in logs], capture_output=True, text=True, cwd=ROOT)
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert done.returncode == 0 and [x["log"] for x in lines] == [str(x) for x in logs]
    assert "paired" not in lines[0] and lines[1]["paired"]["deals"] == 3
    (tmp_path / "bad.log").write_text('{"deal": 0}\n')
    bad = subprocess.run(cli + [str(tmp_path / "bad.log")], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1 and "not a readable --openspiel match log" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_versus_openspiel_seats_each_side_everywhere_on_the_same_cards():
    """The OpenSpiel head-to-head: two seatings a deal (A B A B, then B A B A with four
    players), each scored as A's seats against B's, and a result within [0, 1]."""
    import io
    import json
    pytest.importorskip("pyspiel")
    from experiments.ismcts_strength import versus_openspiel
    log = io.StringIO()
    out = versus_openspiel("wizard", deals=1, iterations=20, log=log, params={"players": 4, "hands": (1,)})
    lines = [json.loads(x) for x in log.getvalue().splitlines()]
    assert [x["seating"] for x in lines] == ["ABAB", "BABA"] and (out["matches"], out["deals"]) == (2, 1)
    assert all(x["score"] in (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0) for x in lines)
    assert out["share"] == sum(x["score"] for x in lines) / 2 and out["opponent"] == "openspiel_ismcts"
    two = versus_openspiel("insert", deals=1, iterations=20)
    assert two["matches"] == 2 and two["opponent"] == "openspiel_mcts_solver" and 0 <= two["share"] <= 1


def test_versus_openspiel_takes_another_agent_on_our_side():
    """`--agent pimc` puts pimc (with `--ours` as its own parameters, no iterations or c) in A's seats
    on the same deals; an unknown agent or a parameter the agent lacks is a one-line error."""
    import io
    import json
    import subprocess
    import sys
    pytest.importorskip("pyspiel")
    from experiments.ismcts_strength import versus_openspiel
    log = io.StringIO()
    out = versus_openspiel("wizard", deals=1, iterations=20, ours="bid_samples=5", log=log, agent="pimc",
                           params={"players": 4, "hands": (1,)})
    assert out["agent"] == "pimc" and out["ours"] == "bid_samples=5" and out["matches"] == 2
    assert [json.loads(x)["seating"] for x in log.getvalue().splitlines()] == ["ABAB", "BABA"]
    # a margin given on the command line reaches OpenSpiel's reward as a number
    rank = versus_openspiel("wizard", deals=1, iterations=20, ours="margin=0",
                            params={"players": 4, "hands": (1,)})
    assert rank["matches"] == 2 and 0 <= rank["share"] <= 1
    cli = [sys.executable, "-m", "experiments.ismcts_strength", "--openspiel", "1", "wizard"]
    for extra, said in ((["--agent", "nobody"], "unknown agent 'nobody'"),
                        (["--agent", "pimc", "--ours", "c=2"], "c")):
        bad = subprocess.run(cli + extra, capture_output=True, text=True, cwd=ROOT)
        assert bad.returncode == 1 and bad.stderr.startswith("error: ") and said in bad.stderr
        assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_openspiel_s_bots_are_rewarded_with_our_margin():
    """Both sides of the head-to-head search for the same objective: OpenSpiel's bots read a final
    state's returns as ismcts's reward with the `margin` that `--ours` gives ismcts."""
    pyspiel = pytest.importorskip("pyspiel")
    from experiments.ismcts_strength import _openspiel_wrappers, _reward
    state = engines.make("wizard", seed=4, players=4, hands=(2,))
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    for margin in (0.0, 0.5, 1.0):
        Game, State = _openspiel_wrappers(pyspiel, margin)
        assert State(Game(False), state, rng).returns() == _reward(state, margin)
    assert _reward(state, 0.0) != _reward(state, 1.0)


# ---- MAST rollouts ----

def _card_play_state():
    """A 4-player, 5-card Wizard round at p0's first card (bids made), where each card can be played
    once a round, so a root action's MAST statistics are those of its edge alone."""
    state = engines.make("wizard", seed=5, players=4, hands=(5,))
    while state.phase() != "play":
        state.apply_action(state.legal_actions()[0])
    return state


def _root_children(seed, **settings):
    """The root's children after a seeded 300-iteration search of `_card_play_state` with these
    settings (the budget checked exact)."""
    from agents.ismcts import Search
    search = Search()
    search.seed(seed)
    search.search(_card_play_state(), 300, **settings)
    assert search.stats()["iterations"] == 300
    return search.root_children()


def test_mast_statistics_add_up_each_iteration_s_rewards():
    """With mast > 0 every action an iteration takes adds its player's reward to (player, action)'s
    MAST statistics. At p's first card of a Wizard round each iteration plays every card of p's
    hand exactly once (in the tree or the rollout), so each of them has a count of the iterations
    and a reward sum of p's rewards over the whole search, that is of the root edges' rewards; an
    opponent's cards differ by world. Without MAST the statistics stay empty."""
    from agents.ismcts import Search
    state = _card_play_state()
    me = state.current_player()
    search = Search()
    search.seed(3)
    search.search(state, 400, mast=0.8)
    table = search.mast_stats()
    roots = search.root_edges()
    assert len(roots) == len(state.legal_actions()) > 1
    total = sum(reward for _, _, _, reward, _ in roots)
    for action in state.legal_actions():
        count, reward = table[me, action]
        assert count == 400 and reward == pytest.approx(total)
    assert all(0.0 <= reward <= count for count, reward in table.values())
    assert {p for p, _ in table} == set(range(4))
    assert any(count < 400 for (p, _), (count, _) in table.items() if p != me)
    search.search(state, 400)
    assert search.mast_stats() == {}


@pytest.mark.parametrize("knob", ["mast", "policy"])
def test_mast_and_policy_rollouts_change_the_search(knob):
    """mast (the best mean so far) and policy (the engine's playout policy, Wizard's chases the bid)
    play the rollout plies that would be random: the statistics differ from uniformly random
    rollouts, the budget stays exact and a seed reproduces them; 0 is the plain search."""
    from agents.ismcts import Search

    assert _root_children(9, **{knob: 0.9}) == _root_children(9, **{knob: 0.9})
    assert _root_children(9, **{knob: 0.9}) != _root_children(9)
    assert _root_children(9, **{knob: 0.0}) == _root_children(9)
    with pytest.raises(ValueError, match=knob):
        Search().search(_card_play_state(), 10, **{knob: 1.5})
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(**{knob: 2.0})


def test_mast_policy_opponents_and_infer_are_off_by_default():
    """None of the four measured better on Wizard (README), so the plain search is the default."""
    p = ISMCTSAgent().params
    assert (p["mast"], p["policy"], p["opponents"], p["infer"]) == (0.0, 0.0, "search", 1)


def test_policy_opponents_play_the_engine_s_policy_in_each_world():
    """opponents=policy: below the root the next player's edges are only moves the engine's
    playout policy makes with a hand that player may hold (here, in 1,000 determinizations), where
    the searching opponents try moves it never makes; an unknown model is refused."""
    from agents.ismcts import Search
    state = _card_play_state()
    me = state.current_player()
    lead = state.legal_actions()[0]
    possible = set()
    for seed in range(1000):
        world = state.determinize(me, seed=seed)
        world.apply_action(lead)
        possible.add(world.policy_action())
    below = {}
    for opponents in ("policy", "search"):
        search = Search()
        search.seed(5)
        search.search(state, 2000, opponents=opponents)
        below[opponents] = {a for a, p, _, _ in search.edges_below(lead)}
        assert below[opponents]
    assert below["policy"] <= possible
    assert not below["search"] <= possible
    with pytest.raises(ValueError, match="opponents"):
        Search().search(state, 10, opponents="oracle")
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(opponents="oracle")


def test_inferred_worlds_change_the_search():
    """infer > 1 keeps each world with the engine's plausibility (Wizard: the others' bids against
    their hands), so after the bids the statistics differ from uniform worlds; a seed reproduces
    them and infer=1 is the plain search."""
    from agents.ismcts import Search

    assert _root_children(2, infer=8) == _root_children(2, infer=8) != _root_children(2)
    assert _root_children(2, infer=1) == _root_children(2)
    with pytest.raises(ValueError, match="infer"):
        Search().search(_card_play_state(), 10, infer=0)
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(infer=0)


# ---- sequential halving at the root ----

def test_halving_shares_the_root_visits_round_by_round():
    """root=halving with k root actions and N iterations: ceil(log2 k) rounds of N // rounds visits,
    shared equally in each round by the actions still in it, the worse half by mean leaving after
    each; the last one left is played. Checked on Wizard's first bid (6 bids, 1000 iterations: the
    3 worst leave with 55 visits each, the next with 55 + 111)."""
    from agents.ismcts import Search
    state = engines.make("wizard", seed=5, players=4, hands=(5,))
    search = Search()
    search.seed(3)
    played = search.search(state, 1000, margin=0.0, root="halving")
    children = search.root_children()
    assert len(children) == 6
    by_visits = sorted(children.items(), key=lambda kv: kv[1][0])
    assert [v for _, (v, _, _) in by_visits[:4]] == [55, 55, 55, 55 + 111]
    assert by_visits[-1][0] == played
    assert sum(v for v, _, _ in children.values()) == 1000
    other = Search()
    other.seed(3)
    other.search(state, 1000, margin=0.0, root="ucb")
    assert other.root_children() != children


def test_halving_is_off_with_the_solver_and_under_a_time_budget():
    """With the solver (Insert) the search stops once the root is proven, so halving's rounds would
    not end; the root is shared by UCB as without it: the same seeded statistics. Under a time
    budget the rounds are unknown: UCB shares the root unevenly, where halving's first round would
    give every bid the same visits."""
    from agents.ismcts import Search
    state = engines.make("insert", seed=2)
    runs = []
    for root in ("ucb", "halving"):
        search = Search()
        search.seed(7)
        search.search(state, 500, root=root)
        runs.append(search.root_children())
    assert runs[0] == runs[1]
    with pytest.raises(ValueError, match="root must be ucb or halving"):
        Search().search(state, 10, root="best")
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(root="best")
    a = agent(time=0.01, root="halving")
    assert a.act(state) in state.legal_actions()
    wizard = engines.make("wizard", seed=5, players=4, hands=(5,))
    timed = Search()
    timed.search(wizard, 1, seconds=0.05, margin=0.0, root="halving")
    visits = [v for v, _, _ in timed.root_children().values()]
    assert len(visits) == 6 and max(visits) - min(visits) > 1


# ---- progressive bias ----

def test_progressive_bias_sends_the_next_visit_to_the_best_evaluated_action():
    """bias=W adds W (2 r - 1) / (visits + 1) to a child's UCB value, r its rank among its siblings
    by the engine's evaluation for its mover. From an Insert position with c = 0 and k legal
    actions, k + 1 iterations try each action once, and with W = 100 the extra visit goes to an
    action whose evaluation is the best (a mean reward is at most 1, a rank step is worth
    100 / (k - 1) more). Without the bias it goes by the rollouts' means, which on these seeds
    pick a worse-evaluated action at least once."""
    from agents.ismcts import Search
    state = midgame_states("insert", 2, seed=3, count=1)[0]
    mover = state.current_player()
    evals = {}
    for a in state.legal_actions():
        after = state.clone()
        after.apply_action(a)
        evals[a] = after.evaluate(mover)
    k, best = len(evals), max(evals.values())
    extra = {}
    for bias in (100.0, 0.0):
        extra[bias] = []
        for seed in range(6):
            search = Search()
            search.seed(seed)
            search.search(state, k + 1, c=0.0, bias=bias)
            children = search.root_children()
            assert len(children) == k and sum(v for v, _, _ in children.values()) == k + 1
            extra[bias] += [a for a, (v, _, _) in children.items() if v == 2]
    assert len(extra[100.0]) == 6 and all(evals[a] == best for a in extra[100.0])
    assert any(evals[a] < best for a in extra[0.0])


def test_progressive_bias_is_validated_and_runs_with_merged_edges_and_threads():
    """bias is a weight in [0, 100], 0 (none) by default; with pom (Belladone Bluff's merged
    face-down placements, which have no evaluated rank) and with root-parallel threads, a biased
    search plays a legal move."""
    from agents.ismcts import Search
    assert ISMCTSAgent().params["bias"] == 0
    with pytest.raises(BadAgentParameter):
        ISMCTSAgent(bias=-1)
    with pytest.raises(ValueError, match="bias in"):
        Search().search(engines.make("insert", seed=1), 10, bias=float("nan"))
    for state in midgame_states("belladone_bluff", 2, seed=13, count=2):
        for threads in (1, 2):
            a = agent(iterations=400, bias=1.0, threads=threads)
            assert a.act(state) in state.legal_actions()
            assert sum(v for v, _, _ in a.last_stats()["children"].values()) == 400
