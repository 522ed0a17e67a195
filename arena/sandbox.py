"""Submitted agents run in a sandbox: a process of their own under bubblewrap, with resource limits.

What a sandboxed bot gets (`bwrap`, the default): new user, pid, ipc, uts, network and cgroup
namespaces, uid 65534, a read-only view of the Python runtime and installed packages, its own code
(staged at the start of the run) read-only at /bot, an empty private /tmp, a minimal environment,
and resource limits (address space, CPU time, processes, file size, open files). It sees no store,
no project tree, no other bot, no arena process and no network. It dies with the arena.

The arena sends each request as a frame of pickled data it built; the bot answers with JSON plain
data (arena.wire), validated here and never unpickled. Every request waits at most its time limit:
a bot that does not answer in time is killed and faults with "timeout", a bot whose process dies
faults with "crash", an exception in the bot's code is "exception", and a reply that is not a legal
action (or not a well-formed reply) is "illegal".

A bot's process is kept between matches (one per bot and seat in use, per worker), so the start-up
cost is paid once per worker, not per match; a process that faulted is replaced.
"""
import atexit
import hashlib
import importlib.util
import json
import os
import pickle
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time

from arena.agent_list import code_param
from arena.bot_server import RLIMITS
from arena.match import SandboxPolicy
from arena.text import printable
from arena.wire import WireError, read_json, write_frame

STARTUP_LIMIT = 60.0   # seconds to start the interpreter and load the agent's class
SANDBOXES = ("bwrap", "none")
# name -> (default, unit, what it limits); per bot process.
LIMITS = {
    "memory": (2048, "MiB", "address space"),
    "cpu": (3600, "s", "CPU time; the process is replaced once it has used half"),
    "processes": (32, "", "processes and threads"),
    "file_size": (16, "MiB", "size of a file it writes (in its private /tmp)"),
    "open_files": (64, "", "open file descriptors"),
}
assert set(LIMITS) == set(RLIMITS)
BOT_ROOT = "/bot"   # where a sandboxed bot's code is, read-only


class AgentFault(Exception):
    """An agent misbehaved: kind is exception, illegal, timeout or crash."""

    def __init__(self, kind, message):
        message = printable(message, 300, keep="")
        super().__init__(f"{kind}: {message}")
        self.kind, self.message = kind, message


# ---------------------------------------------------------------- policy

def make_policy(mode="bwrap", limits=()):
    """A SandboxPolicy from --sandbox and --bot-limit NAME=VALUE pairs; ValueError on a bad one."""
    if mode not in SANDBOXES:
        raise ValueError(f"unknown sandbox {mode!r}; choose {' or '.join(SANDBOXES)}")
    values = {name: default for name, (default, _, _) in LIMITS.items()}
    for name, value in limits:
        if name not in LIMITS:
            raise ValueError(f"unknown bot limit {name!r}; limits: {', '.join(LIMITS)}")
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = 0
        if not 1 <= number <= 1 << 30:
            raise ValueError(f"bot limit {name} must be a whole number from 1 to {1 << 30}, not {value!r}")
        values[name] = number
    return SandboxPolicy(mode, tuple(sorted(values.items())))


DEFAULT_POLICY = make_policy()


def unconfined_note(config):
    """The warning every view of a run shows when agents' code ran without the sandbox."""
    agents = config.get("agents", [])
    if config.get("sandbox", {}).get("mode") == "none" and any(
            a.get("kind", "builtin") != "builtin" or code_param(a.get("source"), a.get("params", {}))
            for a in agents):
        return ("sandbox: none - the submitted agents ran unconfined (--sandbox none), so nothing "
                "stopped them from reading hidden cards or forging results")
    return None


