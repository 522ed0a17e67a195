"""The contract tests again, the C world weights' (which walk the trees' arrays) and the playout
policy's (which read a weight per engine pattern), on a build with bounds checks and wraparound
checks turned on."""
import os
import shutil
import subprocess
import sys

import pytest

# Starts real processes, boxes, browsers or compilers: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = pytest.mark.slow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.timeout(1800)
def test_contract_passes_with_bounds_checks(tmp_path):
    tree = tmp_path / "debug"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.so", "*.c", "results", "__pycache__", ".hypothesis", "*.egg-info"))
    env = dict(os.environ, TABLETOP_DEBUG="1", TABLETOP_BUILD_JOBS="2", HYPOTHESIS_PROFILE="dev")
    build = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree, env=env,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    # run from the copy so its bounds-checked modules are the ones imported
    env["PYTHONPATH"] = str(tree)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/engines/test_contract.py",
                          "tests/agents/test_inference.py", "tests/agents/test_playout_policy.py"], cwd=tree, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:]
    assert " passed" in run.stdout
