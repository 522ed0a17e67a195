"""The command line starts without the heavy modules: `import arena.cli` (what `arena --help` and
every command pay) and `arena ladder show` load none of numpy, scipy, networkx, matplotlib,
starlette or the sandbox's process machinery; each command imports those it uses when it runs.
Checked on sys.modules in a fresh interpreter, never with a timer."""
import json
import subprocess
import sys

from cli import ok

HEAVY = ("numpy", "scipy", "networkx", "matplotlib", "starlette", "uvicorn", "dask", "trueskill", "rich",
         "arena.sandbox.remote", "arena.tournament.coordinator", "multiprocessing", "importlib.metadata")


def loaded_after(code):
    out = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\n"
                          f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def test_importing_the_command_line_loads_no_heavy_module():
    assert loaded_after("import arena.cli") == []


def test_ladder_show_loads_only_trueskill_and_rich(tmp_path):
    store = str(tmp_path / "s.sqlite")
    ok("ladder", "new", "lad", "--game", "insert", "--store", store)
    ok("ladder", "add", "lad", "random", "--store", store)
    code = ("from arena.cli import main\ntry:\n"
            f"    main(['ladder', 'show', 'lad', '--store', {store!r}])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code")
    assert loaded_after(code) == ["trueskill", "rich"]
