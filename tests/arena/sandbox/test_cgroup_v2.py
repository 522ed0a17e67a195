"""The box's cgroup on a machine where cgroup v2 is mounted alone (`cgroup.controllers` at the
root). The test machines have cgroup v1's controllers, so the kernel cannot enforce v2's limits
here; what is checked is the code's own v2 path, switched on by pointing `Cgroup.V2` at a folder
laid out as a v2 root: the controllers it enables, the limits it writes for a box and the freezer
it chooses. Each knob's meaning is the kernel's (Documentation/admin-guide/cgroup-v2.rst)."""
import pytest

from arena.sandbox import confine

LIMITS = {"processes": 32, "memory": 512, "disk": 64}


@pytest.fixture
def v2_root(tmp_path, monkeypatch):
    """A folder laid out as a cgroup v2 root, and the process seen as root with cgroups wanted."""
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    monkeypatch.setattr(confine.Cgroup, "V2", str(tmp_path))
    monkeypatch.setattr(confine.Cgroup, "V1", str(tmp_path / "not-v1"))
    monkeypatch.setattr(confine.os, "geteuid", lambda: 0)
    monkeypatch.delenv("ARENA_CGROUPS", raising=False)
    return tmp_path


def test_a_v2_box_gets_its_processes_memory_and_one_cpu(v2_root):
    cgroup = confine.Cgroup("4242-1", LIMITS)
    box = v2_root / "tabletop-arena" / "4242-1"
    assert cgroup.available and cgroup.v2 and cgroup.paths == [str(box)]
    # the controllers are handed down from the root to the arena's folder, whose boxes use them
    assert (v2_root / "cgroup.subtree_control").read_text() == "+pids +memory +cpu"
    assert (v2_root / "tabletop-arena" / "cgroup.subtree_control").read_text() == "+pids +memory +cpu"
    assert int((box / "pids.max").read_text()) == LIMITS["processes"] + 8
    memory = (LIMITS["memory"] + 2 * LIMITS["disk"] + 64) << 20   # the bot, its /tmp and /dev/shm, the server
    assert int((box / "memory.max").read_text()) == memory
    quota, period = (box / "cpu.max").read_text().split()
    assert quota == period == str(confine.Cgroup.PERIOD)   # one CPU for the whole box
    # a v1 controller folder is never made on a v2 machine
    assert not (v2_root / "not-v1").exists()


def test_a_v2_box_is_frozen_by_its_own_cgroup_freeze(v2_root):
    cgroup = confine.Cgroup("4242-2", LIMITS)
    freeze = v2_root / "tabletop-arena" / "4242-2" / "cgroup.freeze"
    freeze.write_text("0")   # the kernel makes this file in every v2 group but the root
    freezer = cgroup.freezer(server=1)
    assert isinstance(freezer, confine._CgroupFreezer)
    freezer.freeze(True)
    assert freeze.read_text() == "1"
    freezer.freeze(False)
    assert freeze.read_text() == "0"


def test_a_v2_box_runs_its_command_from_inside_its_group(v2_root):
    cgroup = confine.Cgroup("4242-3", LIMITS)
    argv = cgroup.wrap(["bwrap", "--unshare-all", "python"])
    procs = str(v2_root / "tabletop-arena" / "4242-3" / "cgroup.procs")
    assert argv[:2] == ["sh", "-c"] and argv[3] == procs and argv[4:] == ["bwrap", "--unshare-all", "python"]


def test_a_v2_root_that_refuses_the_controllers_leaves_no_cgroup(v2_root):
    # a read-only or delegated-away root: writing subtree_control fails, and the box runs without one
    (v2_root / "cgroup.subtree_control").unlink()
    (v2_root / "cgroup.subtree_control").mkdir()   # open(..., "w") fails on a folder, even as root
    cgroup = confine.Cgroup("4242-4", LIMITS)
    assert not cgroup.available and cgroup.wrap(["x"]) == ["x"]
    assert isinstance(cgroup.freezer(server=1), confine.GroupStop)
