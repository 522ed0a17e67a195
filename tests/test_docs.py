"""The docs site builds with every link whole, and the README stays a page a newcomer reads."""
import os
import re
import subprocess
import sys

import pytest
from test_readme import fenced_blocks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
README_MAX_LINES = 150
DOCS = os.path.join(ROOT, "docs")
PAGES = sorted(name for name in os.listdir(DOCS) if name.endswith(".md"))


def test_readme_is_short():
    with open(README) as f:
        lines = len(f.read().splitlines())
    assert lines <= README_MAX_LINES, (f"README.md has {lines} lines, at most {README_MAX_LINES}: "
                                       "measurements and details belong on a page under docs/")


def test_readme_links_point_at_files_that_exist():
    """mkdocs checks the pages under docs/; the README is not one of them, so its links are checked here."""
    with open(README) as f:
        text = f.read()
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:|#", t)]
    assert targets, "the README links to no docs page"
    missing = [t for t in targets if not os.path.exists(os.path.join(ROOT, t.split("#")[0]))]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_docs_site_builds_strictly(tmp_path):
    """`mkdocs build --strict`: a broken link or anchor, or a page left out of the nav, fails."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[test]' brings it")
    config = os.path.join(ROOT, "mkdocs.yml")
    assert os.path.exists(config), "mkdocs.yml is missing"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", config,
                             "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").exists()


# docs/python.md is one session, its blocks run in order: tests/test_python_docs.py runs it.
@pytest.mark.parametrize("page,code", [(page, body) for page in PAGES if page != "python.md"
                                       for info, body in fenced_blocks(open(os.path.join(DOCS, page)).read())
                                       if info == "python"])
def test_docs_python_block_runs(page, code, tmp_path, monkeypatch):
    for module in ("pyspiel", "pettingzoo", "gymnasium"):
        if module in code:
            pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, os.path.join(DOCS, page), "exec"), {"__name__": "docs"})
