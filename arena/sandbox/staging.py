"""Submitted code is copied at the start of a run into a private, read-only, content-addressed
place, so that later edits of the original never change the bot a run plays. An exec agent's
folder is copied with its files' executable bits, after its build (arena.sandbox.exec_host).
Code that is already laid out as its staged copy, in a read-only folder named by its digest (an
uploaded bot's kept copy beside the store, arena.ladder.uploads), is not copied again: its place in
the cache is a link to that folder, rebuilt whenever the cache is wiped. A built-in agent's model
files are not copied but pinned by their digest."""
import contextlib
import hashlib
import importlib.util
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterable

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
    returns the spec with its digest: later edits of the original never change the bot. A built-in
    agent gets the digest of the model files it reads (`_pin_models`)."""
    if not spec.submitted:
        return _pin_models(spec)
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
    _store(files, spec.label, _base(spec))
    return type(spec)(spec.label, spec.source, spec.params, spec.kind, spec.target, digest)


def _pin_models(spec):
    """A built-in agent that reads files named by its parameters (Agent.FILE_PARAMS: models), with
    their digest as its `code`: a run, a comparison or a ladder entry never goes on with a model
    changed since it started. The files are not copied, since the agent reads them where they are."""
    import agents
    from agents.learned import BadModel, read_bytes
    named = agents.agent_class(spec.source).files_read(dict(spec.params))
    if not named:
        return spec
    try:
        files = [(param, read_bytes(path)) for param, path in sorted(named.items())]
    except (OSError, BadModel) as e:
        if spec.code:
            raise ValueError(f"agent {spec.label}: cannot read the model it read when the run started "
                             f"({e.strerror if isinstance(e, OSError) else e}); start a new run") from None
        return spec   # the agent's own check says what is wrong with the path, in its words
    digest = _digest(files)
    if spec.code and spec.code != digest:
        raise ValueError(f"agent {spec.label}: its model file changed since the run started; start a new run")
    return type(spec)(spec.label, spec.source, spec.params, spec.kind, spec.target, digest)


def _exec_files(spec):
    """An exec agent's files: its folder, after its build (arena.sandbox.exec_host.staged_files)."""
    from arena.sandbox.exec_host import staged_files
    try:
        return staged_files(spec, lambda files: _store(files, spec.label, _base(spec)), _read_staged,
                            lambda digest: os.path.realpath(code_dir(digest)), _cache_root())
    except ValueError as e:
        message = str(e)
        raise ValueError(message if message.startswith("agent ") else f"agent {spec.label}: {message}") from None


def _base(spec):
    """The folder the paths of a submitted agent's files are relative to (see `_read_code`)."""
    origin = spec.target if spec.kind == "exec" else _code_origin(spec)
    return os.path.dirname(os.path.abspath(origin).rstrip(os.sep))


def _store(files, label, base=None):
    """Writes `files` (read-only; executable where marked) to their content-addressed place, unless
    an intact copy is there; returns their digest. When `base` (the folder they were read from) is
    named by their digest, it is a kept copy already: their place becomes a link to it."""
    digest = _digest(files)
    target = code_dir(digest)
    if not _intact(digest):
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        if base and os.path.basename(base) == digest:
            tmp = os.path.join(os.path.dirname(target), f"link-{secrets.token_hex(8)}")
            os.symlink(base, tmp)
        else:
            tmp = write_tree(files, tempfile.mkdtemp(dir=os.path.dirname(target)))
        discard(digest)
        try:
            os.rename(tmp, target)
        except OSError:   # another process staged the same code at the same moment
            discard(os.path.basename(tmp))
            if not _intact(digest):
                raise ValueError(f"agent {label}: cannot stage its code in {target}") from None
    return digest


def write_tree(files: Iterable[tuple], folder: str) -> str:
    """Writes `files` under the new folder `folder`, read-only (executable where marked), the
    folder itself readable by all (a sandboxed bot's uid reads it); returns `folder`."""
    for rel, content, *executable in files:
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content)
        os.chmod(path, 0o555 if executable and executable[0] else 0o444)
    os.chmod(folder, 0o755)
    return folder


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
    """Removes the staged copy `digest` (or its link to a kept copy); the next stage of that code
    writes it again."""
    _verified.discard(digest)
    if os.path.islink(code_dir(digest)):   # the link to a kept copy: that copy stays
        with contextlib.suppress(FileNotFoundError):   # removed meanwhile by another process
            os.unlink(code_dir(digest))
    else:
        shutil.rmtree(code_dir(digest), ignore_errors=True)


def _intact(digest):
    """Whether the staged copy `digest` exists and still has exactly its content."""
    root = code_dir(digest)
    if digest in _verified and os.path.isdir(root):   # a wiped cache is noticed at once
        return True
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
