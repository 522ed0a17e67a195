"""`arena analyze`: each figure on synthetic matches with known answers, then seeded end-to-end runs
(schema, consistency with the stored actions, determinism, variants) and one-line errors."""
import json
import random

import pytest
from click.testing import CliRunner

import engines
from arena import edge
from arena.cli import main
from arena.gamestats import figures, replay
from arena.store import Store


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def match(match_id, deal, placements, returns, labels=("a", "b"), actions=(), metrics=None, faults=()):
    return {"match_id": match_id, "deal": deal, "seed": 100 + deal, "game_id": "insert",
            "game_params": {"players": len(placements)}, "placements": list(placements),
            "returns": list(returns), "seats": [{"label": x} for x in labels], "actions": list(actions),
            "faults": list(faults), "metrics": metrics or {}}


def flat_trace(players, scores, rounds=None):
    return replay.Trace(list(players), [2] * len(players), list(rounds or [0] * len(players)), [list(s) for s in scores])


def contains(iv):
    return iv["low"] - 1e-12 <= iv["mean"] <= iv["high"] + 1e-12


# ---- synthetic matches with known answers ---------------------------------------------------------

def test_seat_zero_always_winning_is_a_significant_advantage():
    ms = [match(2 * d + r, d, [1, 2], [1.0, -1.0], labels=("a", "b") if r == 0 else ("b", "a")) for d in range(12)
          for r in range(2)]
    traces = {m["match_id"]: flat_trace([0, 1, 0], [[0, 0], [0, 0], [0, 0], [1, -1]]) for m in ms}
    g = figures.summarize(ms, traces)
    seat0, seat1 = g["seat"]["seats"]
    assert seat0["win_share"]["mean"] == 1.0 and seat1["win_share"]["mean"] == 0.0
    assert seat0["advantage"] == "above" and seat1["advantage"] == "below" and g["seat"]["significant"]
    assert seat0["win_share"]["games"] == 24 and seat0["win_share"]["deals"] == 12
    assert g["seat"]["roles"]["first_mover"]["win_share"]["mean"] == 1.0   # seat 0 moves first
    # The agents rotate through the seats, so neither is better: the gap is nil.
    assert g["skill"][0]["score_gap"]["mean"] == 0.0 and g["skill"][0]["score_share"]["mean"] == 0.5


def test_shares_add_up_and_intervals_contain_their_means():
    ms = [match(0, 0, [1, 1, 3], [5, 5, 1], labels=("a", "b", "c")),
          match(1, 0, [2, 1, 3], [4, 6, 0], labels=("b", "c", "a")),
          match(2, 1, [3, 2, 1], [0, 2, 9], labels=("a", "b", "c")),
          match(3, 1, [1, 3, 2], [7, 1, 3], labels=("c", "a", "b"))]
    g = figures.summarize(ms, {m["match_id"]: flat_trace([0, 1, 2], [[0, 0, 0]] * 3 + [m["returns"]]) for m in ms})
    seats = g["seat"]["seats"]
    assert sum(r["win_share"]["mean"] for r in seats) == pytest.approx(1.0)
    assert sum(r["score_share"]["mean"] for r in seats) == pytest.approx(1.5)   # n/2 pairwise points
    assert seats[0]["win_share"]["mean"] == pytest.approx((0.5 + 0) / 2 * 0.5 + (0 + 1) / 2 * 0.5)
    for r in seats:
        for k in ("win_share", "score_share", "mean_return"):
            assert contains(r[k]) and r[k]["games"] == 4 and r[k]["deals"] == 2
    assert g["drama"]["draw_rate"]["mean"] == 0.25 and g["drama"]["tie_rate"]["mean"] == 0.25


