"""`arena runs` lists a store's runs with their kind and status, `arena matches` a run's matches with
the numbers `arena replay` takes, and the reading commands default to the latest tournament, not to
an `arena analyze` or `arena compare` run made since."""
import json

import pytest

from arena import edge
from arena.match import AgentSpec
from arena.run_config import GameSetting, PlayConfig
from arena.seeds import analyze_deal_key
from arena.store import Store
from arena.tournament import coordinator
from cli import invoke, ok
from configs import a_config


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A tournament, then an analyze run and a comparison made after it, all on Insert."""
    path = tmp_path_factory.mktemp("runs") / "s.sqlite"
    ok("run", "--game", "insert", "--agents", "greedy,random", "--games", 2, "-j", 1, "--store", path)
    ok("analyze", "insert", "--games", 1, "-j", 1, "--store", path)
    ok("compare", "greedy", "random", "--game", "insert", "--max-deals", 2, "-j", 1, "--store", path)
    return path


def test_runs_lists_each_run_with_its_kind_status_and_matches(store):
    rows = json.loads(ok("runs", "--store", store, "--json"))
    assert [r["kind"] for r in rows] == ["tournament", "analyze", "compare"]
    assert [r["created"] for r in rows] == sorted(r["created"] for r in rows)
    tournament, analyzed, compared = rows
    assert tournament["status"] == analyzed["status"] == compared["status"] == "finished"
    assert (tournament["played"], tournament["planned"]) == (4, 4)
    assert (analyzed["played"], analyzed["planned"]) == (2, 2)
    assert compared["run_id"].startswith("cmp-") and compared["planned"] == 4 and 2 <= compared["played"] <= 4
    assert all(r["games"] == ["insert"] and r["agents"] == ["greedy", "random"] for r in rows)
    text = ok("runs", "--store", store)
    for r in rows:
        line = next(line for line in text.splitlines() if r["run_id"] in line)
        assert line.split()[1:4] == [r["kind"], "finished", f"{r['played']}/{r['planned']}"], line


def test_the_reading_commands_default_to_the_latest_tournament(store):
    tournament = Store(str(store), readonly=True).runs()[0].run_id
    assert json.loads(ok("leaderboard", "--store", store, "--json"))["run_id"] == tournament
    assert json.loads(ok("matchups", "--store", store, "--json"))["run_id"] == tournament
    first = Store(str(store), readonly=True).match(tournament, 0)
    end = ok("replay", "0", "--to-end", "--store", store)
    assert end == ok("replay", tournament, "0", "--to-end", "--store", store)
    assert f"seat 0 ({first['seats'][0]['label']}) {first['returns'][0]:g}" in end
    assert json.loads(ok("matches", "--store", store, "--json"))["run_id"] == tournament


def test_matches_lists_numbers_line_ups_results_and_faults(store):
    data = json.loads(ok("matches", "--store", store, "--json"))
    stored = Store(str(store), readonly=True).matches(data["run_id"])
    assert [m["match_id"] for m in data["matches"]] == [m["match_id"] for m in stored] == [0, 1, 2, 3]
    for row, m in zip(data["matches"], stored):
        assert row["seats"] == [s["label"] for s in m["seats"]]
        assert row["returns"] == m["returns"] and row["placements"] == m["placements"]
        assert row["winners"] == [seat for seat, place in enumerate(m["placements"]) if place == 1]
        assert row["game_id"] == "insert" and row["faults"] == []
    lines = ok("matches", "--store", store).splitlines()
    assert lines[0] == f"run {data['run_id']}: 4 of 4 matches"
    assert lines[1].split() == ["match", "game", "line-up", "result", "faults"]
    for line, row in zip(lines[2:], data["matches"]):
        words = " ".join(line.split())
        lineup = ", ".join(f"{i}: {label}" for i, label in enumerate(row["seats"]))
        assert words.startswith(f"{row['match_id']} insert {lineup} ") and words.endswith(" -"), line
        assert (f"{row['winners'][0]}: {row['seats'][row['winners'][0]]} won" if len(row["winners"]) == 1
                else "draw") in line


def test_a_compare_run_is_listed_by_its_id(store):
    compared = json.loads(ok("runs", "--store", store, "--json"))[2]["run_id"]
    data = json.loads(ok("matches", compared, "--store", store, "--json"))
    assert data["run_id"] == compared and len(data["matches"]) == Store(str(store), readonly=True).count(compared)


def test_matches_names_the_faults(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("from agents import Agent\n\nclass Crash(Agent):\n    def act(self, state):\n"
                   "        raise RuntimeError('no move')\n")
    store = tmp_path / "s.sqlite"
    ok("run", "--game", "insert", "--agents", f"random, {bot}:Crash as crash", "--games", 1, "-j", 1,
       "--sandbox", "none", "--store", store)
    data = json.loads(ok("matches", "--store", store, "--json"))
    for row in data["matches"]:
        crash = row["seats"].index("crash")
        assert [(f["seat"], f["label"], f["kind"]) for f in row["faults"]] == [(crash, "crash", "exception")]
        # By the fault rule the crash lost; random won only if it beat the stand-in in the played-out game.
        assert row["lost_by_fault"] == [crash]
        assert row["winners"] == ([1 - crash] if row["placements"][1 - crash] == 1 else [])
    lines = ok("matches", "--store", store).splitlines()[2:]
    assert all(line.endswith(f"seat {row['seats'].index('crash')} crash: exception")
               for line, row in zip(lines, data["matches"]))


def test_status_is_what_the_store_keeps_and_kinds_are_what_started_the_run(tmp_path):
    path = str(tmp_path / "s.sqlite")
    store = Store(path)
    store.create_run("left", a_config("insert"), 6)   # nobody plays it
    store.create_run("play-1", PlayConfig((GameSetting("wizard", {}),), (AgentSpec("you", "human"), AgentSpec("greedy", "greedy")),
                                          0, 1), 1)
    store.set_status("play-1", "finished")
    # An analyze run stored before analyze runs said so is known by its public deal key.
    plan = coordinator.plan(store, games=edge.games("insert", None), agents=edge.agents("greedy,random"), deals=1, seed=3,
                            deal_key=analyze_deal_key(3))
    store.close()
    rows = {r["run_id"]: r for r in json.loads(ok("runs", "--store", path, "--json"))}
    assert (rows["left"]["kind"], rows["left"]["status"], rows["left"]["played"], rows["left"]["planned"]) == \
        ("tournament", "interrupted", 0, 6)
    assert (rows["play-1"]["kind"], rows["play-1"]["games"], rows["play-1"]["agents"]) == \
        ("play", ["wizard"], ["you", "greedy"])
    assert rows[plan.run_id]["kind"] == "analyze" == Store(path, readonly=True).run(plan.run_id).kind


def test_a_store_without_a_tournament_says_what_it_holds(tmp_path):
    path = tmp_path / "s.sqlite"
    ok("analyze", "insert", "--games", 1, "-j", 1, "--store", path)
    for command in (["leaderboard"], ["matchups"], ["matches"], ["report"], ["replay", "0"],
                    ["graph", "--out", tmp_path / "g.svg"]):
        result = invoke(*command, "--store", path)
        assert result.exit_code == 2 and result.output.count("\n") == 1, (command, result.output)
        assert "no tournament" in result.output and "arena runs" in result.output, result.output
    analyzed = json.loads(ok("runs", "--store", path, "--json"))[0]["run_id"]
    assert json.loads(ok("leaderboard", analyzed, "--store", path, "--json"))["run_id"] == analyzed


def test_an_empty_store_has_no_runs(tmp_path):
    path = str(tmp_path / "s.sqlite")
    Store(path).close()
    assert json.loads(ok("runs", "--store", path, "--json")) == []
    assert "no run" in ok("runs", "--store", path)
    result = invoke("matches", "--store", path)
    assert result.exit_code == 2 and "no tournament" in result.output
