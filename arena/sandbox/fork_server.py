"""Inside the sandbox: a fork server, and the fresh process it forks for every match.

`python -I -m arena.sandbox.fork_server SETTINGS` (arena.sandbox.confine.python_command) starts the fork
server. It imports Python, numpy, the engines and the agents once, then waits on its control
socket. For each match the arena sends it three fresh pipes; the server first removes everything
the previous match left (every other process in the sandbox is killed and reaped, /tmp and
/dev/shm are emptied), then forks a child. The child closes the control socket, sets its resource
limits and serves the match on the pipes: it loads the bot's code, then answers `reset` and `act`
requests, one at a time, until the arena closes the pipes; the third pipe takes everything the
bot prints. So a bot's state never outlives its match, and its start-up costs a fork.

Requests come from the arena (pickled states it built); replies go back as JSON plain data
(arena.sandbox.wire). Everything the bot prints, on stdout or stderr (an exec bot's program: on
stderr), goes to the match's output pipe, flushed before each reply, so it cannot corrupt the
protocol and the arena keeps it for the bot's author (with the traceback of an exception).
The fork server is not dumpable, so a bot running as the same user cannot read or write its memory
through /proc.
"""
import ctypes
import errno
import json
import operator
import os
import pickle
import resource
import select
import signal
import socket
import stat
import struct
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from arena.sandbox.confine import HIDDEN_PROC_FILES
from arena.sandbox.exec_bot import ExecFault
from arena.sandbox.wire import WireError, read_frame, send_json

RLIMITS = {"memory": (resource.RLIMIT_AS, 1 << 20), "cpu": (resource.RLIMIT_CPU, 1),
           "processes": (resource.RLIMIT_NPROC, 1), "file_size": (resource.RLIMIT_FSIZE, 1 << 20),
           "open_files": (resource.RLIMIT_NOFILE, 1)}
EXTRA_PROCESSES = 2   # the fork server and bubblewrap's own process share the bot's user
WRITABLE = ("/tmp", "/dev/shm")   # in the sandbox, each a size-limited tmpfs of its own
PR_SET_DUMPABLE = 4
PR_SET_PDEATHSIG = 1


def apply_limits(limits: Mapping[str, float]) -> None:
    """Soft and hard limits at once: the bot cannot raise them again. A core size limit of 1 byte,
    which survives execve: no core file fits, and the kernel skips a core_pattern pipe for it (a
    limit of 0 would still start the host's crash handler on the bot's core)."""
    for name, (which, unit) in RLIMITS.items():
        if name in limits:
            value = int(limits[name] * unit) + (EXTRA_PROCESSES if name == "processes" else 0)
            resource.setrlimit(which, (value, value))
    resource.setrlimit(resource.RLIMIT_CORE, (1, 1))


def load_class(kind: str, target: str) -> Callable[..., Any]:
    """The agent class named by a submitted agent's target (file path or module, then ':Class')."""
    import importlib
    import importlib.util
    if kind == "exec":   # a program in any language, spoken to by the protocol's adapter
        from arena.sandbox.exec_bot import adapter
        return adapter(target)
    where, _, name = target.rpartition(":")
    if kind == "file":
        module_name = "arena_submitted_" + os.path.splitext(os.path.basename(where))[0]
        spec = importlib.util.spec_from_file_location(module_name, where)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {where}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    obj: Any = module   # the module, then the attribute its target names
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:   # named as the user wrote it, not by its internal module name
            raise AttributeError(f"{os.path.basename(where) if kind == 'file' else where} has no {name}") from None
    if not callable(getattr(obj, "act", None)):
        raise TypeError(f"{name} has no act(state) method")
    return obj


def describe(exc: BaseException) -> str:
    """An exception as one line: "Type: message", at most 300 characters."""
    if isinstance(exc, SyntaxError):
        where = f"{os.path.basename(exc.filename or '?')}, line {exc.lineno}: " if exc.lineno else ""
        return f"{type(exc).__name__}: {where}{exc.msg}"[:300]
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


def _action_reply(action):
    # Any integer type counts (a numpy integer too); a float, a string or a bool never does.
    if not isinstance(action, bool):
        try:
            return {"action": operator.index(action)}
        except TypeError:
            pass
    return {"action": None, "returned": repr(action)[:100]}


def _flush_output() -> None:
    for stream in {sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__}:
        try:
            if stream is not None:
                stream.flush()
        except Exception:   # a stream the bot replaced or closed
            pass