def test_drama_on_a_known_score_path():
    # Seat 1 leads, then seat 0, tie, seat 0 again, seat 1 overtakes for good from position 5 of 6.
    scores = [[0, 0], [0, 1], [2, 1], [2, 2], [3, 2], [3, 4], [3, 5]]
    m = match(0, 0, [2, 1], [3, 5])
    tr = replay.Trace([0, 1, 0, 1, 0, 1], [3, 1, 2, 2, 1, 1], [0, 0, 0, 1, 1, 1], scores)
    lead, changes, last_round = figures.drama(m, tr)
    assert lead == pytest.approx(5 / 6) and changes == 2 and last_round is True
    figs = figures.match_figures(m, tr)
    assert figs["length", "plies"] == 6 and figs["length", "rounds"] == 2 and figs["length", "decisions_per_player"] == 3
    assert figs["branching", "all"] == pytest.approx(10 / 6) and figs["branching", "forced_share"] == 0.5
    assert figs["branching", "opening"] == 2 and figs["branching", "middle"] == 2 and figs["branching", "end"] == 1
    assert figs["role", "last_mover", "win_share"] == 1.0 and figs["role", "first_mover", "win_share"] == 0.0
    # Led from the start of the last round on: decided before it.
    early = replay.Trace(tr.players, tr.legal, tr.rounds, [[0, 0], [0, 1], [0, 2], [0, 3], [1, 4], [2, 4], [3, 5]])
    assert figures.drama(m, early) == (pytest.approx(1 / 6), 0, False)
    # A draw has no winner; a game of one round has no last-round figure.
    assert figures.drama(match(0, 0, [1, 1], [2, 2]), replay.Trace([0, 1], [1, 1], [0, 0], [[0, 0], [1, 0], [2, 2]]))[::2] == (None, None)


def test_identical_variants_show_no_difference():
    ms = [match(2 * d + r, d, [1, 2] if (d + r) % 3 else [2, 1], [d + r, d], labels=("a", "b") if r == 0 else ("b", "a"))
          for d in range(8) for r in range(2)]
    traces = {m["match_id"]: flat_trace([0, 1], [[0, 0], [1, 0], m["returns"]]) for m in ms}
    g1, g2 = figures.summarize(ms, traces, run_id="r1"), figures.summarize(ms, traces, run_id="r2")
    (diff,) = figures.differences([g1, g2])
    assert diff["figures"] and all(r["mean"] == 0 and not r["significant"] for r in diff["figures"])
    assert all(r["low"] <= 0 <= r["high"] for r in diff["figures"])
    shifted = figures.summarize([{**m, "returns": [x + 10 for x in m["returns"]]} for m in ms], traces, run_id="r3")
    row = next(r for r in figures.differences([g1, shifted])[0]["figures"] if r["figure"] == "seat 0 mean return")
    assert row["mean"] == pytest.approx(10) and row["significant"]


def test_faulted_matches_are_left_out_and_counted():
    ms = [match(0, 0, [1, 2], [1, -1]), match(1, 0, [2, 1], [0, 0], faults=[{"label": "a"}])]
    g = figures.summarize(ms, {0: flat_trace([0], [[0, 0], [1, -1]])})
    assert g["matches"] == 1 and g["faulted_matches"] == 1 and g["seat"]["seats"][0]["win_share"]["games"] == 1


def test_scalar_parameters_split_into_variants_and_lists_keep_their_commas():
    assert [(g.params["hands"], g.params["plus_minus_one"])
            for g in edge.game_variants("wizard", ["hands=2,3", "plus_minus_one=true,false"])] == \
        [((2, 3), True), ((2, 3), False)]
    assert [g.params["hands"] for g in edge.game_variants("wizard", ["hands=2", "hands=3"])] == [(2,), (3,)]
    with pytest.raises(ValueError, match="nosuch"):
        edge.game_variants("insert", ["nosuch=1"])
    assert edge.self_play("greedy") == edge.agents("greedy, greedy as greedy-2")


# ---- end to end ---------------------------------------------------------------------------------

def test_insert_end_to_end_json_matches_the_store_and_is_deterministic(tmp_path):
    args = ["analyze", "insert", "--games", 3, "--jobs", 1, "--json"]
    first = invoke(*args, "--store", tmp_path / "a.sqlite", "--out", tmp_path / "a.html")
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert set(data) >= {"runs", "notes", "groups", "differences"} and data["differences"] == []
    (g,) = data["groups"]
    assert set(g) >= {"seat", "length", "branching", "drama", "skill", "metrics", "matches", "deals"}
    assert g["matches"] == 6 and g["deals"] == 3 and g["agents"] == ["greedy", "random"]
    for iv in [r["win_share"] for r in g["seat"]["seats"]] + list(g["length"].values()):
        assert contains(iv) and iv["games"] == 6
    stored = Store(str(tmp_path / "a.sqlite"), readonly=True).matches(data["runs"][0])
    assert g["length"]["plies"]["mean"] == pytest.approx(sum(len(m["actions"]) for m in stored) / 6)
    assert g["skill"][0]["first"] == "greedy" and g["skill"][0]["score_share"]["mean"] > 0.5
    assert "<svg" in (tmp_path / "a.html").read_text() and data["out"].endswith("a.html")

    again = invoke(*args, "--store", tmp_path / "b.sqlite")   # another store, the same seed: the same games
    assert again.exit_code == 0, again.output
    assert {**json.loads(again.output), "out": None} == {**data, "out": None}
    stored_run = invoke("analyze", "--run", data["runs"][0], "--store", tmp_path / "a.sqlite", "--json")
    assert stored_run.exit_code == 0 and json.loads(stored_run.output)["groups"] == data["groups"]
    other_seed = invoke(*args, "--seed", 1, "--store", tmp_path / "a.sqlite")
    assert json.loads(other_seed.output)["groups"][0]["length"] != g["length"]


