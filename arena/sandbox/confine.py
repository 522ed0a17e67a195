"""The box itself: the bubblewrap command line, the seccomp filter, the bot's own host uid, and the
cgroups or signals that cap a bot to one CPU while it moves and freeze it while it does not.

Bot code never runs as host root. When the arena runs as root, an outer bubblewrap (as root, only a
mount namespace) shows the inner one the few paths it needs, then `setpriv` drops to a uid of the
bot's own, and the inner bubblewrap runs unprivileged: its user namespace maps the bot's uid 65534
to that uid, never to 0. When the arena is not root, the inner bubblewrap alone runs, as the
arena's user. See docs/sandbox.md for the threat model.
"""
import errno
import fnmatch
import functools
import importlib.metadata
import os
import shutil
import signal
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass

BOT_ROOT = "/bot"          # where a sandboxed bot's code is, read-only
BOT_UID_BASE = 0x60000000  # host uids of sandboxes started by a root arena: base + (pid, slot)
SLOTS = 64                 # sandboxes alive at once per arena process, each with its own uid

# Host-wide counters a bot could read another sandbox's activity from, each replaced by a constant.
HIDDEN_PROC_FILES = {
    "stat": "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n",
    "meminfo": "", "loadavg": "0.00 0.00 0.00 1/1 1\n", "vmstat": "", "zoneinfo": "", "diskstats": "",
    "interrupts": "", "softirqs": "", "schedstat": "", "uptime": "0.00 0.00\n", "key-users": "",
    "keys": "", "locks": "", "buddyinfo": "", "pagetypeinfo": "", "swaps": "", "partitions": "",
    "pressure/cpu": "", "pressure/io": "", "pressure/memory": "", "pressure/irq": "",
}

# The seccomp filter: what neither Docker's default profile nor Flatpak's lets a sandboxed program
# do, and the few calls that would let two bots, or two matches of one bot, talk.
DENIED = [
    # kernel keyrings are per host user: a channel between boxes
    "keyctl", "add_key", "request_key",
    # another process's memory and file descriptors
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
    # the file-system and namespace setup, and nested user namespaces
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "unshare", "setns",
    # kernel interfaces that have been an exploit's first step again and again
    "bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load", "init_module",
    "finit_module", "delete_module", "iopl", "ioperm", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "open_by_handle_at", "name_to_handle_at", "quotactl", "lookup_dcookie",
    "acct", "swapon", "swapoff", "reboot", "syslog", "vhangup", "uselib", "ustat", "sysfs",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "mbind", "set_mempolicy", "migrate_pages", "move_pages",
    # locks and watches on files every box sees read-only, System V and POSIX message IPC, and
    # page-cache residency: channels between boxes, or between matches of one box
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
    "shmget", "shmat", "shmctl", "semget", "semop", "semtimedop", "semctl", "msgget", "msgsnd",
    "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
    "mq_getsetattr", "mincore", "cachestat",
    # the CPU a box is pinned to, and other processes' priorities and limits
    "sched_setaffinity", "ioprio_set",
]
FCNTL_LOCKS = [5, 6, 7, 36, 37, 38, 1024, 1025, 1026]   # F_GETLK..F_SETLKW, F_OFD_*, leases, F_NOTIFY
NAMESPACE_FLAGS = [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000]
TIOCSTI = 0x5412   # pushes characters into a terminal's input


# What a bot's processes may not do beyond DENIED, with the argument that says so.
SIGCONT = 18
# A stopped process runs again on SIGCONT: no call may send it, so that a box stopped between its
# moves stays stopped (no timer, no signal queue, no death signal of a parent or child, no SIGIO).
# timer_create's signal is behind a pointer, out of the filter's reach: it is denied whole.
SIGNALS = [("kill", 1), ("tkill", 1), ("tgkill", 2), ("rt_sigqueueinfo", 1), ("rt_tgsigqueueinfo", 2),
           ("pidfd_send_signal", 1)]
