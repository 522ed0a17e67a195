"""Ratings and totals as a checkpointed fold (arena.results.tallies, arena.results.standings.GroupTally): a checkpoint
plus the newer matches gives the same figures, bit for bit, as folding every match."""
import json
import random
import signal

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from arena.cli import main
from arena.results import standings, tallies
from arena.store import Store
from arena_processes import start, wait_for_matches
from configs import a_config


def synthetic_matches(rng, deals, labels="abcd", seats=None):
    """Match dicts as the store gives them: deal after deal, each in one or more seatings, with
    ties, faults and per-seat metrics now and then."""
    out, match_id = [], 0
    for deal in range(deals):
        n = seats or rng.choice([2, 3, 4])
        lineup = [rng.choice(labels) for _ in range(n)]
        for r in range(rng.choice([1, n])):
            seating = lineup[r:] + lineup[:r]
            placements = [rng.randint(1, n) for _ in range(n)]
            faulty = rng.random() < 0.1
            out.append({
                "match_id": match_id, "game_id": "g", "game_params": {"players": n}, "deal": deal,
                "seed": 1000 + deal, "seats": [{"label": x, "source": "random", "params": {}} for x in seating],
                "placements": placements, "returns": [rng.uniform(-5, 5) for _ in range(n)],
                "faults": [{"seat": 0, "label": seating[0], "kind": "illegal", "message": "x"}] if faulty else [],
                "metrics": {"accuracy": [rng.random() for _ in range(n)]}})
            match_id += 1
    return out


def fold_state(matches):
    return [json.dumps(t.closed().state()) for t in standings.fold(matches).values()]


@pytest.mark.slow
@given(st.integers(0, 2 ** 32), st.integers(1, 25), st.sampled_from([2, 3, 4]), st.data())
def test_a_fold_cut_anywhere_and_saved_as_json_gives_the_same_bits(seed, deals, seats, data):
    matches = synthetic_matches(random.Random(seed), deals, seats=seats)
    cut = data.draw(st.integers(0, len(matches)))
    tally = standings.GroupTally("g", {"players": seats})
    for m in matches[:cut]:
        tally.add(m)
    resumed = standings.GroupTally("g", {"players": seats}, json.loads(json.dumps(tally.state())))
    for m in matches[cut:]:
        resumed.add(m)
    assert [json.dumps(resumed.closed().state())] == fold_state(matches)
    assert standings.summary(matches)["leaderboard"] == resumed.summary()["leaderboard"]


def test_wrapped_list_functions_agree_with_the_tally():
    matches = synthetic_matches(random.Random(7), 40, seats=3)
    summ = standings.summary(matches)
    assert standings.standings(matches) == summ["leaderboard"]
    assert standings.head_to_head(matches) == summ["head_to_head"]
    assert standings.rating_history(matches) == summ["rating_history"]


@pytest.mark.slow
def test_the_rating_history_is_sampled_and_ends_on_the_rating():
    matches = synthetic_matches(random.Random(3), 1500, labels="ab", seats=2)
    summ = standings.summary(matches)
    for row in summ["leaderboard"]:
        points = summ["rating_history"][row.label]
        assert len(points) <= standings.MAX_HISTORY + 1 and points[0][0] == 0
        assert points[-1] == (row.games, row.mu, row.sigma)
        assert [p[0] for p in points] == sorted({p[0] for p in points})


