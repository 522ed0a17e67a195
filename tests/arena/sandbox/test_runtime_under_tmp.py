"""An arena whose Python runs from a virtual environment under /tmp (as in a CI clone made with
`mktemp -d`) plays a sandboxed match: the box shows that environment's files, a single file among
them (its pyvenv.cfg) included, under each match's fresh /tmp."""
import importlib.metadata
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig

import pytest

from paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")]


def test_a_virtual_environment_under_tmp_plays_a_sandboxed_match(tmp_path):
    assert str(tmp_path).startswith("/tmp/")
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    # the new environment has its own copy of numpy, which boxes show, and reads this one's other
    # packages (and the project) through a .pth file
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    numpy = importlib.metadata.distribution("numpy")
    for top in {str(f).split("/")[0] for f in numpy.files or () if not str(f).startswith("..")}:
        shutil.copytree(str(numpy.locate_file(top)), os.path.join(purelib, top), symlinks=True)
    ours = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages(), ROOT]
    with open(os.path.join(purelib, "ours.pth"), "w") as f:
        f.write("\n".join(dict.fromkeys(ours)) + "\n")
    run = subprocess.run([str(python), "-m", "arena", "run", "--game", "insert", "--games", "1", "--jobs", "1",
                          "--agents", "tests/fixtures/bots.py:GoodBot, greedy", "--store", str(tmp_path / "s.sqlite"),
                          "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert out["status"] == "finished" and out["sandbox"] == "bwrap" and out["matches"] == 2
    assert [row["faults"] for board in out["leaderboards"] for row in board["rows"]] == [0, 0]
