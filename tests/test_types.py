"""The type checker passes on the Python packages (arena/, agents/*.py), with engines/core.pyi for the
engines' Python face: `mypy` reads its settings from pyproject.toml. Pyflakes' checks (ruff's F
rules: unused imports and names, undefined names) pass on every Python file."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_mypy_is_clean(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_pyflakes_rules_are_clean():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F",
                          "arena", "agents", "engines", "experiments", "tests"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
