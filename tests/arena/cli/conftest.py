import pytest
from click.testing import CliRunner

from arena.cli import main


@pytest.fixture(scope="module")
def insert_store(tmp_path_factory):
    """A store holding one finished tournament: greedy and random on one Insert deal (two matches)."""
    path = tmp_path_factory.mktemp("insert") / "s.sqlite"
    result = CliRunner().invoke(main, ["run", "--game", "insert", "--agents", "greedy,random", "--games", "1",
                                       "-j", "1", "--store", str(path)])
    assert result.exit_code == 0, result.output
    return str(path)
