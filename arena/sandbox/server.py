"""Inside the sandbox: a fork server, and the fresh process it forks for every match.

`python -I -m arena.sandbox.server SETTINGS` (arena.sandbox.confine.python_command) starts the fork
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
import json
import operator
import os
import pickle
import resource
import shutil
import signal
import socket
import sys
import time
import traceback
from typing import AbstractSet, Any, Callable, Mapping, Optional

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
    """Soft and hard limits at once: the bot cannot raise them again."""
    for name, (which, unit) in RLIMITS.items():
        if name in limits:
            value = int(limits[name] * unit) + (EXTRA_PROCESSES if name == "processes" else 0)
            resource.setrlimit(which, (value, value))


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


def serve(requests: int, replies: int, output: int, code_dir: Optional[str]) -> None:
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


def mount_points() -> set[str]:
    """The mount points of this box (the runtime may be bound under /tmp, as in a CI clone)."""
    with open("/proc/self/mountinfo") as f:
        return {line.split()[4] for line in f}


def _empty(folder, keep):
    """Removes everything in `folder` but the mount points in `keep` and the folders leading to
    them, whatever permissions the bot gave it."""
    for entry in os.listdir(folder):
        path = os.path.join(folder, entry)
        if path in keep:
            continue
        if any(k.startswith(path + "/") for k in keep):
            _empty(path, keep)
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            for top, dirs, _ in os.walk(path):
                for d in dirs:
                    if not os.path.islink(os.path.join(top, d)):
                        os.chmod(os.path.join(top, d), 0o700)
            os.chmod(path, 0o700)
            shutil.rmtree(path)
        else:
            os.unlink(path)


def clean(boxed: bool, previous: int, keep: AbstractSet[str] = frozenset()) -> None:
    """Nothing of the previous match survives: in the sandbox, no process and no file (but the
    mount points `keep`)."""
    if boxed:
        _kill_the_rest()
        for folder in WRITABLE:
            if os.path.isdir(folder):
                _empty(folder, keep)
    elif previous:   # a plain process (--sandbox none): only its own process group
        try:
            os.killpg(previous, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.waitpid(previous, 0)
        except ChildProcessError:
            pass


def _status(child, wait=2.0):
    """The exit code of the match's process (-N: killed by signal N), or "running" once it has
    been killed for not ending within `wait` seconds of closing its pipes."""
    deadline = time.monotonic() + wait
    while child:
        try:
            pid, status = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:   # reaped already, by the wipe of a previous request
            return "running"
        if pid:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(child, signal.SIGKILL)
            return "running"
        time.sleep(0.01)
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
    boxed = settings["boxed"] and os.getpid() == 1
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
                signal.SIGPIPE, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)   # Ctrl-C is the arena's; no bot may signal this process
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        import numpy  # noqa: F401  (imported once here, so that each match only forks)
        import agents  # noqa: F401
        import engines  # noqa: F401
    except Exception as e:
        control.send(json.dumps({"error": describe(e)}).encode())
        return
    keep = mount_points() if boxed else frozenset()   # before any bot runs: it cannot add any
    control.send(b'{"ready": true}')
    child = 0
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 64, 3)
        except OSError:
            return
        if message == b"status":   # the match's process closed its pipes: how did it end?
            control.send(json.dumps({"status": _status(child)}).encode())
            continue
        if message == b"clean":   # the match is over: nothing of it may run while the box waits
            try:
                clean(boxed, child, keep)
            except OSError as e:
                control.send(json.dumps({"error": f"cannot clean up the match: {describe(e)}"}).encode())
                return
            child = 0
            control.send(b'{"clean": true}')
            continue
        if message != b"match" or len(fds) != 3:
            return
        try:
            clean(boxed, child, keep)
        except OSError as e:
            control.send(json.dumps({"error": f"cannot clean up the previous match: {describe(e)}"}).encode())
            return
        child = os.fork()
        if child == 0:
            try:
                control.close()
                if not boxed:
                    os.setsid()   # its own group, which clean() kills whole ...
                    _die_with_parent()   # ... and which dies if this server is killed first
                apply_limits(settings["limits"])
                serve(fds[0], fds[1], fds[2], settings["code_dir"])
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"started": time.time()}).encode())


if __name__ == "__main__":
    fork_server(json.loads(sys.argv[1]))