def test_wizard_variants_side_by_side_in_the_terminal(tmp_path):
    result = invoke("analyze", "wizard", "--param", "hands=2", "--param", "plus_minus_one=true,false",
                    "--agents", "greedy", "--games", 2, "--jobs", 1, "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 0, result.output
    for words in ("seat advantage", "length and tempo", "decisiveness and drama", "greedy vs greedy-2",
                  "bid accuracy by seat", "plus_minus_one=True", "minus", "bid accuracy by hand size"):
        assert words in result.output, words


def test_bids_made_reads_each_round_from_its_points():
    """RULES.md 1.5: a met bid scores 20 + 10 per trick, a missed one loses 10 per trick off; the
    rounds are told apart by the trace's round index, their sizes by the deal."""
    tr = replay.Trace([0, 1, 0, 1, 0, 1], [2] * 6, [0, 0, 0, 1, 1, 1],
                  [[0, 0], [0, 0], [0, 0], [30, -10], [30, -10], [30, -10], [10, 20]], hand_sizes=[1, 2])
    assert replay.bids_made(tr) == [(1, [True, False]), (2, [False, True])]


def test_wizard_bid_accuracy_by_hand_size_agrees_with_the_engine(tmp_path):
    """Per agent, the hand sizes' accuracies average to the engine's own bid_accuracy metric (every
    match plays one round of each size, every deal the same number of matches)."""
    result = invoke("analyze", "wizard", "--param", "hands=3,1,2", "--agents", "greedy,random", "--games", 4,
                    "--jobs", 1, "--json", "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (g,) = data["groups"]
    by_hand = g["bid_accuracy_by_hand"]
    assert set(by_hand) == {"greedy", "random"} and all(set(per) == {"1", "2", "3"} for per in by_hand.values())
    stored = Store(str(tmp_path / "s.sqlite"), readonly=True).matches(data["runs"][0])
    for label, per in by_hand.items():
        engine = [m["metrics"]["bid_accuracy"][s] for m in stored for s, seat in enumerate(m["seats"])
                  if seat["label"] == label]
        assert sum(iv["mean"] for iv in per.values()) / 3 == pytest.approx(sum(engine) / len(engine))
        assert all(0.0 <= iv["low"] <= iv["mean"] <= iv["high"] <= 1.0 for iv in per.values())


def test_round_tricks_reads_the_last_trick_from_the_points():
    """RULES.md 1.5: a met bid scores 20 + 10 a trick, a missed one -10 a trick off; exactly one seat
    takes the last trick, so the points tell who."""
    # bids 1, 0, 2; tricks before the last card 1, 0, 1: seat 2 takes the last trick and meets its 2
    assert replay.round_tricks([1, 0, 2], [1, 0, 1], [30, 20, 40]) == [1, 0, 2]
    # seat 1 takes it instead: over by one, and seat 2 under by one
    assert replay.round_tricks([1, 0, 2], [1, 0, 1], [30, -10, -10]) == [1, 1, 1]
    assert replay.round_tricks([1, 0, 2], [1, 0, 1], [30, 20, -10]) is None      # nobody took it
    assert replay.round_tricks([1, 0, 2], [1, 0, 1], [30, 25, 40]) is None       # points no rule gives


def test_the_trace_s_trick_counts_are_the_engine_s():
    """Single-round games end with the engine's final trick counts in view: the replay's counts,
    read from the points, must be those."""
    for seed in range(20):
        state = engines.make("wizard", seed=seed, players=3 + seed % 4, hands=(1 + seed % 5,))
        rng, actions = random.Random(seed), []
        while not state.is_terminal():
            actions.append(rng.choice(state.legal_actions()))
            state.apply_action(actions[-1])
        match = {"match_id": seed, "game_id": "wizard", "seed": seed, "actions": actions,
                 "game_params": {"players": 3 + seed % 4, "hands": (1 + seed % 5,)}}
        assert replay.trace(match).bid_outcomes == [(list(state.bids()), list(state.tricks()))]


def test_wizard_bids_by_value_and_misses_add_up_to_the_engine_s_accuracy(tmp_path):
    """Per agent: rounds met, over and under are all the rounds, so one minus the over and under
    shares is the engine's bid_accuracy; each bid's row is a share of the rounds with that bid; the
    terminal shows the table."""
    store = tmp_path / "s.sqlite"
    result = invoke("analyze", "wizard", "--param", "hands=4,2,3", "--agents", "greedy,random", "--games", 4,
                    "--jobs", 1, "--json", "--store", store)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (g,) = data["groups"]
    stored = Store(str(store), readonly=True).matches(data["runs"][0])
    for label, sides in g["bid_misses"].items():
        engine = [m["metrics"]["bid_accuracy"][s] for m in stored for s, seat in enumerate(m["seats"])
                  if seat["label"] == label]
        assert 1 - sides["over"]["mean"] - sides["under"]["mean"] == pytest.approx(sum(engine) / len(engine))
        assert all(0.0 <= iv["low"] <= iv["mean"] <= iv["high"] <= 1.0 for iv in g["bid_accuracy_by_bid"][label].values())
    assert set(g["bid_misses"]) == set(g["bid_accuracy_by_bid"]) == {"greedy", "random"}
    shown = invoke("analyze", "--run", data["runs"][0], "--store", store)
    assert shown.exit_code == 0 and "bids met by the bid" in shown.output and "bid 0 met" in shown.output
    assert "over: more tricks than the bid" in shown.output


@pytest.mark.parametrize("game", ["belle_of_the_ball", "royal_ball", "belladone_bluff"])
def test_every_other_game_finishes_with_every_section(tmp_path, game):
    result = invoke("analyze", game, "--games", 1, "--jobs", 1, "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 0, result.output
    for words in ("seat advantage", "length and tempo", "decisiveness and drama", "greedy vs random",
                  "one deal: no interval"):
        assert words in result.output, words


@pytest.mark.parametrize("args, words", [
    (["analyze", "nosuchgame"], ["unknown game"]),
    (["analyze", "insert", "--param", "nosuch=1"], ["unknown parameter", "nosuch"]),
    (["analyze", "insert", "--param", "insert_axes=diagonal"], ["insert_axes"]),
    (["analyze", "insert", "--param", "insert_axes"], ["malformed parameter"]),
    (["analyze", "insert", "--agents", "greedy,nosuchbot"], ["unknown agent"]),
    (["analyze"], ["GAME", "--run"]),
    (["analyze", "--run", "no-such-run"], ["no store"]),
    (["analyze", "--run", "no-such-run", "--agents", "greedy"], ["--agents"]),
])
def test_bad_input_is_one_line_and_exit_code_2(tmp_path, args, words):
    result = invoke(*args, "--store", tmp_path / "none.sqlite")
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    for w in words:
        assert w in result.output
    assert not (tmp_path / "none.sqlite").exists()   # nothing is created for a command that cannot run


def test_a_missing_run_in_an_existing_store_is_one_line(tmp_path):
    store = tmp_path / "s.sqlite"
    assert invoke("analyze", "insert", "--games", 1, "--jobs", 1, "--store", store).exit_code == 0
    result = invoke("analyze", "--run", "no-such-run", "--store", store)
    assert result.exit_code == 2 and "no run 'no-such-run'" in result.output


def test_roles_are_fixed_by_the_rules_not_by_who_moved_last():
    """The last to move is the seat whose first decision comes last (Wizard's dealer), not the seat
    that happened to make the final move."""
    m = match(0, 0, [1, 2, 3], [9, 5, 1], labels=("a", "b", "c"))
    figs = figures.match_figures(m, replay.Trace([1, 2, 1, 0, 0], [2] * 5, [0] * 5, [[0, 0, 0]] * 5 + [[9, 5, 1]]))
    assert figs["role", "first_mover", "win_share"] == 0.0 and figs["role", "first_mover", "score_share"] == 0.5
    assert figs["role", "last_mover", "win_share"] == 1.0   # seat 0 moves first only at decision 3