F_SETSIG, PR_SET_PDEATHSIG = 10, 1
# Page-cache eviction (another box would see it in the time of its reads): POSIX_FADV_DONTNEED and
# NOREUSE, MADV_REMOVE, MADV_COLD and MADV_PAGEOUT, and readahead (denied whole).
FADVISE_EVICT = [4, 5]
MADVISE_EVICT = [9, 20, 21]
AF_UNIX = 1


def seccomp_program(kind: str = "bot") -> bytes:
    """The BPF program of a filter, built with libseccomp (cached: the same for every box). The
    fork server's ("server") lets it make each match's namespaces (unshare, mount); the bot's
    ("bot"), which the match's process adds before any of the bot's code runs, does not, and
    closes the rest: every SIGCONT, leaving the box's process group, sockets but AF_UNIX ones,
    page-cache eviction, memfd_create. A build ("build") gets DENIED alone."""
    if kind in _program:
        return _program[kind]
    import pyseccomp as sc
    deny = sc.ERRNO(errno.EPERM)
    f = sc.SyscallFilter(sc.ALLOW)
    bot = kind == "bot"
    allowed = ("unshare", "mount") if kind == "server" else ()
    for name in DENIED + (["timer_create", "readahead", "memfd_create", "setsid", "setpgid"] if bot else []):
        if name in allowed:
            continue
        try:
            f.add_rule(deny, name)
        except (RuntimeError, ValueError, OSError):
            pass   # a system call this kernel and libseccomp do not know cannot be made either
    if kind != "server":   # the server makes each match's namespaces with clone3, as it may with unshare
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")   # its flags are out of the filter's reach; libc falls back to clone
    for flag in NAMESPACE_FLAGS:
        f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    for cmd in FCNTL_LOCKS:
        f.add_rule(deny, "fcntl", sc.Arg(1, sc.EQ, cmd))
    f.add_rule(deny, "ioctl", sc.Arg(1, sc.EQ, TIOCSTI))
    for name, arg in (("prlimit64", 0), ("sched_setscheduler", 0), ("sched_setparam", 0),
                      ("sched_setattr", 0), ("setpriority", 1)):
        f.add_rule(deny, name, sc.Arg(arg, sc.NE, 0))   # only on itself
    f.add_rule(deny, "personality", sc.Arg(0, sc.NE, 0xFFFFFFFF))
    if bot:
        for name, arg in SIGNALS:
            f.add_rule(deny, name, sc.Arg(arg, sc.EQ, SIGCONT))
        f.add_rule(deny, "fcntl", sc.Arg(1, sc.EQ, F_SETSIG), sc.Arg(2, sc.EQ, SIGCONT))
        f.add_rule(deny, "prctl", sc.Arg(0, sc.EQ, PR_SET_PDEATHSIG), sc.Arg(1, sc.EQ, SIGCONT))
        f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, 0xFF, SIGCONT))   # the exit signal of a child
        for name in ("socket", "socketpair"):
            f.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), name, sc.Arg(0, sc.NE, AF_UNIX))
        for advice in FADVISE_EVICT:
            f.add_rule(deny, "fadvise64", sc.Arg(3, sc.EQ, advice))
        for advice in MADVISE_EVICT:
            f.add_rule(deny, "madvise", sc.Arg(2, sc.EQ, advice))
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        _program[kind] = out.read()
    return _program[kind]


_program: dict = {}


def _data_fd(data):
    """A pipe's read end holding `data` (for bwrap's --seccomp and --ro-bind-data)."""
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    return r


# ---------------------------------------------------------------- the command line

def project_packages() -> list[str]:
    """The folders of this project's three packages, as this process imported them."""
    import agents
    import engines
    folders = []
    for package in (engines, agents, sys.modules["arena"]):
        assert package.__file__ is not None   # regular packages, each with its __init__.py
        folders.append(os.path.dirname(os.path.abspath(package.__file__)))
    return folders


