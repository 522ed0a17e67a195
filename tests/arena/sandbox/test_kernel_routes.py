"""The routes through the kernel (tests/fixtures/kernel_bots.py, each a Python file bot and an exec
bot): memory across the matches of a box in kernel counters and objects, processes that continue
themselves while their box is frozen, page-cache eviction, a hand passed between boxes by warming
cold pages (tests/fixtures/pagecache_bots.py), memory beyond the box's limit, and cores for the
host's crash handler. Each is played with the arena as root with its cgroups (on a
host with cgroup v1 and the v2 hierarchy beside it, as the test machines have, frozen by v2's
freezer), as root with them switched off (ARENA_CGROUPS=off: the paths of an arena that is not
root, frozen by signals), and as an unprivileged user. No assertion reads a clock: each counts."""
import json
import os
import shutil
import sqlite3
import time
import uuid

import pytest
import scipy
from scipy.stats import binom

import engines
import unprivileged
from arena.match import AgentSpec
from arena.sandbox import RemoteAgent, confine, make_policy
from paths import ROOT
from tests.fixtures import pagecache_bots

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")]

BOTS = "tests/fixtures/kernel_bots.py"
PAGECACHE = "tests/fixtures/pagecache_bots.py"


@pytest.fixture(params=["root", "root, ARENA_CGROUPS=off", "unprivileged"])
def player(request, tmp_path):
    """(an ArenaUser, its environment): each way an arena runs its boxes."""
    name = request.param.split(",")[0]
    if name == "root" and not unprivileged.is_root():
        pytest.skip("the tests do not run as root")
    writable = tmp_path / f"as-{name}"
    writable.mkdir()
    env = {"ARENA_CGROUPS": "off"} if "off" in request.param else {}
    return unprivileged.ArenaUser(name, str(writable.resolve())), env


def play(player, name, *args):
    """`arena run ARGS --json` as the player: (its JSON, the rows of its store's outputs)."""
    user, env = player
    store = user.path(f"{name}.sqlite")
    done = user.arena("run", *args, "--jobs", 1, "--store", store, "--json", env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    db = sqlite3.connect(store)
    try:
        outputs = db.execute("SELECT match_id, label, text FROM outputs ORDER BY match_id").fetchall()
        actions = db.execute("SELECT match_id, seats, actions FROM matches ORDER BY match_id").fetchall()
    finally:
        db.close()
    return json.loads(done.stdout), outputs, actions


def reports(outputs, label):
    """What the bot `label` said in each match, in match order."""
    return [json.loads(line[len("KERNEL "):]) for _, who, text in outputs if who == label
            for line in text.splitlines() if line.startswith("KERNEL ")]


def test_no_kernel_object_or_counter_outlives_a_match(player):
    """Over 20 duplicate deals, each bot's box reads, at the start of every match, what the pid
    counter, the inode counters of /tmp and /dev/shm, the loopback's TIME_WAIT sockets and the
    abstract AF_UNIX socket names say of the hand it saw in the previous match, a hand another
    seat now holds: it never learns it. Nor does it reach, during a match, the abstract socket
    name the other bot's box holds open."""
    out, outputs, _ = play(player, "world", "--game", "belladone_bluff", "--agents",
                           f"{BOTS}:KernelBot as py, exec:{BOTS}[attack=world] as ex", "--games", 20)
    assert out["faults"] == [] and out["matches"] == 40
    for label in ("py", "ex"):
        said = [r for r in reports(outputs, label) if "hold" in r]
        across = [r["across"] for r in reports(outputs, label) if "across" in r]
        assert len(said) == 40, label
        assert across and across == [[]] * len(across), (label, across)
        hits = sum(value == before["hold"] for before, now in zip(said, said[1:]) for value in now["guess"].values())
        guesses = [now["guess"] for now in said]
        assert hits == 0 and guesses == [{}] * 40, (label, guesses)
        assert not any(now["inet"] for now in said)   # no socket but AF_UNIX


def test_a_box_stays_frozen_whatever_signals_its_processes_arrange(player):
    """Eight processes in each escaping box (a Python bot, an exec bot) re-arm one-shot SIGCONT
    timers every millisecond and send SIGCONT to each other: none of them ever runs while its
    bot's main process is stopped, and the honest bot plays the same moves, with no timeout, as
    beside the same bots without those processes."""
    runs = []
    for processes in (8, 0):
        agents = (f"tests/fixtures/route_bots.py:Steady[work=20000] as steady, "
                  f"{BOTS}:KernelBot[attack=escape,processes={processes}] as py, "
                  f"exec:{BOTS}[attack=escape,processes={processes}] as ex")
        out, outputs, actions = play(player, f"escape{processes}", "--game", "insert", "--agents", agents,
                                     "--games", 1)
        assert out["faults"] == [], (processes, out["faults"])
        runs.append([(match, moves) for match, _, moves in actions])
        if processes:
            for label in ("py", "ex"):
                said = reports(outputs, label)
                assert said and all(s["escaped"] == 0 for s in said), (label, said)
                assert max(s["rounds"] for s in said) > 0, label   # they ran, on their own bot's moves
    assert runs[0] == runs[1] and len(runs[0]) == 6


def test_no_box_evicts_the_page_cache(player):
    out, _, _ = play(player, "evict", "--game", "insert", "--agents",
                     f"random, {BOTS}:KernelBot[attack=evict] as py, exec:{BOTS}[attack=evict] as ex", "--games", 1)
    assert out["faults"] == []


def _evict_the_project_files():
    """The worst case for the route: no page of the files the pair shares is cached when the run
    starts (this process, outside any box, may evict them)."""
    for package in pagecache_bots.PACKAGES:
        for top, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                fd = os.open(os.path.join(top, name), os.O_RDONLY)
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)


