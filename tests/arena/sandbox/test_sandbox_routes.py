"""The routes out of a box, each played by a hostile bot (tests/fixtures/route_bots.py): host root,
writable /proc/sys, unbounded /dev/shm, memory across matches, channels between boxes, CPU left
running between moves. A bot whose route works raises "ATTACK SUCCEEDED"."""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import unprivileged

arena_user = unprivileged.arena_user   # each test runs with the arena as root and as an unprivileged user

# Starts real processes and boxes: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")]


def stored_matches(store):
    db = sqlite3.connect(str(store))
    try:
        return db.execute("SELECT match_id, actions FROM matches ORDER BY match_id").fetchall()
    finally:
        db.close()


def host_listing():
    """What a bot could leave on the host's shared writable places."""
    return {folder: set(os.listdir(folder)) for folder in ("/tmp", "/dev/shm") if os.path.isdir(folder)}


ROUTES_REL = "tests/fixtures/route_bots.py"   # the commands start in the checkout, as either user
PROTOCOL_REL = "tests/fixtures/protocol_bots.py"
ROUTE_AGENTS = (f"random, tests/fixtures/bots.py:GoodBot as honest, {ROUTES_REL}:CorePattern, "
                f"{ROUTES_REL}:DevShmFlood[megabytes=64], {ROUTES_REL}:Remember, {ROUTES_REL}:Channels, "
                f"{PROTOCOL_REL}:DeepJson, {PROTOCOL_REL}:PipeHang")


