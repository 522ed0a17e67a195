"""Ladder entries: a new version is a new entry with its lineage, the old one retired unless kept;
owners; bad input as one line, exit 2."""
import json
import os

import pytest

from arena import edge
from arena.ladder import store as ladders
from arena.store import Store
from cli import invoke, ok
from model_files import model_copy
from paths import FIXTURES

BOTS = os.path.join(FIXTURES, "bots.py")


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "arena.sqlite"
    ok("ladder", "new", "ins", "--game", "insert", "--store", path)
    return path


def entries(path):
    store = Store(str(path), readonly=True)
    try:
        return {e.name: e for e in ladders.entries(store, "ins")}
    finally:
        store.close()


def test_a_new_version_is_a_new_entry_after_the_old_one_which_is_retired_unless_kept(store_path):
    ok("ladder", "add", "ins", "random as bot", "--store", store_path)
    out = ok("ladder", "add", "ins", "greedy as bot", "--store", store_path)
    assert "version 2 of bot after bot (retired)" in out
    ok("ladder", "add", "ins", "ismcts[iterations=20] as bot", "--keep", "--store", store_path)
    got = entries(store_path)
    assert [(e.entry, e.version, e.status) for e in got.values()] == [(1, 1, "retired"), (2, 2, "active"),
                                                                       (3, 3, "active")]
    assert got["bot@2"].parent == got["bot"].entry and got["bot@3"].parent == got["bot@2"].entry
    assert got["bot@3"].spec.label == "bot@3" and got["bot@3"].spec.source == "ismcts"
    shown = json.loads(ok("ladder", "show", "ins", "--all", "--json", "--store", store_path))["standings"]
    assert {r["name"]: r["parent"] for r in shown} == {"bot@2": "bot", "bot@3": "bot@2", "bot": None}
    # the same code again is refused; retired, it comes back with its standing
    again = invoke("ladder", "add", "ins", "greedy as bot", "--store", store_path)
    assert again.exit_code == 2 and "already in ladder ins" in again.output
    ok("ladder", "retire", "ins", "bot@2", "--store", store_path)
    ok("ladder", "add", "ins", "greedy as bot", "--keep", "--store", store_path)
    assert entries(store_path)["bot@2"].status == "active" and len(entries(store_path)) == 3
    ok("ladder", "retire", "ins", "bot", "--store", store_path)   # every active version of the label
    assert {e.status for e in entries(store_path).values()} == {"retired"}


def test_a_submitted_bot_is_staged_and_a_changed_file_is_a_new_version(store_path, tmp_path):
    bot = tmp_path / "mybot.py"
    with open(BOTS) as f:
        bot.write_text(f.read())
    ok("ladder", "add", "ins", f"{bot}:GoodBot as mine", "--store", store_path)
    bot.write_text(bot.read_text() + "\n# a change\n")
    ok("ladder", "add", "ins", f"{bot}:GoodBot as mine", "--store", store_path)
    got = entries(store_path)
    assert got["mine"].digest != got["mine@2"].digest and got["mine"].spec.code and got["mine@2"].parent == 1
    assert got["mine"].status == "retired"


def test_a_built_in_agent_whose_model_changed_is_a_new_version(store_path, tmp_path):
    model = model_copy("insert", 2, tmp_path / "m.json")
    ok("ladder", "add", "ins", f"ismcts[iterations=20,value={model}] as valued", "--store", store_path)
    again = invoke("ladder", "add", "ins", f"ismcts[iterations=20,value={model}] as valued", "--store", store_path)
    assert again.exit_code == 2 and "already in ladder ins" in again.output
    model_copy("insert", 2, tmp_path / "m.json", " (retrained)")
    ok("ladder", "add", "ins", f"ismcts[iterations=20,value={model}] as valued", "--store", store_path)
    got = entries(store_path)
    assert got["valued"].digest != got["valued@2"].digest and got["valued"].spec.code != got["valued@2"].spec.code
    assert got["valued"].status == "retired"


