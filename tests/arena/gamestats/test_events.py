"""arena.gamestats.events: the events of stored matches, rebuilt from their seed and actions, on the
golden matches (tests/fixtures/golden, recorded before events existed)."""
import json
import os
from collections import Counter

import pytest

import engines
from arena.gamestats.events import match_events
from paths import FIXTURES

GAMES = ("wizard", "insert", "belladone_bluff", "royal_ball", "belle_of_the_ball")


def golden_matches(game_id):
    with open(os.path.join(FIXTURES, "golden", f"{game_id}.json")) as f:
        return json.load(f)["matches"]


def points(events, kind, field):
    """{seat: the sum of an event field} over the events of one kind."""
    total = Counter()
    for e in (e for step in events for e in step if e.kind == kind):
        total[e.seat] += float(getattr(e, field))
    return total


@pytest.mark.parametrize("game_id", GAMES)
def test_stored_matches_replay_into_events_that_add_up_to_their_returns(game_id):
    """One list per stored action; the scores the events report are the stored returns (Wizard: the
    rounds' points; Belladone Bluff, outside easy mode: the rows received, shared by teammates; Royal
    Ball: the favours; Insert: the tiles with the first ring and each seat's largest group at the end;
    Belle of the Ball: every seat is told its Regrets at the end)."""
    for m in golden_matches(game_id)[:2]:
        events = match_events(m["game"], m["params"], m["seed"], m["actions"])
        assert len(events) == len(m["actions"])
        n = len(m["returns"])
        if game_id == "wizard":
            got = points(events, "round_scored", "item")
            assert [got[q] for q in range(n)] == m["returns"]
        elif game_id == "belladone_bluff" and not m["params"]["easy"]:
            got = points(events, "row_scored", "detail")
            team = m["params"]["teams"] and n == 4
            assert [got[q] + (got[(q + 2) % 4] if team else 0) for q in range(n)] == m["returns"]
        elif game_id == "royal_ball":
            got = Counter(e.seat for step in events for e in step if e.kind == "favour")
            assert [got[q] for q in range(n)] == m["returns"]
        elif game_id == "insert":
            assert {e.seat for e in events[-1] if e.kind == "largest_group_at_end"} == {0, 1}
            assert [e.kind for e in events[0][:4]] == ["tile_laid"] * 4
        else:
            assert sorted(e.seat for e in events[-1] if e.kind == "regrets_held_at_end") == list(range(n))


def test_an_action_that_is_not_legal_where_it_was_stored_is_refused():
    m = golden_matches("insert")[0]
    state = engines.make("insert", seed=m["seed"], **m["params"])
    taken = m["actions"][0]
    with pytest.raises(ValueError, match="illegal action"):
        match_events("insert", m["params"], m["seed"], [taken, taken])
    assert taken in state.legal_actions()