def _store_with(tmp_path, matches):
    """A store holding `matches` (a synthetic run), written as the coordinator writes: one match at
    a time, the checkpoint advanced after each (here in a shuffled order of arrival)."""
    store = Store(str(tmp_path / "s.sqlite"))
    store.create_run("r", a_config("g"), len(matches))
    cols = ("match_id", "game_id", "game_params", "seed", "deal", "seats", "returns", "placements", "faults",
            "metrics")
    checkpoint = tallies.Checkpoint(store, "r")
    order = list(range(len(matches)))
    random.Random(5).shuffle(order)
    for i in order:
        m = matches[i]
        with store.db:
            store.db.execute(
                f"INSERT INTO matches (run_id, actions, duration, finished, {', '.join(cols)}) "
                f"VALUES ('r', '[]', 0, 0, {', '.join('?' * len(cols))})",
                [json.dumps(m[c]) if isinstance(m[c], (list, dict)) else m[c] for c in cols])
        checkpoint.stored(i)
        if i == order[len(order) // 2]:
            checkpoint.save()
    return store, checkpoint


def test_results_arriving_out_of_order_wait_for_the_gap_and_match_a_full_replay(tmp_path):
    matches = synthetic_matches(random.Random(11), 60, seats=2)
    store, checkpoint = _store_with(tmp_path, matches)
    assert checkpoint.upto == len(matches) and not checkpoint.waiting
    checkpoint.save()
    assert [json.dumps(t.closed().state()) for t in tallies.read(store, "r")] == fold_state(matches)


def test_a_checkpoint_that_cannot_be_read_is_ignored(tmp_path):
    matches = synthetic_matches(random.Random(12), 30, seats=2)
    store, checkpoint = _store_with(tmp_path, matches)
    checkpoint.save()
    expected = fold_state(matches)
    wrong_types = json.loads(store.db.execute("SELECT state FROM tallies").fetchone()[0])
    wrong_types["counts"] = [1, 2]
    no_ratings = dict(wrong_types, counts={}, ratings=None)
    for damage in ("{not json", json.dumps({"version": -1}), json.dumps([1, 2]), json.dumps(wrong_types),
                   json.dumps(no_ratings)):
        with store.db:
            assert store.db.execute("UPDATE tallies SET state = ?", (damage,)).rowcount == 1
        assert [json.dumps(t.closed().state()) for t in tallies.read(store, "r")] == expected


def test_a_stale_checkpoint_is_caught_up_by_the_reader(tmp_path):
    """A checkpoint saved half-way: the reader folds the rest, to the same bits."""
    matches = synthetic_matches(random.Random(13), 30, seats=2)
    store = Store(str(tmp_path / "s.sqlite"))
    half = standings.GroupTally("g", {"players": 2})
    for m in matches[:17]:
        half.add(m)
    store.create_run("r", a_config("g"), len(matches))
    store.save_tallies("r", 17, [("g", json.dumps({"players": 2}), json.dumps(half.state()))])
    for m in matches:
        with store.db:
            store.db.execute("INSERT INTO matches VALUES ('r', ?, 'g', ?, ?, ?, ?, ?, ?, '[]', ?, ?, 0, 0)",
                             (m["match_id"], json.dumps(m["game_params"]), m["seed"], m["deal"],
                              json.dumps(m["seats"]), json.dumps(m["returns"]), json.dumps(m["placements"]),
                              json.dumps(m["faults"]), json.dumps(m["metrics"])))
    assert [json.dumps(t.closed().state()) for t in tallies.read(store, "r")] == fold_state(matches)


@pytest.mark.slow
def test_a_resumed_runs_checkpoint_equals_a_fresh_replay(tmp_path):
    """Killed half-way (SIGKILL: no save at the end), then resumed: the saved checkpoint covers every
    match and equals a replay of all of them."""
    store_path = tmp_path / "arena.sqlite"
    args = ["--game", "insert", "--agents", "random,greedy,random as r2", "--games", "40", "-j", "2",
            "--store", store_path]
    proc = start(args, tmp_path)
    wait_for_matches(store_path, 60, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    resumed = CliRunner().invoke(main, ["run", *map(str, args)])
    assert resumed.exit_code == 0, resumed.output
    store = Store(str(store_path), readonly=True)
    run_id = store.run().run_id
    checkpoint = tallies.RunTallies(store, run_id)
    assert checkpoint.upto == store.count(run_id) == store.run(run_id).total
    fresh = standings.fold(store.matches(run_id))
    assert [json.dumps(t.state()) for t in checkpoint.ordered()] == [json.dumps(t.state()) for t in fresh.values()]


@pytest.mark.slow
def test_the_reports_benchmark_prints_each_command_beside_the_floor(tmp_path):
    result = CliRunner().invoke(main, ["bench", "--reports", "--reports-sizes", "300", "--repeats", "1", "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["case"] for r in rows] == ["reports/300/build", "reports/300/count_floor"] + [
        f"reports/300/{c}" for c in ("leaderboard", "matchups", "report", "graph")]
    assert all(r["matches"] == 300 and r["peak_mb"] > 0 for r in rows)
    assert all(r["baseline"] == "reports/300/count_floor" and r["speedup"] > 0 for r in rows[2:])


def test_the_benchmarks_store_is_checkpointed_to_the_last_match(tmp_path):
    from arena.bench.reports import build_store
    path = str(tmp_path / "s.sqlite")
    run_id = build_store(path, 240)
    store = Store(path, readonly=True)
    assert tallies.RunTallies(store, run_id).upto == store.count(run_id) == 240
    (tally,) = tallies.read(store, run_id)   # ARENA_CHECK_TALLIES: equal to a replay of every match
    board = tally.summary()["leaderboard"]
    assert [r.label for r in board][0] == "ismcts" and sum(r.games for r in board) == 480


@pytest.mark.parametrize("sizes", ["5", "abc", "", "1000,-3", "99999999999"])
def test_bad_report_sizes_are_one_line(sizes):
    result = CliRunner().invoke(main, ["bench", "--reports", "--reports-sizes", sizes])
    assert result.exit_code == 2 and "--reports-sizes" in result.output and "Traceback" not in result.output
