"""The host's side of exec agents, bots in any language (docs/protocol.md; the adapter in the box is
arena.sandbox.exec_bot).

`parse_exec` reads `exec:PATH` (a folder with a `bot.toml` manifest, or an executable file);
`staged_files` gives staging the bot's files, after its build command (if it has one) has run in a
box of its own; `load_target` names the staged command for the match process; `public_action` is
one action as an observer sees it. The build's side in its box is arena.sandbox.exec_build.

This module imports nothing that imports the agent list, so that the agent list can import it.
"""
import hashlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.match import AgentSpec
from arena.sandbox.confine import SEARCH_PATH
from arena.sandbox.exec_bot import printable_type
from engines.core import GameState

StagedFile = tuple[str, bytes, bool]   # (path relative to the bot's parent folder, content, executable)
MANIFEST = "bot.toml"
MANIFEST_KEYS = {"name", "command", "build", "language", "deterministic"}
VISIBLE = ("/usr/", "/bin/", "/lib/", "/lib64/")        # what the box shows of the host, read-only
MAX_FILES = 10_000
MAX_BYTES = 256 << 20
BUILD_LIMIT = 300.0    # seconds for a build, wall clock
# A build's limits (arena.sandbox.LIMITS' names and units): a compiler wants more than a bot's move
BUILD_LIMITS = {"memory": 2048, "cpu": int(BUILD_LIMIT), "processes": 64, "file_size": 256, "disk": 512,
                "open_files": 256}


def parse_exec(source: str, label: str | None, params: tuple[tuple[str, str], ...]) -> AgentSpec:
    """`exec:PATH` (a folder with bot.toml, or an executable file) as an AgentSpec of kind exec;
    ValueError (one line) for a path the arena cannot run."""
    from arena.match import AgentSpec
    path = source[len("exec:"):]
    if not path:
        raise ValueError("agent exec: needs a path: exec:FOLDER (with a bot.toml) or exec:PROGRAM")
    full = os.path.realpath(os.path.expanduser(path))
    if os.path.isdir(full):
        try:
            with open(os.path.join(full, MANIFEST), "rb") as f:
                manifest = read_manifest(f.read(), os.path.basename(full))
        except FileNotFoundError:
            raise ValueError(f"agent {source}: no {MANIFEST} in {path}") from None
        except (OSError, ValueError) as e:
            raise ValueError(f"agent {source}: {e}") from None
        try:
            resolve_command(manifest["command"], full, check=not manifest["build"])
            if manifest["build"]:
                resolve_command(manifest["build"], "", language=manifest["language"], build=True)
        except ValueError as e:
            raise ValueError(f"agent {source}: {e}") from None
        name = manifest["name"]
    elif os.path.isfile(full):
        if not os.access(full, os.X_OK):
            raise ValueError(f"agent {source}: {path} is not executable (chmod +x), nor a folder with a {MANIFEST}")
        name = os.path.basename(full)
    else:
        raise ValueError(f"agent {source}: no folder or program {path}")
    return AgentSpec(label or name, source, params, "exec", full)


def read_manifest(data: bytes, default_name: str) -> dict[str, Any]:
    """bot.toml's content as {"name", "command", "build", "language", "deterministic"}; ValueError on a
    bad one. `deterministic = true` says the bot plays the same moves under the same seed (check-agent
    then checks it)."""
    try:
        import tomllib
    except ImportError:   # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]  # the same module under its PyPI name
        except ImportError:
            raise ValueError("reading bot.toml needs Python 3.11 or later, or the tomli package") from None
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"{MANIFEST} is not TOML: {e}") from None
    except RecursionError:
        raise ValueError(f"{MANIFEST} is not TOML this arena reads: it is nested too deep") from None
    unknown = sorted(set(raw) - MANIFEST_KEYS)
    if unknown:
        raise ValueError(f"{MANIFEST} has unknown keys {', '.join(unknown)} (it may have {', '.join(sorted(MANIFEST_KEYS))})")
    name = raw.get("name", default_name)
    if not isinstance(name, str) or not 0 < len(name) <= 64 or not all(c.isalnum() or c in "_.+-" for c in name):
        raise ValueError(f"{MANIFEST}: name must be 1 to 64 letters, digits or _.+-")
    language = raw.get("language", "")
    if not isinstance(language, str) or len(language) > 32 or not language.isprintable():
        raise ValueError(f"{MANIFEST}: language must be a short name (python, cpp, rust, java, javascript, ...)")
    deterministic = raw.get("deterministic", False)
    if not isinstance(deterministic, bool):
        raise ValueError(f"{MANIFEST}: deterministic must be true or false")
    return {"name": name, "command": _argv(raw.get("command"), "command", required=True),
            "build": _argv(raw.get("build"), "build"), "language": language.lower(), "deterministic": deterministic}


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


