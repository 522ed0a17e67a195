"""The arena run by a user that is not root, as CI (which runs the tests as root) would never see
it otherwise: the sandbox's unprivileged bubblewrap path (see tests/support/unprivileged.py)."""
import json
import os
import sqlite3
import sys
import time

import pytest

import unprivileged
from arena.sandbox import confine
from unprivileged import UID, finish, is_root, run_unprivileged, start_unprivileged

arena_user = unprivileged.arena_user   # the fixture: each test that takes it runs as root and unprivileged

# Starts real processes and boxes: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = [pytest.mark.slow, pytest.mark.skipif(confine.bwrap_missing(), reason="bubblewrap is not installed")]

USER = UID if is_root() else os.getuid()   # who the commands run as
BOTS = "tests/fixtures/bots.py"


def test_a_command_runs_as_the_unprivileged_uid(tmp_path):
    code = ("import os, stat; t = os.stat('/tmp'); open(os.path.join(os.environ['HOME'], 'w'), 'w').close(); "
            "print(os.getuid(), os.geteuid(), os.getgid(), os.getgroups(), oct(stat.S_IMODE(t.st_mode)))")
    done = run_unprivileged([sys.executable, "-I", "-c", code], str(tmp_path), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(USER), str(USER), str(USER if is_root() else os.getgid()),
                                   "[]" if is_root() else str(os.getgroups()).replace(" ", ""), "0o1777"]


def _process(pid):
    """(command line, status fields, uid map) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        with open(f"/proc/{pid}/status") as f:
            status = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
        with open(f"/proc/{pid}/uid_map") as f:
            uid_map = f.read().split()
    except OSError:
        return None
    return cmdline, status, uid_map


def test_a_tournament_with_a_bot_in_the_sandbox_plays_unprivileged(tmp_path):
    store = tmp_path / "s.sqlite"
    argv = [sys.executable, "-m", "arena", "run", "--game", "insert", "--agents",
            f"random, {BOTS}:GoodBot[delay=0.25]", "--games", "1", "--time-limit", "5", "--jobs", "1",
            "--json", "--store", str(store)]
    proc = start_unprivileged(argv, str(tmp_path), env={"ARENA_SANDBOX": "bwrap"})
    uids, boxed, moving = set(), set(), 0   # every process below the command; the bot's, as seen inside
    try:
        while proc.poll() is None:
            for pid in confine.descendants(proc.pid):
                seen = _process(pid)
                if seen is None or seen[1].get("State", "Z").startswith("Z"):
                    continue
                cmdline, status, uid_map = seen
                if cmdline.startswith(("bwrap", "setpriv")) and status["Uid"].split()[0] == "0":
                    continue   # this harness's own root bubblewrap, before it drops to the user
                uids.add(tuple(status["Uid"].split()) + tuple(status["Gid"].split()))
                if "arena.sandbox.fork_server" in cmdline and uid_map[:1] == ["65534"]:
                    boxed.add(tuple(uid_map))
                    moving += status["State"][0] in "RSD"   # thawed: the bot is moving (it sleeps)
            time.sleep(0.05)
    finally:
        done = finish(proc, argv, 120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "finished" and out["sandbox"] == "bwrap"
    assert out["matches"] == out["total"] == 2 and out["faults"] == []
    db = sqlite3.connect(str(store))
    assert [r[0] for r in db.execute("SELECT match_id FROM matches ORDER BY match_id")] == [0, 1]
    db.close()
    # Nothing below the command runs as root; the bot is uid 65534 of a user namespace that maps
    # it to the arena's user, and it was seen while it moved.
    assert uids == {(str(USER),) * 4 + ((str(USER),) * 4 if is_root() else (str(os.getgid()),) * 4)}
    assert boxed == {("65534", str(USER), "1")}
    assert moving > 0


def test_arena_user_runs_a_command_as_its_user(arena_user):
    done = arena_user.run([sys.executable, "-I", "-c", "import os; print(os.getuid())"], timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == (os.getuid() if arena_user.name == "root" else USER)


def test_faulty_bots_fault_the_same_way_as_root_and_unprivileged(arena_user):
    agents = f"random, {BOTS}:RaisingBot, {BOTS}:HangingBot"
    done = arena_user.arena("run", "--game", "insert", "--agents", agents, "--games", "1", "--time-limit", "1",
                            "--json", "--store", arena_user.path("s.sqlite"), env={"ARENA_SANDBOX": "bwrap"})
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "finished" and out["sandbox"] == "bwrap" and out["matches"] == out["total"] == 6
    kinds = {}
    for fault in out["faults"]:
        kinds.setdefault(fault["label"], set()).add(fault["kind"])
    assert kinds == {"RaisingBot": {"exception"}, "HangingBot": {"timeout"}}, out["faults"]
