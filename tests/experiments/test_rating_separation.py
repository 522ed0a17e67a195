"""experiments.rating_separation: how large an edge the leaderboard's TrueSkill ratings separate."""
import json
import os
import subprocess
import sys

from experiments.rating_separation import separation_rows

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_only_a_dominant_edge_separates_the_ratings():
    """Equal agents never end separated; one 10 points above (placing above the other in 95% of
    matches) always does within 60 matches. Seeded runs give the same rows again."""
    rows = list(separation_rows(gaps=(0.0, 10.0), matches=(60,), runs=3, seed=1))
    assert [r["case"] for r in rows] == ["rating_separation/60/0.0", "rating_separation/60/10.0"]
    assert rows[0]["p_above"] == 0.5 and rows[0]["separated"] == 0.0
    assert rows[1]["p_above"] == 0.955 and rows[1]["separated"] == 1.0 and rows[1]["mu_gap"] > 5
    assert all(0 < r["sigma"] < 25 / 3 and r["runs"] == 3 for r in rows)
    assert rows == list(separation_rows(gaps=(0.0, 10.0), matches=(60,), runs=3, seed=1))


def test_the_cli_prints_json_rows_and_rejects_bad_input_in_one_line():
    cli = [sys.executable, "-m", "experiments.rating_separation"]
    done = subprocess.run(cli + ["--matches", "20", "--gaps", "1", "--runs", "2"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0
    assert [json.loads(x)["case"] for x in done.stdout.splitlines()] == ["rating_separation/20/1.0"]
    for bad in (["--gaps", "x"], ["--runs", "0"]):
        out = subprocess.run(cli + bad, capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 1 and out.stderr.startswith("error: ")
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