def python_command(module: str, settings: str) -> list[str]:
    """`python -I -m MODULE SETTINGS` for a box (the fork server, a build), importing the project's
    packages from where this process did (a checkout's, on PYTHONPATH, which -I ignores), not from
    another copy installed in the runtime: the box shows only these."""
    roots = list(dict.fromkeys(os.path.dirname(p) for p in project_packages()))
    boot = f"import runpy, sys; sys.path[:0] = sys.argv[2:]; runpy.run_module({module!r}, run_name='__main__')"
    return [sys.executable, "-I", "-c", boot, settings] + roots


def runtime_paths() -> list[str]:
    """The Python runtime, its installed packages and this project's three packages (to unpickle
    states and to find the Agent base class): nothing else of the file system or the checkout."""
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    paths.update(p for p in site.getsitepackages() if os.path.isdir(p))
    paths.update(project_packages())
    kept: list[str] = []
    for p in sorted(os.path.realpath(p) for p in paths) + sorted(paths):   # only the outermost of nested ones, once
        if not any(p == k or p.startswith(k.rstrip(os.sep) + os.sep) for k in kept):
            kept.append(p)
    return [p for p in kept if not p.startswith("/usr/") and p != "/usr"]


# ---------------------------------------------------------------- what a box shows, warmed

# Installed distributions the fork server imports (arena.sandbox.fork_server): a Python bot sees these,
# the standard library and the project's packages, and no other installed package.
BOX_DISTRIBUTIONS = ("numpy",)
# Parts of a Python standard library no bot's runtime reads, shown empty: the packages installed
# beside it, its tests, its GUI and installers, and the static library for building extensions.
STDLIB_EMPTY = ("site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip",
                "config-*")
# The folders an exec bot's interpreter reads beyond its program and shared libraries, by the real
# name of the program (fnmatch): `{bin}` is the folder it is in. Python's standard library, and
# the JDK the java launcher loads its VM, modules and configuration from.
RUNTIME_FOLDERS = (("python3.*", "{bin}/../lib/{name}"), ("java", "{bin}/.."))
SEARCH_PATH = ("/usr/local/bin", "/usr/bin", "/bin")   # where an exec bot's command's program is looked up
LOADER_CACHE = "/etc/ld.so.cache"
LOADER = shutil.which("ld.so", path="/usr/bin:/bin") or "/lib64/ld-linux-x86-64.so.2"   # Debian's name, or the loader's own
ELF_MAGIC = b"\x7fELF"


@dataclass(frozen=True)
class View:
    """What a box shows of the host, read-only, each at its own path: `binds` (real host paths of
    files and folders, none inside another), `links` ((path, target) of the symbolic links on the
    way to them, each in a real folder), `empty` (folders inside the binds shown empty) and
    `copies` ((host path, copy) of the folders read from the arena's copy of them on a tmpfs,
    arena.sandbox.copies: a bind, or the bot's code)."""
    binds: tuple[str, ...]
    links: tuple[tuple[str, str], ...] = ()
    empty: tuple[str, ...] = ()
    copies: tuple[tuple[str, str], ...] = ()

    def __add__(self, other: "View") -> "View":
        return _view(self.binds + other.binds, self.links + other.links, self.empty + other.empty,
                     self.copies + other.copies)

    def args(self, parents: bool, from_copies: bool = True) -> list[str]:
        """bubblewrap's arguments for the view; `parents`: each folder on the way made
        world-readable (the outer box's), and no folder shown empty (the inner box does that);
        `from_copies`: a copied folder bound from its copy (not in a box inside one that did)."""
        copies = dict(self.copies) if from_copies else {}
        args: list[str] = []
        for path, target in self.links:
            args += _parent_dirs(path) if parents else []
            args += ["--symlink", target, path]
        args += _binds([b for b in self.binds if not _inside(b, self.empty)], None, parents, copies)
        for folder in self.empty:   # made empty, what is bound in it, then read-only
            if not parents:   # the outer box shows the folder whole, and so what is in it
                shown = [b for b in self.binds if _inside(b, (folder,))]
                args += ["--tmpfs", folder] + _binds(shown, None, parents, copies) + ["--remount-ro", folder]
        return args

    def files(self) -> Iterator[str]:
        """Every regular file the view shows from the host (no link followed, no copy)."""
        copied = dict(self.copies)
        for path in self.binds:
            if path in copied:
                continue
            if not os.path.isdir(path) or os.path.islink(path):
                if os.path.isfile(path) and not os.path.islink(path):
                    yield path
                continue
            for top, dirs, names in os.walk(path):
                dirs[:] = [d for d in dirs if os.path.join(top, d) not in self.empty]
                for name in names:
                    full = os.path.join(top, name)
                    if stat.S_ISREG(os.lstat(full).st_mode):
                        yield full


