"""The fault rule through the arena's own runner, store and fold, with faulting bots played in-process
(tests/fixtures/kingmaker_bots.py, registered as built-in agents for the test: no sandbox starts).

* A faulter that faults on its last, forced card only when it is above its accomplice and not above
  the rival gives the accomplice nothing: a fault may only lower the faulter's own result.
* A bot that faulted in every match is last on the leaderboard, not level with the others.
* `arena matches` shows a faulty match's result as the rule defines it.
"""
import json

import pytest

import agents.registry
import engines
from arena import agent_list
from arena.results import intervals, standings
from arena.sandbox import make_policy
from arena.store import Store
from arena.tournament import runner, schedule
from cli import ok
from configs import a_config
from paths import FIXTURES

GAME = "wizard"


@pytest.fixture
def in_process(monkeypatch):
    """The fixture bots as built-in agents of this process."""
    monkeypatch.syspath_prepend(FIXTURES)
    monkeypatch.setitem(agents.registry.BUILTIN, "last_card_kingmaker", "kingmaker_bots:LastCardKingmaker")
    monkeypatch.setitem(agents.registry.BUILTIN, "boom", "kingmaker_bots:Boom")


def played(store_path, run_id, agents, deals, seed=5, **params):
    """Plays every match of `agents` (an --agents list) at 3-player Wizard, `deals` deals in every
    seat rotation, and stores them; the matches as the store reads them back."""
    specs = agent_list.parse_agents(agents)
    game_params = json.loads(json.dumps(engines.registry.resolve(GAME, players=3, **params)))
    matches = schedule.game_schedule(run_id, GAME, game_params, specs, deals, seed, 0.0, sandbox=make_policy("none"))
    store = Store(str(store_path))
    try:
        store.create_run(run_id, a_config(GAME, game_params, specs), len(matches))
        return store.record_many([(spec, runner.play_match(spec)) for spec in matches])
    finally:
        store.close()


def share_per_deal(matches, label):
    """{deal: the agent's score share over the deal}, as the leaderboard folds it."""
    deals = sorted({m["deal"] for m in matches})
    return {d: next(row.score_share.mean for row in standings.standings([m for m in matches if m["deal"] == d])
                    if row.label == label) for d in deals}


@pytest.mark.slow   # 600 refereed matches: about 3 s alone, more on a busy machine
def test_a_deliberate_faulter_does_not_change_its_accomplices_score_share(in_process, tmp_path):
    deals = 100
    runs = {}
    for fault in ("true", "false"):
        agents = f"last_card_kingmaker[fault={fault}] as faulter, greedy as accomplice, greedy as rival"
        runs[fault] = played(tmp_path / f"{fault}.sqlite", f"kingmaking-{fault}", agents, deals, hands=(3,))
    faulty = [m for m in runs["true"] if m["faults"]]
    assert not any(m["faults"] for m in runs["false"])
    assert len(faulty) >= 20, len(faulty)   # the faulter did fault, often
    # The faults are on forced cards: the played-out games end as the honest ones.
    assert [m["returns"] for m in runs["true"]] == [m["returns"] for m in runs["false"]]
    figures = {}
    for label in ("accomplice", "rival", "faulter"):
        faulting, honest = share_per_deal(runs["true"], label), share_per_deal(runs["false"], label)
        figures[label] = intervals.t_interval([faulting[d] - honest[d] for d in range(deals)])
    text = "; ".join(f"{label}: {iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]" for label, iv in figures.items())
    print(f"score share change over {deals} paired deals, {len(faulty)} faulty matches: {text}")
    for label in ("accomplice", "rival"):
        assert figures[label].low <= 0 <= figures[label].high, text
    assert figures["faulter"].high < 0, text   # the fault cost the faulter its place


def test_a_bot_that_faulted_in_every_match_is_last_on_the_leaderboard(in_process, tmp_path):
    matches = played(tmp_path / "boom.sqlite", "boom", "greedy, random, boom", 4, hands=(3,))
    assert len(matches) == 12 and all(m["faults"] and m["faults"][0]["label"] == "boom" for m in matches)
    board = {row.label: row for row in standings.standings(matches)}
    assert board["boom"].faults == board["boom"].games == board["boom"].losses == 12
    assert board["boom"].rank == 3 > max(board["greedy"].rank, board["random"].rank), \
        {label: row.rank for label, row in board.items()}
    assert standings.summary(matches)["order"][-1] == "boom"


def test_matches_shows_the_faulter_lost_and_labels_the_played_out_returns(in_process, tmp_path):
    path = tmp_path / "boom.sqlite"
    matches = played(path, "boom", "random, boom, greedy", 4, hands=(3,))   # enough deals for the stand-in to win one
    rows = json.loads(ok("matches", "boom", "--store", path, "--json"))["matches"]
    lines = ok("matches", "boom", "--store", path).splitlines()
    for m, row in zip(matches, rows):
        boom = [s for s, seat in enumerate(m["seats"]) if seat["label"] == "boom"]
        line = next(line for line in lines if line.strip().startswith(str(m["match_id"])))
        assert f"{boom[0]}: boom lost by its fault" in line, line
        assert "played out with a stand-in: returns" in line, line
        assert f"{boom[0]}: boom won" not in line, line
        assert row["lost_by_fault"] == boom and not set(boom) & set(row["winners"])
        assert row["winners"] == [s for s, p in enumerate(m["placements"]) if p == 1 and s not in boom]
    # The stand-in won at least one of these played-out games, and nobody won that match.
    assert any(m["placements"][row["lost_by_fault"][0]] == 1 and row["winners"] == [] for m, row in zip(matches, rows))
    # The web app's list and replay say which seats lost by a fault, for its pages to show.
    from starlette.testclient import TestClient

    from arena.serve.app import create_app
    with TestClient(create_app(str(path))) as client:
        listed = client.get("/api/runs/boom/matches").json()["matches"]
        assert [m["lost_by_fault"] for m in listed] == [row["lost_by_fault"] for row in rows]
        assert client.get("/api/runs/boom/matches/0").json()["lost_by_fault"] == rows[0]["lost_by_fault"]


def test_migrating_a_store_recomputes_the_placements_the_old_rule_moved(in_process, tmp_path):
    """A version-1 store kept a faulty match's placements with the faulty seats moved last; `arena
    store migrate` replays the match and stores the played-out game's. A match whose replay does not
    end as stored (one cut at the fault, as the oldest rule did) keeps what it has."""
    import sqlite3
    path = tmp_path / "old.sqlite"
    matches = played(path, "old", "random, boom, greedy", 4, hands=(3,))   # enough deals for the stand-in to win one
    moved = next(m for m in matches if m["placements"][m["faults"][0]["seat"]] == 1)   # the stand-in won
    old_rule = [3 if seat == moved["faults"][0]["seat"] else place - 1 for seat, place in enumerate(moved["placements"])]
    cut = next(m for m in matches if m is not moved)
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE matches SET placements = ? WHERE match_id = ?", (json.dumps(old_rule), moved["match_id"]))
        db.execute("UPDATE matches SET placements = '[1, 1, 3]', actions = '[]' WHERE match_id = ?", (cut["match_id"],))
        db.execute("PRAGMA user_version = 1")
    db.close()
    assert "migrated from schema version 1" in ok("store", "migrate", "--store", path)
    reader = Store(str(path), readonly=True)
    try:
        assert reader.match("old", moved["match_id"])["placements"] == moved["placements"]
        assert reader.match("old", cut["match_id"])["placements"] == [1, 1, 3]
    finally:
        reader.close()
