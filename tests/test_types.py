"""The type checker passes on the Python packages (arena/, agents/*.py, engines/*.py), with
engines/core.pyi (and wizard.pyi) for the engines' Python face: `mypy` reads its settings from
pyproject.toml, which has it check the bodies of unannotated functions too. Each installed package
ships a `py.typed` marker, so other projects' type checkers read its annotations. Pyflakes' checks
(ruff's F rules: unused imports and names, undefined names) pass on every Python file."""
import os
import subprocess
import sys
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow
def test_mypy_is_clean(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_pyflakes_rules_are_clean():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F",
                          "arena", "agents", "engines", "experiments", "tests"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_every_package_ships_its_py_typed_marker():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        setup = tomllib.load(f)["tool"]["setuptools"]
    shipped = setup["package-data"]
    for package in ("engines", "agents", "arena"):
        assert package in setup["packages"]["find"]["include"]
        assert os.path.isfile(os.path.join(ROOT, package, "py.typed")), package
        assert "py.typed" in shipped.get(package, []), f"{package}'s py.typed is not in package-data"
