"""Running `arena` commands in-process: `invoke` gives click's result, `ok` the output of one that must succeed."""
from click.testing import CliRunner, Result

from arena.cli import main


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def ok(*args: object) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, (args, result.output)
    return result.output


def run_matches(store: object, *args: object) -> tuple[str, list]:
    """`arena run ARGS -j 1 --store STORE`, then (its run id, its matches by match id)."""
    from arena.store import Store
    ok("run", *args, "-j", "1", "--store", store)
    reader = Store(str(store), readonly=True)
    try:
        run_id = reader.run().run_id
        return run_id, [reader.match(run_id, m["match_id"]) for m in sorted(reader.matches(run_id), key=lambda m: m["match_id"])]
    finally:
        reader.close()
