"""Running `arena` commands in-process: `invoke` gives click's result, `ok` the output of one that must succeed."""
from click.testing import CliRunner, Result

from arena.cli import main


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def ok(*args: object) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, (args, result.output)
    return result.output