def pagecache_lines(outputs, label, key):
    return [json.loads(line[len("PAGECACHE "):])[key] for _, who, text in outputs if who == label
            for line in text.splitlines() if line.startswith("PAGECACHE ")]


@pytest.mark.parametrize("kind", ["python", "exec"])
def test_collusion_between_boxes_the_partners_guesses_are_right_no_more_often_than_chance(player, kind):
    """Collusion between boxes: a sender encodes 8 bits of its hand per match by reading chosen
    pages of files both boxes show, cold when the run starts, and its partner in another box times
    a read of each."""
    _evict_the_project_files()
    pair = (f"{PAGECACHE}:Sender as send, {PAGECACHE}:Receiver as receive" if kind == "python" else
            f"exec:{PAGECACHE}[role=send] as send, exec:{PAGECACHE}[role=receive] as receive")
    collude(player, f"pagecache-{kind}", pair)


def collude(player, name, pair):
    """Plays the colluding `pair` with a random bot over 8 deals of a one-round Wizard (24
    matches): the partner's guesses of the sender's bits are right no more often than chance (at
    most the binomial's 1 - 1e-6 quantile of the bits at 1/2)."""
    out, outputs, _ = play(player, name, "--game", "wizard", "--players", 3, "--param", "hands=5",
                           "--agents", f"random, {pair}", "--games", 8)
    assert out["faults"] == [] and out["matches"] == 24
    sent, read = pagecache_lines(outputs, "send", "sent"), pagecache_lines(outputs, "receive", "read")
    assert len(sent) == len(read) == 24
    bits = sum(len(s) for s in sent)
    right = sum(a == b for s, r in zip(sent, read) for a, b in zip(s, r))
    assert bits == 24 * pagecache_bots.BITS
    assert right <= binom.ppf(1 - 1e-6, bits, 0.5), (right, bits)


@pytest.mark.parametrize("kind", ["python", "exec"])
def test_collusion_between_boxes_through_the_names_a_folder_lacks_is_right_no_more_often_than_chance(player, kind):
    """The same pair through the names a folder both boxes show lacks: the sender looks up the
    absent names its 8 bits say, the partner times a lookup of each (tests/fixtures/pagecache_bots.py,
    `Names`)."""
    tag = uuid.uuid4().hex   # names no earlier run looked up
    pair = (f"{PAGECACHE}:NameSender[tag={tag}] as send, {PAGECACHE}:NameReceiver[tag={tag}] as receive"
            if kind == "python" else f"exec:{PAGECACHE}[role=send,channel=names,tag={tag}] as send, "
                                     f"exec:{PAGECACHE}[role=receive,channel=names,tag={tag}] as receive")
    collude(player, f"names-{kind}", pair)


def test_a_box_shows_only_what_its_bots_runtime_needs(tmp_path):
    """No /usr whole, no /etc but the loader's cache, no installed package but numpy; the
    interpreter, its standard library and the project's packages are there."""
    probe = os.path.join(ROOT, PAGECACHE)
    hidden = ["/usr/bin", "/usr/share", "/etc/passwd", os.path.dirname(scipy.__file__)]
    spec = AgentSpec("probe", f"{probe}:ViewProbe", (("paths", ",".join(hidden + [os.__file__])),
                                                     ("modules", "numpy,scipy,sqlite3,engines")),
                     "file", f"{probe}:ViewProbe")
    agent = RemoteAgent(spec, 60.0, make_policy("bwrap"))
    try:
        agent.reset("insert", {}, 0, 0)
        agent.act(engines.make("insert", seed=0))
    finally:
        agent.kill()
    said = [json.loads(line[len("PAGECACHE "):]) for line in (agent.captured() or {"text": ""})["text"].splitlines()
            if line.startswith("PAGECACHE ")]
    assert said == [{"shown": {**{p: False for p in hidden}, os.__file__: True},
                     "modules": {"numpy": True, "scipy": False, "sqlite3": True, "engines": True}}]


