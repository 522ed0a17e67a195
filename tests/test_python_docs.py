"""docs/python.md as a reader runs it: its python blocks in order, in one session, in an empty folder
(a tournament of random and greedy on four Insert deals, and a comparison on eight)."""
import math
import os
import sys
import types

import pytest
from test_readme import fenced_blocks

PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "python.md")


def records_only_pandas():
    """Where pandas is not installed, the one thing the page asks of it: a DataFrame made from a list
    of flat records (the same keys, plain values), checked, never computed."""
    def frame(records):
        assert isinstance(records, list) and records and all(isinstance(r, dict) for r in records)
        assert all(list(r) == list(records[0]) for r in records), "the records have different fields"
        assert all(v is None or type(v) in (int, float, str, bool) for r in records for v in r.values())
        return records
    return types.SimpleNamespace(DataFrame=frame)


@pytest.mark.slow
def test_the_from_python_page_runs_as_written(tmp_path, monkeypatch):
    with open(PAGE) as f:
        blocks = [body for info, body in fenced_blocks(f.read()) if info == "python"]
    assert len(blocks) == 4
    monkeypatch.chdir(tmp_path)
    try:
        import pandas  # noqa: F401
    except ImportError:
        monkeypatch.setitem(sys.modules, "pandas", records_only_pandas())
    session = {"__name__": "docs"}
    for block in blocks:
        exec(compile(block, PAGE, "exec"), session)

    assert session["status"] == "finished" and os.path.exists(tmp_path / "results" / "arena.sqlite")
    standings, matches = session["standings"], session["matches"]
    assert all(type(r).__name__ == "Standing" for r in standings) and all(type(m).__name__ == "MatchSeat" for m in matches)
    assert sorted(r.label for r in standings) == ["greedy", "random"]
    assert [r.rank for r in standings] == sorted(r.rank for r in standings)
    assert all(r.deals == 4 and r.games == 8 for r in standings)
    for r in standings.to_records():   # plain, flat values: one line for pandas or a CSV writer
        assert all(v is None or type(v) in (int, float, str) for v in r.values()), r
        assert r["score_share_low"] <= r["score_share"] <= r["score_share_high"]
    assert math.isclose(sum(r.score_share for r in standings), 1.0)
    assert len(matches) == 4 * 2 * 2 and {m.label for m in matches} == {"greedy", "random"}
    assert [v.game_id for v in session["verdicts"]] == ["insert"] and session["verdicts"][0].verdict
    result = session["result"]
    assert type(result).__name__ == "Comparison" and result.status == "finished"
    assert session["duel"].run_id != session["plan"].run_id == standings[0].run_id and result.candidate == "greedy"
    assert result.deals == 8 or result.decision is not None
    assert result.score_low <= result.score <= result.score_high
