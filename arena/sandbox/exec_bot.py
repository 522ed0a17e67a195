"""Bots in any language: `exec:PATH` agents, spoken to in the Tabletop Bot Protocol v1
(docs/protocol.md): JSON lines over the bot program's stdin and stdout.

In the box, `ExecBot` is an agent class like any submitted Python class: the match process loads it
(arena.sandbox.server.load_class, kind "exec"), so the box, the deadlines, the freezer and the fault
rules are the same as for a Python bot. It starts the bot's command as its child, turns each
request into a protocol message and the bot's reply into an action id. It holds the determinized
state the arena sends (with every hidden card resampled), and sends the bot only
`observation(seat)`, the legal actions with their names, and the public actions the arena passes
it, each as `action_view` shows it to the seat; never anything else of the state.

The bot's faults are its own: a line that is not a JSON object, an unknown or unexpected message,
a line longer than 64 KiB, a line written when no request was pending, or an action that is not
legal is "illegal"; a bot that exits, or closes its output, is a "crash" (the match process ends
with the bot's own exit status, so the arena reports it as for a Python bot); a late reply is the
arena's "timeout". Every read and write of the adapter has a deadline, and it reads at most one
line's worth beyond what it needs, so no output of the bot can hang it or fill its memory.

On the host: `parse_exec` reads `exec:PATH` (a folder with a `bot.toml` manifest, or an executable
file); `staged_files` gives staging the bot's files, after its build command (if it has one) has
run in a box of its own; `load_target` names the staged command for the match process;
`public_action` is one action as an observer sees it.
"""
import json
import os
import select
import signal
import subprocess
import sys
import time

PROTOCOL = 1
MAX_LINE = 64 * 1024          # bytes in one line, either way, newline not counted
HELLO_LIMIT = 10.0            # seconds for the bot's hello (or the per-move limit, if longer)
EXIT_WAIT = 2.0               # seconds a bot that closed its output gets to exit
SEED_BITS = 53                # the seed in `start` is exact in every language's JSON numbers


class ExecFault(Exception):
    """The bot broke the protocol: `kind` is illegal or timeout, `what` what it sent (a noun phrase).
    `reply` is the match process's answer to the arena: no action, as from a Python bot that
    returned nonsense (the arena's "illegal: returned WHAT, not a legal action"), and the fault."""

    def __init__(self, kind, what):
        super().__init__(what)
        self.kind, self.what = kind, what

    @property
    def reply(self):
        message = self.what if self.kind == "timeout" else f"sent {self.what}"
        return {"action": None, "returned": self.what, "fault": {"kind": self.kind, "message": message}}


class BotExited(Exception):
    """The bot's process ended (or closed its output); `status` is its exit code, -N for signal N."""

    def __init__(self, status):
        super().__init__(f"status {status}")
        self.status = status


def _wait(fd, events, deadline):
    """Waits for `events` on `fd` until `deadline` (time.monotonic(); None: no limit)."""
    poller = select.poll()
    poller.register(fd, events | select.POLLHUP | select.POLLERR)
    while True:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if poller.poll(None if left is None else left * 1000):
            return
        if left is not None and deadline - time.monotonic() <= 0:
            raise ExecFault("timeout", "no answer in time")


class Lines:
    """The bot's output as lines of at most MAX_LINE bytes, read without blocking past a deadline."""

    def __init__(self, fd):
        self.fd, self.buffer, self.closed = fd, bytearray(), False
        os.set_blocking(fd, False)

    def _fill(self):
        try:
            chunk = os.read(self.fd, MAX_LINE + 1)
        except BlockingIOError:
            return
        if not chunk:
            self.closed = True
        self.buffer += chunk

    def waiting(self):
        """Whether the bot has written something nobody asked for."""
        if not self.buffer and not self.closed:
            self._fill()
        return bool(self.buffer)

    def line(self, deadline):
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                raise ExecFault("illegal", f"a line longer than {MAX_LINE} bytes")
            if self.closed:
                raise BotExited(None)
            _wait(self.fd, select.POLLIN, deadline)
            self._fill()
        line, _, rest = bytes(self.buffer).partition(b"\n")
        if len(line) > MAX_LINE:
            raise ExecFault("illegal", f"a line longer than {MAX_LINE} bytes")
        self.buffer = bytearray(rest)
        return line


