"""The arena's side of a submitted agent: its box (`Box`), a fresh process in it for every match
(`RemoteAgent`), and the boxes a worker keeps between matches (`BotPool`).

A request waits at most its deadline, for the write as for the reply: a bot that does not take
its request or does not answer in time faults with "timeout", a bot whose process dies faults with
"crash", an exception in the bot's code is "exception", and a reply that is not a legal action, or
that cannot even be read, is "illegal". After any fault the box is discarded. Between its moves a
bot's processes are frozen, and while it moves they share one CPU. What the bot prints in a match
is read while the arena waits on it (arena.sandbox.wire.Output) and kept: `RemoteAgent.captured`,
or a load fault's `output`.
"""
import atexit
import dataclasses
import json
import multiprocessing.util
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, Optional

from arena.match import AgentSpec, SandboxPolicy
from arena.sandbox import confine, copies
from arena.sandbox.exec_host import public_action
from arena.sandbox.policy import DEFAULT_POLICY, AgentFault
from arena.sandbox.staging import _load_target, code_dir, stage
from arena.sandbox.wire import Output, WireError, nonblocking, read_json, write_frame
from arena.text import printable
from engines.core import GameState

STARTUP_LIMIT = 60.0   # seconds to start a box (the interpreter, numpy and the engines)
LOAD_LIMIT = 30.0      # seconds for a match's process to load the agent's class
CONTROL_LIMIT = 30.0   # seconds for the fork server to clean up and fork


