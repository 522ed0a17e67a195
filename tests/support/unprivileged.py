"""Commands run as an unprivileged user from tests that run as root, and the `arena_user` fixture
that plays one CLI command both ways.

The sandbox of submitted bots has two paths: a root arena wraps each box in an outer bubblewrap and
drops to a uid of the box's own, an arena that is not root runs bubblewrap unprivileged (user
namespaces) as its own user. CI runs the tests as root, from a checkout in a 0700 folder with
Python under /root (0700 too), where no other user could even start the interpreter. So, when this
process is root, `run_unprivileged` runs a command as `UID` inside a root bubblewrap that only
builds a mount namespace showing that uid what it needs, every folder on the way world-readable:

- /usr (with the /bin, /lib, ... symlinks) and /etc/ld.so.cache, as a box sees them;
- the Python runtime and its installed packages (`confine.runtime_paths()`), read-only;
- the checkout (what is in it, under a folder of mode 0755, so that a 0700 clone does not hide
  it), read-only: the fixtures are in tests/fixtures;
- /proc (the host's, bound), /dev (bubblewrap's own) and a private /tmp of mode 1777;
- `writable`, a folder the caller made, bound read-write at its own path and given to the uid: the
  place for stores, and for the staged bot code (XDG_CACHE_HOME is WRITABLE/cache).

The command starts in the checkout, as the uid (real, effective and saved, no supplementary
groups, no capabilities), with a small environment (`environment`). When this process is not
root, the command simply runs, as this user.

Running one CLI command both ways::

    import unprivileged

    arena_user = unprivileged.arena_user   # the fixture, in the test module's namespace

    def test_something(arena_user):
        store = arena_user.path("s.sqlite")   # in a folder the user may write
        done = arena_user.arena("run", "--game", "insert", "--agents", "random, tests/fixtures/bots.py:GoodBot",
                                "--games", "1", "--store", store)
        assert done.returncode == 0, done.stderr

`arena_user` is parametrized: "root" runs `python -m arena ARGS` as a subprocess of this (root)
process; "unprivileged" runs it through `run_unprivileged`. `arena_user.name` says which, and
`arena_user.run(argv)` runs any other command the same way. Both start in the checkout (relative
paths such as tests/fixtures/bots.py work) and return a `subprocess.CompletedProcess` with text
output. To watch a command while it runs, `arena_user.start(argv)` (or `start_unprivileged`) gives
its Popen, in its own session, and `finish(proc, argv, timeout)` collects it. "root" is skipped
when the tests do not run as root, "unprivileged" as root when bubblewrap is missing.
"""
import os
import shutil
import signal
import subprocess
import sys

import pytest

from arena.sandbox import confine
from paths import ROOT

UID = 0x5F000000   # below confine.BOT_UID_BASE and the uids of its boxes; in no /etc/passwd
PROJECT = ROOT
NEEDS_BWRAP = "bubblewrap is not installed: the tests cannot run a command as an unprivileged user"


def is_root():
    return os.geteuid() == 0


