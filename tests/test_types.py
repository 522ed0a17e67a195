"""The type checker passes on the Python packages (arena/, agents/*.py, engines/*.py), with
engines/core.pyi (and wizard.pyi) for the engines' Python face: `mypy` reads its settings from
pyproject.toml, which has it check the bodies of unannotated functions too. Each installed package
ships a `py.typed` marker, so other projects' type checkers read its annotations, and every public
function there is annotated (its parameters and its return). ruff's rule set, written in pyproject.toml
(pyflakes, import order, bugbear, pyupgrade; docs/CONTRIBUTING.md), passes on every Python file of the tree."""
import ast
import glob
import os
import subprocess
import sys

import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_mypy_is_clean():
    # In the fast tier: with mypy's cache (.mypy_cache in the checkout) a run after an edit rechecks only
    # what the edit touches, a few seconds; the first run in a checkout checks everything (a minute or two).
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_ruff_rules_are_clean():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        selected = tomllib.load(f)["tool"]["ruff"]["lint"]["select"]
    assert {"F", "I", "B", "UP"} <= set(selected)
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_every_package_ships_its_py_typed_marker():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        setup = tomllib.load(f)["tool"]["setuptools"]
    shipped = setup["package-data"]
    for package in ("engines", "agents", "arena"):
        assert package in setup["packages"]["find"]["include"]
        assert os.path.isfile(os.path.join(ROOT, package, "py.typed")), package
        assert "py.typed" in shipped.get(package, []), f"{package}'s py.typed is not in package-data"


def _unannotated(path: str) -> list[str]:
    """"FILE:LINE NAME" of each public function of `path` (top-level, or a method of a public class;
    a name without a leading "_") with a parameter (self/cls excepted, *args and **kwargs not) or
    its return unannotated."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = []

    def visit(body: list[ast.stmt], cls: str = "") -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, node.name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                a = node.args
                params = a.posonlyargs + a.args + a.kwonlyargs
                if cls and params and params[0].arg in ("self", "cls"):
                    params = params[1:]
                params += [p for p in (a.vararg, a.kwarg) if p is not None]
                if node.returns is None or any(p.annotation is None for p in params):
                    name = f"{cls}.{node.name}" if cls else node.name
                    found.append(f"{os.path.relpath(path, ROOT)}:{node.lineno} {name}")

    visit(tree.body)
    return found


def test_every_public_function_is_annotated():
    paths = sorted(f for pattern in ("arena/**/*.py", "agents/*.py", "engines/*.py")
                   for f in glob.glob(os.path.join(ROOT, pattern), recursive=True))
    assert len(paths) > 50   # the walk found the packages
    missing = [line for path in paths for line in _unannotated(path)]
    assert not missing, "public functions without annotations:\n" + "\n".join(missing)