class Box:
    """One sandbox (or, with --sandbox none, one plain process) running the fork server of
    arena.sandbox.fork_server; `start_match` gives a fresh process's request and reply pipes."""

    _count = 0

    def __init__(self, spec, policy, staged=True):
        self.spec, self.policy, self.staged = spec, policy, staged
        limits = policy.limits_dict()
        boxed = policy.mode == "bwrap"
        code = os.path.realpath(code_dir(spec.code)) if staged else None   # a kept upload's copy, not its link
        self.inner_code = confine.BOT_ROOT if boxed and code else code
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control, their_fd = ours, theirs.detach()   # the fd is the child's: closed below, once
        bot_filter = confine._data_fd(confine.seccomp_program()) if boxed else -1
        settings = json.dumps({"limits": limits, "code_dir": self.inner_code, "control": their_fd,
                               "boxed": boxed, "bot_filter": bot_filter})
        server = confine.python_command("arena.sandbox.fork_server", settings)
        Box._count += 1
        if Box._count == 1:
            confine.Cgroup.sweep()
        _close_at_exit()
        self.slot = None
        self.name = f"{os.getpid()}-{Box._count}"
        self.cgroup = confine.Cgroup(self.name, limits) if boxed else None
        pass_fds = [their_fd]
        if boxed:
            root = os.geteuid() == 0
            if root:
                self.slot, bot_uid = confine.BOT_UIDS.take()
            view = copies.with_copies(self.view(code))
            code_copy = copies.code_copy(code, self.name) if code else None
            if code and code_copy:
                view = dataclasses.replace(view, copies=view.copies + ((code, code_copy),))
            # Before the bot runs: no page it sees from the host is cold (a copy's never is).
            confine.warm(view + confine.View((code,) if code else ()))
            seccomp = confine._data_fd(confine.seccomp_program("server"))
            assert self.cgroup is not None   # made when boxed
            argv = self.cgroup.wrap(confine.command(server, code, limits, seccomp, {},
                                                    bot_uid if root else None, per_match=True, view=view))
            pass_fds += [seccomp, bot_filter]
            env = confine.environment()
            if not self.cgroup.available and shutil.which("taskset"):
                argv = ["taskset", "-c", str(confine.one_cpu())] + argv   # one CPU, without a cgroup
        else:
            pdeath = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
            argv, env = pdeath + server, dict(confine.environment(), PATH=os.environ.get("PATH", ""))
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=env, pass_fds=pass_fds, start_new_session=True)
        finally:
            for fd in pass_fds:
                os.close(fd)
        self.freezer: Any = None
        self.frozen, self.over_memory = False, False
        self.memory_limit: int | None = None   # bytes, where the arena counts the box's memory
        try:
            reply = self._control(None, STARTUP_LIMIT)
        except AgentFault:
            self.kill()
            raise
        if "error" in reply:
            self.kill()
            raise AgentFault("crash", f"the sandbox did not start: {reply['error']}")
        if boxed:
            leader = self.server_pid()
            group = confine.GroupStop(leader)
            self.freezer = self.cgroup.freezer(leader) if self.cgroup and self.cgroup.available else group
            self.memory_limit = None if self.cgroup and self.cgroup.available else limits["memory"] << 20
            if self.memory_limit:
                self.members = group
                MEMORY_WATCH.add(self)

    def view(self, code: str | None) -> confine.View:
        """What this box shows of the host: the Python runtime of its fork server, an exec bot's
        program with what that needs (its staged code, host folder `code`, is bound at /bot)."""
        view = confine.python_view()
        if self.spec.kind == "exec" and code:
            program = json.loads(_load_target(self.spec, code))["command"][0]
            view += confine.program_view(program, code if program.startswith(code + os.sep) else None)
        return view

    def server_pid(self) -> int:
        """The host pid of the box's fork server (the first process below the box's command that
        runs this Python)."""
        for pid in confine.descendants(self.proc.pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f.read().split(b"\0", 1)[0] == os.fsencode(sys.executable):
                        return pid
            except OSError:
                continue
        self.kill()
        raise AgentFault("crash", "the sandbox did not start: its fork server is not to be found")

    def _control(self, message, limit, fds=()):
        """Sends the fork server `message` (None: only waits) with `fds`; returns its JSON answer."""
        self.thaw()
        try:
            if message is not None:
                socket.send_fds(self.control, [message], list(fds))
            self.control.settimeout(limit)
            answer = self.control.recv(4096)
        except TimeoutError:
            raise AgentFault("timeout", f"its sandbox did not answer within {limit:g} s") from None
        except OSError:
            answer = b""
        if not answer:
            raise AgentFault("crash", self.death())
        try:
            value = json.loads(answer)
        except (ValueError, RecursionError):
            raise AgentFault("crash", "its sandbox broke the protocol") from None
        return value if isinstance(value, dict) else {"error": "a malformed answer"}

    def start_match(self) -> tuple[int, int, int]:
        """(write end of the requests, read end of the replies, read end of the output) of a fresh
        process."""
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            reply = self._control(b"match", CONTROL_LIMIT, [req_r, rep_w, out_w])
        except AgentFault:
            for fd in (req_w, rep_r, out_r):
                os.close(fd)
            raise
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)
        if "started" not in reply:
            for fd in (req_w, rep_r, out_r):
                os.close(fd)
            raise AgentFault("crash", f"its sandbox failed: {printable(reply.get('error', 'no reason'))}")
        return nonblocking(req_w), rep_r, out_r

    def end_match(self) -> None:
        """Kills what the match left and leaves the box thawed and idle, with nothing in it but its
        fork server waiting: nothing of a match runs between matches."""
        reply = self._control(b"clean", CONTROL_LIMIT)
        if not reply.get("clean"):
            raise AgentFault("crash", f"its sandbox failed: {printable(reply.get('error', 'no reason'))}")

    def match_ended(self) -> str:
        """Why the match's process stopped answering, from the fork server."""
        try:
            status = self._control(b"status", 10.0).get("status")
        except AgentFault:
            return self.death()
        if status == "running":
            return "the agent's process closed its pipes"
        return _exit_text(status) if isinstance(status, int) else "the agent's process ended"

    def freeze(self) -> None:
        """Stops every process of the box; StillRunning (the bot's fault) if they would not stop."""
        if self.freezer is not None and not self.frozen and self.alive():
            self.frozen = True
            self.freezer.freeze(True)

    def thaw(self) -> None:
        if self.freezer is not None and self.frozen:
            self.freezer.freeze(False)
            self.frozen = False

    def alive(self) -> bool:
        return self.proc.poll() is None

    def death(self) -> str:
        if self.over_memory:
            return (f"its processes used more than {(self.memory_limit or 0) >> 20} MiB together "
                    f"(--bot-limit memory) and were killed")
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return "the agent's process stopped answering"
        if self.policy.mode == "bwrap" and code > 128:
            code = 128 - code   # bwrap exits with 128 + the signal that killed the bot
        return _exit_text(code)

    def kill_processes(self) -> None:
        """SIGKILL to every process of the box (its session)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            self.proc.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.thaw()   # a task frozen by cgroup v1 would not die until thawed
            self.kill_processes()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.control.close()
        if self.cgroup is not None:
            self.cgroup.remove()
        copies.remove_box(self.name)
        if self.slot is not None:
            confine.BOT_UIDS.give_back(self.slot)
            self.slot = None


def _exit_text(code):
    if code < 0:
        try:
            return f"the agent's process was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the agent's process was killed by signal {-code}"
    return f"the agent's process exited with code {code}"


class RemoteAgent:
    """A submitted agent in a fresh process of its box, for one match, with the `reset`/`act`
    interface of agents.Agent."""

    clock = None   # the referee's reading of its clock before each move, under a time control

    def __init__(self, spec: AgentSpec, time_limit: float = 0.0, policy: SandboxPolicy | None = None,
                 pool: Optional["BotPool"] = None, staged: bool = True) -> None:
        """`staged=False` loads an installed module as it is (a built-in agent under check-agent)."""
        policy = policy or DEFAULT_POLICY
        spec = stage(spec) if staged else spec
        self.spec, self.policy, self.pool = spec, policy, pool
        self.time_limit = time_limit or None
        self.broken = False
        # an exec agent's seat, and the public actions since its last move
        self.seat: int | None = None
        self.public: list[dict[str, Any]] = []
        self.box = pool.take(spec, policy, staged) if pool is not None else Box(spec, policy, staged)
        try:
            self._out, self._in, output = self.box.start_match()
        except AgentFault:
            self.box.kill()
            raise
        self.output = Output(output)
        try:
            target = _load_target(spec, self.box.inner_code)
            self._call(("load", spec.kind, target, dict(spec.params), {"time_limit": self.time_limit}), LOAD_LIMIT)
        except AgentFault as f:
            self.kill()
            f.output = self.captured()
            raise

    def _call(self, message, limit, late=None):
        """The reply to `message` within `limit` seconds (None: no limit); `late` says why, for a
        timeout (the per-move limit when not given)."""
        if not self.box.alive():
            self.broken = True
            raise AgentFault("crash", self.box.death())
        deadline = time.monotonic() + limit if limit else None
        self.box.thaw()
        try:
            write_frame(self._out, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL), deadline, self.output)
            reply = read_json(self._in, deadline, self.output)
            self.output.read()   # what it printed before its reply, still in the pipe
        except WireError as e:
            self.broken = True
            if e.timeout:
                self.kill()
                if late:
                    raise AgentFault("timeout", f"{late}: no answer within the {limit:.3g} s left on it") from None
                raise AgentFault("timeout", f"no answer within {limit:g} s" if "answer" in str(e)
                                 else f"did not take its request within {limit:g} s") from None
            if not self.box.alive():
                raise AgentFault("crash", self.box.death()) from None
            if str(e) == "closed its end of the pipe":
                raise AgentFault("crash", self.box.match_ended()) from None
            raise AgentFault("illegal", f"broke the protocol: {e}") from None
        except OSError:
            self.broken = True
            raise AgentFault("crash", self.box.death() if not self.box.alive() else self.box.match_ended()) from None
        finally:
            if not self.broken:
                self._freeze()
        if "error" in reply:
            self.broken = True
            raise AgentFault("exception", printable(reply["error"]))
        fault = reply.get("fault")   # an exec bot's protocol fault, as the adapter in its box saw it
        if isinstance(fault, dict) and fault.get("kind") in ("illegal", "timeout") and isinstance(fault.get("message"), str):
            self.broken = True
            raise AgentFault(fault["kind"], fault["message"])
        return reply

    def _freeze(self):
        try:
            self.box.freeze()
        except confine.StillRunning as e:
            self.broken = True
            self.kill()
            raise AgentFault("illegal", str(e)) from None

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        self.seat, self.public = seat, []
        self._call(("reset", game_id, game_params, seat, seed), max(self.time_limit or 0.0, 10.0))

    def act(self, state: GameState, check: bool = False) -> int | tuple[int, bool]:
        """The agent's action for `state`; with check=True, (action, whether it modified the state)."""
        public = None
        if self.spec.kind == "exec":   # with the public actions since its last move
            public, self.public = self.public, []
        limit, late = self.time_limit, None
        if self.clock is not None and (limit is None or self.clock.remaining < limit):
            limit, late = self.clock.remaining, "ran out of its clock"
        reply = self._call(("act", state, check, public, self.clock), limit, late)
        action, modified = reply.get("action"), reply.get("modified", False)
        if type(action) is not int or (check and type(modified) is not bool):
            self.broken = True
            returned = reply.get("returned")
            raise AgentFault("illegal", f"returned {printable(returned)}, not a legal action"
                             if isinstance(returned, str) else "sent a malformed reply")
        return (action, modified) if check else action

    def saw(self, state: GameState, mover: int, action: int) -> None:
        """`action` of seat `mover`, about to be applied to the true `state`: kept, as this seat
        sees it, for an exec agent's next request (nothing crosses to the box until then)."""
        if self.spec.kind == "exec" and self.seat is not None:
            self.public.append(public_action(state, self.seat, mover, action))

    def end(self, returns: Sequence[float]) -> None:
        """The match is over: an exec agent is told its returns (its process then ends)."""
        if self.spec.kind == "exec" and not self.broken and self._out >= 0:
            try:
                self._call(("end", [float(r) for r in returns]), 5.0)
            except AgentFault:
                pass

    def _close_pipes(self):
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        self._out = self._in = -1

    def close(self) -> None:
        """Done with this match: its process ends; a healthy box goes back to the pool."""
        if self._out < 0:
            return
        self._close_pipes()
        if self.pool is not None and not self.broken and self.box.alive():
            try:
                self.box.end_match()
            except AgentFault:
                self.box.kill()
            else:
                self.pool.put(self.box)
        else:
            self.box.kill()
        self.output.close()

    def kill(self) -> None:
        """Done with this box: its processes are killed."""
        if self._out >= 0:
            self._close_pipes()
        self.box.kill()
        self.output.close()

    def captured(self) -> dict[str, Any] | None:
        """What the agent printed in this match, once it is closed: {"text", "cut"} (cut: the bytes
        printed beyond the text, which were not kept), or None if it printed nothing."""
        if not self.output.kept and not self.output.cut:
            return None
        return {"text": self.output.text(), "cut": self.output.cut}


