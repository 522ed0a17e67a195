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
    independent, coupled, summary = [json.loads(line) for line in result.output.splitlines()]
    assert (independent["seeding"], coupled["seeding"]) == ("independent", "coupled")
    assert coupled["decision"] == "identical" and coupled["deals"] == 10 and coupled["sd"] == 0
    assert coupled["identical"] == 4 and independent["identical"] < 4
    assert coupled["cpu_s"] >= 0 and summary["coupled"]["median_deals"] == 10
    assert summary["coupled"]["sd"] == 0 and summary["independent"]["sd"] == independent["sd"]


def test_an_unknown_pair_is_one_line_and_exit_2():
    result = bench("--verdict-pairs", "halved,twins")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "--verdict-pairs takes some of identical, halved, minimax" in result.output
