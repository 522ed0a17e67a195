"""The store's run locks: a claim leaves no file behind once its store closes, and a store closing
never frees another process's claim."""
import os
import subprocess
import sys

import pytest

import configs
from arena.store import Store, StoreError
from configs import a_config

HOLDER = """
import sys
from arena.store import Store
sys.path.insert(0, sys.argv[2])
from configs import a_config
store = Store(sys.argv[1])
store.claim("held")
store.create_run("held", a_config(), 1)
print("claimed", flush=True)
sys.stdin.read()
store.close()
"""


def locks(folder):
    return [name for name in os.listdir(folder) if name.endswith(".lock")]


@pytest.fixture
def holder(tmp_path):
    """Another process that plays run "held" of tmp_path/s.sqlite until its stdin closes."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "s.sqlite"), os.path.dirname(configs.__file__)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "claimed\n"
    yield proc
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


def test_a_closed_store_leaves_only_its_database(tmp_path):
    path = str(tmp_path / "s.sqlite")
    store = Store(path)
    store.claim("a")
    store.create_run("a", a_config(), 1)
    store.claim("b")
    store.release("b")
    assert len(locks(tmp_path)) == 1
    store.close()
    assert sorted(os.listdir(tmp_path)) == ["s.sqlite"]
    assert Store(path, readonly=True).run("a").status == "interrupted"   # marked running, nobody plays it


def test_closing_a_store_never_frees_another_process_claim(tmp_path, holder):
    path = str(tmp_path / "s.sqlite")
    mine = Store(path)
    mine.claim("other")
    mine.close()   # removes its own lock file, not the holder's
    assert Store(path, readonly=True).run("held").status == "running"
    second = Store(path)
    with pytest.raises(StoreError, match="being played by another arena process"):
        second.claim("held")
    second.close()
    holder.stdin.close()
    assert holder.wait(timeout=60) == 0
    # Once the holder is gone, its run can be claimed again, and no lock file is left.
    third = Store(path)
    third.claim("held")
    third.close()
    assert locks(tmp_path) == []


def test_a_batch_of_matches_is_stored_whole_or_not_at_all(tmp_path):
    import engines
    from arena.agent_list import parse_agents
    from arena.match import MatchResult
    from arena.tournament import schedule
    store = Store(str(tmp_path / "s.sqlite"))
    specs = schedule.game_schedule("r", "insert", engines.registry.resolve("insert"),
                                   parse_agents("random, greedy"), 2, 0, 1.0)
    store.create_run("r", a_config(), len(specs))

    def result(spec):
        return MatchResult(spec.match_id, [1.0, 0.0], [1, 2], [3, 4])

    store.record(specs[1], result(specs[1]))
    with pytest.raises(StoreError, match="match 1 of run r appeared"):
        store.record_many([(s, result(s)) for s in specs[:3]])   # match 1 is there: none of the batch is
    assert store.finished_ids("r") == {1}
    store.record_many([(s, result(s)) for s in specs[2:]])
    assert store.finished_ids("r") == {1, 2, 3}
    assert [m["actions"] for m in store.matches("r")] == [[3, 4]] * 3
    store.close()
