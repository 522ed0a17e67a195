"""A tournament from Python, without click: plan it, play it, read its standings."""
import pytest

from arena import edge
from arena.results import standings
from arena.store import Store
from arena.tournament import coordinator as tournament

KEY = "5eed" * 8


def test_a_tournament_runs_from_python_and_resumes(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    # a fixed deal key: with a new random key per store, random at times outscored greedy on 3 deals
    plan = _plan(store, game_id="insert", agents="greedy, random", deals=3, deal_key=KEY)
    assert len(plan.schedule) == len(plan.todo) == 6 and plan.stored == 0
    seen = []
    assert tournament.play(store, plan, jobs=1, on_match=seen.append) == "finished"
    assert sorted(r.match_id for r in seen) == list(range(6))
    assert store.run(plan.run_id).status == "finished"
    rows = standings.leaderboard(store.matches(plan.run_id))
    assert [r.label for r in rows] == ["greedy", "random"] and rows[0].games == 6
    again = _plan(store, game_id="insert", agents="greedy, random", deals=3, deal_key=KEY)
    assert again.run_id == plan.run_id and again.todo == [] and again.stored == 6
    assert tournament.play(store, again) == "finished"
    store.close()


def _plan(store, game_id=None, agents=None, params=(), **typed):
    """The plan of `arena run`'s texts, read as the command line reads them."""
    return tournament.plan(store, games=edge.games(game_id, None, params), agents=edge.agents(agents), **typed)


def test_a_bad_description_leaves_no_run(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    for kwargs in ({"game_id": "nosuch"}, {"game_id": "insert", "agents": "greedy"},
                   {"game_id": "insert", "time_limit": float("nan")},
                   {"game_id": "insert", "params": ("tiles=XYZ",)}):
        with pytest.raises(ValueError):
            _plan(store, **kwargs)
    assert store.runs() == []
    store.close()


def _played(store, run_id):
    return [(m["match_id"], m["deal"], m["seed"], [s["label"] for s in m["seats"]], m["actions"], m["returns"])
            for m in store.matches(run_id)]


def test_more_deals_extend_the_stored_run_without_playing_its_deals_again(tmp_path):
    """`--games 4` after `--games 2` (the verdict's advice when 2 deals do not settle it) takes the
    2 deals already played, on their deal key, and plays 2 more: the same matches as 4 deals played
    from the start. The same command again takes nothing twice; other deals, a given other deal key
    or another line-up take nothing."""
    store = Store(str(tmp_path / "s.sqlite"))
    run = dict(game_id="insert", agents="greedy, random", seed=5)
    small = _plan(store, deals=2, **run)
    assert tournament.play(store, small, jobs=1) == "finished"
    big = _plan(store, deals=4, **run)
    assert big.run_id != small.run_id and big.deal_key == small.deal_key
    assert (big.taken, big.stored, len(big.todo)) == (4, 4, 4) and big.extends.run_id == small.run_id
    assert _played(store, big.run_id) == _played(store, small.run_id)
    assert tournament.play(store, big, jobs=1) == "finished"
    fresh = Store(str(tmp_path / "fresh.sqlite"))
    whole = _plan(fresh, deals=4, deal_key=small.deal_key, **run)
    assert whole.run_id == big.run_id and whole.taken == 0
    tournament.play(fresh, whole, jobs=1)
    assert _played(store, big.run_id) == _played(fresh, whole.run_id) and len(_played(fresh, whole.run_id)) == 8
    again = _plan(store, deals=4, **run)
    assert (again.taken, again.stored, again.todo) == (0, 8, [])
    assert _plan(store, deals=6, deal_key=KEY, **run).taken == 0
    assert _plan(store, deals=6, game_id="insert", agents="greedy, random as r2", seed=5).taken == 0
    assert _plan(store, deals=6, game_id="insert", agents="greedy, random", seed=6).taken == 0
    store.close()
    fresh.close()


def test_the_command_line_says_which_matches_it_took_from_the_smaller_run(tmp_path):
    from click.testing import CliRunner

    from arena.cli import main
    args = ["run", "--game", "insert", "--agents", "greedy, random", "-j", "1", "--store", str(tmp_path / "s.sqlite")]
    first = CliRunner().invoke(main, args + ["--games", "1"])
    second = CliRunner().invoke(main, args + ["--games", "2"])
    assert first.exit_code == second.exit_code == 0, second.output
    run_id = Store(str(tmp_path / "s.sqlite"), readonly=True).runs()[0].run_id
    assert f"4 matches, 2 already stored (2 taken from run {run_id}, this run's first deal)" in second.output