class MemoryWatch:
    """The memory of every box without a cgroup (an arena that is not root, or ARENA_CGROUPS=off),
    counted as a whole: while a box runs (it is frozen otherwise, and cannot grow), a thread adds
    up the resident anonymous memory of all its processes every PERIOD seconds and kills the box
    past its limit, the bot's fault ("crash", `Box.death` says why). Memory a process shares with
    the fork server it came from counts in each."""

    PERIOD = 0.1

    def __init__(self):
        self.boxes: weakref.WeakSet[Box] = weakref.WeakSet()
        self.lock, self.thread = threading.Lock(), None

    def add(self, box: Box) -> None:
        with self.lock:
            self.boxes.add(box)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._watch, name="box-memory", daemon=True)
                self.thread.start()

    def _watch(self):
        while True:
            time.sleep(self.PERIOD)
            with self.lock:
                boxes = [b for b in self.boxes if not b.frozen and b.alive() and b.memory_limit]
            for box in boxes:
                if resident(box.members) > (box.memory_limit or 0):
                    box.over_memory = True
                    box.kill_processes()


def resident(box: confine.GroupStop) -> int:
    """Bytes of resident anonymous memory of every process of a box."""
    total = 0
    for pid in box.members():
        try:
            with open(f"{box.proc}/{pid}/status") as f:
                total += sum(int(line.split()[1]) << 10 for line in f if line.startswith("RssAnon:"))
        except (OSError, ValueError, IndexError):
            pass
    return total