def test_a_ladder_does_not_play_an_entry_whose_model_changed(store_path, tmp_path):
    model = model_copy("insert", 2, tmp_path / "m.json")
    ok("ladder", "add", "ins", f"ismcts[iterations=5,value={model}] as valued", "--store", store_path)
    ok("ladder", "add", "ins", "greedy", "--store", store_path)
    ok("ladder", "run", "ins", "--matches", 2, "-j", 1, "--store", store_path)
    model_copy("insert", 2, tmp_path / "m.json", " (retrained)")
    refused = invoke("ladder", "run", "ins", "--matches", 2, "-j", 1, "--store", store_path)
    assert refused.exit_code == 2 and refused.output == \
        "Error: agent valued: its model file changed since the run started; start a new run\n"


def test_entrants_own_their_labels():
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        store = Store(os.path.join(folder, "s.sqlite"))
        ladders.create(store, "up", game=edge.game("insert", None))
        ladders.add(store, "up", edge.agent("random as r"), entrant="alice")
        with pytest.raises(ValueError, match="belongs to another entrant"):
            ladders.add(store, "up", edge.agent("greedy as r"), entrant="bob")
        with pytest.raises(ValueError, match="only its owner"):
            ladders.retire(store, "up", "r", entrant="bob")
        assert ladders.add(store, "up", edge.agent("greedy as r"), entrant="alice").entrant == "alice"
        assert [e.name for e in ladders.retire(store, "up", "r", entrant="alice")] == ["r@2"]
        store.close()


@pytest.mark.parametrize("args, message", [
    (("ladder", "show", "nosuch"), "no ladder 'nosuch'"),
    (("ladder", "add", "nosuch", "random"), "no ladder 'nosuch'"),
    (("ladder", "run", "nosuch"), "no ladder 'nosuch'"),
    (("ladder", "add", "ins", "nosuchagent"), "unknown agent 'nosuchagent'"),
    (("ladder", "add", "ins", "ismcts[bogus=1]"), "unknown parameter 'bogus'"),
    (("ladder", "add", "ins", "random, greedy"), "one agent per"),
    (("ladder", "add", "ins", "human"), "human agent"),
    (("ladder", "add", "ins", "ismcts[bidding=learned]"), "cannot play insert with 2 players: parameter 'bid_model'"),
    (("ladder", "new", "ins", "--game", "insert"), "already exists"),
    (("ladder", "new", "x", "--game", "nosuchgame"), "nosuchgame"),
    (("ladder", "new", "x", "--game", "insert", "--param", "bogus=1"), "bogus"),
    (("ladder", "new", "bad name", "--game", "insert"), "ladder name"),
    (("ladder", "retire", "ins", "nobody"), "no active entry 'nobody'"),
    (("ladder", "history", "ins", "nobody"), "no entry 'nobody'"),
    (("ladder", "run", "ins", "--matches", 1), "needs two active entries"),
    (("ladder", "run", "ins", "--matches", 0), "(arena ladder run -h for help)"),
])
def test_bad_input_is_one_line_and_exit_2(store_path, args, message):
    result = invoke(*args, "--store", store_path)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_the_store_s_ladders_are_listed(store_path):
    ok("ladder", "new", "second", "--game", "insert", "--players", 2, "--store", store_path)
    ok("ladder", "add", "second", "random", "--store", store_path)
    listed = json.loads(ok("ladders", "--json", "--store", store_path))
    assert [(r["name"], r["active"]) for r in listed] == [("ins", 0), ("second", 1)]
    assert json.loads(ok("ladder", "list", "--json", "--store", store_path)) == listed
    runs = json.loads(ok("runs", "--json", "--store", store_path))
    assert {(r["run_id"], r["kind"]) for r in runs} == {("ladder-ins", "ladder"), ("ladder-second", "ladder")}
