"""The heavy parts are extras: a command that needs a missing one refuses in one line that says how to
install it (exit 2, before it writes anything), and the main job runs without any of them."""
import subprocess
import sys

import pytest

from arena.store import Store
from cli import invoke
from missing_modules import block, environment
from paths import ROOT

HEAVY = ("distributed", "dask", "starlette", "uvicorn", "markdown", "matplotlib", "sklearn")


def refused(extra, tmp_path, *args):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    line, = result.output.splitlines()
    assert f'pip install "tabletop-arena[{extra}]"' in line and f'pip install -e ".[{extra}]"' in line, line
    # refused before anything was played or written: no file but an empty store (`arena run` opens it first)
    assert {f.name for f in tmp_path.iterdir()} <= {"s.sqlite", "s.sqlite-wal", "s.sqlite-shm"}
    if (tmp_path / "s.sqlite").exists():
        assert Store(str(tmp_path / "s.sqlite"), readonly=True).runs() == []
    return line


@pytest.mark.parametrize("module", ["starlette", "uvicorn", "markdown"])
def test_serve_without_the_web_extra(monkeypatch, tmp_path, module):
    import arena.cli.serve

    def started(app):
        raise AssertionError("the server started without " + module)
    monkeypatch.setattr(arena.cli.serve, "make_server", started)   # never serves (and blocks the test) if it gets so far
    block(monkeypatch, module)
    line = refused("web", tmp_path, "serve", "--port", "0", "--store", tmp_path / "s.sqlite")
    assert line.startswith("Error: arena serve needs ")


@pytest.mark.parametrize("args", [("report",), ("graph", "--out", "{tmp}/g.svg"),
                                  ("analyze", "insert", "--games", "1", "-j", "1", "--out", "{tmp}/a.html"),
                                  ("bench", "--reports", "--reports-sizes", "100")])
def test_charts_without_the_charts_extra(monkeypatch, tmp_path, args):
    block(monkeypatch, "matplotlib")
    args = [a.format(tmp=tmp_path) for a in args]
    line = refused("charts", tmp_path, *args, *(["--store", tmp_path / "s.sqlite"] if args[0] != "bench" else []))
    assert f"arena {args[0]}" in line and "matplotlib" in line


def test_dask_backend_without_the_dask_extra(monkeypatch, tmp_path):
    block(monkeypatch, "distributed", "dask")
    line = refused("dask", tmp_path, "run", "--game", "insert", "--agents", "random,greedy", "--games", "1",
                   "--backend", "dask", "--address", "tcp://127.0.0.1:8786", "--store", tmp_path / "s.sqlite")
    assert "--backend dask needs dask[distributed]" in line
    assert not (tmp_path / "s.sqlite").exists()   # refused before the store was made


# arena train without [learn]: tests/arena/learn/test_train.py


@pytest.mark.slow
def test_the_main_job_runs_without_any_extra(tmp_path):
    env = environment(tmp_path, *HEAVY)
    store = tmp_path / "s.sqlite"
    run = subprocess.run([sys.executable, "-m", "arena", "run", "--game", "insert", "--agents", "ismcts,greedy",
                          "--games", "1", "-j", "2", "--store", str(store)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert store.stat().st_size > 0
    # the blocker was in place: the web app is refused in that process, in one line, no traceback
    serve = subprocess.run([sys.executable, "-m", "arena", "serve", "--port", "0", "--store", str(store)], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=120)
    assert serve.returncode == 2 and serve.stdout == ""
    assert serve.stderr.splitlines() == [
        'Error: arena serve needs starlette, which is not installed: pip install "tabletop-arena[web]" '
        '(in a checkout: pip install -e ".[web]")'], serve.stderr
