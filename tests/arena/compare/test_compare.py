"""`arena compare`: SPRT runs on duplicate deals, stored like tournaments (ARENA_DEAL_KEY is fixed by
tests/conftest.py, so every run below plays the same deals)."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from arena import edge
from arena.cli import main
from arena.compare import compare
from arena.store import Store

FAST = ("--game", "insert", "--sprt", "elo0=0,elo1=100", "--jobs", 1)


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def run_json(*args):
    result = invoke("compare", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_clearly_stronger_candidate_is_accepted_quickly(tmp_path):
    store = tmp_path / "a.sqlite"
    data = run_json("greedy", "random", *FAST, "--store", store)
    assert data["decision"] == "H1" and data["deals"] <= 20, data
    assert data["model"] == "pentanomial" and data["elo"]["mean"] > 100
    assert data["llr"] >= data["sprt"]["upper"]
    assert sum(h["count"] for h in data["histogram"]) == data["deals"]
    # The run is a run of the store: the leaderboard shows its matches.
    board = json.loads(invoke("leaderboard", data["run_id"], "--store", store, "--json").output)
    assert board["matches"] == 2 * data["deals"] + data["not_counted"]
    assert [r["label"] for r in board["leaderboards"][0]["rows"]] == ["greedy", "random"]
    # ...and `arena run --resume` refuses it in one line: only `arena compare` resumes a comparison.
    result = invoke("run", "--resume", data["run_id"], "--store", store)
    assert result.exit_code == 2 and "the same `arena compare` command resumes it" in result.output


def test_the_leaderboard_of_a_comparison_gives_its_sequential_tests_verdict(tmp_path):
    """Stopped undecided after 8 deals, greedy's interval against random is already above one half:
    the leaderboard said "greedy is stronger" while `arena compare` said "no decision"."""
    from arena.reports.sections import COMPARISON_VERDICT, run_sections
    store = tmp_path / "u.sqlite"
    data = run_json("greedy", "random", "--game", "insert", "--max-deals", 8, "--jobs", 1, "--store", store)
    assert data["decision"] is None and data["score"]["low"] > 0.5, data
    board = json.loads(invoke("leaderboard", data["run_id"], "--store", store, "--json").output)
    said = board["leaderboards"][0]["verdict"]
    assert said.startswith(data["verdict"] + "; score ") and "stronger" not in said
    shown = invoke("leaderboard", data["run_id"], "--store", store).output
    assert "no decision after 8 deals" in shown and "stronger" not in shown
    # The report and the web app, below arena.compare, point to the test instead of an interval's verdict.
    assert run_sections(Store(str(store)), data["run_id"])[0][0]["verdict"] == \
        COMPARISON_VERDICT.format(run_id=data["run_id"])
    # A store changed by hand: settings that make no test are said in the verdict's line.
    with sqlite3.connect(store) as db:
        (text,) = db.execute("SELECT config FROM runs WHERE run_id = ?", (data["run_id"],)).fetchone()
    hand_made = [("candidate", "ghost", "names no agent 'ghost'"),
                 ("sprt", {"elo0": 0, "elo1": 10, "alpha": 7, "beta": 0.05}, "alpha must be between 0 and 0.5")]
    for key, value, said in hand_made:
        with sqlite3.connect(store) as db:
            config = json.loads(text)
            config["compare"][key] = value
            db.execute("UPDATE runs SET config = ? WHERE run_id = ?", (json.dumps(config), data["run_id"]))
        result = invoke("leaderboard", data["run_id"], "--store", store)
        assert result.exit_code == 0 and "verdict: this comparison's stored settings cannot be tested: " in result.output
        assert said in result.output and "Error" not in result.output


def test_with_the_default_test_greedy_is_accepted_over_random(tmp_path):
    data = run_json("greedy", "random", "--game", "insert", "--jobs", 1, "--store", tmp_path / "d.sqlite")
    assert data["sprt"]["elo0"] == 0 and data["sprt"]["elo1"] == 10
    assert data["decision"] == "H1" and data["deals"] <= 200, data


def test_identical_agents_are_not_accepted_as_stronger(tmp_path):
    data = run_json("greedy as g1", "greedy as g2", *FAST, "--max-deals", 12, "--seeding", "independent",
                    "--store", tmp_path / "b.sqlite")
    assert data["decision"] in (None, "H0") and data["deals"] <= 12, data
    assert data["seeding"] == "independent" and "--seeding independent" in data["command"]


@pytest.mark.parametrize("agent", ["greedy", "ismcts[iterations=30]"])
def test_an_agent_against_itself_ends_with_identical_play_within_ten_deals(tmp_path, agent):
    store = tmp_path / "x.sqlite"
    result = invoke("compare", agent, f"{agent} as twin", *FAST, "--store", store)
    assert result.exit_code == 0, result.output
    assert "identical play: " in result.output and "identical play on 10 of 10 deals (coupled seeds)" in result.output
    data = run_json(agent, f"{agent} as twin", *FAST, "--store", store)   # the stored run, printed again
    assert data["decision"] == "identical" and data["deals"] == 10 and data["identical_deals"] == 10
    assert data["divergence"] == [{"first_move": None, "differing_moves": 0}] * 10
    assert data["points"]["mean"] == 0 and data["histogram"][2]["count"] == 10


def test_coupled_matches_part_where_the_candidate_first_decides_otherwise(tmp_path):
    import engines
    data = run_json("greedy", "random", "--game", "belladone_bluff", "--players", 4, "--field", "random",
                    "--max-deals", 6, "--jobs", 1, "--store", tmp_path / "p.sqlite")
    store = Store(str(tmp_path / "p.sqlite"))
    matches = {m["match_id"]: m for m in store.matches(data["run_id"])}
    for deal, parted in enumerate(data["divergence"]):
        first, second = matches[2 * deal], matches[2 * deal + 1]
        move = parted["first_move"]
        assert move is not None and first["actions"][:move] == second["actions"][:move]
        state = engines.make("belladone_bluff", seed=first["seed"], **first["game_params"])
        for a in first["actions"][:move]:
            state.apply_action(a)
        assert state.current_player() == deal % 4   # the seat where greedy and random sit, no other


def test_json_schema_and_text_output(tmp_path):
    store = tmp_path / "c.sqlite"
    data = run_json("greedy", "random", *FAST, "--store", store)
    assert set(data) == {"run_id", "status", "game_id", "params", "book", "candidate", "baseline", "field",
                         "model", "sprt", "decision", "verdict", "deals", "max_deals", "deals_played", "not_counted",
                         "llr", "score", "elo", "nelo", "points", "histogram", "llr_curve", "command", "seeding",
                         "identical_deals", "identical", "divergence", "corrected"}
    assert data["seeding"] == "coupled" and len(data["divergence"]) == data["deals"]
    assert data["identical"] == f"identical play on {data['identical_deals']} of {data['deals']} deals"
    assert data["status"] == "finished" and data["run_id"].startswith("cmp-insert-")
    assert set(data["sprt"]) == {"elo0", "elo1", "alpha", "beta", "lower", "upper"}
    for key in ("score", "elo", "nelo"):
        assert set(data[key]) == {"mean", "low", "high"}
    assert [h["value"] for h in data["histogram"]] == ["0", "0.5", "1", "1.5", "2"]
    assert len(data["llr_curve"]) == data["deals"] and data["llr_curve"][-1][1] == data["llr"]
    assert "--deal-key 00112233445566778899aabbccddeeff" in data["command"]
    # The same command again reprints the stored run, as text: decision, estimate, histogram, command.
    text = invoke("compare", "greedy", "random", *FAST, "--store", store)
    assert text.exit_code == 0, text.output
    assert "H1 accepted: greedy is stronger than random" in text.output
    assert "Elo" in text.output and "reproduce: arena compare greedy random --game insert" in text.output


@pytest.mark.parametrize("args, words", [
    (["greedy", "nosuchbot", "--game", "insert"], ["unknown agent", "nosuchbot"]),
    (["greedy", "random", "--game", "nosuchgame"], ["unknown game"]),
    (["greedy", "random", "--game", "insert", "--sprt", "elo0=10,elo1=5"], ["elo0 < elo1"]),
    (["greedy", "random", "--game", "insert", "--sprt", "elo0=0,elo1=0"], ["elo0 < elo1"]),
    (["greedy", "random", "--game", "insert", "--sprt", "alpha=0.5"], ["alpha"]),
    (["greedy", "random", "--game", "insert", "--sprt", "beta=0"], ["beta"]),
    (["greedy", "random", "--game", "insert", "--sprt", "elo1"], ["malformed --sprt"]),
    (["greedy", "random", "--game", "insert", "--sprt", "elo1=x"], ["number"]),
    (["greedy", "greedy", "--game", "insert"], ["as LABEL"]),
    (["greedy", "random", "--game", "insert", "--field", "greedy"], ["three or more players"]),
    (["greedy", "random", "--game", "wizard", "--field", ""], ["--field is empty"]),
    (["greedy", "random", "--game", "wizard", "--field", "nosuchbot"], ["unknown agent"]),
    (["greedy", "random[x=1]", "--game", "insert"], ["random"]),
    (["greedy", "random", "--game", "insert", "--max-deals", 0], ["--max-deals"]),
    (["greedy", "random", "--game", "insert", "--deal-key", "xyz"], ["--deal-key"]),
    (["greedy", "random"], ["--game"]),
])
def test_bad_input_is_one_line_and_stores_no_run(tmp_path, args, words):
    store = tmp_path / "bad.sqlite"
    result = invoke("compare", *args, "--store", store)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and all(w in result.output for w in words), result.output
    if store.exists():
        assert Store(str(store), readonly=True).runs() == []


def test_same_deal_key_same_result_with_any_jobs(tmp_path):
    one = run_json("greedy", "random", *FAST, "--store", tmp_path / "1.sqlite")
    two = run_json("greedy", "random", "--game", "insert", "--sprt", "elo0=0,elo1=100", "--jobs", 2,
                   "--store", tmp_path / "2.sqlite")
    for key in ("run_id", "decision", "deals", "llr", "histogram", "llr_curve", "score", "elo", "points"):
        assert one[key] == two[key], key


def test_an_interrupted_comparison_resumes_to_the_same_decision(tmp_path):
    reference = run_json("greedy", "random", *FAST, "--store", tmp_path / "ref.sqlite")
    store = Store(str(tmp_path / "cut.sqlite"))
    plan = compare.plan(store, edge.agent("greedy"), edge.agent("random"), edge.game("insert", None),
                        test=edge.sprt("elo0=0,elo1=100"),
                        deal_key=os.environ["ARENA_DEAL_KEY"])
    seen = []

    def stop_after_five(result):
        seen.append(result)
        if len(seen) == 5:
            raise KeyboardInterrupt   # as a signal would, in the middle of a batch
    status, _ = compare.play(store, plan, jobs=1, on_match=stop_after_five)
    # the matches that arrived with the fifth are stored with it, in one transaction
    assert status == "interrupted" and 5 <= len(store.finished_ids(plan.run_id)) < 2 * len(seen)
    assert store.run(plan.run_id).status == "interrupted"
    store.close()
    resumed = run_json("greedy", "random", *FAST, "--store", tmp_path / "cut.sqlite")
    for key in ("run_id", "decision", "deals", "llr", "histogram", "llr_curve"):
        assert resumed[key] == reference[key], key


def _stored(path):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return db.execute("SELECT count(*) FROM matches").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0   # not created yet


@pytest.mark.slow
def test_kill_9_and_the_same_command_resume_to_the_same_decision(tmp_path):
    args = ["ismcts[iterations=1500]", "random", "--game", "insert", "--sprt", "elo0=0,elo1=100", "--jobs", "1"]
    reference = run_json(*args, "--store", tmp_path / "ref.sqlite")
    store = tmp_path / "killed.sqlite"
    process = subprocess.Popen([sys.executable, "-m", "arena", "compare", *args, "--store", str(store), "--json"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while _stored(store) < 1 and process.poll() is None:
            time.sleep(0.002)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert 1 <= _stored(store) < 2 * reference["deals"]
    resumed = run_json(*args, "--store", store)
    for key in ("run_id", "decision", "deals", "llr", "histogram", "llr_curve"):
        assert resumed[key] == reference[key], key


def test_more_players_pair_the_same_seat_deal_and_field(tmp_path):
    store = tmp_path / "w.sqlite"
    data = run_json("greedy", "random", "--game", "wizard", "--players", 3, "--param", "hands=3,2",
                    "--field", "random, greedy as g2", "--sprt", "elo0=0,elo1=200", "--max-deals", 40,
                    "--jobs", 1, "--store", store)
    assert data["model"] == "paired-difference" and data["field"] == ["random", "g2"]
    assert data["decision"] == "H1", data
    assert data["points"]["mean"] > 0 and data["histogram"]
    matches = Store(str(store), readonly=True).matches(data["run_id"])
    for first, second in zip(matches[::2], matches[1::2]):
        deal = first["deal"]
        seat = deal % 3
        a, b = [s["label"] for s in first["seats"]], [s["label"] for s in second["seats"]]
        assert first["seed"] == second["seed"] and second["deal"] == deal
        assert a[seat] == "greedy" and b[seat] == "random"
        assert a[:seat] + a[seat + 1:] == b[:seat] + b[seat + 1:]
        field = ["random", "g2"]
        assert a[:seat] + a[seat + 1:] == [field[(deal + i) % 2] for i in range(2)]


def test_an_interrupted_comparison_prints_the_command_that_resumes_it(tmp_path, monkeypatch):
    from arena.tournament import coordinator as tournament
    monkeypatch.setattr(tournament, "play_specs", lambda *args, **kwargs: "interrupted")
    result = CliRunner().invoke(main, ["compare", "ismcts[iterations=300] as i300", "random", "--game", "insert",
                                       "--store", str(tmp_path / "i.sqlite")])
    assert result.exit_code == 130, result.output
    assert "arena compare 'ismcts[iterations=300] as i300' random --game insert" in result.output
    assert Store(str(tmp_path / "i.sqlite"), readonly=True).runs()[0].status == "interrupted"


def test_a_deal_with_a_fault_is_read_by_the_fault_rule():
    """The candidate's score in each match is its own reading (arena.results.outcome): last when it
    faulted, the played-out game's when another seat did."""
    from types import SimpleNamespace

    from arena.compare.compare import observation

    def m(labels, placements, faulty=()):
        return {"seats": [{"label": x} for x in labels], "placements": placements, "returns": [0.0] * 3,
                "actions": [], "faults": [{"seat": labels.index(x), "label": x} for x in faulty]}
    plan = SimpleNamespace(players=3)   # deal 0: the candidate, then the baseline, in seat 0
    # The candidate's stand-in finished first, the baseline was second: the candidate lost by its fault.
    faulted = observation(plan, 0, m(["cand", "f1", "f2"], [1, 2, 3], ["cand"]), m(["base", "f1", "f2"], [2, 1, 3]))
    assert faulted[0] == 4 - 2   # steps 4: (0 - 1/2) * 4 + 4
    # A field seat's fault gives the candidate nothing: it stays below the seat the stand-in played to first.
    other = observation(plan, 0, m(["cand", "f1", "f2"], [2, 1, 3], ["f1"]), m(["base", "f1", "f2"], [2, 1, 3]))
    assert other[0] == 4


@pytest.mark.parametrize("agents, says", [(["greedy", "nosuchbot"], "unknown agent"),
                                          (["greedy", "greedy"], "both labelled"),
                                          (["greedy", "random", "--field", "random"], "three or more")])
def test_a_refused_comparison_makes_no_store(tmp_path, agents, says):
    result = CliRunner().invoke(main, ["compare", *agents, "--game", "insert", "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 2 and says in result.output, result.output
    assert not os.listdir(tmp_path)
