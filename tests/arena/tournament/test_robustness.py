"""Nothing crashes, hangs or lingers: signals at bad moments, killed coordinators, damaged and
read-only stores, two coordinators of one run, control characters (issue 15), with real processes."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.store import Store
from arena_processes import start, wait_for_matches
from paths import ROOT

# Starts real processes, boxes, browsers or compilers: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = pytest.mark.slow

BOTS = os.path.join(ROOT, "tests", "fixtures", "bots.py")
SLOW_RUN = ["--game", "insert", "--agents", f"greedy, {BOTS}:GoodBot[delay=0.02] as good", "--games", 20,
            "--jobs", 2]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _stat(pid):
    """(parent pid, start time) of a live process, or None. A zombie has exited: it only waits for
    its new parent, the machine's init, to reap it, and some inits are slow at that."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return None if fields[0] in "ZX" else (int(fields[1]), int(fields[19]))
    except (OSError, IndexError, ValueError):
        return None


def descendants(root):
    """{pid: start time} of every live process below `root`."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat:
                parents[int(name)] = stat
    found, frontier = {}, [root]
    while frontier:
        pid = frontier.pop()
        for child, (parent, started) in parents.items():
            if parent == pid and child not in found:
                found[child] = started
                frontier.append(child)
    return found


def survivors(processes, within=2.0):
    """The command lines of `processes` still alive `within` seconds from now (polled)."""
    deadline = time.time() + within
    while True:
        alive = [pid for pid, started in processes.items() if (_stat(pid) or (None, None))[1] == started]
        if not alive or time.time() > deadline:
            break
        time.sleep(0.1)
    out = []
    for pid in alive:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                out.append(f.read().replace(b"\0", b" ")[:80].decode(errors="replace"))
        except OSError:
            pass
    return out


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_sigkill_of_the_coordinator_leaves_no_process_and_the_run_shows_interrupted(tmp_path):
    store = tmp_path / "s.sqlite"
    proc = start(SLOW_RUN + ["--store", store], tmp_path)
    wait_for_matches(store, 2, proc)
    family = descendants(proc.pid)
    assert len(family) >= 4, family    # forkserver, resource tracker, workers, sandboxed bots
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert survivors(family) == []
    out = json.loads(invoke("leaderboard", "--store", store, "--json").output)
    assert out["status"] == "interrupted"
    # The same command resumes it.
    result = invoke("run", *SLOW_RUN[:-2], "--jobs", 1, "--store", store, "--json")
    assert result.exit_code == 0 and json.loads(result.output)["matches"] == 40


@pytest.mark.parametrize("how", ["sigterm", "ctrl_c", "double_ctrl_c"])
def test_sigterm_and_ctrl_c_stop_at_once_with_exit_130_and_resume(tmp_path, how):
    store = tmp_path / "s.sqlite"
    proc = start(SLOW_RUN + ["--store", store], tmp_path)
    wait_for_matches(store, 2, proc)
    family = descendants(proc.pid)
    started = time.time()
    if how == "sigterm":
        proc.send_signal(signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGINT)
        if how == "double_ctrl_c":
            time.sleep(0.02)
            proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert time.time() - started < 10, "it waited for the matches in progress"
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "arena run --resume" in err
    assert survivors(family) == []
    store_ = Store(str(store), readonly=True)
    assert store_.run().status == "interrupted"
    store_.close()
    result = invoke("run", *SLOW_RUN[:-2], "--jobs", 1, "--store", store, "--json")
    assert result.exit_code == 0 and json.loads(result.output)["matches"] == 40


def test_ctrl_c_in_the_first_second_gives_no_traceback(tmp_path):
    # From 0.2 s: before that the Python interpreter itself may still be starting (its own
    # KeyboardInterrupt traceback, before any of the arena's code runs, is out of the arena's reach).
    for k, delay in enumerate([0.2, 0.3, 0.45, 0.6, 0.8, 1.0]):
        proc = start(["--game", "insert", "--agents", "greedy, random", "--games", 200, "--jobs", 2,
                      "--store", tmp_path / f"{k}.sqlite"], tmp_path)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        # -SIGINT: the signal came as the interpreter was exiting; a shell shows that as 130 too.
        assert proc.returncode in (0, 130, -signal.SIGINT), (delay, err)
        assert "Traceback" not in err, (delay, err)


def test_a_second_coordinator_of_the_same_run_is_refused(tmp_path):
    # Long enough that the first is still playing however slowly the second gets to its claim.
    long_run = SLOW_RUN[:-3] + [400, "--jobs", 2]
    store = tmp_path / "s.sqlite"
    proc = start(long_run + ["--store", store], tmp_path)
    wait_for_matches(store, 1, proc)
    result = invoke("run", *long_run, "--store", store)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert result.exit_code == 2
    assert "being played by another arena process" in result.output and result.output.count("\n") == 1


def _damage(store):
    """Overwrites the middle pages of a store with garbage."""
    size = os.path.getsize(store)
    with open(store, "r+b") as f:
        f.seek(size // 3)
        f.write(b"\xa5" * (size // 3))


def test_a_damaged_store_is_refused_for_writing_and_reported_in_one_line(tmp_path):
    store = tmp_path / "s.sqlite"
    assert invoke("run", "--game", "insert", "--agents", "greedy, random", "--games", 40, "--jobs", 1,
                  "--store", store).exit_code == 0
    _damage(store)
    for args in (["run", "--game", "insert", "--agents", "greedy, random", "--games", 41, "--jobs", 1],
                 ["leaderboard"], ["report", "--out", tmp_path / "r.html"], ["matchups"]):
        result = invoke(*args, "--store", store)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.count("\n") == 1 and "internal error" not in result.output, (args, result.output)
    assert "damaged" in invoke("run", "--game", "insert", "--agents", "greedy, random", "--games", 41,
                               "--store", store).output


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap makes the folder read-only, even for root")
def test_a_store_in_a_read_only_place_can_be_read(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    store = folder / "s.sqlite"
    assert invoke("run", "--game", "insert", "--agents", "greedy, random", "--games", 2, "--jobs", 1,
                  "--store", store).exit_code == 0
    read_only = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(folder), str(folder)]
    for command in (["leaderboard", "--json"], ["matchups"]):
        result = subprocess.run(read_only + [sys.executable, "-m", "arena", *command, "--store", str(store)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(folder)) == ["s.sqlite"]


def test_reading_commands_never_create_a_store(tmp_path):
    for command in (["leaderboard"], ["matchups"], ["report"], ["graph", "--out", "g.png"], ["replay", "0"]):
        proc = start(command[1:], tmp_path, command=command[0])
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 2 and "no store" in err, (command, err)
    assert os.listdir(tmp_path) == []


def test_control_characters_from_users_and_bots_never_reach_the_terminal(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("from agents import Agent\n\n"
                   "class Painter(Agent):\n"
                   "    def act(self, state):\n"
                   "        raise RuntimeError('\\x1b[31mred\\x1bc reset')\n")
    store = tmp_path / "s.sqlite"
    result = invoke("run", "--game", "insert", "--agents", f"random, {bot}:Painter", "--games", 1,
                    "--jobs", 1, "--store", store)
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\\x1b[31mred" in result.output
    assert "\x1b" not in invoke("leaderboard", "--store", store).output
    result = invoke("run", "--game", "insert", "--agents", "random as a\x1bc, greedy", "--store", store)
    assert result.exit_code == 2 and "\x1b" not in result.output


def test_validation_happens_before_a_run_exists(tmp_path):
    store = tmp_path / "s.sqlite"
    for args in (["--game", "insert", "--param", "tiles=XYZ"], ["--game", "wizard", "--param", "hands=16"],
                 ["--game", "wizard", "--time-limit", "nan"], ["--game", "wizard", "--time-limit", "1e308"],
                 ["--game", "insert", "--games", 10 ** 13], ["--agents", ""],
                 ["--game", "insert", "--agents", "ismcts[c=nan], greedy"],
                 ["--game", "insert", "--agents", "minimax[depth=1000], greedy"]):
        result = invoke("run", *args, "--store", store)
        assert result.exit_code == 2 and result.output.count("\n") == 1, (args, result.output)
    if store.exists():
        s = Store(str(store), readonly=True)
        assert s.runs() == []
        s.close()


def test_ctrl_c_while_click_reads_the_command_line_is_an_interrupt(monkeypatch):
    """A Ctrl-C that lands while click parses the arguments (before any command runs) ends like one
    during a command: one line and exit code 130, not click's "Aborted!" and exit 1."""
    import click

    def interrupted(self, ctx, args):
        raise KeyboardInterrupt

    monkeypatch.setattr(click.Group, "parse_args", interrupted)
    try:
        result = invoke("games")
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    assert result.exit_code == 130 and result.output.strip() == "Error: interrupted"
