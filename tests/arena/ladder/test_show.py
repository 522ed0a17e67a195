"""`arena ladder show` and `history` on an 80-column terminal: every line fits, every entry and
figure is shown whole, as --json gives them."""
import json
import shlex
import sys

import pytest

from cli import ok
from terminal import screen


def arena(*args):
    return " ".join(shlex.quote(str(a)) for a in (sys.executable, "-m", "arena", *args))


@pytest.mark.slow
def test_show_and_history_fit_80_columns_with_every_figure_whole(tmp_path):
    path = tmp_path / "show.sqlite"
    ok("ladder", "new", "fit", "--game", "insert", "--store", path)
    for agent in ("random", "greedy as a-rather-long-label-for-a-bot", "ismcts[iterations=20]"):
        ok("ladder", "add", "fit", agent, "--store", path)
    ok("ladder", "run", "fit", "--matches", 1, "-j", 1, "--store", path)
    ok("ladder", "add", "fit", "ismcts[iterations=30] as a-rather-long-label-for-a-bot", "--store", path)
    rows = json.loads(ok("ladder", "show", "fit", "--json", "--store", path))["standings"]
    text = screen(arena("ladder", "show", "fit", "--store", path) + " && "
                  + arena("ladder", "history", "fit", "ismcts[iterations=20]", "--store", path), 80, 40)
    lines = text.splitlines()
    assert all(len(line.rstrip()) <= 80 for line in lines), text
    for r in rows:
        line = next(line for line in lines if f" {r['name']} " in line + " ")
        # written as every view writes an interval, "mean [low-high]"
        assert f"{r['mu']:.1f} [{r['low']:.1f}-{r['high']:.1f}]" in line, (r, line)
        assert line.split()[0] == str(r["rank"])
    assert "a-rather-long-label-for-a-bot@2 ?" in text    # the new version, provisional
    assert "ismcts[iterations=20] in ladder fit" in text and "25.00" in text