def _inside(path, folders):
    return any(path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


def _view(binds, links=(), empty=(), copies=()) -> View:
    """A View of these: each bind once, none inside another unless in a folder shown empty; each
    link once and none inside a bind (a bound folder has its own)."""
    empty = sorted(set(empty))
    kept: list[str] = []
    for p in sorted(set(binds)):   # a bind inside another is dropped, unless a folder shown empty is between them
        if p not in kept and not any(_inside(p, (k,)) and not any(_inside(e, (k,)) and _inside(p, (e,)) for e in empty)
                                     for k in kept):
            kept.append(p)
    return View(tuple(kept), tuple(sorted({(p, t) for p, t in links if not _inside(p, kept)})),
                tuple(e for e in empty if _inside(e, kept)), tuple(sorted(set(copies))))


def _parent_dirs(path):
    """bubblewrap's arguments that make each folder on the way to `path` world-readable."""
    parts = path.strip("/").split("/")
    args = []
    for i in range(1, len(parts)):
        args += ["--perms", "0755", "--dir", "/" + "/".join(parts[:i])]
    return args


def resolve(path: str, links: dict[str, str]) -> str:
    """The real path of `path`, with each symbolic link met on the way added to `links` (its
    path, in a real folder, and its target as written)."""
    path = os.path.normpath(path)
    for _ in range(40):
        parts, current = path.strip("/").split("/"), "/"
        for i, part in enumerate(parts):
            step = os.path.join(current, part)
            if os.path.islink(step):
                links[step] = os.readlink(step)
                path = os.path.normpath(os.path.join(current, links[step], *parts[i + 1:]))
                break
            current = step
        else:
            return current
    raise ValueError(f"{path}: too many levels of symbolic links")


def _system(path):
    return path.startswith(("/usr/", "/lib", "/bin/", "/sbin/"))


@functools.cache
def libraries(path: str, box: str | None = None) -> tuple[str, ...]:
    """The shared libraries (and the ELF interpreter) the dynamic loader loads for the ELF file at
    `path`, as `ld.so --list` answers, with the paths it names them by. `box`: a bot's own
    folder, which `path` is in: the loader then reads it in a box of its own that shows only the
    system's folders and that folder, and only libraries of the system's folders are kept."""
    argv = [LOADER, "--list", path]
    if box is not None:
        argv = ["bwrap", "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
                "--die-with-parent", "--new-session", "--clearenv"] + _system_binds() + [
                "--ro-bind", box, box, "--dev", "/dev", "--"] + argv
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd="/", env=environment())
    except (OSError, subprocess.SubprocessError):
        return ()
    found = []
    # "\tname => /path (0x...)", "\t/interp => LOADER (0x...)", and for a library "\tLOADER (0x...)"
    for line in done.stdout.splitlines():
        left, _, right = line.strip().rpartition(" (")[0].partition(" => ")
        for candidate in (left, right):   # the interpreter by the path programs name it, a library by where it is
            if candidate.startswith("/") and candidate != LOADER:
                found.append(candidate)
                break
    return tuple(p for p in found if box is None or _system(p))


def _elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False


def _with_libraries(paths, links, empty=(), box=None) -> View:
    """A view of `paths` (resolved), and of the libraries of every ELF file among them."""
    binds = [resolve(p, links) for p in paths if os.path.lexists(p)]
    view = _view(binds, links.items(), empty)
    more = {lib for f in view.files() if _elf(f) for lib in libraries(f, box)}
    binds += [resolve(lib, links) for lib in more if os.path.exists(lib)]
    return _view(binds, links.items(), empty)


