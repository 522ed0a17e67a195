"""Submitted code is copied at the start of a run into a private, read-only, content-addressed
place, so that later edits of the original never change the bot a run plays. An exec agent's
folder is copied with its files' executable bits, after its build (arena.sandbox.exec_host)."""
import hashlib
import importlib.util
import os
import shutil
import tempfile

from arena.match import AgentSpec


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


def _read_code(origins, modes=False):
    """(path relative to the origin's folder, content) of every file of the code in `origins` (files
    or package folders), sorted; no caches. `modes` adds whether each file is executable (only an
    exec agent's staged files are)."""
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
                entry = (os.path.relpath(path, base), f.read())
            out.append(entry + (os.stat(path).st_mode & 0o100 != 0,) if modes else entry)
    return out


def _digest(files):
    h = hashlib.sha256()
    for rel, content, *executable in files:
        h.update(f"{rel}\0{len(content)}\0{'x' if executable and executable[0] else ''}".encode())
        h.update(content)
    return h.hexdigest()[:32]


def stage(spec: AgentSpec) -> AgentSpec:
    """Copies a submitted agent's code into a private, read-only, content-addressed place, and
    returns the spec with its digest: later edits of the original never change the bot."""
    if not spec.submitted:
        return spec
    if spec.code and _intact(spec.code):
        return spec   # the copy made when the run started
    try:
        files = _exec_files(spec) if spec.kind == "exec" else _read_code([_code_origin(spec)])
    except OSError as e:
        raise ValueError(f"agent {spec.label}: cannot read its code: {e}") from None
    digest = _digest(files)
    if spec.code and spec.code != digest:
        raise ValueError(f"agent {spec.label}: its code changed since the run started, and the copy "
                         f"made then is gone; start a new run")
    _store(files, spec.label)
    return type(spec)(spec.label, spec.source, spec.params, spec.kind, spec.target, digest)


def _exec_files(spec):
    """An exec agent's files: its folder, after its build (arena.sandbox.exec_host.staged_files)."""
    from arena.sandbox.exec_host import staged_files
    try:
        return staged_files(spec, lambda files: _store(files, spec.label), _read_staged, code_dir, _cache_root())
    except ValueError as e:
        message = str(e)
        raise ValueError(message if message.startswith("agent ") else f"agent {spec.label}: {message}") from None


def _store(files, label):
    """Writes `files` (read-only; executable where marked) to their content-addressed place, unless
    an intact copy is there; returns their digest."""
    digest = _digest(files)
    target = code_dir(digest)
    if not _intact(digest):
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(target))
        for rel, content, *executable in files:
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(content)
            os.chmod(path, 0o555 if executable and executable[0] else 0o444)
        shutil.rmtree(target, ignore_errors=True)
        os.chmod(tmp, 0o755)
        try:
            os.rename(tmp, target)
        except OSError:   # another process staged the same code at the same moment
            shutil.rmtree(tmp, ignore_errors=True)
            if not _intact(digest):
                raise ValueError(f"agent {label}: cannot stage its code in {target}") from None
    return digest


def _read_staged(digest):
    """The files of the intact staged copy `digest`, as `_read_code(modes=True)` reads them."""
    if not _intact(digest):
        raise ValueError(f"no intact staged copy {digest}")
    root = code_dir(digest)
    return _read_code(sorted(os.path.join(root, entry) for entry in os.listdir(root)), modes=True)


def source_dir(spec: AgentSpec) -> str:
    """Where the staged copy of a submitted agent's own files (an exec agent's before its build) is,
    or would be: the folder `stage` writes them to."""
    if spec.kind == "exec":
        from arena.sandbox.exec_host import read_tree
        files = read_tree(spec.target)
    else:
        files = _read_code([_code_origin(spec)])
    return code_dir(_digest(files))


def code_dir(digest: str) -> str:
    return os.path.join(_cache_root(), digest)


_verified: set[str] = set()


def discard(digest: str) -> None:
    """Removes the staged copy `digest` (the copy a check made of code that was then refused); the
    next stage of that code writes it again."""
    _verified.discard(digest)
    shutil.rmtree(code_dir(digest), ignore_errors=True)


def _intact(digest):
    """Whether the staged copy `digest` exists and still has exactly its content."""
    if digest in _verified:
        return True
    root = code_dir(digest)
    if not os.path.isdir(root):
        return False
    if _digest(_read_code(sorted(os.path.join(root, entry) for entry in os.listdir(root)), modes=True)) != digest:
        return False
    _verified.add(digest)
    return True


def _load_target(spec, root):
    """What the bot server loads, relative to where the staged code is seen from inside."""
    if spec.kind == "exec":
        from arena.sandbox.exec_host import load_target
        return load_target(spec, code_dir(spec.code), root)
    where, _, cls = spec.target.rpartition(":")
    if spec.kind == "file":
        return f"{os.path.join(root, os.path.basename(where))}:{cls}"
    return spec.target