def _decode(line):
    """One line of the bot's as a JSON object with a string "type", else ExecFault."""
    shown = repr(line[:40])[2:-1] + ("..." if len(line) > 40 else "")
    try:
        value = json.loads(line.decode("utf-8"))
    except RecursionError:
        raise ExecFault("illegal", "a line nested too deep") from None
    except (UnicodeDecodeError, ValueError):
        raise ExecFault("illegal", f"a line that is not JSON ({shown})") from None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise ExecFault("illegal", f"a line that is not a message, a JSON object with a type ({shown})")
    return value


def _exit_as(status):
    """Ends this match process as the bot's process ended, so that the arena reports the bot's own
    exit code or signal as this process's ("crash")."""
    sys.stdout.flush()
    if status is not None and status < 0:
        try:
            signal.signal(-status, signal.SIG_DFL)
            os.kill(os.getpid(), -status)
        except (OSError, ValueError):
            pass
    os._exit(status if status is not None and 0 <= status < 256 else 1)


class ExecBot:
    """The agent that speaks protocol v1 to a bot program; `target` is `load_target`'s JSON.

    A protocol fault in the handshake is booked at the bot's first move (the arena's reset takes
    no action); a bot that exits ends this process as it ended (`mirror_exit`; a test that runs
    the adapter in its own process sets it False and gets BotExited instead).
    """

    mirror_exit = True

    def __init__(self, target, params=None):
        where = json.loads(target)
        self.params = {str(k): str(v) for k, v in (params or {}).items()}
        self.per_move = None    # seconds per move, once the arena says (see `configure`)
        self.public = []        # the public actions since this seat's last request
        self.failed = None      # a fault of the handshake, booked at the first move
        command = where["command"]
        try:
            self.process = subprocess.Popen(command, cwd=where["folder"], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, close_fds=True, bufsize=0)
        except OSError as e:
            raise RuntimeError(f"cannot run its command {command[0]}: {e.strerror}") from None
        self.to_bot = self.process.stdin.fileno()
        os.set_blocking(self.to_bot, False)
        self.lines = Lines(self.process.stdout.fileno())

    def configure(self, options):
        """What the arena says of the match's limits: {"time_limit": seconds per move or None}."""
        limit = options.get("time_limit")
        self.per_move = float(limit) if isinstance(limit, (int, float)) and limit > 0 else None

    # ------------------------------------------------------------ the bot's pipes

    def _gone(self):
        """The bot closed its pipes: waits briefly for its exit status, then ends as it ended."""
        try:
            status = self.process.wait(timeout=EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = None
        if self.mirror_exit:
            _exit_as(status)
        raise BotExited(status)

    def _send(self, message, deadline):
        data = memoryview((json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode())
        try:
            while data:
                _wait(self.to_bot, select.POLLOUT, deadline)
                try:
                    data = data[os.write(self.to_bot, data):]
                except BlockingIOError:
                    continue
        except (BrokenPipeError, ConnectionResetError):
            raise BotExited(None) from None
        except ExecFault:
            raise ExecFault("timeout", "no read of its request in time") from None

    def _exchange(self, message, expected, deadline):
        """Sends `message`, returns the bot's reply, a message of type `expected`."""
        try:
            self._send(message, deadline)
            reply = _decode(self.lines.line(deadline))
        except BotExited:
            self._gone()
        if reply["type"] != expected:
            raise ExecFault("illegal", f"a {printable_type(reply['type'])} message where an {expected} "
                                       f"message was due" if expected == "action" else
                                       f"a {printable_type(reply['type'])} message where its {expected} was due")
        return reply

    def _deadline(self, limit):
        """Just after the arena's own deadline: the arena reports a late bot itself, and the
        adapter never waits longer than the arena does."""
        return None if limit is None else time.monotonic() + limit + 1.0

    # ------------------------------------------------------------ the agent

    def reset(self, game_id, game_params, seat, seed):
        self.public = []
        params = dict(game_params)
        start = {"type": "start", "protocol": PROTOCOL, "game": game_id, "params": params, "seat": int(seat),
                 "players": int(params["players"]) if "players" in params else None,
                 "time": {"per_move": self.per_move}, "seed": int(seed) % (1 << SEED_BITS),
                 "agent_params": self.params}
        limit = max(self.per_move or 0.0, HELLO_LIMIT) if self.per_move else None
        try:
            hello = self._exchange(start, "hello", self._deadline(limit))
            version = hello.get("protocol")
            if version != PROTOCOL or isinstance(version, bool):
                raise ExecFault("illegal", f"a hello in protocol {printable_type(version)}, not {PROTOCOL}")
            name = hello.get("name")
            if not isinstance(name, str) or not 0 < len(name) <= 64:
                raise ExecFault("illegal", "a hello without a name (a string of 1 to 64 characters)")
        except ExecFault as f:
            self.failed = f

    def observe(self, public):
        """The public actions since the last request, from the arena (see `public_action`)."""
        self.public.extend(public)

    def act(self, state):
        received = time.monotonic()
        if self.failed is not None:
            raise self.failed
        if self.lines.waiting():
            raise ExecFault("illegal", "a line when no request was pending")
        seat = state.current_player()
        legal = state.legal_actions()
        names = [state.action_to_string(a) for a in legal]
        clock = None if self.per_move is None else max(0.0, self.per_move - (time.monotonic() - received))
        request = {"type": "request", "observation": state.observation(seat),
                   "legal": [{"id": int(a), "text": t} for a, t in zip(legal, names)],
                   "public_actions": self.public, "clock": {"left": clock}}
        self.public = []
        reply = self._exchange(request, "action", self._deadline(self.per_move))
        has_id, has_text = "id" in reply, "text" in reply
        if has_id == has_text:
            raise ExecFault("illegal", "an action with neither or both of id and text")
        if has_id:
            action = reply["id"]
            if not isinstance(action, int) or isinstance(action, bool):
                raise ExecFault("illegal", f"the id {printable_type(action)}, not an integer")
            return action   # the referee checks that it is legal, as for a Python bot
        text = reply["text"]
        if not isinstance(text, str):
            raise ExecFault("illegal", "a text that is not a string")
        if text in names:
            return legal[names.index(text)]
        return text[:100]   # not a legal action's name: the referee's "illegal" (returned '...')

    def end(self, returns):
        """The match is over: tells the bot its returns (it then exits)."""
        try:
            self._send({"type": "end", "returns": [float(r) for r in returns]}, time.monotonic() + 1.0)
        except (ExecFault, BotExited):
            pass


def printable_type(value):
    """A value of the bot's, short and printable, for a fault message."""
    text = repr(value)
    return "".join(c if c.isprintable() else "?" for c in text[:40]) + ("..." if len(text) > 40 else "")


def adapter(target):
    """The agent class the match process instantiates with the agent's parameters."""
    return lambda **params: ExecBot(target, params)


# ================================================================ on the host

MANIFEST = "bot.toml"
MANIFEST_KEYS = {"name", "command", "build", "language"}
SEARCH_PATH = ("/usr/local/bin", "/usr/bin", "/bin")   # where a command's program is looked up
VISIBLE = ("/usr/", "/bin/", "/lib/", "/lib64/")        # what the box shows of the host, read-only
MAX_FILES = 10_000
MAX_BYTES = 256 << 20
BUILD_LIMIT = 300.0    # seconds for a build, wall clock


def _error(message):
    from arena.agent_list import ScheduleError
    return ScheduleError(message)


def parse_exec(source, label, params):
    """`exec:PATH` (a folder with bot.toml, or an executable file) as an AgentSpec of kind exec."""
    from arena.match import AgentSpec
    path = source[len("exec:"):]
    if not path:
        raise _error("agent exec: needs a path: exec:FOLDER (with a bot.toml) or exec:PROGRAM")
    full = os.path.realpath(os.path.expanduser(path))
    if os.path.isdir(full):
        try:
            with open(os.path.join(full, MANIFEST), "rb") as f:
                manifest = read_manifest(f.read(), os.path.basename(full))
        except FileNotFoundError:
            raise _error(f"agent {source}: no {MANIFEST} in {path}") from None
        except (OSError, ValueError) as e:
            raise _error(f"agent {source}: {e}") from None
        try:
            resolve_command(manifest["command"], full, check=not manifest["build"])
            if manifest["build"]:
                resolve_command(manifest["build"], "", language=manifest["language"], build=True)
        except ValueError as e:
            raise _error(f"agent {source}: {e}") from None
        name = manifest["name"]
    elif os.path.isfile(full):
        if not os.access(full, os.X_OK):
            raise _error(f"agent {source}: {path} is not executable (chmod +x), nor a folder with a {MANIFEST}")
        name = os.path.basename(full)
    else:
        raise _error(f"agent {source}: no folder or program {path}")
    return AgentSpec(label or name, source, params, "exec", full)


def read_manifest(data, default_name):
    """bot.toml's content as {"name", "command", "build", "language"}; ValueError on a bad one."""
    try:
        import tomllib
    except ImportError:   # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise ValueError("reading bot.toml needs Python 3.11 or later, or the tomli package") from None
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"{MANIFEST} is not TOML: {e}") from None
    unknown = sorted(set(raw) - MANIFEST_KEYS)
    if unknown:
        raise ValueError(f"{MANIFEST} has unknown keys {', '.join(unknown)} (it may have {', '.join(sorted(MANIFEST_KEYS))})")
    name = raw.get("name", default_name)
    if not isinstance(name, str) or not 0 < len(name) <= 64 or not all(c.isalnum() or c in "_.+-" for c in name):
        raise ValueError(f"{MANIFEST}: name must be 1 to 64 letters, digits or _.+-")
    language = raw.get("language", "")
    if not isinstance(language, str) or len(language) > 32 or not language.isprintable():
        raise ValueError(f"{MANIFEST}: language must be a short name (python, cpp, rust, java, javascript, ...)")
    return {"name": name, "command": _argv(raw.get("command"), "command", required=True),
            "build": _argv(raw.get("build"), "build"), "language": language.lower()}


def _argv(value, key, required=False):
    """A command as a list of strings: a TOML array, or a string split as a shell would (no shell runs)."""
    import shlex
    if value is None and not required:
        return None
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as e:
            raise ValueError(f"{MANIFEST}: {key}: {e}") from None
    if not isinstance(value, list) or not value or not all(isinstance(a, str) and a and "\0" not in a for a in value):
        raise ValueError(f"{MANIFEST}: {key} must be a command: a string, or an array of strings")
    return value


def _visible(path):
    return path.startswith(VISIBLE)


def _host_program(name):
    """The host path of `name` on SEARCH_PATH as the box can run it: itself when every link on the
    way stays in what the box shows, else the file it leads to (/usr/bin/java leads through
    /etc/alternatives, which the box does not have)."""
    for folder in SEARCH_PATH:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            hop, hops = path, 0
            while os.path.islink(hop) and hops < 40:
                hop = os.path.normpath(os.path.join(os.path.dirname(hop), os.readlink(hop)))
                hops += 1
                if not _visible(hop):
                    return os.path.realpath(path)
            return path
    return None


def toolchain(language):
    """(program name -> host path, read-only folders) that a build in `language` needs beyond what
    the box shows: rustup's Rust (under ~/.rustup), and the JDK's configuration (Debian links the
    JDK's conf/ into /etc, which the box does not have). Empty where nothing is needed."""
    import shutil
    programs, folders = {}, []
    if language == "rust" and _host_program("rustc") is None and shutil.which("rustc"):
        try:
            sysroot = subprocess.run([shutil.which("rustc"), "--print", "sysroot"], cwd="/", capture_output=True,
                                     text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            sysroot = ""
        if sysroot and os.path.isfile(os.path.join(sysroot, "bin", "rustc")):
            programs = {p: os.path.join(sysroot, "bin", p) for p in ("rustc", "rustdoc")}
            folders = [os.path.realpath(sysroot)]
    if language == "java":
        javac = _host_program("javac")
        home = os.path.dirname(os.path.dirname(os.path.realpath(javac))) if javac else None
        for top, _, files in os.walk(os.path.join(home, "conf")) if home else ():
            for f in files:
                target = os.path.realpath(os.path.join(top, f))
                if not _visible(target) and target.count("/") >= 3:
                    folder = "/".join(target.split("/")[:3])   # /etc/java-17-openjdk
                    if folder not in folders:
                        folders.append(folder)
    return programs, folders


def resolve_command(argv, folder, check=False, language="", build=False):
    """`argv` with its program as the box runs it: a name looked up on the host (SEARCH_PATH, or the
    toolchain of a build), a path with a slash taken in the bot's `folder` (a build runs in it:
    folder ""); ValueError naming what the box could not run. `check`: the program must be in
    the folder now (at parse time, for a bot without a build)."""
    program = argv[0]
    what = "build" if build else "command"
    if "/" not in program:
        found = _host_program(program) or (toolchain(language)[0].get(program) if build else None)
        if found is None:
            where = " (a build in its language finds its toolchain too)" if build else ""
            raise ValueError(f"its {what}'s program {program} is not in {', '.join(SEARCH_PATH)}{where}")
        return [found] + argv[1:]
    if program.startswith("/"):
        if not _visible(os.path.normpath(program)):
            raise ValueError(f"its {what}'s program {program} is outside what the sandbox shows (/usr)")
        return argv
    inside = os.path.normpath(program)
    if inside.startswith(".."):
        raise ValueError(f"its {what}'s program {program} is outside its folder")
    path = os.path.join(folder, inside) if folder else "./" + inside
    if check and not os.path.isfile(path):
        raise ValueError(f"its command's program {program} is not in its folder (does it need a build?)")
    return [path] + argv[1:]


def load_target(spec, staged, root):
    """The JSON the match process's ExecBot is made from: the bot's folder as the box shows it
    (under `root`) and its command, from the staged copy in the host folder `staged`."""
    name = os.path.basename(spec.target.rstrip(os.sep))
    if os.path.isdir(os.path.join(staged, name)):
        with open(os.path.join(staged, name, MANIFEST), "rb") as f:
            manifest = read_manifest(f.read(), name)
        folder = os.path.join(root, name)
        command = resolve_command(manifest["command"], folder)
    else:
        folder, command = root, [os.path.join(root, name)]
    return json.dumps({"folder": folder, "command": command})


def public_action(state, observer, mover, action):
    """`action` of seat `mover`, taken in `state` (before it is applied), as seat `observer` sees it:
    the id of its class of actions the observer cannot tell apart (the action itself when the
    observer sees it whole) and that id's name. Only what `action_view` shows ever leaves here."""
    view = state.action_view(observer, action)
    return {"seat": int(mover), "id": int(view), "text": state.action_to_string(view)}


# ---------------------------------------------------------------- the bot's files, built in a box

def read_tree(origin):
    """(path relative to the origin's folder, content, executable) of every file under `origin` (a
    folder, or one file), sorted, with no Python caches (as staging reads a staged copy); a link, a
    device or a pipe there is refused, never followed."""
    import stat
    base = os.path.dirname(origin.rstrip(os.sep))
    out, total = [], 0

    def read(name, dir_fd, rel):
        nonlocal total
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise ValueError(f"{rel} is not a plain file")
            total += info.st_size
            if total > MAX_BYTES or len(out) >= MAX_FILES:
                raise ValueError(f"its folder has more than {MAX_FILES} files or {MAX_BYTES >> 20} MiB")
            with os.fdopen(fd, "rb", closefd=False) as f:
                out.append((rel, f.read(), bool(info.st_mode & 0o100)))
        except OSError as e:
            raise ValueError(f"cannot read {rel}: {e.strerror}") from None
        finally:
            os.close(fd)

    if not os.path.isdir(origin) or os.path.islink(origin):
        try:
            read(origin, None, os.path.basename(origin))
        except ValueError as e:
            if os.path.islink(origin):
                raise ValueError(f"{origin} is a link; give the program itself") from None
            raise
        return out
    for top, dirs, files, top_fd in os.fwalk(origin, follow_symlinks=False):
        rel_top = os.path.relpath(top, base)
        for d in list(dirs):
            if stat.S_ISLNK(os.stat(d, dir_fd=top_fd, follow_symlinks=False).st_mode):
                raise ValueError(f"{os.path.join(rel_top, d)} is a link (staging copies files only)")
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(f for f in files if not f.endswith((".pyc", ".pyo"))):
            rel = os.path.join(rel_top, f)
            if stat.S_ISLNK(os.stat(f, dir_fd=top_fd, follow_symlinks=False).st_mode):
                raise ValueError(f"{rel} is a link (staging copies files only)")
            read(f, top_fd, rel)
    return sorted(out)


def staged_files(spec, store, read_staged):
    """The files to stage for an exec agent: its folder as it is, or, when its manifest has a build
    command, the folder after that build ran in a box of its own (cached by the source's digest).
    `store(files)` stages files and gives their digest; `read_staged(digest)` reads a staged copy."""
    files = read_tree(spec.target)
    name = os.path.basename(spec.target.rstrip(os.sep))
    manifest_file = next((c for rel, c, _ in files if rel == os.path.join(name, MANIFEST)), None)
    if not os.path.isdir(spec.target) or manifest_file is None:
        return files
    manifest = read_manifest(manifest_file, name)
    if not manifest["build"]:
        return files
    source = store(files)
    build = resolve_command(manifest["build"], "", language=manifest["language"], build=True)
    import hashlib

    from arena.sandbox.staging import _cache_root
    key = hashlib.sha256(json.dumps([source, build, manifest["language"]]).encode()).hexdigest()[:32]
    record = os.path.join(_cache_root(), "builds", key)
    try:
        with open(record) as f:
            return read_staged(f.read().strip())
    except (OSError, ValueError):
        pass
    built = build_in_box(source, name, build, manifest["language"])
    digest = store(built)
    os.makedirs(os.path.dirname(record), mode=0o700, exist_ok=True)
    with open(record + ".tmp", "w") as f:
        f.write(digest)
    os.replace(record + ".tmp", record)
    return built


_builds = [0]


def build_in_box(source, name, build, language):
    """Runs `build` in the bot's folder in a box of its own and returns the folder's files after it:
    the staged source `source` copied to the box's /tmp, writable there, the network off, the
    default bot limits, at most BUILD_LIMIT seconds; the folder comes back as a tar stream on the
    box's stdout, of at most the /tmp size, and only its plain files are kept."""
    from arena.sandbox import confine
    from arena.sandbox.policy import DEFAULT_POLICY
    from arena.sandbox.staging import code_dir
    if confine.bwrap_missing():
        raise ValueError("its build runs only in the bubblewrap sandbox, and bwrap is not installed")
    limits = DEFAULT_POLICY.limits_dict()
    folders = toolchain(language)[1]
    settings = json.dumps({"name": name, "build": build, "limits": limits, "root": confine.BOT_ROOT})
    program = [sys.executable, "-I", "-m", "arena.sandbox.exec_bot", settings]
    root = os.geteuid() == 0
    slot, uid = confine.BOT_UIDS.take() if root else (None, None)
    _builds[0] += 1
    cgroup = confine.Cgroup(f"{os.getpid()}-build{_builds[0]}", limits)
    seccomp = confine._data_fd(confine.seccomp_program())
    data = confine.hidden_proc_fds()
    fds = [seccomp] + list(data.values())
    try:
        argv = with_binds(confine.command(program, code_dir(source), limits, seccomp, data, uid), folders)
        proc = subprocess.Popen(cgroup.wrap(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=confine.environment(), pass_fds=fds,
                                start_new_session=True)
        for fd in fds:
            os.close(fd)
        fds = []
        out, err, late = _collect(proc, (limits["disk"] + 16) << 20, time.monotonic() + BUILD_LIMIT)
    finally:
        for fd in fds:
            os.close(fd)
        cgroup.remove()
        if slot is not None:
            confine.BOT_UIDS.give_back(slot)
    last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
    if late:
        raise ValueError(f"its build {late}")
    if proc.returncode != 0:
        raise ValueError(f"its build failed: {printable_type(last[0])[1:-1]}")
    return _untar(out, name)


def with_binds(argv, folders):
    """confine.command's `argv` with `folders` shown read-only at their own paths, in the inner box
    and (when the arena is root) in the outer one: the toolchain of a build."""
    if not folders:
        return argv
    from arena.sandbox import confine
    inner = len(argv) - 1 - argv[::-1].index("bwrap")
    at = argv.index("--proc", inner)
    argv = argv[:at] + [a for f in folders for a in ("--ro-bind", f, f)] + argv[at:]
    if inner:
        at = next(i for i in range(inner) if argv[i:i + 2] == ["--bind", "/proc"])
        argv = argv[:at] + confine._binds(folders, None, parents=True) + argv[at:]
    return argv


def _collect(proc, cap, deadline):
    """(stdout, the tail of stderr, why it was stopped or None) of the build's box."""
    import selectors
    out, err, late = bytearray(), bytearray(), None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, out)
    selector.register(proc.stderr, selectors.EVENT_READ, err)
    while selector.get_map() and late is None:
        left = deadline - time.monotonic()
        if left <= 0:
            late = f"took longer than {BUILD_LIMIT:g} s"
            break
        for key, _ in selector.select(left):
            chunk = os.read(key.fileobj.fileno(), 1 << 16)
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            key.data.extend(chunk)
            if key.data is err:
                del err[:-4096]
            elif len(out) > cap:
                late = f"left more than {cap >> 20} MiB"
    if late:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    return bytes(out), bytes(err), late


def _untar(data, name):
    """The plain files under `name/` of the build's tar stream, as staging's (rel, content, executable)."""
    import io
    import posixpath
    import tarfile
    files, seen = [], set()
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for member in tar:
                rel = posixpath.normpath(member.name)
                if rel.startswith(("/", "..")) or (rel != name and not rel.startswith(name + "/")):
                    raise ValueError(f"its build left {printable_type(member.name)} outside its folder")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise ValueError(f"its build left {printable_type(rel)}, which is not a plain file")
                if rel in seen or len(files) >= MAX_FILES:
                    raise ValueError("its build's output has a file twice, or too many files")
                seen.add(rel)
                files.append((rel, tar.extractfile(member).read(), bool(member.mode & 0o100)))
    except tarfile.TarError:
        raise ValueError("its build's output could not be read") from None
    return sorted(files)


def _build_main(settings):
    """In the build's box: copies the bot's folder to /tmp, runs the build there (its output on
    stderr), and writes the folder as a tar stream to stdout."""
    import shutil
    import tarfile
    from arena.sandbox.server import apply_limits
    apply_limits(settings["limits"])
    name = settings["name"]
    work = os.path.join("/tmp", "build")
    folder = os.path.join(work, name)
    shutil.copytree(os.path.join(settings["root"], name), folder)
    for top, dirs, files in os.walk(folder):
        for entry in dirs + files:
            path = os.path.join(top, entry)
            os.chmod(path, os.stat(path).st_mode | 0o200)
    out = os.dup(1)
    os.dup2(2, 1)
    code = subprocess.call(settings["build"], cwd=folder, stdin=subprocess.DEVNULL)
    if code != 0:
        print(f"the build command exited with code {code}", file=sys.stderr)
        sys.exit(1)
    with os.fdopen(out, "wb") as stream, tarfile.open(fileobj=stream, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        tar.add(folder, arcname=name)


if __name__ == "__main__":
    _build_main(json.loads(sys.argv[1]))