def _print_traceback(exc: BaseException) -> None:
    """The traceback of the bot's exception for its author, from the first frame of the bot's own
    code on (the sandbox's frames and the import machinery's before it left out); none for an
    error of the sandbox's own (a missing class), whose message says it all."""
    ours = os.path.dirname(os.path.abspath(__file__)) + os.sep
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith((ours, "<frozen ")):
        tb = tb.tb_next
    if tb is None:
        return
    try:
        traceback.print_exception(type(exc), exc, tb)
    except Exception:   # a stderr the bot replaced or closed
        pass


def serve(requests: int, replies: int, output: int, code_dir: str | None) -> None:
    """One match: answers the arena's requests on the two pipes until it closes them; stdout and
    stderr go to `output`, in the order they are written."""
    for fd in (1, 2):
        os.dup2(output, fd)
    os.close(output)
    sys.stdout = sys.stderr
    if code_dir:
        sys.path.insert(0, code_dir)
    agent: Any = None   # the submitted agent, once loaded
    while True:
        try:
            message = pickle.loads(read_frame(requests))
        except WireError:
            return
        try:
            if message[0] == "load":   # an exec agent may also be told the match's limits
                _, kind, target, params, *options = message
                agent = load_class(kind, target)(**params)
                if kind == "exec" and options:
                    agent.configure(options[0])
                reply: dict[str, Any] = {"ok": True}
            elif message[0] == "reset":
                if hasattr(agent, "reset"):
                    agent.reset(*message[1:])
                reply = {"ok": True}
            elif message[0] == "end":   # the match's returns, for an agent that wants them
                if hasattr(agent, "end"):
                    agent.end(message[1])
                reply = {"ok": True}
            else:   # act, with the public actions since the last one (an exec agent's) and the clock
                _, state, check, public, clock = message
                if public is not None and hasattr(agent, "observe"):
                    agent.observe(public)
                if clock is not None:
                    agent.clock = clock
                before = (state.snapshot(), state.history()) if check else None
                reply = _action_reply(agent.act(state))
                if check:
                    reply["modified"] = (state.snapshot(), state.history()) != before
        except ExecFault as f:   # an exec bot broke the protocol: its fault, not the adapter's error
            reply = f.reply
        except Exception as e:
            _print_traceback(e)
            reply = {"error": describe(e)}
        _flush_output()
        send_json(replies, reply)


# ---------------------------------------------------------------- a fresh kernel world per match

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x20000, 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SYS_CLONE3 = 435   # the same number on every architecture
_holding_the_gil = ctypes.PyDLL(None, use_errno=True)   # a call through it keeps the GIL: a fork made in it has it
_holding_the_gil.syscall.restype = ctypes.c_long
CONSTANTS = "/tmp/.proc-constants"   # in the box's own /tmp, hidden by each match's
GC_WAIT = 2.0   # seconds for the kernel to free the sockets a match left in flight


def _c(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source, target, fstype, flags, data=None):
    _c(libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(), ctypes.c_ulong(flags),
                  data and data.encode()), f"mount {target}")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_filter(program: bytes) -> None:
    """Adds the seccomp filter `program` (BPF, as libseccomp exports it) to this process."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    _c(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _c(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


def drop_capabilities() -> None:
    """No capability left, in any set (those a new user namespace gave this process)."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)   # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    _c(libc.capset(header, data), "capset")


def fork_into_new_namespaces() -> int:
    """A fork of this process that is the first of new user, mount and pid namespaces, in one step
    (clone3 without a stack of its own): no pid number or file system of the previous match is in
    them. The fork server has one thread (`single_threaded`), so the child's interpreter is as
    consistent as the server's without the interpreter's after-fork work (about 1 ms of
    copy-on-write faults), which this child, that only makes the match's world and forks the
    match's process with os.fork, does not need. The child maps its user (`map_user`). The box's
    network namespace is not made again (that costs 2 to 3 ms a match): the seccomp filter allows
    only AF_UNIX sockets, which die with the match's processes (`clean` waits for the abstract
    names of those a bot sent over themselves), and denies System V IPC and POSIX message queues."""
    args = struct.pack("=8Q", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID, 0, 0, 0, signal.SIGCHLD, 0, 0, 0)
    pid = _holding_the_gil.syscall(ctypes.c_long(SYS_CLONE3), args, ctypes.c_size_t(len(args)))
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"clone3: {os.strerror(err)}")
    return pid


def single_threaded() -> bool:
    """Whether this process has one thread (no Python thread, and none a library started)."""
    return len(os.listdir("/proc/self/task")) == 1


