"""The routes out of a box, each played by a hostile bot (tests/fixtures/route_bots.py): host root,
writable /proc/sys, unbounded /dev/shm, memory across matches, channels between boxes, CPU left
running between moves. A bot whose route works raises "ATTACK SUCCEEDED"."""
import json
import os
import shutil
import signal
import sqlite3

import pytest
from click.testing import CliRunner

import engines
from arena import agent_list
from arena.cli import main
from arena.sandbox import AgentFault, RemoteAgent, confine, make_policy
from arena_processes import start, wait_for_matches

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROUTES = os.path.join(ROOT, "tests", "fixtures", "route_bots.py")
BOTS = os.path.join(ROOT, "tests", "fixtures", "bots.py")

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def stored_matches(store):
    db = sqlite3.connect(str(store))
    try:
        return db.execute("SELECT match_id, actions FROM matches ORDER BY match_id").fetchall()
    finally:
        db.close()


def host_listing():
    """What a bot could leave on the host's shared writable places."""
    return {folder: set(os.listdir(folder)) for folder in ("/tmp", "/dev/shm") if os.path.isdir(folder)}


ROUTE_AGENTS = (f"random, {BOTS}:GoodBot as honest, {ROUTES}:CorePattern, {ROUTES}:DevShmFlood[megabytes=64], "
                f"{ROUTES}:Remember, {ROUTES}:Channels")


def test_every_route_fails_in_a_tournament_killed_half_way_and_resumed(tmp_path):
    before = host_listing()
    store = tmp_path / "s.sqlite"
    args = ["--game", "belladone_bluff", "--agents", ROUTE_AGENTS, "--games", 2, "--jobs", 2,
            "--time-limit", 5, "--bot-limit", "disk=16", "--store", store, "--json"]
    proc = start(args, tmp_path)
    wait_for_matches(store, 3, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    run_id = sqlite3.connect(str(store)).execute("SELECT run_id FROM runs").fetchone()[0]
    result = invoke("run", "--resume", run_id, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["status"] == "finished" and out["matches"] == out["total"]
    assert [f for f in out["faults"] if "ATTACK SUCCEEDED" in f["message"]] == []
    assert out["faults"] == [], out["faults"]   # every route failed quietly: nothing to book
    assert [m for m, _ in stored_matches(store)] == list(range(out["total"]))
    after = host_listing()
    for folder, names in after.items():
        assert not {n for n in names - before[folder] if "flood" in n or "remember" in n}, folder


def _probe():
    spec = agent_list.parse_agent(f"{ROUTES}:Probe")
    agent = RemoteAgent(spec, 10.0, make_policy())
    state = engines.make("insert", seed=1)
    agent.reset("insert", state.params, 0, 1)
    processes = {}
    for pid in confine.descendants(agent.box.proc.pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{pid}/status") as f:
                uid = int(next(line for line in f if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration):
            continue
        processes[pid] = (cmdline, uid)
    with pytest.raises(AgentFault) as fault:
        agent.act(state.clone())
    agent.kill()
    return processes, json.loads(fault.value.message.split("PROBE ", 1)[1])


def test_a_bot_runs_as_a_non_root_host_uid_with_seccomp_and_a_read_only_proc_sys():
    processes, seen = _probe()
    bot = [uid for cmdline, uid in processes.values()
           if b"arena.sandbox.server" in cmdline and not cmdline.startswith(b"bwrap")]
    assert len(bot) == 2, processes   # the fork server and the match's process
    assert all(uid != 0 for uid in bot), processes
    # Whatever runs as root is bubblewrap's own setup (the outer view a root arena needs), never Python.
    assert all(cmdline.startswith((b"bwrap", b"setpriv")) for cmdline, uid in processes.values() if uid == 0)
    assert seen["seccomp"] == "2" and seen["no_new_privs"] == "1" and seen["cap_eff"] == "0" * 16
    assert seen["proc_sys_ro"] and not seen["proc_sys_writable"]


def test_a_cpu_hog_cannot_make_an_honest_timed_bot_time_out(tmp_path):
    """The hog leaves 16 busy processes between its moves; frozen while the honest bot moves, they
    cost it nothing: the same moves, no timeout, as against the same bot without the hog."""
    runs = []
    for hogs in (16, 0):
        store = tmp_path / f"{hogs}.sqlite"
        result = invoke("run", "--game", "insert", "--agents",
                        f"{ROUTES}:Steady[work=700000] as steady, {ROUTES}:Hog[processes={hogs}] as other",
                        "--games", 1, "--jobs", 1, "--time-limit", 0.5, "--store", store, "--json")
        assert result.exit_code == 0, result.output
        out = json.loads(result.output)
        assert out["faults"] == [], (hogs, out["faults"])
        runs.append(stored_matches(store))
    assert runs[0] == runs[1] and len(runs[0]) == 2
