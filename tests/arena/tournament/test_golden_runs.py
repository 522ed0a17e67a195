"""Golden runs: a small fixed tournament per game, played through `arena run`, gives exactly the
matches recorded in tests/fixtures/golden/GAME.json (deal seeds, seatings, every action, returns
and placements).

The fixtures pin what the engines and the built-in agents play, so that a change meant to move
code around (regrouping the arena package, say) can be shown to change no result. Every agent's
budget is counted in iterations or depth, never in seconds, and the tournament seed and the deal
key are given on the command line, so a run is a pure function of its command line and the code.

Each tournament goes through the same entry point as a user's `arena run`: click's CliRunner with
a fresh `--store` under tmp_path, `--seed`, `--deal-key` (which wins over the ARENA_DEAL_KEY that
tests/conftest.py sets, so the fixtures do not depend on it) and `--jobs 1`. The matches are then
read straight from the store's SQLite `matches` table (the stored format, not a Python API, so the
test does not depend on where the arena's modules live).

When a change is MEANT to change what is played (new rules, a stronger agent), regenerate the
fixtures on the new code and review the diff (one line per match):

    ARENA_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/arena/tournament/test_golden_runs.py

With ARENA_REGENERATE_GOLDEN=1 each test plays its tournament, rewrites its fixture and is skipped
(so a regeneration run is never mistaken for a passing one).
"""
import json
import os
import sqlite3

import pytest
from click.testing import CliRunner

from paths import FIXTURES

GOLDEN = os.path.join(FIXTURES, "golden")
REGENERATE = os.environ.get("ARENA_REGENERATE_GOLDEN") == "1"

DEAL_KEY = "676f6c64656e2d72756e732d32303236"   # 32 hex digits, given explicitly (never the store's own)
SEED = 2026

# game -> the tournament: built-in agents with budgets in iterations or depth only.
TOURNAMENTS = {
    "belladone_bluff": {"agents": "random,greedy,ismcts[iterations=50]", "deals": 2},
    "belle_of_the_ball": {"agents": "random,greedy,ismcts[iterations=50]", "deals": 2},
    "insert": {"agents": "random,greedy,minimax[determinizations=1,depth=2]", "deals": 3},
    "royal_ball": {"agents": "random,greedy,ismcts[iterations=50]", "deals": 1},
    "wizard": {"agents": "random,greedy,ismcts[iterations=50]", "deals": 1},
}

FIELDS = ("match_id", "game", "params", "seed", "seats", "actions", "returns", "placements")


def command(game):
    t = TOURNAMENTS[game]
    return {"game": game, "agents": t["agents"], "deals": t["deals"], "seed": SEED, "deal_key": DEAL_KEY}


def play(game, store):
    """The run's matches, in match-id order, as the fixture records them: `arena run` on a new store."""
    from arena.cli import main
    c = command(game)
    args = ["run", "--game", game, "--agents", c["agents"], "--games", str(c["deals"]), "--seed", str(c["seed"]),
            "--deal-key", c["deal_key"], "--store", store, "--jobs", "1", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["status"] == "finished" and summary["faults"] == [], summary
    db = sqlite3.connect(store)
    try:
        total = db.execute("SELECT total FROM runs WHERE run_id = ?", (summary["run_id"],)).fetchone()[0]
        rows = db.execute("SELECT match_id, game_id, game_params, seed, seats, actions, returns, placements, faults "
                          "FROM matches WHERE run_id = ? ORDER BY match_id", (summary["run_id"],)).fetchall()
    finally:
        db.close()
    assert len(rows) == total, f"{len(rows)} of {total} matches stored"
    matches = []
    for match_id, game_id, params, seed, seats, actions, returns, placements, faults in rows:
        assert json.loads(faults) == [], (match_id, faults)
        matches.append({"match_id": match_id, "game": game_id, "params": json.loads(params), "seed": seed,
                        "seats": [s["label"] for s in json.loads(seats)], "actions": json.loads(actions),
                        "returns": json.loads(returns), "placements": json.loads(placements)})
    return matches


def fixture_path(game):
    return os.path.join(GOLDEN, f"{game}.json")


def regenerate(game, matches):
    """Rewrites GAME's fixture from `matches` (only with ARENA_REGENERATE_GOLDEN=1): the command,
    then one line per match, so a diff shows which matches changed."""
    if not REGENERATE:
        raise RuntimeError("set ARENA_REGENERATE_GOLDEN=1 to rewrite the golden fixtures")
    os.makedirs(GOLDEN, exist_ok=True)
    lines = ",\n".join("  " + json.dumps({k: m[k] for k in FIELDS}) for m in matches)
    with open(fixture_path(game), "w") as f:
        f.write('{\n "command": ' + json.dumps(command(game)) + ',\n "matches": [\n' + lines + "\n ]\n}\n")


def load(path):
    with open(path) as f:
        return json.load(f)


def differences(expected, actual):
    """Where two lists of matches differ, in words (empty when they are the same)."""
    out = []
    if len(expected) != len(actual):
        out.append(f"{len(actual)} matches played, {len(expected)} recorded")
    for want, got in zip(expected, actual):
        for k in FIELDS:
            if want.get(k) != got.get(k):
                if k == "actions":
                    a, b = want.get(k) or [], got.get(k) or []
                    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                    out.append(f"match {want.get('match_id')}: actions differ from move {i} "
                               f"(recorded {a[i:i + 5]}..., played {b[i:i + 5]}...; {len(a)} vs {len(b)} moves)")
                else:
                    out.append(f"match {want.get('match_id')}: {k} recorded {want.get(k)!r}, played {got.get(k)!r}")
    return out


def check(game, fixture, matches):
    """AssertionError naming every difference between the fixture and the matches played."""
    assert fixture["command"] == command(game), \
        (f"the {game} tournament of this test is not the one recorded ({fixture['command']}): "
         f"regenerate with ARENA_REGENERATE_GOLDEN=1")
    diffs = differences(fixture["matches"], matches)
    shown = "\n  ".join(diffs[:10]) + (f"\n  ... and {len(diffs) - 10} more" if len(diffs) > 10 else "")
    assert not diffs, (f"{game}: today's code plays other matches than {fixture_path(game)} records "
                       f"({len(diffs)} differences):\n  {shown}\nIf the change is meant, regenerate the fixture "
                       f"with ARENA_REGENERATE_GOLDEN=1 (see this module's docstring) and review its diff.")


@pytest.mark.parametrize("game", sorted(TOURNAMENTS))
def test_a_fixed_tournament_plays_the_recorded_matches(game, tmp_path):
    matches = play(game, str(tmp_path / "golden.sqlite"))
    if REGENERATE:
        regenerate(game, matches)
        pytest.skip(f"ARENA_REGENERATE_GOLDEN=1: rewrote {fixture_path(game)} ({len(matches)} matches)")
    check(game, load(fixture_path(game)), matches)


def test_every_game_has_a_golden_run():
    import engines
    assert sorted(TOURNAMENTS) == sorted(engines.game_ids())
