"""The web app's /rules page reads docs/RULES.md as the package ships it (arena/serve/RULES.md: in the
checkout a link to docs/RULES.md, in an sdist and a wheel the file itself), so it works outside the
checkout too (.ci/wheel-check serves it from an installed wheel)."""
import os

try:
    import tomllib
except ImportError:   # Python < 3.11
    import tomli as tomllib

from arena.serve import app

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_the_rules_are_read_from_the_package_and_equal_docs_rules():
    package = os.path.dirname(os.path.abspath(app.__file__))
    assert os.path.dirname(app.RULES) == package
    with open(app.RULES, encoding="utf-8") as shipped, open(os.path.join(ROOT, "docs", "RULES.md"), encoding="utf-8") as f:
        assert shipped.read() == f.read()


def test_the_rules_are_package_data():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert os.path.basename(app.RULES) in data["arena.serve"]
