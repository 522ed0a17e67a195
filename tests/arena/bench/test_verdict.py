"""`arena bench --verdict`: a comparison per seeding on the same deals, then a row comparing them."""
import json

from click.testing import CliRunner

from arena.cli import main


def bench(*args):
    return CliRunner().invoke(main, ["bench", "--verdict", *map(str, args)])


def test_the_rows_of_an_agent_against_itself():
    result = bench("--game", "insert", "--verdict-iterations", 10, "--verdict-deals", 12, "--verdict-sd-deals", 4,
                   "--verdict-pairs", "identical", "--json")
    assert result.exit_code == 0, result.output
    independent, coupled, corrected, summary = [json.loads(line) for line in result.output.splitlines()]
    assert (independent["seeding"], coupled["seeding"], corrected["seeding"]) == ("independent", "coupled", "corrected")
    # equal agents play every deal alike: nothing to replay, the same decision as coupled seeds
    assert corrected["decision"] == "identical" and corrected["deals"] == 10 and corrected["replayed"] == 0
    assert corrected["sd"] == corrected["raw_sd"] == 0 and summary["corrected"]["median_deals"] == 10
    assert coupled["decision"] == "identical" and coupled["deals"] == 10 and coupled["sd"] == 0
    assert coupled["identical"] == 4 and independent["identical"] < 4
    assert coupled["cpu_s"] >= 0 and summary["coupled"]["median_deals"] == 10
    assert summary["coupled"]["sd"] == 0 and summary["independent"]["sd"] == independent["sd"]
    # every coupled deal alike: nothing to resample, the comparison stops on "identical play"
    assert summary["coupled"]["resampled"] is None and summary["corrected"]["resampled"] is None
    assert not any(k.startswith("_") for row in (independent, coupled, corrected) for k in row)


def test_an_unknown_pair_is_one_line_and_exit_2():
    result = bench("--verdict-pairs", "halved,twins")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "--verdict-pairs takes some of identical, halved, minimax" in result.output


def test_the_corrected_arm_replays_the_deals_that_parted_and_gives_its_gain_per_cpu_second():
    result = bench("--game", "wizard", "--verdict-iterations", 20, "--verdict-deals", 6, "--verdict-sd-deals", 6,
                   "--verdict-pairs", "halved", "--verdict-replays", 2, "--json")
    assert result.exit_code == 0, result.output
    independent, coupled, corrected, summary = [json.loads(line) for line in result.output.splitlines()]
    assert corrected["raw_sd"] == coupled["sd"] and corrected["replays"] == 2   # the same deals, the same matches
    assert corrected["replayed"] == 6 - coupled["identical"] > 0
    assert corrected["cpu_s"] > 0 and summary["corrected"]["cpu_s_per_deal"] > 0
    cut = (summary["coupled"]["sd"] / summary["corrected"]["sd"]) ** 2
    assert summary["variance_cut"] == round(cut, 3)
    assert summary["variance_cut_per_cpu_s"] == round(cut * summary["coupled"]["cpu_s_per_deal"]
                                                      / summary["corrected"]["cpu_s_per_deal"], 3)
    # the deals each arm's test would take on deals like these, resampled on the same deals for every arm
    base, arm = summary["independent"]["resampled"], summary["corrected"]["resampled"]
    assert 1 <= base["median_deals"] <= 4000 and 0 <= base["undecided"] <= 1
    assert arm["deals_ratio"] == round(arm["median_deals"] / base["median_deals"], 3)
    assert arm["cpu_s"] == round(arm["median_deals"] * summary["corrected"]["cpu_s_per_deal"], 1)


def test_without_replays_there_is_no_corrected_arm():
    result = bench("--game", "insert", "--verdict-iterations", 10, "--verdict-deals", 10, "--verdict-sd-deals", 2,
                   "--verdict-pairs", "identical", "--verdict-replays", 0, "--json")
    assert result.exit_code == 0, result.output
    assert [json.loads(line).get("seeding") for line in result.output.splitlines()] == ["independent", "coupled", None]