MEMORY_WATCH = MemoryWatch()


class BotPool:
    """Idle boxes of this worker, by agent and policy, each to start a fresh process per match."""

    def __init__(self):
        self.idle, self.lock = {}, threading.Lock()   # the web app takes boxes from several threads

    def take(self, spec: AgentSpec, policy: SandboxPolicy, staged: bool = True) -> Box:
        while True:
            with self.lock:
                idle = self.idle.get((spec, policy, staged))
                box = idle.pop() if idle else None
            if box is None:
                return Box(spec, policy, staged)
            if box.alive():
                return box
            box.kill()

    def get(self, spec: AgentSpec, time_limit: float, policy: SandboxPolicy | None) -> "RemoteAgent":
        return RemoteAgent(spec, time_limit, policy or DEFAULT_POLICY, pool=self)

    def put(self, box: Box) -> None:
        with self.lock:
            self.idle.setdefault((box.spec, box.policy, box.staged), []).append(box)

    def close(self) -> None:
        with self.lock:
            idle, self.idle = self.idle, {}
        for boxes in idle.values():
            for box in boxes:
                box.kill()


POOL = BotPool()
atexit.register(copies.remove_all)   # after the pool's boxes are closed (atexit runs the last first)
atexit.register(POOL.close)
_finalized_in: set = set()