def _stdlib_empty(folder):
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if any(fnmatch.fnmatch(n, pattern) for pattern in STDLIB_EMPTY)]


@functools.lru_cache(maxsize=1)
def python_view() -> View:
    """What a Python bot's box shows: this interpreter (and its virtual environment's
    configuration), its standard library (less STDLIB_EMPTY), BOX_DISTRIBUTIONS, the project's
    packages, the shared libraries of them all, and the loader's cache."""
    paths = [sys.executable, LOADER_CACHE] + project_packages()
    if sys.prefix != sys.base_prefix:
        paths.append(os.path.join(sys.prefix, "pyvenv.cfg"))
    stdlib = sysconfig.get_paths()["stdlib"]
    paths.append(stdlib)
    for name in BOX_DISTRIBUTIONS:
        dist = importlib.metadata.distribution(name)
        tops = {str(f).split("/")[0] for f in dist.files or () if not str(f).startswith("..")}
        paths += [str(dist.locate_file(top)) for top in tops]
    return _with_libraries(paths, {}, _stdlib_empty(os.path.realpath(stdlib)))


@functools.lru_cache(maxsize=64)
def program_view(program: str, box: str | None = None) -> View:
    """What an exec bot's program needs beyond python_view (the adapter's): the program, its
    interpreter (a script's `#!` line, `env NAME` looked up as the manifest's command is), its
    shared libraries and its runtime folders (RUNTIME_FOLDERS). `box`: the bot's own folder,
    when the program is in it (its own files are at /bot already)."""
    links: dict[str, str] = {}
    if box is not None:
        try:
            with open(program, "rb") as f:
                head = f.read(256)
        except OSError:   # a program its build did not leave: the adapter in the box says so
            return View(())
        if head.startswith(ELF_MAGIC):
            return _view([resolve(p, links) for p in libraries(program, box)], links.items())
        words = head[2:].split(b"\n")[0].split() if head.startswith(b"#!") else []
        hosts = [w.decode() for w in words[:1]]
        if hosts and os.path.basename(hosts[0]) == "env" and len(words) > 1:
            hosts.append(shutil.which(words[1].decode(), path=os.pathsep.join(SEARCH_PATH)) or "")
        return sum((program_view(h) for h in hosts if _system(h)), View(()))
    real = resolve(program, links)
    folders: list[str] = []
    empty: list[str] = []
    for pattern, template in RUNTIME_FOLDERS:
        name = os.path.basename(real)
        if fnmatch.fnmatch(name, pattern):
            folder = os.path.normpath(template.format(bin=os.path.dirname(real), name=name))
            folders.append(folder)
            empty += _stdlib_empty(folder) if name.startswith("python") else []
    return _with_libraries([program] + folders, links, empty)


def warm(view: View) -> tuple[int, int]:
    """Reads every file of `view` whole, into the page cache: (files, bytes). A box warmed so,
    before its bot runs, has no cold page of a file it shows, so none it could turn warm for a
    partner in another box to time (docs/sandbox.md). Read by the arena, the pages are charged to
    the arena's cgroup, not the box's: the box's own memory limit cannot reclaim them."""
    buffer = bytearray(1 << 20)
    files = size = 0
    for path in view.files():
        try:
            with open(path, "rb", buffering=0) as f:
                while n := f.readinto(buffer):
                    size += n
        except OSError:
            continue
        files += 1
    return files, size


def environment() -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _system_binds():
    args = []
    for top in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.exists(top):
            args += ["--ro-bind", top, top]
    return args