def _query(arena_user, store, sql):
    """One value from the store, read as the arena's user (a root reader would leave root's files
    beside an unprivileged arena's store); 0 while there is none."""
    code = ("import json, sqlite3, sys\ntry:\n    db = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True)\n"
            "    print(json.dumps(db.execute(sys.argv[2]).fetchone()[0]))\nexcept sqlite3.Error:\n    print(0)\n")
    done = arena_user.run([sys.executable, "-c", code, store, sql], timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _start(arena_user, *args):
    """`python -m arena ARGS` as `arena_user`, running, in its own session."""
    argv = [sys.executable, "-m", "arena", *map(str, args)]
    if arena_user.name == "unprivileged":
        return unprivileged.start_unprivileged(argv, arena_user.writable)
    return subprocess.Popen(argv, env=unprivileged.environment(arena_user.writable), cwd=unprivileged.PROJECT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_every_route_fails_in_a_tournament_killed_half_way_and_resumed(arena_user):
    before = host_listing()
    store = arena_user.path("s.sqlite")
    proc = _start(arena_user, "run", "--game", "belladone_bluff", "--agents", ROUTE_AGENTS, "--games", 2,
                  "--jobs", 2, "--time-limit", 2, "--bot-limit", "disk=16", "--store", store, "--json")
    deadline = time.time() + 300
    while _query(arena_user, store, "SELECT COUNT(*) FROM matches") < 3:
        assert proc.poll() is None and time.time() < deadline, proc.communicate()
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    run_id = _query(arena_user, store, "SELECT run_id FROM runs")
    done = arena_user.arena("run", "--resume", run_id, "--store", store, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "finished" and out["matches"] == out["total"]
    assert [f for f in out["faults"] if "ATTACK SUCCEEDED" in f["message"]] == []
    # The routes out of the box fail quietly; the replies that would stop the referee are faults of
    # their own senders: each of their matches, and nobody else's.
    kinds = {}
    for f in out["faults"]:
        kinds.setdefault(f["label"], set()).add(f["kind"])
    assert kinds == {"DeepJson": {"illegal"}, "PipeHang": {"timeout"}}, out["faults"]
    seated = json.loads(_query(arena_user, store, "SELECT json_group_array(json(seats)) FROM matches"))
    for label in ("DeepJson", "PipeHang"):
        matches = sum(any(seat["label"] == label for seat in seats) for seats in seated)
        assert sum(f["label"] == label for f in out["faults"]) == matches > 0, label
    assert [m for m, _ in stored_matches(store)] == list(range(out["total"]))
    after = host_listing()
    for folder, names in after.items():
        assert not {n for n in names - before[folder] if "flood" in n or "remember" in n}, folder


PROBE = f"""
import json
import engines
from arena import agent_list
from arena.sandbox import AgentFault, RemoteAgent, confine, make_policy
agent = RemoteAgent(agent_list.parse_agent("{ROUTES_REL}:Probe"), 10.0, make_policy())
state = engines.make("insert", seed=1)
agent.reset("insert", state.params, 0, 1)
processes = []
for pid in confine.descendants(agent.box.proc.pid):
    try:
        cmdline = open(f"/proc/{{pid}}/cmdline", "rb").read().decode(errors="replace")
        uid = int(next(line for line in open(f"/proc/{{pid}}/status") if line.startswith("Uid:")).split()[1])
    except (OSError, StopIteration):
        continue
    processes.append((cmdline, uid))
try:
    agent.act(state.clone())
    seen = None
except AgentFault as f:
    seen = json.loads(f.message.split("PROBE ", 1)[1])
agent.kill()
print(json.dumps({{"processes": processes, "seen": seen}}))
"""


def test_a_bot_runs_as_a_non_root_host_uid_with_seccomp_and_a_read_only_proc_sys(arena_user):
    done = arena_user.run([sys.executable, "-c", PROBE], timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    processes, seen = out["processes"], out["seen"]
    bot = [uid for cmdline, uid in processes
           if "arena.sandbox.fork_server" in cmdline and not cmdline.startswith("bwrap")]
    # the fork server, and the match's two: the first process of its namespaces, which reaps, and
    # the match's process itself
    assert len(bot) == 3, processes
    assert all(uid != 0 for uid in bot), processes
    # Whatever runs as root is bubblewrap's own setup (the outer view a root arena needs), never Python.
    assert all(cmdline.startswith(("bwrap", "setpriv")) for cmdline, uid in processes if uid == 0), processes
    assert seen["seccomp"] == "2" and seen["no_new_privs"] == "1" and seen["cap_eff"] == "0" * 16
    assert seen["proc_sys_ro"] and not seen["proc_sys_writable"]


def test_a_cpu_hog_cannot_make_an_honest_timed_bot_time_out(arena_user):
    """The hog leaves 16 busy processes between its moves; frozen while the honest bot moves, they
    cost it nothing: the same moves, no timeout, as against the same bot without the hog."""
    runs = []
    for hogs in (16, 0):
        store = arena_user.path(f"{hogs}.sqlite")
        done = arena_user.arena("run", "--game", "insert", "--agents",
                                f"{ROUTES_REL}:Steady[work=700000] as steady, {ROUTES_REL}:Hog[processes={hogs}] as other",
                                "--games", 1, "--jobs", 1, "--time-limit", 0.5, "--store", store, "--json")
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["faults"] == [], (hogs, out["faults"])
        runs.append(stored_matches(store))
    assert runs[0] == runs[1] and len(runs[0]) == 2


def _box_processes(marker):
    """Host processes whose command line names `marker` (a staged bot's digest)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except (OSError, ValueError):
            pass
    return found


def _gone(marker, within=15.0):
    deadline = time.time() + within
    while _box_processes(marker) and time.time() < deadline:
        time.sleep(0.1)
    return _box_processes(marker)


@pytest.mark.parametrize("how", ["finished", "kill -9"])
def test_no_box_outlives_its_arena(tmp_path, how):
    """Boxes of every worker end with the arena, whether it finishes (its workers end past atexit)
    or is killed with -9 in the middle of matches (a frozen box must still die)."""
    from arena import agent_list
    from arena.sandbox import stage
    bot = tmp_path / f"bot_{how.replace(' ', '')}.py"
    bot.write_text(open(os.path.join(unprivileged.PROJECT, "tests", "fixtures", "bots.py")).read() + f"# {tmp_path}\n")
    digest = stage(agent_list.parse_agent(f"{bot}:GoodBot")).code
    store = tmp_path / "s.sqlite"
    # Two boxes a match: while one moves (slowly), the other is frozen.
    args = ["run", "--game", "insert", "--agents", f"{bot}:GoodBot as quick, {bot}:GoodBot[delay=0.2] as slow",
            "--games", 4, "--jobs", 2, "--store", store]
    proc = subprocess.Popen([sys.executable, "-m", "arena", *map(str, args)], cwd=str(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    if how == "finished":
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    else:
        deadline = time.time() + 120
        while not _box_processes(digest) and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)   # boxes between moves, frozen
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert _gone(digest) == []