def check_available(policy):
    """ValueError (one line) unless submitted agents can run under `policy` on this machine."""
    if policy.mode != "bwrap":
        return
    if not sys.platform.startswith("linux") or shutil.which("bwrap") is None:
        raise ValueError("submitted agents run in a bubblewrap sandbox, and `bwrap` is not installed: "
                         "install the bubblewrap package (apt install bubblewrap), or pass --sandbox none "
                         "to run them unconfined (only for bots you trust)")
    probe = subprocess.run(_bwrap_prefix(None) + [sys.executable, "-I", "-c", "import engines, agents"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if probe.returncode:
        why = (probe.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        raise ValueError(f"the bubblewrap sandbox does not start here ({printable(why)}); "
                         f"pass --sandbox none to run submitted agents unconfined")


# ---------------------------------------------------------------- staged code

def _cache_root():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tabletop-arena", "bots")


def _code_origin(spec):
    """The file or package directory holding a submitted agent's code."""
    where = spec.target.rpartition(":")[0]
    if spec.kind == "file":
        return where
    try:
        found = importlib.util.find_spec(where.split(".")[0])
    except (ImportError, ValueError):
        found = None
    if found is None:
        raise ValueError(f"agent {spec.label}: no module {where}")
    if found.submodule_search_locations:
        return list(found.submodule_search_locations)[0]
    return found.origin


def _read_code(origins):
    """(path relative to the origin's folder, content) of every file of the code in `origins` (files
    or package folders), sorted; no caches."""
    out = []
    for origin in origins:
        if os.path.isfile(origin):
            paths = [origin]
        else:
            paths = []
            for folder, dirs, files in os.walk(origin):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                paths += [os.path.join(folder, f) for f in sorted(files) if not f.endswith((".pyc", ".pyo"))]
        base = os.path.dirname(origin.rstrip(os.sep))
        for path in paths:
            with open(path, "rb") as f:
                out.append((os.path.relpath(path, base), f.read()))
    return out


def _digest(files):
    h = hashlib.sha256()
    for rel, content in files:
        h.update(f"{rel}\0{len(content)}\0".encode())
        h.update(content)
    return h.hexdigest()[:32]


def stage(spec):
    """Copies a submitted agent's code into a private, read-only, content-addressed place, and
    returns the spec with its digest: later edits of the original never change the bot."""
    if not spec.submitted:
        return spec
    if spec.code and _intact(spec.code):
        return spec   # the copy made when the run started
    try:
        files = _read_code([_code_origin(spec)])
    except OSError as e:
        raise ValueError(f"agent {spec.label}: cannot read its code: {e}") from None
    digest = _digest(files)
    if spec.code and spec.code != digest:
        raise ValueError(f"agent {spec.label}: its code changed since the run started, and the copy "
                         f"made then is gone; start a new run")
    target = code_dir(digest)
    if not _intact(digest):
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(target))
        for rel, content in files:
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(content)
            os.chmod(path, 0o444)
        shutil.rmtree(target, ignore_errors=True)
        os.chmod(tmp, 0o755)
        try:
            os.rename(tmp, target)
        except OSError:   # another process staged the same code at the same moment
            shutil.rmtree(tmp, ignore_errors=True)
            if not _intact(digest):
                raise ValueError(f"agent {spec.label}: cannot stage its code in {target}") from None
    return type(spec)(spec.label, spec.source, spec.params, spec.kind, spec.target, digest)


def code_dir(digest):
    return os.path.join(_cache_root(), digest)


_verified: set[str] = set()


def _intact(digest):
    """Whether the staged copy `digest` exists and still has exactly its content."""
    if digest in _verified:
        return True
    root = code_dir(digest)
    if not os.path.isdir(root):
        return False
    if _digest(_read_code(sorted(os.path.join(root, entry) for entry in os.listdir(root)))) != digest:
        return False
    _verified.add(digest)
    return True


def _load_target(spec, root):
    """What the bot server loads, relative to where the staged code is seen from inside."""
    where, _, cls = spec.target.rpartition(":")
    if spec.kind == "file":
        return f"{os.path.join(root, os.path.basename(where))}:{cls}"
    return spec.target


# ---------------------------------------------------------------- the sandbox command

def _bwrap_prefix(code, tmp_mib=LIMITS["memory"][0]):
    """The bwrap command line up to the program: `code` is the staged directory shown at /bot, and
    the private /tmp (in memory) holds at most `tmp_mib` MiB."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--uid", "65534",
            "--gid", "65534", "--hostname", "arena-bot", "--proc", "/proc", "--dev", "/dev",
            "--size", str(tmp_mib << 20), "--tmpfs", "/tmp", "--chdir", "/tmp", "--clearenv"]
    for name, value in _environment().items():
        args += ["--setenv", name, value]
    for top in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.exists(top):
            args += ["--ro-bind", top, top]
    for path in _runtime_paths():
        args += ["--ro-bind", path, path]
    if code is not None:
        args += ["--ro-bind", code, BOT_ROOT]
    return args


def _runtime_paths():
    """The Python runtime, its installed packages and this project's packages (for states and the
    Agent base class), and nothing else of the file system."""
    import agents
    import engines
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    paths.update(p for p in site.getsitepackages() if os.path.isdir(p))
    for package in (engines, agents, sys.modules["arena"]):
        paths.add(os.path.dirname(os.path.abspath(package.__file__)))
    paths = sorted(os.path.realpath(p) for p in paths) + sorted(paths)
    kept = []
    for p in paths:   # only the outermost of nested paths, each once
        if not any(p == k or p.startswith(k.rstrip(os.sep) + os.sep) for k in kept):
            kept.append(p)
    return [p for p in kept if not p.startswith("/usr/") and p != "/usr"]


def _environment():
    return {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class _Cgroups:
    """Per-bot cgroups, where this process may create them (root, cgroup v1): a pids cgroup (the
    RLIMIT_NPROC limit does not count root's processes) and a memory cgroup, so that the limits hold
    for all of a bot's processes together. Elsewhere the per-process rlimits alone apply."""

    ROOT = "/sys/fs/cgroup"
    _count = 0

    def __init__(self, limits, enabled=True):
        self.paths = []
        if not enabled or os.geteuid() != 0:
            return
        if _Cgroups._count == 0:
            self._sweep()
        _Cgroups._count += 1
        name = f"{os.getpid()}-{self._count}"
        settings = {"pids": ("pids.max", limits["processes"] + 4),   # the bot's, bwrap's and its init's
                    "memory": ("memory.limit_in_bytes", (limits["memory"] + 32) << 20)}
        for controller, (knob, value) in settings.items():
            path = os.path.join(self.ROOT, controller, "tabletop-arena", name)
            try:
                os.makedirs(path, exist_ok=True)
                with open(os.path.join(path, knob), "w") as f:
                    f.write(str(value))
                self.paths.append(path)
            except OSError:
                pass

    @classmethod
    def _sweep(cls):
        """Removes the cgroups left by arena processes that are gone (a worker exits without cleaning up)."""
        for controller in ("pids", "memory"):
            folder = os.path.join(cls.ROOT, controller, "tabletop-arena")
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                try:
                    os.kill(int(name.split("-")[0]), 0)
                except ProcessLookupError:
                    try:
                        os.rmdir(os.path.join(folder, name))
                    except OSError:
                        pass
                except (ValueError, OSError):
                    pass

    def wrap(self, command):
        """The command, run from inside the cgroups (the shell moves itself in, then execs)."""
        if not self.paths:
            return command
        procs = " ".join(os.path.join(p, "cgroup.procs") for p in self.paths)
        return ["sh", "-c", 'for p in $0; do echo $$ > "$p" || exit 1; done; exec "$@"', procs] + command

    def remove(self):
        for path in self.paths:
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


# ---------------------------------------------------------------- the bot's process

class RemoteAgent:
    """A submitted agent in its sandboxed process, with the `reset`/`act` interface of agents.Agent."""

    def __init__(self, spec, time_limit=0.0, policy=None, pool=None, staged=True):
        """`staged=False` loads an installed module as it is (a built-in agent under check-agent)."""
        policy = policy or DEFAULT_POLICY
        spec = stage(spec) if staged else spec
        self.spec, self.policy, self.pool = spec, policy, pool
        self.time_limit = time_limit or None
        self.broken, self.cpu = False, 0.0
        limits = policy.limits_dict()
        code = code_dir(spec.code) if staged else None
        inner = BOT_ROOT if policy.mode == "bwrap" and code else code
        settings = json.dumps({"limits": limits, "code_dir": inner})
        server = [sys.executable, "-I", "-m", "arena.bot_server", settings]
        self._cgroups = _Cgroups(limits, enabled=policy.mode == "bwrap")
        if policy.mode == "bwrap":
            command = self._cgroups.wrap(_bwrap_prefix(code, limits["memory"]) + server)
            env = _environment()
        else:
            pdeath = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
            command, env = pdeath + server, dict(_environment(), PATH=os.environ.get("PATH", ""))
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        self._out, self._in = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        try:
            self._call(("load", spec.kind, _load_target(spec, inner), dict(spec.params)), STARTUP_LIMIT)
        except AgentFault:
            self.kill()
            raise

    def _call(self, message, limit):
        if self.proc.poll() is not None:
            self.broken = True
            raise AgentFault("crash", self._death())
        try:
            write_frame(self._out, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
            reply = read_json(self._in, time.monotonic() + limit if limit else None)
        except (BrokenPipeError, OSError):
            self.broken = True
            raise AgentFault("crash", self._death()) from None
        except WireError as e:
            self.broken = True
            if e.timeout:
                self.kill()
                raise AgentFault("timeout", f"no answer within {limit:g} s") from None
            if self.proc.poll() is not None or str(e) == "closed its end of the pipe":
                raise AgentFault("crash", self._death()) from None
            raise AgentFault("illegal", f"broke the protocol: {e}") from None
        if "error" in reply:
            self.broken = True
            raise AgentFault("exception", reply["error"])
        return reply

    def _death(self):
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return "the agent's process stopped answering"
        if self.policy.mode == "bwrap" and code > 128:
            code = 128 - code   # bwrap exits with 128 + the signal that killed the bot
        if code < 0:
            try:
                return f"the agent's process was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"the agent's process was killed by signal {-code}"
        return f"the agent's process exited with code {code}"

    def reset(self, game_id, game_params, seat, seed):
        limit = max(self.time_limit or 0.0, 10.0)
        reply = self._call(("reset", game_id, game_params, seat, seed), limit)
        cpu = reply.get("cpu")
        self.cpu = cpu if isinstance(cpu, (int, float)) and not isinstance(cpu, bool) else 0.0

    def act(self, state, check=False):
        """The agent's action for `state`; with check=True, (action, whether it modified the state)."""
        reply = self._call(("act", state, check), self.time_limit)
        action, modified = reply.get("action"), reply.get("modified", False)
        if type(action) is not int or (check and type(modified) is not bool):
            self.broken = True
            returned = reply.get("returned")
            raise AgentFault("illegal", f"returned {returned}, not a legal action" if isinstance(returned, str)
                             else "sent a malformed reply")
        return (action, modified) if check else action

    def close(self):
        """Done with this match: back to the pool when healthy and not near its CPU limit."""
        half_cpu = self.policy.limits_dict()["cpu"] / 2
        if self.pool is not None and not self.broken and self.proc.poll() is None and self.cpu < half_cpu:
            self.pool.put(self)
        else:
            self.kill()

    def kill(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self._cgroups.remove()


class BotPool:
    """Idle bot processes of this worker, by agent and policy, reused across matches."""

    def __init__(self):
        self.idle = {}

    def get(self, spec, time_limit, policy):
        policy = policy or DEFAULT_POLICY
        idle = self.idle.get((spec, policy))
        if idle:
            agent = idle.pop()
            agent.time_limit = time_limit or None
            return agent
        return RemoteAgent(spec, time_limit, policy, pool=self)

    def put(self, agent):
        self.idle.setdefault((agent.spec, agent.policy), []).append(agent)

    def close(self):
        idle, self.idle = self.idle, {}
        for agents in idle.values():
            for agent in agents:
                agent.kill()


POOL = BotPool()
atexit.register(POOL.close)




def validate(spec, policy=None):
    """None if a submitted agent loads and instantiates with its parameters, else the error text."""
    try:
        agent = RemoteAgent(spec, policy=policy)
    except AgentFault as f:
        return f.message
    agent.kill()
    return None


def validate_all(specs, policy=None):
    """Raises ValueError (one line) for the first submitted agent that does not load and instantiate."""
    policy = policy or DEFAULT_POLICY
    submitted = [s for s in specs if s.submitted]
    if submitted:
        check_available(policy)
    for spec in submitted:
        problem = validate(spec, policy)
        if problem:
            raise ValueError(f"agent {spec.label} ({spec.source}): {problem}")
