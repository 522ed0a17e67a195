"""A run played until settled numbers each game's matches from the start of that game's block, so its
match numbers have gaps: every view says which numbers there are, and a number in a gap is one line
naming them. The numbers themselves (what the store and every link hold) never change."""
import json
import re

import pytest
from click.testing import CliRunner

from arena.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def settled_run(tmp_path_factory):
    """random and greedy on every game until settled, at most 16 deals: some games settle early."""
    store = str(tmp_path_factory.mktemp("numbers") / "s.sqlite")
    result = invoke("run", "--agents", "random,greedy", "--max-deals", 16, "-j", 1, "--store", store)
    assert result.exit_code == 0, result.output
    listed = json.loads(invoke("matches", "--store", store, "--json").output)
    return store, listed["run_id"], [m["match_id"] for m in listed["matches"]]


def ranges(ids):
    out = []
    for i in ids:
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in out)


@pytest.mark.slow
def test_a_number_in_a_gap_names_the_numbers_there_are(settled_run, tmp_path):
    store, run_id, ids = settled_run
    gaps = [i for i in range(ids[-1]) if i not in ids]
    assert gaps, "every game played to its cap: no gap to test"
    result = invoke("replay", run_id, gaps[0], "--store", store)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"has no finished match {gaps[0]}" in result.output
    assert f"its matches are numbered {ranges(ids)}" in result.output, result.output
    # and each number named is a match to replay
    named = re.findall(r"(\d+)-(\d+)", ranges(ids))
    for first, last in named:
        for number in (first, last):
            out = tmp_path / f"{number}.html"
            done = invoke("replay", run_id, number, "--html", out, "--store", store)
            assert done.exit_code == 0, done.output


@pytest.mark.slow
def test_the_match_list_says_how_its_matches_are_numbered(settled_run):
    store, run_id, ids = settled_run
    head = invoke("matches", "--store", store).output.splitlines()[0]
    assert head == f"run {run_id}: {len(ids)} of {len(ids)} matches, numbered {ranges(ids)}", head


@pytest.mark.slow
def test_the_start_line_gives_the_matches_to_the_first_look_and_the_cap(tmp_path):
    result = invoke("run", "--game", "insert", "--agents", "random,greedy", "--max-deals", 16, "-j", 1,
                    "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 0, result.output
    # Insert, two agents: two matches a deal; looks after 8, 12 and 16 deals
    assert "each game until its verdict is settled: 16 matches to the first look, at most 32 " in \
        " ".join(result.output.split()), result.output