def toolchain(language: str) -> tuple[dict[str, str], list[str]]:
    """(program name -> host path, read-only folders) that a build in `language` needs beyond what
    the box shows: rustup's Rust (under ~/.rustup), and the JDK's configuration (Debian links the
    JDK's conf/ into /etc, which the box does not have). Empty where nothing is needed."""
    import shutil
    programs, folders = {}, []
    if language == "rust" and _host_program("rustc") is None and (rustc := shutil.which("rustc")):
        try:
            sysroot = subprocess.run([rustc, "--print", "sysroot"], cwd="/", capture_output=True,
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


def resolve_command(argv: list[str], folder: str, check: bool = False, language: str = "",
                    build: bool = False) -> list[str]:
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


def declares_deterministic(spec: AgentSpec) -> bool:
    """Whether an exec agent's bot.toml says `deterministic = true` (a program alone never does)."""
    if not os.path.isdir(spec.target):
        return False
    with open(os.path.join(spec.target, MANIFEST), "rb") as f:
        return read_manifest(f.read(), os.path.basename(spec.target))["deterministic"]


def load_target(spec: AgentSpec, staged: str, root: str) -> str:
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


def public_action(state: GameState, observer: int, mover: int, action: int) -> dict[str, Any]:
    """`action` of seat `mover`, taken in `state` (before it is applied), as seat `observer` sees it:
    the id of its class of actions the observer cannot tell apart (the action itself when the
    observer sees it whole) and that id's name. Only what `action_view` shows ever leaves here."""
    view = state.action_view(observer, action)
    return {"seat": int(mover), "id": int(view), "text": state.action_to_string(view)}


# ---------------------------------------------------------------- the bot's files, built in a box

def read_tree(origin: str) -> list[StagedFile]:
    """(path relative to the origin's folder, content, executable) of every file under `origin` (a
    folder, or one file), sorted, with no Python caches (as staging reads a staged copy); a link, a
    device or a pipe there is refused, never followed."""
    import stat
    base = os.path.dirname(origin.rstrip(os.sep))
    out: list[StagedFile] = []
    total = 0

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
        except ValueError:
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


def staged_files(spec: AgentSpec, store: Callable[[list[StagedFile]], str],
                 read_staged: Callable[[str], list[StagedFile]], where: Callable[[str], str],
                 cache: str) -> list[StagedFile]:
    """The files to stage for an exec agent: its folder as it is, or, when its manifest has a build
    command, the folder after that build ran in a box of its own (cached by the source's digest).
    `store(files)` stages files and gives their digest, `where(digest)` is a staged copy's folder,
    `read_staged(digest)` reads it; the record of each build is kept under the folder `cache`."""
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
    key = hashlib.sha256(json.dumps([source, build, manifest["language"]]).encode()).hexdigest()[:32]
    record = os.path.join(cache, "builds", key)
    try:
        with open(record) as f:
            return read_staged(f.read().strip())
    except (OSError, ValueError):
        pass
    built = build_in_box(where(source), name, build, manifest["language"])
    digest = store(built)
    os.makedirs(os.path.dirname(record), mode=0o700, exist_ok=True)
    with open(record + ".tmp", "w") as f:
        f.write(digest)
    os.replace(record + ".tmp", record)
    return built


_builds = [0]


def build_in_box(source: str, name: str, build: list[str], language: str) -> list[StagedFile]:
    """Runs `build` in the bot's folder in a box of its own and returns the folder's files after it:
    the staged source (the host folder `source`) copied to the box's /tmp, writable there, the
    network off, BUILD_LIMITS, at most BUILD_LIMIT seconds; the folder comes back as a tar stream
    on the box's stdout, of at most the /tmp size, and only its plain files are kept."""
    from arena.sandbox import confine
    if confine.bwrap_missing():
        raise ValueError("its build runs only in the bubblewrap sandbox, and bwrap is not installed")
    limits = BUILD_LIMITS
    folders = toolchain(language)[1]
    settings = json.dumps({"name": name, "build": build, "limits": limits, "root": confine.BOT_ROOT})
    program = confine.python_command("arena.sandbox.exec_build", settings)
    root = os.geteuid() == 0
    slot, uid = confine.BOT_UIDS.take() if root else (None, None)
    _builds[0] += 1
    cgroup = confine.Cgroup(f"{os.getpid()}-build{_builds[0]}", limits)
    seccomp = confine._data_fd(confine.seccomp_program("build"))
    data = confine.hidden_proc_fds()
    fds = [seccomp] + list(data.values())
    try:
        argv = with_binds(confine.command(program, source, limits, seccomp, data, uid), folders)
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
    if late:
        raise ValueError(f"its build {late}")
    if proc.returncode != 0:
        raise ValueError(f"its build failed: {_build_failure(err)}")
    return _untar(out, name)


def _build_failure(err: bytes) -> str:
    """A failed build's box's stderr (its last 4 KiB) as one line: the box's last line ("the build
    command exited with code N"), then the build's own first line that names an error (a compiler's
    "bot.c:15:14: error: expected ';'..."), or else its last line."""
    import re

    from arena.text import printable
    lines = [line.strip() for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    last = lines.pop() if lines else "no message"
    said = next((line for line in lines if re.search(r"\berror\b", line, re.IGNORECASE)), lines[-1] if lines else "")
    return printable(f"{last}: {said}" if said else last, limit=400, keep="")


def with_binds(argv: list[str], folders: Sequence[str]) -> list[str]:
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
            chunk = os.read(key.fd, 1 << 16)
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
    files: list[StagedFile] = []
    seen = set()
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
                content = tar.extractfile(member)
                assert content is not None   # a plain file has content
                files.append((rel, content.read(), bool(member.mode & 0o100)))
    except tarfile.TarError:
        raise ValueError("its build's output could not be read") from None
    return sorted(files)
