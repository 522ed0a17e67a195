"""What the coordinator no longer does per match gives the same stored data and tallies: the matches
`Store.record_many` returns are those the store reads back, a checkpoint folded from them equals one
folded from the store, and a serial run played in batches stores what one played match by match
stores."""
import json
import random

import pytest

import engines
from arena import edge
from arena.agent_list import parse_agents
from arena.bench import arena_schedule
from arena.match import Fault
from arena.results import standings, tallies
from arena.store import Store
from arena.tournament import coordinator
from arena.tournament.runner import play_matches


def schedule(deals, agents="random, greedy"):
    config, matches = arena_schedule("insert", engines.registry.resolve("insert"), parse_agents(agents), deals)
    return config, list(matches)


def new_store(path, config, matches):
    store = Store(str(path))
    store.create_run("bench", config, len(matches))
    return store


def test_record_many_returns_the_matches_as_the_store_reads_them_back(tmp_path):
    config, matches = schedule(3)
    results, _ = play_matches(matches)
    # what a JSON round trip changes: tuples become lists, keys become text; a fault's fields
    results[1].metrics = {"pair": (1, 2), "by_seat": {0: 1.5, 1: -0.0}, "big": 2 ** 70}
    results[2].faults = [Fault(0, matches[2].seats[0].label, "illegal", "played 99", 4)]
    store = new_store(tmp_path / "s.sqlite", config, matches)
    returned = store.record_many(list(zip(matches[:4], results[:4]))) + \
        store.record_many(list(zip(matches[4:], results[4:])))
    assert returned == list(store.results("bench"))
    assert json.dumps(returned) == json.dumps(list(store.results("bench")))   # the same types too (1.0 is not 1)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_checkpoint_folded_from_the_returned_matches_equals_one_read_from_the_store(tmp_path, seed):
    config, matches = schedule(40)
    results, _ = play_matches(matches)
    pairs = list(zip(matches, results))
    store = new_store(tmp_path / "s.sqlite", config, matches)
    before = 7   # stored before the coordinator started (a resumed run), with a gap after match 2
    early = [p for p in pairs[:before] if p[0].match_id != 3]
    store.record_many(early)
    checkpoint = tallies.Checkpoint(store, "bench")
    assert checkpoint.upto == 3 and set(checkpoint.waiting) == {4, 5, 6}
    rest = [pairs[3]] + pairs[before:]
    rng = random.Random(seed)
    batches = []
    while rest:
        k = rng.randint(1, 9)
        batches.append(rest[:k])
        rest = rest[k:]
    rng.shuffle(batches)   # batches arrive in any order
    for batch in batches:
        checkpoint.recorded(store.record_many(batch))
    assert checkpoint.upto == len(matches) and not checkpoint.waiting
    fresh = standings.fold(store.results("bench"))
    assert [json.dumps(t.state()) for t in checkpoint.groups.values()] == \
        [json.dumps(t.state()) for t in fresh.values()]


def stored_rows(store):
    return [{k: v for k, v in m.items() if k not in ("duration", "finished")} for m in store.matches("bench")]


def test_a_serial_run_in_batches_stores_what_one_match_at_a_time_stores(tmp_path, monkeypatch):
    config, matches = schedule(60, "random, random as r2")
    batches = []
    record_many = Store.record_many

    def counted(self, finished):
        batches.append(len(finished))
        return record_many(self, finished)

    monkeypatch.setattr(Store, "record_many", counted)
    chunked = new_store(tmp_path / "chunked.sqlite", config, matches)
    assert coordinator.play_specs(chunked, matches, "local", 1) == "finished"
    assert len(batches) < len(matches) // 4   # cheap matches travel, and are stored, in batches
    batches.clear()
    monkeypatch.setattr(coordinator, "TASK_SECONDS", 0.0)   # batches of one match
    single = new_store(tmp_path / "single.sqlite", config, matches)
    assert coordinator.play_specs(single, matches, "local", 1) == "finished"
    assert batches == [1] * len(matches)
    assert stored_rows(chunked) == stored_rows(single)
    assert chunked.tallies("bench")[0] == single.tallies("bench")[0] == len(matches)
    assert chunked.tallies("bench") == single.tallies("bench")


def test_checked_parameters_are_not_confused_with_equal_values_of_another_type():
    assert engines.registry.resolve("wizard", hands=(3,))["hands"] == (3,)
    with pytest.raises(engines.registry.BadParameter):
        engines.registry.resolve("wizard", hands=(True,))   # equal to (1,) as a key, but not a hand size
    assert engines.registry.resolve("wizard", hands=(1,))["hands"] == (1,)
    with pytest.raises(engines.registry.BadParameter):
        engines.registry.resolve("wizard", hands=(True,))


def test_a_run_killed_after_its_last_match_saves_its_checkpoint_when_run_again(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    plan = coordinator.plan(store, games=edge.games("insert", None), agents=edge.agents("random, random as r2"), deals=5)
    # as a run killed (SIGKILL) after its last batch was stored, before its checkpoint was saved
    todo = list(plan.todo)
    store.record_many(list(zip(todo, play_matches(todo)[0])))
    store.release(plan.run_id)
    again = coordinator.plan(store, games=edge.games("insert", None), agents=edge.agents("random, random as r2"), deals=5)
    assert not again.todo and store.tallies(again.run_id)[0] == 0
    assert coordinator.play(store, again, jobs=1) == "finished"
    assert store.tallies(again.run_id)[0] == store.count(again.run_id) == 10