def _binds(paths, code, parents, copies=None):
    """Read-only binds of `paths` and of the staged `code` at /bot, each from its copy in
    `copies` if it has one; with `parents`, each folder on the way made world-readable (the outer
    view, where /root or a 0700 checkout leads to them)."""
    copies = copies or {}
    args, made = [], set()
    for path in paths:
        if parents:
            parts = path.strip("/").split("/")
            for i in range(1, len(parts)):
                folder = "/" + "/".join(parts[:i])
                if folder not in made and not os.path.islink(folder) and folder != "/usr":
                    made.add(folder)
                    args += ["--perms", "0755", "--dir", folder]
        args += ["--ro-bind", copies.get(path, path), path]
    if code is not None:
        args += ["--ro-bind", copies.get(code, code), BOT_ROOT]
    return args


def command(program: list[str], code: str | None, limits: dict[str, int], seccomp_fd: int,
            data_fds: dict[str, int], bot_uid: int | None, per_match: bool = False,
            view: View | None = None) -> list[str]:
    """The command that runs `program` (argv) in the box. `bot_uid` is the host uid to drop to when
    this process is root (None otherwise); `seccomp_fd` and `data_fds` (path -> fd) are pipes the
    command must inherit. `per_match`: the program (the fork server) makes new namespaces for each
    match itself, with their own /proc, and adds the bot's filter there (arena.sandbox.fork_server), so
    the box leaves it user namespaces and a /proc with nothing mounted over it (`data_fds` empty).
    `view`: what the box shows of the host (a bot's: python_view, and program_view for an exec
    bot); without one, the system's folders whole and runtime_paths (a build's, for its compiler)."""
    disk = str(limits["disk"] << 20)
    inner = ["bwrap", "--unshare-all", "--unshare-user"] + ([] if per_match else ["--disable-userns"])
    inner += ["--as-pid-1", "--die-with-parent", "--new-session", "--uid", "65534", "--gid", "65534",
              "--hostname", "arena-bot", "--clearenv"]
    for name, value in environment().items():
        inner += ["--setenv", name, value]
    # /tmp first: a runtime or checkout under /tmp (a CI clone) is bound onto it, not hidden by it.
    inner += ["--size", disk, "--tmpfs", "/tmp"]
    # A copied folder is bound from its copy by the first box: the outer one, if there is one.
    copies = dict(view.copies) if view and bot_uid is None else {}
    inner += view.args(parents=False, from_copies=bot_uid is None) if view else _system_binds() + _binds(
        runtime_paths(), None, parents=False)
    inner += _binds([], code, parents=False, copies=copies)
    inner += ["--proc", "/proc"] + ([] if per_match else ["--ro-bind", "/proc/sys", "/proc/sys"])
    inner += ["--dev", "/dev", "--size", disk, "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--chdir", "/tmp"]
    for name, fd in data_fds.items():
        inner += ["--ro-bind-data", str(fd), f"/proc/{name}"]
    inner += ["--remount-ro", "/", "--seccomp", str(seccomp_fd), "--"] + program
    if bot_uid is None:
        return inner
    # The outer /tmp first, so that a bound path under /tmp lands on it rather than under it.
    outer = ["bwrap", "--unshare-pid", "--die-with-parent", "--size", str(1 << 20), "--tmpfs", "/tmp"]
    if view:   # and the two programs the outer box runs
        outer += (view + _with_libraries([shutil.which("setpriv") or "", shutil.which("bwrap") or ""], {})).args(parents=True)
    else:
        outer += ["--perms", "0755", "--dir", "/etc"] + _system_binds() + _binds(runtime_paths(), None, parents=True)
    outer += _binds([code] if code else [], None, parents=True, copies=dict(view.copies) if view else {})
    outer += ["--bind", "/proc", "/proc", "--dev", "/dev", "--",
              "setpriv", f"--reuid={bot_uid}", f"--regid={bot_uid}", "--clear-groups", "--"]
    return outer + inner


def hidden_proc_fds() -> dict[str, int]:
    """path -> pipe with its constant content, for one box (bwrap reads and closes each)."""
    return {name: _data_fd(text.encode()) for name, text in HIDDEN_PROC_FILES.items()
            if os.path.exists(f"/proc/{name}")}


