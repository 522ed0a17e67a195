"""`arena bench`'s learned rows (arena/bench/learned.py): the trees in C beside scikit-learn's
predict on the same trees, the learned bid beside pimc's playout bid, a world's learned weight
beside the engine's plausibility, a shipped leaf value and playout policy beside the random play-out, each
with its speedup."""
import pytest

from arena.bench import learned as bench


def test_a_shipped_leaf_value_stands_beside_the_playout_it_replaces(monkeypatch):
    monkeypatch.setattr(bench, "LEAF_POSITIONS", 3)
    monkeypatch.setattr(bench, "LEAF_CALLS", 5)
    rows = {r["case"]: r for r in bench.cases(["insert"], repeats=1)}
    assert list(rows) == ["learned/insert/playout", "learned/insert/leaf_value"]
    assert rows["learned/insert/leaf_value"]["baseline"] == "learned/insert/playout"
    assert rows["learned/insert/leaf_value"]["model"] == "value-insert-2p.json"
    assert rows["learned/insert/playout"]["horizon"] == "round"
    assert all(r["median_per_s"] > 0 and r["positions"] == 3 for r in rows.values())


@pytest.mark.slow
def test_each_learned_row_stands_beside_what_it_replaces(monkeypatch):
    pytest.importorskip("sklearn")
    monkeypatch.setattr(bench, "SAMPLE_ROWS", 300)
    monkeypatch.setattr(bench, "POSITIONS", 4)
    rows = {r["case"]: r for r in bench.cases(["wizard"], repeats=1) if "/leaf_value" not in r["case"]
            and "/playout" not in r["case"]}
    assert list(rows) == ["learned/wizard/trees_sklearn", "learned/wizard/trees_c",
                          "learned/wizard/bid_playout", "learned/wizard/bid",
                          "learned/wizard/world_plausibility", "learned/wizard/world_weight"]
    assert rows["learned/wizard/world_weight"]["baseline"] == "learned/wizard/world_plausibility"
    assert rows["learned/wizard/world_weight"]["model"] == "wizard-bid-ismcts-4p.json"
    assert rows["learned/wizard/trees_c"]["baseline"] == "learned/wizard/trees_sklearn"
    assert rows["learned/wizard/bid"]["baseline"] == "learned/wizard/bid_playout"
    assert rows["learned/wizard/bid_playout"]["agent"] == "pimc[bid_samples=100]"   # the shipped model's teacher
    assert rows["learned/wizard/trees_c"]["trees"] == rows["learned/wizard/trees_sklearn"]["trees"] > 0
    assert all(r["median_per_s"] > 0 and r["positions" if "bid" in case else "worlds" if "world" in case
                                              else "calls"] == 4 for case, r in rows.items())


def test_a_speedup_far_below_one_keeps_two_significant_figures():
    """A world's weight runs at about 0.006 of the plausibility's rate: shown as 0.0 it said nothing."""
    from arena.bench.measure import versus

    def rate(r):
        return {"case": "c", "median_per_s": r}
    assert versus(rate(20_400_000.0), rate(118_000.0))[1]["speedup"] == 0.0058
    assert versus(rate(112.0), rate(4_600.0))[1]["speedup"] == 41.1
    assert versus(rate(10.0), rate(3.0), digits=2)[1]["speedup"] == 0.3


def test_a_shipped_playout_policy_stands_beside_the_random_playout(monkeypatch):
    monkeypatch.setattr(bench, "LEAF_POSITIONS", 3)
    monkeypatch.setattr(bench, "LEAF_CALLS", 5)
    rows = {r["case"]: r for r in bench.cases(["royal_ball"], repeats=1)}
    assert list(rows) == ["learned/royal_ball/playout", "learned/royal_ball/leaf_value",
                          "learned/royal_ball/playout_policy"]
    policy = rows["learned/royal_ball/playout_policy"]
    assert policy["baseline"] == "learned/royal_ball/playout" and policy["model"] == "playout-royal_ball-4p.json"
    assert policy["patterns"] == 601 and policy["horizon"] == "round"
    assert all(r["median_per_s"] > 0 and r["positions"] == 3 for r in rows.values())


def test_a_policy_shipped_for_other_players_than_the_games_default_has_rows_of_its_own(monkeypatch):
    """Belle of the Ball's leaf value is shipped for its default 3 players, its playout policies for
    2, 4 and 5: each stands beside a play-out of its own player count, the rows of 2, 4 and 5 named so."""
    monkeypatch.setattr(bench, "LEAF_POSITIONS", 3)
    monkeypatch.setattr(bench, "LEAF_CALLS", 5)
    rows = {r["case"]: r for r in bench.cases(["belle_of_the_ball"], repeats=1)}
    assert list(rows) == ["learned/belle_of_the_ball/2p/playout", "learned/belle_of_the_ball/2p/playout_policy",
                          "learned/belle_of_the_ball/playout", "learned/belle_of_the_ball/leaf_value",
                          "learned/belle_of_the_ball/4p/playout", "learned/belle_of_the_ball/4p/playout_policy",
                          "learned/belle_of_the_ball/5p/playout", "learned/belle_of_the_ball/5p/playout_policy"]
    assert [rows[c]["players"] for c in rows] == [2, 2, 3, 3, 4, 4, 5, 5]
    policy = rows["learned/belle_of_the_ball/4p/playout_policy"]
    assert policy["baseline"] == "learned/belle_of_the_ball/4p/playout"
    assert policy["model"] == "playout-belle_of_the_ball-4p.json" and policy["patterns"] == 225