def map_user(uid: int, gid: int) -> None:
    """In a new user namespace: its uid and gid mapped to `uid` and `gid` (this user's outside)."""
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)   # else its own /proc/self files are not its to write
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def write_constants() -> list[str]:
    """The fork server, once: the constants that replace the host-wide counters of /proc, as files
    in CONSTANTS (in the box's own /tmp, which every match's /tmp hides); the names of those this
    kernel's /proc has."""
    os.makedirs(CONSTANTS, 0o755, exist_ok=True)
    names = []
    for name, text in HIDDEN_PROC_FILES.items():
        if os.path.exists(f"/proc/{name}"):
            with open(os.path.join(CONSTANTS, name.replace("/", "-")), "w") as f:
                f.write(text)
            names.append(name)
    return names


def fresh_mounts(disk: int, keep: AbstractSet[str], hidden: list[str]) -> None:
    """In the new namespaces, as their first process: a /proc of the new pid namespace (the
    `hidden` host-wide counters replaced by the constants write_constants wrote, read-only,
    /proc/sys read-only) and new, empty, size-limited /tmp and /dev/shm, whose inode numbers start
    again; the box's mount points under them (a runtime in a CI clone under /tmp) bound back."""
    under = sorted(p for p in keep if p.startswith(tuple(w + "/" for w in WRITABLE)))
    kept = {p: os.open(p, os.O_PATH) for p in under if not any(p.startswith(q + "/") for q in under)}
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # read-only, and so is every bind of a file from it below: no bot can change a constant
    _mount(CONSTANTS, CONSTANTS, None, MS_BIND)
    _mount(None, CONSTANTS, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _mount("/proc/sys", "/proc/sys", None, MS_BIND | MS_REC)
    _mount(None, "/proc/sys", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in hidden:
        _mount(os.path.join(CONSTANTS, name.replace("/", "-")), f"/proc/{name}", None, MS_BIND)
    for folder in WRITABLE:
        if os.path.isdir(folder):
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, f"size={disk},mode=0755")
    for path, fd in kept.items():
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.makedirs(path, 0o755, exist_ok=True)
        else:   # a file bound on its own (a virtual environment's pyvenv.cfg): an empty file to bind onto
            os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)