class BotUids:
    """Distinct host uids for the boxes a root arena starts, so that no two boxes share a user's
    process count, keyring or files."""

    def __init__(self):
        self.lock, self.used = threading.Lock(), set()

    def take(self) -> tuple[int, int]:
        with self.lock:
            slot = next(s for s in range(SLOTS + 1) if s not in self.used)
            if slot == SLOTS:
                raise RuntimeError(f"more than {SLOTS} sandboxes at once in one arena process")
            self.used.add(slot)
        return slot, BOT_UID_BASE + ((os.getpid() % (1 << 22)) << 6) + slot

    def give_back(self, slot: int) -> None:
        with self.lock:
            self.used.discard(slot)


BOT_UIDS = BotUids()


# ---------------------------------------------------------------- CPU: frozen, or capped to one

class Cgroup:
    """One box's cgroup where this process may create it (root): processes, memory and one CPU for
    all of the box's processes together, and the list of them that the freezer stops. cgroup v2
    where it is mounted alone, else cgroup v1's controllers, with a group in the v2 hierarchy
    mounted beside them (systemd's hybrid layout, at UNIFIED) for its freezer where there is one.
    `available` is False elsewhere."""

    V1 = "/sys/fs/cgroup"
    V2 = "/sys/fs/cgroup"
    UNIFIED = "/sys/fs/cgroup/unified"
    PERIOD = 100000   # microseconds: a quota of one period per period is one CPU

    def __init__(self, name: str, limits: dict[str, int]) -> None:
        self.paths, self.v2 = [], os.path.exists(os.path.join(self.V2, "cgroup.controllers"))
        if os.geteuid() != 0 or not cgroups_wanted():
            return
        processes, memory = limits["processes"] + 8, (limits["memory"] + 2 * limits["disk"] + 64) << 20
        if self.v2:
            plan = [("", {"pids.max": processes, "memory.max": memory, "cpu.max": f"{self.PERIOD} {self.PERIOD}"})]
        else:
            plan = [("pids", {"pids.max": processes}), ("memory", {"memory.limit_in_bytes": memory}),
                    ("cpu", {"cpu.cfs_period_us": self.PERIOD, "cpu.cfs_quota_us": self.PERIOD})]
            if os.path.exists(os.path.join(self.UNIFIED, "cgroup.procs")):
                plan.append(("unified", {}))
        try:
            if self.v2:
                _write(os.path.join(self.V2, "cgroup.subtree_control"), "+pids +memory +cpu")
            for controller, knobs in plan:
                parent = os.path.join(self.V1 if not self.v2 else self.V2, controller, "tabletop-arena")
                os.makedirs(parent, exist_ok=True)
                if self.v2:
                    _write(os.path.join(parent, "cgroup.subtree_control"), "+pids +memory +cpu")
                path = os.path.join(parent, name)
                os.makedirs(path, exist_ok=True)
                self.paths.append(path)
                for knob, value in knobs.items():
                    _write(os.path.join(path, knob), str(value))
        except OSError:
            self.remove()
            self.paths = []

    @property
    def available(self) -> bool:
        return bool(self.paths)

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv`, run from inside the cgroup (the shell moves itself in, then execs)."""
        if not self.paths:
            return argv
        procs = " ".join(os.path.join(p, "cgroup.procs") for p in self.paths)
        return ["sh", "-c", 'for p in $0; do echo $$ > "$p" || exit 1; done; exec "$@"', procs] + argv

    def freezer(self, server: int) -> "_CgroupFreezer | GroupStop":
        """What freezes the box: cgroup v2's own freezer (of its group in the v2 hierarchy, on
        cgroup v2 or beside v1); on cgroup v1 alone, whose frozen tasks would not die with their
        arena, SIGSTOP to the box's process group (`server`'s)."""
        for path in self.paths:
            if os.path.exists(os.path.join(path, "cgroup.freeze")):
                return _CgroupFreezer(os.path.join(path, "cgroup.freeze"))
        return GroupStop(server)

    def remove(self) -> None:
        for path in reversed(self.paths):
            _remove_cgroup(path)

    @classmethod
    def sweep(cls) -> None:
        """Ends the boxes, and removes the cgroups, left by arena processes that are gone (a worker
        killed with -9 or ended with os._exit): a task frozen by cgroup v1 keeps its pending
        SIGKILL until it is thawed, so each is thawed and killed first."""
        folders = [os.path.join(cls.V2, "tabletop-arena")] + [
            os.path.join(cls.V1, c, "tabletop-arena") for c in ("freezer", "pids", "memory", "cpu", "unified")]
        for folder in folders:
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                try:
                    os.kill(int(name.split("-")[0]), 0)
                    continue   # its arena process is alive
                except ProcessLookupError:
                    pass
                except (ValueError, OSError):
                    continue
                path = os.path.join(folder, name)
                _end_tasks(path)
                _remove_cgroup(path)


def _remove_cgroup(path):
    """Removes an emptied cgroup, waiting up to a second for its last tasks to be gone."""
    for _ in range(50):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            threading.Event().wait(0.02)


def _end_tasks(path):
    """Thaws every task of the cgroup at `path` (v1 or v2) and kills it."""
    for knob, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        try:
            _write(os.path.join(path, knob), value)
        except OSError:
            pass
    try:
        with open(os.path.join(path, "cgroup.procs")) as f:
            pids = [int(line) for line in f if line.strip()]
    except OSError:
        pids = []
    for pid in pids:
        _signal(pid, signal.SIGKILL)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def descendants(pid: int) -> list[int]:
    """The processes below `pid` (from /proc; this kernel may lack /proc/PID/task/TID/children)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


class _CgroupFreezer:
    def __init__(self, knob):
        self.knob = knob

    def freeze(self, frozen: bool) -> None:
        _write(self.knob, "1" if frozen else "0")


class StillRunning(Exception):
    """A box whose processes did not all stop (the bot's fault)."""


class GroupStop:
    """A freezer by signals: SIGSTOP to the box's process group, that of its fork server (host pid
    `server`, pid 1 in the box), and SIGCONT to it. The kernel stops every process of the group at
    once: none runs another instruction of its own after the kill, a fork in flight included. No
    bot process can leave the group (the seccomp filter denies setsid and setpgid), which the
    freeze checks on the box's own /proc, nor send SIGCONT (the filter denies every call that
    would), so what is stopped stays stopped until the arena thaws it."""

    def __init__(self, server: int) -> None:
        self.server = server
        self.proc = f"/proc/{server}/root/proc"   # the box's /proc: its processes, and no other

    def members(self) -> list[str]:
        """The box's processes, by their pids in the box."""
        try:
            return [entry for entry in os.listdir(self.proc) if entry.isdigit()]
        except OSError:
            return []

    def outside_the_group(self) -> list[str]:
        """The box's processes whose process group or session is not the fork server's."""
        out = []
        for pid in self.members():
            try:
                with open(f"{self.proc}/{pid}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[0] not in (b"Z", b"X") and fields[2:4] != [b"1", b"1"]:
                out.append(pid)
        return out

    def freeze(self, frozen: bool) -> None:
        _signal(-self.server, signal.SIGSTOP if frozen else signal.SIGCONT)
        if frozen and self.outside_the_group():
            raise StillRunning("its processes left the box's process group, where they are stopped between its moves")


def cgroups_wanted() -> bool:
    """Whether a root arena gives each box a cgroup: ARENA_CGROUPS=off says not (then a box is
    frozen by signals and its memory is counted by the arena, as for an arena that is not root)."""
    return os.environ.get("ARENA_CGROUPS", "on").lower() not in ("off", "0", "no")


def _signal(pid, sig):
    """`sig` to `pid` (a process group: -pid), unless it is gone."""
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def one_cpu() -> int:
    """The CPU a box without a cgroup is pinned to (its processes cannot change it: see DENIED)."""
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[os.getpid() % len(cpus)]


def bwrap_missing() -> bool:
    return not sys.platform.startswith("linux") or shutil.which("bwrap") is None
