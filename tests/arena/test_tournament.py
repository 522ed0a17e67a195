"""A tournament from Python, without click: plan it, play it, read its standings."""
import pytest

from arena import analysis, tournament
from arena.store import Store


KEY = "5eed" * 8


def test_a_tournament_runs_from_python_and_resumes(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    # a fixed deal key: with a new random key per store, random at times outscored greedy on 3 deals
    plan = tournament.plan(store, game_id="insert", agents="greedy, random", deals=3, deal_key=KEY)
    assert len(plan.schedule) == len(plan.todo) == 6 and plan.stored == 0
    seen = []
    assert tournament.play(store, plan, jobs=1, on_match=seen.append) == "finished"
    assert sorted(r.match_id for r in seen) == list(range(6))
    assert store.run(plan.run_id)["status"] == "finished"
    rows = analysis.leaderboard(store.matches(plan.run_id))
    assert [r.label for r in rows] == ["greedy", "random"] and rows[0].games == 6
    again = tournament.plan(store, game_id="insert", agents="greedy, random", deals=3, deal_key=KEY)
    assert again.run_id == plan.run_id and again.todo == [] and again.stored == 6
    assert tournament.play(store, again) == "finished"
    store.close()


def test_a_bad_description_leaves_no_run(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    for kwargs in ({"game_id": "nosuch"}, {"game_id": "insert", "agents": "greedy"},
                   {"game_id": "insert", "time_limit": float("nan")},
                   {"game_id": "insert", "params": ("tiles=XYZ",)}):
        with pytest.raises(ValueError):
            tournament.plan(store, **kwargs)
    assert store.runs() == []
    store.close()