def _reap_until(child: int, status_fd: int) -> None:
    """The new pid namespace's first process: reaps every orphan until the match's process ends,
    writes how it ended to `status_fd`, and exits, which ends every process left in the namespace."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        if pid == child:
            os.write(status_fd, str(os.waitstatus_to_exitcode(status)).encode())
            os._exit(0)


def _match_process(settings: dict[str, Any], fds: list[int], status_fd: int) -> None:
    """The match's process (a fork of the server, which never returns): in the sandbox, first a
    fresh kernel world and the bot's seccomp filter, and the process is the second of a new pid
    namespace, under a first one (the server's child) that reaps."""
    boxed = settings["boxed"]
    if boxed:
        map_user(settings["uid"], settings["gid"])
        fresh_mounts(settings["limits"]["disk"] << 20, settings["keep"], settings["hidden"])
        drop_capabilities()
        load_filter(settings["bot_filter"])
        child = os.fork()
        if child:
            for fd in fds:
                os.close(fd)
            _reap_until(child, status_fd)
    else:
        os.setsid()   # its own group, which clean() kills whole ...
        _die_with_parent()   # ... and which dies if this server is killed first
    if status_fd >= 0:
        os.close(status_fd)
    apply_limits(settings["limits"])
    serve(fds[0], fds[1], fds[2], settings["code_dir"])


# ---------------------------------------------------------------- the fork server

def _kill_the_rest():
    """Kills and reaps every other process of the sandbox. As the sandbox's pid 1, every process in
    it descends from this one, so once it has no child left, none is left at all."""
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def abstract_socket_names() -> list[str]:
    """The abstract AF_UNIX socket names bound in the box's network namespace."""
    with open("/proc/net/unix") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    return [row[7] for row in rows if len(row) > 7 and row[7].startswith("@")]


def _forget_abstract_names() -> None:
    """No abstract socket name of a match outlives it. The box's network namespace, where they
    live, is the next match's too, and a socket a bot passed over itself (an SCM_RIGHTS cycle)
    outlives its processes until the kernel's garbage collector frees it, some milliseconds
    later: this waits for that, up to GC_WAIT seconds (OSError after: the box is discarded)."""
    deadline = time.monotonic() + GC_WAIT
    while abstract_socket_names():
        if time.monotonic() > deadline:
            raise OSError(errno.EBUSY, "an abstract socket name of the match outlives it")
        time.sleep(0.001)


def mount_points() -> set[str]:
    """The mount points of this box (the runtime may be bound under /tmp, as in a CI clone)."""
    with open("/proc/self/mountinfo") as f:
        return {line.split()[4] for line in f}


def clean(boxed: bool, previous: int) -> None:
    """Nothing of the previous match survives: in the sandbox, no process (its files and kernel
    objects lived in its own namespaces, gone with it) and no abstract socket name (in the box's
    network namespace); in a plain process, its process group."""
    if boxed:
        _kill_the_rest()
        _forget_abstract_names()
    elif previous:
        try:
            os.killpg(previous, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.waitpid(previous, 0)
        except ChildProcessError:
            pass


def _status(child, status_fd, wait=2.0):
    """The exit code of the match's process (-N: killed by signal N), or "running" once it has
    been killed for not ending within `wait` seconds of closing its pipes. In the sandbox the
    first process of the match's pid namespace writes it to `status_fd`."""
    deadline = time.monotonic() + wait
    while child:
        if status_fd >= 0:
            if select.select([status_fd], [], [], 0.01)[0]:
                text = os.read(status_fd, 32)
                return int(text) if text else "running"
        else:
            try:
                pid, status = os.waitpid(child, os.WNOHANG)
            except ChildProcessError:   # reaped already, by the wipe of a previous request
                return "running"
            if pid:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.01)
        if time.monotonic() > deadline:
            os.kill(child, signal.SIGKILL)
            return "running"
    return "running"


def _die_with_parent() -> None:
    """This process gets SIGKILL when the fork server ends (the arena kills the server's group,
    which a match process in a session of its own is not part of)."""
    parent = os.getppid()
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:   # the server ended before the line above
        os._exit(0)


def fork_server(settings: dict[str, Any]) -> None:
    control = socket.socket(fileno=settings["control"])
    boxed = settings["boxed"] = settings["boxed"] and os.getpid() == 1
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
                signal.SIGPIPE, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)   # Ctrl-C is the arena's; no bot may signal this process
    resource.setrlimit(resource.RLIMIT_CORE, (1, 1))   # see apply_limits
    try:
        import numpy  # noqa: F401  (imported once here, so that each match only forks)

        import agents  # noqa: F401
        import engines  # noqa: F401
    except Exception as e:
        control.send(json.dumps({"error": describe(e)}).encode())
        return
    if boxed and not single_threaded():   # see fork_into_new_namespaces
        control.send(json.dumps({"error": "the fork server runs more than one thread"}).encode())
        return
    if boxed:   # before any bot runs: it cannot add any
        settings["keep"] = mount_points()
        settings["hidden"] = write_constants()
        settings["uid"], settings["gid"] = os.getuid(), os.getgid()
        with os.fdopen(settings["bot_filter"], "rb") as f:
            settings["bot_filter"] = f.read()
    control.send(b'{"ready": true}')
    child, status_r = 0, -1
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 64, 3)
        except OSError:
            return
        if message == b"status":   # the match's process closed its pipes: how did it end?
            control.send(json.dumps({"status": _status(child, status_r)}).encode())
            continue
        if message == b"clean":   # the match is over: nothing of it may run while the box waits
            try:
                clean(boxed, child)
            except OSError as e:
                control.send(json.dumps({"error": f"cannot clean up the match: {describe(e)}"}).encode())
                return
            child = 0
            control.send(b'{"clean": true}')
            continue
        if message != b"match" or len(fds) != 3:
            return
        try:
            clean(boxed, child)
        except OSError as e:
            control.send(json.dumps({"error": f"cannot clean up the previous match: {describe(e)}"}).encode())
            return
        if status_r >= 0:
            os.close(status_r)
        status_r, status_w = os.pipe() if boxed else (-1, -1)
        child = fork_into_new_namespaces() if boxed else os.fork()
        if child == 0:
            try:
                control.close()
                if status_r >= 0:
                    os.close(status_r)
                _match_process(settings, fds, status_w)
            except Exception as e:   # the box cannot make the match's world: said where its author looks
                os.write(fds[2], f"the sandbox could not start the match: {describe(e)}\n".encode())
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        if status_w >= 0:
            os.close(status_w)
        control.send(json.dumps({"started": time.time()}).encode())


if __name__ == "__main__":
    fork_server(json.loads(sys.argv[1]))
