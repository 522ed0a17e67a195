"""The arena with real processes: parallel, Dask, kill and resume, misbehaving and submitted agents."""
import json
import os
import signal

import pytest
from click.testing import CliRunner

import engines
from arena import agent_list
from arena.cli import main
from arena.results import ratings, standings
from arena.results.outcome import placements_seen_by
from arena.store import Store
from arena.tournament import runner, schedule
from arena_processes import count_matches, start, wait_for_matches
from paths import FIXTURES

BOTS = os.path.join(FIXTURES, "bots.py")
PACKAGE_DIR = os.path.join(FIXTURES, "entrypoint_pkg")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def stored(store_path, run_id=None):
    """The comparable content of a run: every match without its timings, and the leaderboard."""
    store = Store(str(store_path))
    run_id = run_id or store.run().run_id
    matches = store.matches(run_id)
    store.close()
    for m in matches:
        del m["duration"], m["finished"]
    return matches, standings.leaderboard(matches)


def run_json(*args):
    result = invoke("run", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_parallel_equals_serial_with_quick_matches_sent_in_batches(tmp_path):
    args = ("--game", "insert", "--agents", "random,greedy", "--games", 60)
    serial = run_json(*args, "--jobs", 1, "--store", tmp_path / "a.sqlite")
    parallel = run_json(*args, "--jobs", 2, "--store", tmp_path / "b.sqlite")
    assert serial["matches"] == parallel["matches"] == 120
    assert stored(tmp_path / "a.sqlite") == stored(tmp_path / "b.sqlite")


def test_parallel_equals_serial_on_every_game(tmp_path):
    serial = run_json("--agents", "random,greedy", "--games", 1, "--jobs", 1, "--store", tmp_path / "a.sqlite")
    parallel = run_json("--agents", "random,greedy", "--games", 1, "--jobs", 2, "--store", tmp_path / "b.sqlite")
    assert serial["run_id"] == parallel["run_id"]
    assert {g["game_id"] for g in serial["leaderboards"]} == set(engines.game_ids())
    assert stored(tmp_path / "a.sqlite") == stored(tmp_path / "b.sqlite")
    assert serial["leaderboards"] == parallel["leaderboards"]


@pytest.mark.slow
def test_dask_equals_local(tmp_path):
    distributed = pytest.importorskip("distributed")
    args = ("--game", "insert", "--agents", "random,greedy", "--games", 3)
    local = run_json(*args, "--jobs", 2, "--store", tmp_path / "local.sqlite")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        dask = run_json(*args, "--backend", "dask", "--address", cluster.scheduler_address,
                        "--store", tmp_path / "dask.sqlite")
    assert dask["leaderboards"] == local["leaderboards"]
    assert stored(tmp_path / "local.sqlite") == stored(tmp_path / "dask.sqlite")


@pytest.mark.slow
def test_kill_ctrl_c_and_resume_give_exactly_the_uninterrupted_matches(tmp_path):
    args = ["--game", "insert", "--agents", f"greedy, {BOTS}:GoodBot[delay=0.01] as good", "--games", 6,
            "--jobs", 2]
    (tmp_path / "cut").mkdir()
    (tmp_path / "whole").mkdir()
    cut, whole = tmp_path / "cut" / "arena.sqlite", tmp_path / "whole" / "arena.sqlite"
    total = 12

    proc = start([*args, "--store", cut], cut.parent)
    wait_for_matches(cut, 3, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = count_matches(cut)
    assert 3 <= killed_at < total

    proc = start([*args, "--store", cut], cut.parent)              # the same command again continues the same run
    wait_for_matches(cut, min(killed_at + 2, total), proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before Ctrl-C arrived")
    assert proc.returncode == 130, err
    assert "arena run --resume" in err
    store = Store(str(cut))
    run_id = store.run().run_id
    assert store.run(run_id).status == "interrupted"
    store.close()

    result = invoke("run", "--resume", run_id, "--store", cut, "--jobs", 1)
    assert result.exit_code == 0, result.output
    proc = start([*args, "--store", whole], whole.parent)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert count_matches(cut) == count_matches(whole) == total
    assert stored(cut) == stored(whole)


@pytest.mark.slow
def test_misbehaving_agents_lose_and_the_tournament_goes_on(tmp_path):
    bad = ["RaisingBot", "IllegalBot", "SlowBot", "HangingBot", "CrashingBot"]
    agents = ", ".join(["random", f"{BOTS}:GoodBot"] + [f"{BOTS}:{b}" for b in bad])
    out = run_json("--game", "insert", "--agents", agents, "--games", 1, "--time-limit", 1, "--jobs", 2,
                   "--store", tmp_path / "s.sqlite")
    assert out["status"] == "finished" and out["matches"] == out["total"] == 42
    rows = {r["label"]: r for r in out["leaderboards"][0]["rows"]}
    kinds = {}
    for f in out["faults"]:
        kinds.setdefault(f["label"], set()).add(f["kind"])
    assert kinds == {"RaisingBot": {"exception"}, "IllegalBot": {"illegal"}, "SlowBot": {"timeout"},
                     "HangingBot": {"timeout"}, "CrashingBot": {"crash"}}
    # A faulty seat is played out by a stand-in (arena.tournament.runner): against the good agents each match
    # has exactly one fault, the misbehaving agent's, last for itself (the fault rule); two
    # misbehaving agents both fault, each last for itself.
    assert len(out["faults"]) == 20 + 2 * 20
    for m in stored(tmp_path / "s.sqlite")[0]:
        labels = [s["label"] for s in m["seats"]]
        if set(labels) & set(bad) and set(labels) & {"random", "GoodBot"}:
            (fault,) = m["faults"]
        elif set(labels) <= set(bad):
            fault = min(m["faults"], key=lambda f: f["move"])
            assert len(m["faults"]) == 2
        else:
            continue
        assert fault["label"] in bad
        for f in m["faults"]:
            assert placements_seen_by(m, f["label"])[labels.index(f["label"])] == 2
    for b in bad:
        assert rows[b]["faults"] >= 4 and rows[b]["games"] == 12, rows[b]
    for good in ("random", "GoodBot"):
        assert rows[good]["faults"] == 0
    # Against each other, the good agents each win one seating and lose the other.
    # One deal may separate no one (a shared rank), but the good agents are listed first.
    order = [r["label"] for r in out["leaderboards"][0]["rows"]]
    assert max(order.index("random"), order.index("GoodBot")) < min(order.index(b) for b in bad)
    crash = next(f for f in out["faults"] if f["kind"] == "crash")
    assert "SIGKILL" in crash["message"]
    raised = next(f for f in out["faults"] if f["kind"] == "exception")
    assert "bot bug on move 3" in raised["message"]
    table = invoke("leaderboard", "--store", tmp_path / "s.sqlite")
    for word in ["faults", "RaisingBot", "exception", "IllegalBot", "illegal", "timeout", "crash"]:
        assert word in table.output


@pytest.mark.slow
def test_agents_from_a_file_a_module_and_an_entry_point(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(PACKAGE_DIR)
    monkeypatch.syspath_prepend(FIXTURES)
    agents = (f"{BOTS}:GoodBot as filebot, bots:GoodBot as modulebot, "
              f"fixture_packaged, fixture_packaged[random=true] as packaged_random")
    out = run_json("--game", "insert", "--agents", agents, "--games", 1, "--jobs", 2,
                   "--store", tmp_path / "s.sqlite")
    rows = out["leaderboards"][0]["rows"]
    assert {r["label"] for r in rows} == {"filebot", "modulebot", "fixture_packaged", "packaged_random"}
    assert all(r["games"] == 6 and r["faults"] == 0 for r in rows), rows
    listed = json.loads(invoke("agents", "--json").output)
    assert {"name": "fixture_packaged", "kind": "entrypoint", "params": {},
            "description": "arena_fixture_bots:PackagedBot", "unavailable": None} in listed


def test_a_class_that_cannot_be_built_is_refused_before_the_tournament(tmp_path):
    result = invoke("run", "--game", "insert", "--agents", f"random, {BOTS}:BrokenInit", "--store",
                    tmp_path / "s.sqlite")
    assert result.exit_code == 2
    assert result.output.strip() == "Error: agent BrokenInit (" + BOTS + ":BrokenInit): ValueError: missing model file"


def test_agents_get_a_determinized_copy_never_the_true_state(monkeypatch):
    seen = []

    class Vandal:
        def __init__(self, spec, time_limit, policy):
            self.label = spec.label

        def reset(self, *args):
            pass

        def act(self, state):
            seen.append(state)
            action = state.legal_actions()[0]
            state.apply_action(action)       # mutating the copy must not touch the game
            return action

        def close(self):
            pass

    game = engines.game_ids()[0]
    params = json.loads(json.dumps(engines.registry.resolve(game)))
    specs = agent_list.parse_agents("random, greedy")
    match = schedule.game_schedule("t", game, params, specs, 1, 5, 1.0)[0]
    honest = runner.play_match(match)
    monkeypatch.setattr(runner, "make_player", Vandal)
    vandal = runner.play_refereed(match)   # random and greedy alone would be played by the C loop
    assert vandal.faults == [] and len(seen) == len(vandal.actions)
    assert len({id(s) for s in seen}) == len(seen)
    assert all(s.history() == [a] for s, a in zip(seen, vandal.actions))
    assert honest.faults == []


@pytest.mark.parametrize("agents, seats, n_lineups, n_seatings", [
    ("random, greedy, random[] as r2", 2, 3, 6),      # every pair, both seatings
    ("random, greedy", 4, 1, 2),                       # A B A B and B A B A
    ("random, greedy, random[] as r2", 4, 3, 12),     # A B C A, B C A B, C A B C, each rotated
    ("random, greedy, random[] as r2, greedy[] as g2, random[] as r3", 4, 5, 20),
])
def test_schedule_every_agent_plays_every_seat_equally(agents, seats, n_lineups, n_seatings):
    from collections import Counter
    specs = agent_list.parse_agents(agents)
    ups = schedule.lineups(specs, seats)
    seatings = [seating for up in ups for seating in schedule.rotations(up)]
    assert (len(ups), len(seatings)) == (n_lineups, n_seatings)
    held = Counter((a.label, seat) for seating in seatings for seat, a in enumerate(seating))
    assert set(held) == {(a.label, s) for a in specs for s in range(seats)}
    assert len(set(held.values())) == 1      # every agent holds every seat equally often


def test_card_game_duplicate_deals_with_fewer_agents_than_seats(tmp_path):
    """Two agents at a four-seat table: A B A B and B A B A on each deal, rated per agent."""
    card_games = [g for g in engines.game_ids() if engines.spec(g).card_game and engines.spec(g).max_players >= 4]
    if "wizard" not in card_games:
        pytest.skip("no four-player card game registered")
    out = run_json("--game", "wizard", "--players", 4, "--param", "hands=3", "--agents", "random, greedy",
                   "--games", 2, "--jobs", 2, "--store", tmp_path / "s.sqlite")
    matches, _ = stored(tmp_path / "s.sqlite")
    assert len(matches) == 4
    for deal in (0, 1):
        pair = [m for m in matches if m["deal"] == deal]
        assert len(pair) == 2 and pair[0]["seed"] == pair[1]["seed"]
        assert [[s["label"] for s in m["seats"]] for m in pair] == [["random", "greedy"] * 2, ["greedy", "random"] * 2]
    assert matches[0]["seed"] != matches[2]["seed"]
    rows = out["leaderboards"][0]["rows"]
    assert sorted(r["label"] for r in rows) == ["greedy", "random"]
    assert all(r["games"] == 4 and r["wins"] + r["draws"] + r["losses"] == 4 for r in rows)
    for m in matches:
        ranked = dict(ratings.agent_ranks(m))
        assert set(ranked) == {"random", "greedy"}
    assert sum(r["duplicate_score"] for r in rows) == pytest.approx(0.0, abs=1e-9)
    if all("bid_accuracy" in m["metrics"] for m in matches):
        assert all("bid_accuracy" in r["metrics"] for r in rows)


def test_an_engine_error_stops_the_run_with_one_line_and_keeps_what_is_stored(tmp_path, monkeypatch):
    real = runner.play_match

    def flaky(spec):
        if spec.match_id == 3:
            raise RuntimeError("engine bug")
        return real(spec)

    monkeypatch.setattr(runner, "play_match", flaky)
    result = invoke("run", "--game", "insert", "--agents", "random,greedy", "--games", 3, "--jobs", 1,
                    "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: match 3 (insert") and "engine bug" in last
    assert "Traceback" not in result.output
    store = Store(str(tmp_path / "s.sqlite"))
    assert store.run().status == "interrupted" and store.finished_ids(store.run().run_id) == {0, 1, 2}


def _match(match_id, labels, placements, faults=()):
    return {"match_id": match_id, "game_id": "g", "game_params": {"players": len(labels)}, "deal": match_id, "seed": 0,
            "seats": [{"label": l} for l in labels], "placements": placements,
            "returns": [0.0] * len(labels), "faults": list(faults), "metrics": {}}


def test_ratings_rank_agents_by_their_mean_seat_placement():
    m = _match(0, ["A", "B", "A", "B"], [1, 2, 4, 3])       # A: 2.5, B: 2.5 -> a draw
    assert ratings.agent_ranks(m) == [("A", 1), ("B", 1)]
    m = _match(1, ["A", "B", "A", "B"], [1, 2, 3, 4])       # A: 2.0, B: 3.0
    assert ratings.agent_ranks(m) == [("A", 1), ("B", 2)]
    rows = {r.label: r for r in standings.leaderboard([_match(0, ["A", "B", "A", "B"], [1, 2, 4, 3]),
                                                       _match(1, ["A", "B", "A", "B"], [1, 2, 3, 4])])}
    assert (rows["A"].wins, rows["A"].draws, rows["A"].losses) == (1, 1, 0)
    assert (rows["B"].wins, rows["B"].draws, rows["B"].losses) == (0, 1, 1)
    assert rows["A"].rank == 1 and rows["A"].mu > rows["B"].mu
    assert rows["A"].conservative == pytest.approx(rows["A"].mu - 3 * rows["A"].sigma)


def test_ratings_replay_in_match_id_order_whatever_order_matches_arrive():
    ms = [_match(i, ["A", "B"] if i % 2 else ["B", "A"], [1, 2] if i % 3 else [2, 1]) for i in range(12)]
    assert standings.leaderboard(ms) == standings.leaderboard(list(reversed(ms)))


def test_duplicate_scores_compare_agents_on_the_same_deal_and_need_every_rotation():
    def m(match_id, seed, labels, returns, faults=()):
        out = _match(match_id, labels, [1, 2], faults)
        out.update(seed=seed, deal=seed, returns=returns)
        return out
    # Deal 1 is lucky for seat 0 (+10); A still makes 2 more than B on it, over both seatings.
    deal1 = [m(0, 1, ["A", "B"], [12.0, 0.0]), m(1, 1, ["B", "A"], [8.0, 4.0])]
    assert standings.duplicate_scores(deal1) == {"A": 2.0, "B": -2.0}
    lone = [m(2, 2, ["A", "B"], [30.0, 0.0])]                      # incomplete: not counted
    faulty = [m(3, 3, ["A", "B"], [0.0, 5.0], faults=[{"label": "A"}]), m(4, 3, ["B", "A"], [1.0, 1.0])]
    assert standings.duplicate_scores(deal1 + lone + faulty) == {"A": 2.0, "B": -2.0}
    assert standings.duplicate_scores(lone) == {}