def _close_at_exit():
    """A worker of a process pool ends with os._exit, past atexit: multiprocessing's own exit hook,
    registered in each process that starts a box, closes its pool there."""
    if os.getpid() not in _finalized_in:
        _finalized_in.add(os.getpid())
        multiprocessing.util.Finalize(POOL, POOL.close, exitpriority=100)
        multiprocessing.util.Finalize(POOL, copies.remove_all, exitpriority=99)


def check_available(policy: SandboxPolicy) -> None:
    """ValueError (one line) unless submitted agents can run under `policy` on this machine."""
    if policy.mode != "bwrap":
        return
    if confine.bwrap_missing():
        raise ValueError("submitted agents run in a bubblewrap sandbox, and `bwrap` is not installed: "
                         "install the bubblewrap package (apt install bubblewrap), or pass --sandbox none "
                         "to run them unconfined (only for bots you trust)")
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError) as e:
        raise ValueError(f"the sandbox's seccomp filter needs libseccomp ({printable(e)}): install the "
                         f"libseccomp2 package, or pass --sandbox none to run submitted agents unconfined") from None
    probe = AgentSpec("probe", "agents.simple:RandomAgent", (), "module", "agents.simple:RandomAgent")
    try:
        RemoteAgent(probe, 10.0, policy, staged=False).kill()
    except AgentFault as f:
        said = (f.output or {}).get("text", "").strip().splitlines()   # why the box could not start a match
        why = f"{f.message}: {printable(said[-1])}" if said else f.message
        raise ValueError(f"the bubblewrap sandbox does not start here ({why}); "
                         f"pass --sandbox none to run submitted agents unconfined") from None


def validate(spec: AgentSpec, policy: SandboxPolicy | None = None) -> str | None:
    """None if a submitted agent loads and instantiates with its parameters, else the error text."""
    try:
        agent = RemoteAgent(spec, policy=policy)
    except AgentFault as f:
        return f.message
    agent.kill()
    return None


def validate_all(specs: Iterable[AgentSpec], policy: SandboxPolicy | None = None) -> None:
    """Raises ValueError (one line) for the first submitted agent that does not load and instantiate."""
    policy = policy or DEFAULT_POLICY
    submitted = [s for s in specs if s.submitted]
    if submitted:
        check_available(policy)
    for spec in submitted:
        problem = validate(spec, policy)
        if problem:
            raise ValueError(f"agent {spec.label} ({spec.source}): {problem}")