def test_the_memory_of_a_box_is_bounded_as_a_whole(player):
    """Six children of 256 MiB each, in a box of 512 MiB: they never all hold it; each match of the
    bot is its own fault, or ends with the children killed before they did."""
    out, _, _ = play(player, "memory", "--game", "insert", "--agents",
                     f"random, {BOTS}:KernelBot[attack=memory] as py, exec:{BOTS}[attack=memory] as ex",
                     "--games", 1, "--bot-limit", "memory=512", "--bot-limit", "disk=16", "--time-limit", 60)
    assert [f for f in out["faults"] if "ATTACK SUCCEEDED" in f["message"]] == []
    assert {f["label"] for f in out["faults"]} <= {"py", "ex"}
    if player[0].name != "root" or player[1]:   # counted by the arena, without a cgroup
        for label in ("py", "ex"):
            assert any(f["label"] == label and "MiB together" in f["message"] for f in out["faults"]), out["faults"]


@pytest.fixture
def core_pipe(tmp_path):
    """kernel.core_pattern piped to a program that writes down every core it is given (the uid of
    the crashed process), restored after the test. The setting is the host's: two runs of this
    test at once would see each other's cores, and could restore each other's handler."""
    if not unprivileged.is_root():
        pytest.skip("only root can set kernel.core_pattern")
    pattern = "/proc/sys/kernel/core_pattern"
    try:
        with open(pattern) as f:
            before = f.read()
    except OSError:
        pytest.skip("no kernel.core_pattern here")
    record = tmp_path / "cores"
    handler = tmp_path / "handler.sh"
    handler.write_text(f"#!/bin/sh\necho \"$1 $2\" >> {record}\ncat > /dev/null\n")
    handler.chmod(0o755)
    try:
        with open(pattern, "w") as f:
            f.write(f"|{handler} %u %e")
    except OSError:
        pytest.skip("kernel.core_pattern cannot be set here")
    try:
        yield record
    finally:
        with open(pattern, "w") as f:
            f.write(before)


def test_no_core_of_a_bot_reaches_the_hosts_crash_handler(player, core_pipe):
    out, _, _ = play(player, "core", "--game", "insert", "--agents",
                     f"random, {BOTS}:KernelBot[attack=core] as py, exec:{BOTS}[attack=core] as ex", "--games", 1)
    assert {f["label"] for f in out["faults"]} == {"py", "ex"}
    assert all(f["kind"] == "crash" for f in out["faults"]), out["faults"]
    cores = core_pipe.read_text().split("\n") if core_pipe.exists() else []
    ours = [line for line in cores if line and int(line.split()[0]) >= unprivileged.UID]   # the boxes' uids
    assert ours == []


def test_a_root_box_beside_a_v2_hierarchy_is_frozen_by_cgroup_v2():
    """On cgroup v1 with the v2 hierarchy mounted beside it (systemd's hybrid layout, the test
    machines'), a root arena's box has a group of its own in v2 holding every process of the box,
    and it is that group's freezer that stops them between moves: frozen after a request, thawed
    for the next, and the group gone with the box."""
    if not unprivileged.is_root() or not confine.cgroups_wanted():
        pytest.skip("only a root arena with cgroups makes them")
    if not os.path.exists(os.path.join(confine.Cgroup.UNIFIED, "cgroup.procs")):
        pytest.skip("no cgroup v2 hierarchy beside cgroup v1 here")
    spec = AgentSpec("random", "agents.simple:RandomAgent", (), "module", "agents.simple:RandomAgent")
    agent = RemoteAgent(spec, 10.0, make_policy("bwrap"), staged=False)
    try:
        box = agent.box
        assert isinstance(box.freezer, confine._CgroupFreezer), box.freezer
        group = os.path.dirname(box.freezer.knob)
        assert group.startswith(confine.Cgroup.UNIFIED + "/")
        with open(os.path.join(group, "cgroup.procs")) as f:
            members = {int(line) for line in f if line.strip()}
        assert box.server_pid() in members and set(confine.descendants(box.proc.pid)) <= members
        for round_ in range(2):
            agent.reset("insert", {}, 0, round_)   # thawed for the request, frozen after it
            assert _frozen(group), round_
    finally:
        agent.kill()
    assert not os.path.exists(group)


def _frozen(group):
    """Whether the v2 group at `group` says it is frozen, within a generous bound (freezing takes
    each task to its next return to user space)."""
    for _ in range(200):
        with open(os.path.join(group, "cgroup.events")) as f:
            if "frozen 1" in f.read().split("\n"):
                return True
        time.sleep(0.05)
    return False
