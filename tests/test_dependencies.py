"""Every third-party module the installed packages import is declared: a core dependency, or, for the
few optional faces, the extra that docs name (a plain `pip install -e .` must run everything else).
`.ci/plain-install` proves the same by running the main job in a venv with no extras."""
import ast
import pathlib
import re
import sys

try:
    import tomllib
except ImportError:   # Python 3.10
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("engines", "agents", "arena")

# distribution -> the modules it provides, where the two names differ or it provides several
PROVIDES = {
    "dask": {"dask", "distributed"},
    "open_spiel": {"open_spiel", "pyspiel"},
    "pyyaml": {"yaml"},
    "scikit_learn": {"sklearn"},
}
# modules imported only by optional parts, each behind a guard that names its extra (arena.extras.require,
# or the face's own for OpenSpiel, PettingZoo and Gymnasium)
OPTIONAL = {
    "distributed": "dask",     # --backend dask
    "starlette": "web",        # arena serve
    "uvicorn": "web",
    "markdown": "web",         # arena serve's rules page
    "matplotlib": "charts",    # arena report, graph, analyze --out
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "pettingzoo": "pettingzoo",
    "gymnasium": "gymnasium",
    "sklearn": "learn",        # `arena train` fits with it; playing with a model needs numpy only
    "playwright": "test",      # the drawings' screenshots, a developer's tool (arena.serve.screenshots)
}


def distribution(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0].lower().replace("-", "_")


def modules_of(requirements) -> set:
    names = set()
    for r in requirements:
        d = distribution(r)
        names |= PROVIDES.get(d, {d})
    return names


def imported_modules() -> dict:
    """Top-level third-party module -> the files that import it."""
    found: dict = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in PACKAGES:
                        found.setdefault(top, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_imported_module_is_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = modules_of(project["dependencies"])
    extras = {name: modules_of(reqs) for name, reqs in project["optional-dependencies"].items()}
    undeclared = []
    for module, files in sorted(imported_modules().items()):
        if module in core or module == "tomli":   # tomli: declared for Python < 3.11 only, read after tomllib
            continue
        extra = OPTIONAL.get(module)
        if extra is None or module not in extras.get(extra, set()):
            undeclared.append(f"{module} (imported by {', '.join(sorted(set(files)))})")
    assert not undeclared, "imported but not declared in pyproject.toml: " + "; ".join(undeclared)


def test_optional_modules_are_not_core_dependencies():
    """A plain install does not pull what OPTIONAL calls optional (the heavy parts stay behind their extras)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = modules_of(project["dependencies"])
    assert sorted(set(OPTIONAL) & core) == []


def test_the_guards_name_the_extras_declared_here():
    from arena.extras import EXTRAS
    assert {module: extra for module, (extra, _) in EXTRAS.items()} == \
        {module: OPTIONAL[module] for module in EXTRAS}


def test_tomli_is_declared_where_tomllib_is_missing():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(distribution(r) == "tomli" and "python_version < '3.11'" in r for r in project["dependencies"])