def environment(writable, env=None):
    """What the command sees: a PATH of the system's and this interpreter's folders, HOME and
    XDG_CACHE_HOME in `writable`, this process's ARENA_* settings (the tests' deal key, the
    tallies check, the sandbox mode), updated with `env`."""
    out = {"PATH": os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin", "/bin"]),
           "HOME": writable, "XDG_CACHE_HOME": os.path.join(writable, "cache"), "TMPDIR": "/tmp",
           "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    out.update((k, v) for k, v in os.environ.items() if k.startswith(("ARENA_", "HYPOTHESIS_")))
    out.update(env or {})
    return out


def _outermost(paths):
    kept = []
    for p in sorted(set(paths)):
        if not any(p == k or p.startswith(k.rstrip(os.sep) + os.sep) for k in kept):
            kept.append(p)
    return kept


def command(argv, writable, uid=UID, cwd=PROJECT):
    """The root bubblewrap command line that runs `argv` as `uid` (see the module's docstring)."""
    checkout = [os.path.join(PROJECT, name) for name in sorted(os.listdir(PROJECT))]
    paths = _outermost(confine.runtime_paths() + checkout)
    # /tmp first, so that the paths under it (a checkout or `writable` in a mktemp -d) land on it.
    out = ["bwrap", "--die-with-parent", "--perms", "01777", "--tmpfs", "/tmp",
           "--perms", "0755", "--dir", "/etc"] + confine._system_binds()
    binds = confine._binds([p for p in paths if p != writable] + [writable], None, parents=True)
    assert binds[-3:] == ["--ro-bind", writable, writable]
    out += binds[:-3] + ["--bind", writable, writable]
    # A private /dev/shm of mode 1777 too: multiprocessing's locks live there.
    out += ["--bind", "/proc", "/proc", "--dev", "/dev", "--perms", "01777", "--tmpfs", "/dev/shm", "--chdir", cwd,
            "--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    return out + list(argv)


def start_unprivileged(argv, writable, uid=UID, env=None, cwd=PROJECT, **popen):
    """`argv` started as `uid` (as this user when it is not root), in its own session; `writable`
    (an existing folder) becomes the uid's. Text pipes for stdout and stderr unless `popen` says
    otherwise."""
    writable = os.path.realpath(writable)
    popen = dict({"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}, **popen)
    popen.setdefault("stdin", subprocess.DEVNULL)
    if is_root():
        if confine.bwrap_missing():
            pytest.skip(NEEDS_BWRAP)
        os.chown(writable, uid, uid)
        argv = command(argv, writable, uid, cwd)
    return subprocess.Popen(argv, env=environment(writable, env), cwd=cwd, start_new_session=True, **popen)


def finish(proc, argv, timeout):
    """`proc`'s CompletedProcess, its session killed when it outlives `timeout` seconds."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill(proc)
        out, err = proc.communicate()
        raise subprocess.TimeoutExpired(argv, timeout, out, err) from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def run_unprivileged(argv, writable, uid=UID, env=None, timeout=300, cwd=PROJECT):
    """Runs `argv` as `uid` (see the module's docstring) and returns its CompletedProcess (text
    stdout and stderr); raises subprocess.TimeoutExpired, its session killed, after `timeout` s."""
    return finish(start_unprivileged(argv, writable, uid, env, cwd), argv, timeout)


class ArenaUser:
    """One way to run a command: `name` is "root" or "unprivileged"; `writable` is a folder that
    user may write."""

    def __init__(self, name, writable):
        self.name, self.writable = name, writable

    def path(self, *parts):
        """A path in the writable folder."""
        return os.path.join(self.writable, *parts)

    def start(self, argv, env=None):
        """`argv` started as this user, in its own session, with text pipes for stdout and stderr."""
        if self.name == "unprivileged":
            return start_unprivileged(argv, self.writable, env=env)
        return subprocess.Popen(argv, env=environment(self.writable, env), cwd=PROJECT, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def run(self, argv, env=None, timeout=300):
        """`argv` run as this user: its CompletedProcess (see `finish`)."""
        return finish(self.start(argv, env), argv, timeout)

    def arena(self, *args, env=None, timeout=300):
        """`python -m arena ARGS`."""
        return self.run([sys.executable, "-m", "arena", *map(str, args)], env=env, timeout=timeout)


@pytest.fixture(params=["root", "unprivileged"])
def arena_user(request, tmp_path):
    """An ArenaUser, once as root and once unprivileged (see the module's docstring)."""
    if request.param == "root" and not is_root():
        pytest.skip("the tests do not run as root")
    if request.param == "unprivileged" and is_root() and shutil.which("bwrap") is None:
        pytest.skip(NEEDS_BWRAP)
    writable = tmp_path / f"as-{request.param}"
    writable.mkdir()
    return ArenaUser(request.param, str(writable.resolve()))
