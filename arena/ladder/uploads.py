"""Bots uploaded to a ladder over HTTP: read safely, checked in the sandbox, kept or left no trace.

An upload is a Python bot file (FILE.py with an Agent class) or an archive (.tar.gz or .zip) of an
exec bot: a folder with its bot.toml (docs/protocol.md), at the archive's top or in its one top folder.
An archive is unpacked by reading it, never by a library's extract: only plain files and folders,
names relative without `..`, at most MAX_MEMBERS members and MAX_UNPACKED bytes counted while the
bytes come out (never trusting the sizes the archive declares). The bot then passes check-agent
(arena.tournament.checks) on the ladder's game in its sandbox, within the check's own budget, before
it is kept; a refused upload leaves no file (its staged copy in the cache included) and no store row.
A kept version is one copy, beside the store (STORE.uploads/LADDER/LABEL/DIGEST, laid out as its
staged copy): the cache of staged bots only links to it (and holds an exec bot's build), so wiping
the cache loses no upload. A retired version's files are removed; an entrant's kept versions stay
within a quota.
"""
import contextlib
import glob
import gzip
import io
import os
import posixpath
import re
import shutil
import stat
import tarfile
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING

from arena import defaults
from arena.text import printable

if TYPE_CHECKING:
    from arena.ladder.standing import Entry
    from arena.match import AgentSpec
    from arena.store import Store

MAX_UPLOAD = 4 << 20      # bytes of one uploaded file
MAX_UNPACKED = 32 << 20   # bytes of an archive's files, unpacked
MAX_MEMBERS = 1000        # files and folders of an archive
LABEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,39}")   # a bot's label (part of a URL and of an agent list)
PY_FILE = "bot.py"        # the name an uploaded Python file is kept under
EXEC_FOLDER = "bot"       # the folder an archive is unpacked into
MAX_BOTS = 3              # active bots of one entrant in one ladder
QUOTA = defaults.UPLOAD_QUOTA   # bytes of kept uploads of one entrant in one ladder (arena serve --upload-quota)
CHUNK = 1 << 16


class UploadRefused(ValueError):
    """An upload that is not taken; `status` is the HTTP status that says why (413: too big, 422: a
    bot that is not valid or fails its check)."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


def kind_of(data: bytes, filename: str) -> str:
    """"tar.gz", "zip" or "py" by the upload's first bytes (and a .py name for Python)."""
    if data[:2] == b"\x1f\x8b":
        return "tar.gz"
    if data[:4] == b"PK\x03\x04":
        return "zip"
    if filename.lower().endswith(".py"):
        return "py"
    raise UploadRefused("upload a Python bot file (.py), or a .tar.gz or .zip of an exec bot's folder with its "
                        "bot.toml")


def check_label(label: str) -> str:
    if not LABEL.fullmatch(label):
        raise UploadRefused(f"a bot's label is 1 to 40 letters, digits and _ . + - (not starting with . + -), "
                            f"not {label[:60]!r}")
    return label


def _member_name(name: str) -> str:
    """A member's name as a relative path of plain parts; UploadRefused for an absolute one, one with
    `..`, a backslash or a control character."""
    if not name or name.startswith("/") or "\\" in name or not name.isprintable():
        raise UploadRefused(f"the archive has a member named {name[:80]!r}: names must be relative paths")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UploadRefused(f"the archive has a member named {name[:80]!r}: names must not hold ..")
    return posixpath.join(*parts) if parts else ""


def _tar_members(data: bytes) -> Iterator[tuple[str, bool, IO[bytes] | None]]:
    """(name, executable, its bytes; None for a folder) of each member."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive:
                if not (member.isfile() or member.isdir()):
                    raise UploadRefused(f"the archive's {member.name[:80]!r} is a link or a device: "
                                        f"only plain files and folders are taken")
                yield member.name, bool(member.mode & 0o100), archive.extractfile(member) if member.isfile() else None
    except (tarfile.TarError, EOFError, OSError) as e:
        raise UploadRefused(f"the .tar.gz cannot be read: {e}") from None


def _zip_members(data: bytes) -> Iterator[tuple[str, bool, IO[bytes] | None]]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                mode = info.external_attr >> 16
                if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    raise UploadRefused(f"the archive's {info.filename[:80]!r} is a link or a device: "
                                        f"only plain files and folders are taken")
                yield info.filename, bool(mode & 0o100), None if info.is_dir() else archive.open(info)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError) as e:
        raise UploadRefused(f"the .zip cannot be read: {e}") from None


_DAMAGED = (tarfile.TarError, zipfile.BadZipFile, gzip.BadGzipFile, zlib.error, EOFError)


def unpack(data: bytes, kind: str, dest: str) -> None:
    """Writes the archive's files under `dest` (a new, empty folder), each member checked as it comes."""
    members = _tar_members(data) if kind == "tar.gz" else _zip_members(data)
    count = total = 0
    for name, executable, stream in members:
        count += 1
        if count > MAX_MEMBERS:
            raise UploadRefused(f"the archive has more than {MAX_MEMBERS} members", 413)
        rel = _member_name(name)
        try:
            total = _write_member(dest, rel, executable, stream, total)
        except _DAMAGED as e:   # found while its bytes are read: a bad CRC, a stream cut short
            raise UploadRefused(f"the archive cannot be read: {e}") from None
        except OSError as e:   # a name too long, a file where a folder goes, twice the same file
            raise UploadRefused(f"the archive's {rel[:80]!r} cannot be unpacked: {e.strerror or e}") from None


def _write_member(dest: str, rel: str, executable: bool, stream: IO[bytes] | None, total: int) -> int:
    """Writes one member under `dest`; the bytes unpacked so far, this member's included."""
    path = os.path.join(dest, rel)
    if stream is None or not rel:
        os.makedirs(path, exist_ok=True)
        return total
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if executable else 0o644)
    with os.fdopen(fd, "wb") as out:
        while chunk := stream.read(CHUNK):
            total += len(chunk)
            if total > MAX_UNPACKED:
                raise UploadRefused(f"the archive unpacks to more than {MAX_UNPACKED >> 20} MiB", 413)
            out.write(chunk)
    return total


def bot_folder(dest: str) -> str:
    """The unpacked folder that holds bot.toml: `dest` itself, or its one folder."""
    entries = os.listdir(dest)
    if "bot.toml" not in entries and len(entries) == 1 and os.path.isdir(os.path.join(dest, entries[0])):
        dest = os.path.join(dest, entries[0])
    if not os.path.isfile(os.path.join(dest, "bot.toml")):
        raise UploadRefused("the archive has no bot.toml at its top or in its one top folder (docs/protocol.md)")
    return dest


def write_bot(data: bytes, filename: str, folder: str, class_name: str | None) -> tuple[str, str]:
    """Writes the upload in `folder` (new, empty); (the agent it is, as the agent list writes it, its
    default label). UploadRefused for anything that is not a bot."""
    if len(data) > MAX_UPLOAD:
        raise UploadRefused(f"an upload is at most {MAX_UPLOAD >> 20} MiB", 413)
    kind = kind_of(data, filename)
    if kind == "py":
        path = os.path.join(folder, PY_FILE)
        with open(path, "wb") as f:
            f.write(data)
        return python_agent(path, class_name, os.path.basename(filename))
    unpacked = os.path.join(folder, EXEC_FOLDER)
    os.mkdir(unpacked)
    unpack(data, kind, unpacked)
    root = bot_folder(unpacked)
    from arena.sandbox.exec_host import MANIFEST, read_manifest
    with open(os.path.join(root, MANIFEST), "rb") as f:
        try:
            name = read_manifest(f.read(), "bot")["name"]
        except ValueError as e:
            raise UploadRefused(f"its bot.toml: {e}") from None
    return f"exec:{root}", name


def python_agent(path: str, class_name: str | None, filename: str) -> tuple[str, str]:
    """("PATH:Class", Class) of an uploaded Python file (`filename` as uploaded), parsed and never
    run here: the class named, else its only Agent class."""
    from arena.agent_list import agent_classes
    try:
        classes = agent_classes(path, printable(filename, 80, keep=""))
    except ValueError as e:
        raise UploadRefused(f"the Python file cannot be parsed: {e}") from None
    if not classes:
        raise UploadRefused("the Python file has no Agent class (class MyBot(Agent) at its top level)")
    if class_name:
        if class_name not in classes:
            raise UploadRefused(f"the Python file has no Agent class {class_name[:60]!r}; it has {', '.join(classes)}")
        return f"{path}:{class_name}", class_name
    if len(classes) > 1:
        raise UploadRefused(f"the Python file has several Agent classes ({', '.join(classes)}): name one")
    return f"{path}:{classes[0]}", classes[0]


def remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def submit(store: "Store", name: str, entrant: str, data: bytes, filename: str, label: str | None = None,
           class_name: str | None = None, games: int = 2, quota: int = QUOTA) -> "Entry":
    """Adds the uploaded bot to ladder `name` for `entrant`, after check-agent on the ladder's game in
    its sandbox (within the check's own budget: `_check`), and keeps it once, beside the store
    (`kept_root`); the version it replaces is retired and its files removed. The
    entrant's kept uploads stay within `quota` bytes (413). Returns its entry.
    UploadRefused (with its status) for an upload that is not taken; ValueError for an unknown ladder.
    Checks run side by side, at most CHECKS_AT_ONCE, one per entrant: no upload waits for another
    entrant's bot longer than one check's budget."""
    from arena.ladder import store as ladders
    ladder = ladders.get(store, name)
    if ladder.config.sandbox.mode == "none":
        raise UploadRefused(f"ladder {name} runs its bots without the sandbox (--sandbox none): it takes no "
                            f"uploads", 403)
    if label is not None:
        _may_enter(store, name, entrant, check_label(label))
    _sweep_scratch(tempfile.gettempdir())
    _sweep_scratch(os.path.join(kept_root(store), name), PENDING)
    cache, marker, made, pending = _cache_entries(), None, None, None
    scratch = tempfile.mkdtemp(prefix=f"{SCRATCH}{os.getpid()}-")
    try:
        agent, default = write_bot(data, filename, scratch, class_name)
        label = label or check_label(default)
        _may_enter(store, name, entrant, label)
        _within_quota(store, name, entrant, label, [scratch], quota)
        agent, pending = _keep(store, name, label, agent)
        marker = _marker(agent)
        with _checking(entrant):
            _check(agent, label, ladder, games)
        if pending:
            agent, made = _settle(store, name, label, agent)
        staged = _staged(agent, label)
        _within_quota(store, name, entrant, label, _folders(store, staged), quota)
        with _entering:   # the label's owner and the entrant's count, then the entry, at one time
            _may_enter(store, name, entrant, label)
            before = {e.entry for e in ladders.entries(store, name, active=True)}
            try:
                added = ladders.add(store, name, staged, entrant=entrant, checked=True, item=f"{agent} as {label}")
            except ValueError as e:
                raise UploadRefused(str(e)) from None
            gone = [e for e in ladders.entries(store, name) if e.entry in before and e.status == "retired"]
            remove_files(store, gone)
        return added
    except BaseException:
        _discard_staged(cache, marker)
        if made:
            _remove_kept(made)
        raise
    finally:
        remove(scratch)
        if pending:
            remove(pending)


def retire(store: "Store", name: str, label: str, entrant: str | None = None) -> list["Entry"]:
    """ladders.retire, then the retired uploaded versions' files removed (their matches stay)."""
    from arena.ladder import store as ladders
    with _entering:
        gone = ladders.retire(store, name, label, entrant=entrant)
        remove_files(store, gone)
    return gone


def remove_files(store: "Store", retired: Sequence["Entry"]) -> None:
    """Removes the kept files of the retired uploaded entries (and their links and builds in the
    cache of staged bots), but not a folder an active entry of any ladder of the store plays from."""
    from arena.ladder import store as ladders
    doomed = {folder for e in retired for folder in _folders(store, e.spec)}
    if not doomed:
        return
    active = [e for ladder in ladders.ladders(store) for e in ladders.entries(store, ladder["name"], active=True)]
    doomed -= {folder for e in active for folder in _folders(store, e.spec)}
    from arena.sandbox.staging import discard
    for folder in doomed:
        discard(os.path.basename(folder))   # a build's copy, or the link to a kept copy
        if not folder.startswith(_cache_root() + os.sep):
            _remove_kept(folder)


def kept_bytes(store: "Store", name: str, entrant: str, but: str | None = None) -> int:
    """The bytes the entrant's active uploaded bots of the ladder keep on disk (but those of label `but`)."""
    from arena.ladder import store as ladders
    folders = {folder for e in ladders.entries(store, name, active=True)
               if e.entrant == entrant and e.label != but for folder in _folders(store, e.spec)}
    return sum(_size(folder) for folder in folders)


def kept_root(store: "Store") -> str:
    """The folder beside the store that holds the kept copies of its uploaded bots."""
    return os.path.abspath(store.path) + ".uploads"


def _within_quota(store, name, entrant, label, folders, quota):
    """413 when the entrant's kept uploads, with `folders` and without the version of `label` that
    this upload replaces, would pass `quota` bytes."""
    used = kept_bytes(store, name, entrant, but=label)
    size = sum(_size(folder) for folder in folders)
    if used + size > quota:
        raise UploadRefused(f"{entrant}'s bots in ladder {name} would keep {(used + size) / 2 ** 20:.1f} MiB, over "
                            f"the {quota / 2 ** 20:.1f} MiB each entrant may keep (arena serve --upload-quota): "
                            f"retire one first", 413)


def _size(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
    return total


def _folders(store, spec: "AgentSpec") -> set[str]:
    """The folders an uploaded entry (its staged spec) keeps on disk: its kept copy beside the
    store and, for an exec bot with a build, the copy of its build in the cache of staged bots
    (none for an entry that is not an upload's)."""
    from arena.sandbox import code_dir
    root = kept_root(store)
    path = os.path.abspath(spec.target if spec.kind == "exec" else spec.target.rpartition(":")[0])
    kept = os.path.dirname(path.rstrip(os.sep))
    if not spec.submitted or os.path.commonpath([kept, root]) != root or kept == root:
        return set()
    folders = {kept}
    if spec.code and spec.code != os.path.basename(kept):
        folders.add(code_dir(spec.code))
    return folders


def _keep(store, name, label, agent):
    """Writes the upload's files (from its scratch folder) laid out as their staged copy, in a
    folder named by their digest: in a pending folder of the ladder's uploads while the bot is
    checked (_settle then moves it to STORE.uploads/NAME/LABEL/DIGEST), unless the same version is
    kept already. (The agent played from there, the pending folder or None.)"""
    from arena.sandbox.exec_host import read_tree
    from arena.sandbox.staging import _digest, _read_code, write_tree
    path = _path_of(agent)
    try:
        files = read_tree(path) if agent.startswith("exec:") else _read_code([path])
    except (OSError, ValueError) as e:
        raise UploadRefused(f"the bot cannot be read: {e}") from None
    digest = _digest(files)
    kept = os.path.join(kept_root(store), name, label, digest)
    if os.path.isdir(kept):
        return _moved(agent, kept), None
    pending = tempfile.mkdtemp(prefix=f"{PENDING}{os.getpid()}-", dir=_private_folder(store, name))
    return _moved(agent, write_tree(files, os.path.join(pending, digest))), pending


def _settle(store, name, label, agent):
    """Moves the checked upload's copy from its pending folder to STORE.uploads/NAME/LABEL/DIGEST;
    (the agent played from there, that folder)."""
    copy = os.path.dirname(_path_of(agent).rstrip(os.sep))
    kept = os.path.join(_private_folder(store, name, label), os.path.basename(copy))
    try:
        os.rename(copy, kept)
    except OSError as e:   # the same version kept meanwhile by an upload of another server
        raise UploadRefused(f"the bot cannot be kept: {e.strerror or e}; send it again") from None
    return _moved(agent, kept), kept


def _private_folder(store, *parts):
    """The folder kept_root(store)/PARTS, it and each folder on the way made 0700 (the store is
    private: so are its uploads)."""
    folders = [kept_root(store)]
    for part in parts:
        folders.append(os.path.join(folders[-1], part))
    for folder in folders:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
    return folders[-1]


def _path_of(agent):
    """The file or folder an agent item of an upload plays from."""
    return agent[len("exec:"):] if agent.startswith("exec:") else agent.rpartition(":")[0]


def _moved(agent, folder):
    """The agent played from `folder` (a copy of the folder it was played from)."""
    moved = os.path.join(folder, os.path.basename(_path_of(agent).rstrip(os.sep)))
    return f"exec:{moved}" if agent.startswith("exec:") else f"{moved}:{agent.rpartition(':')[2]}"


def _remove_kept(folder):
    """Removes a kept copy, and its label's folder when that is left empty."""
    remove(folder)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.dirname(folder))


def _staged(agent, label):
    """The staged spec of the kept upload (its check staged it already: this finds that copy intact)."""
    from arena.agent_list import agent_spec
    from arena.sandbox import stage
    try:
        return stage(agent_spec(agent, label=label))
    except ValueError as e:
        raise UploadRefused(str(e)) from None


CHECKS_AT_ONCE = 2        # upload checks running side by side (one per entrant)
CHECK_MOVES = 20          # an uploaded bot's moves per match of its check at most ...
CHECK_MOVE_LIMIT = 1.0    # ... each within this many seconds (or the ladder's limit, when shorter)
_slots = threading.BoundedSemaphore(CHECKS_AT_ONCE)
_entering = threading.Lock()   # held only while the store is read and written, never while a bot runs
_entrants: set[str] = set()    # entrants with a check running
_entrants_lock = threading.Lock()
SCRATCH = "arena-upload-"   # then the pid of the server that unpacks there
PENDING = "." + SCRATCH     # a kept copy's folder while its bot is checked (no label starts with .)


@contextlib.contextmanager
def _checking(entrant):
    """One of CHECKS_AT_ONCE slots for the entrant's check, the entrant's only one (409 while
    another upload of theirs is being checked)."""
    with _entrants_lock:
        if entrant in _entrants:
            raise UploadRefused(f"an upload of {entrant}'s is being checked: wait for its answer", 409)
        _entrants.add(entrant)
    try:
        with _slots:
            yield
    finally:
        with _entrants_lock:
            _entrants.discard(entrant)


def _sweep_scratch(where: str, prefix: str = SCRATCH) -> None:
    """Removes the scratch (or pending) folders in `where` of servers that died during an upload
    (kill -9 leaves them): those whose pid is no longer a process."""
    for path in glob.glob(os.path.join(where, f"{prefix}*-*")):
        pid = os.path.basename(path)[len(prefix):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            remove(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:   # someone else's process (EPERM)
        return True
    return True


def _may_enter(store, name, entrant, label):
    """403 when `label` is another entrant's bot of the ladder; 409 when the entrant has MAX_BOTS
    active bots already (a new version of one of them replaces it)."""
    from arena.ladder import store as ladders
    every = ladders.entries(store, name)
    owners = {e.entrant for e in every if e.label == label}
    if owners and owners != {entrant}:
        raise UploadRefused(f"the bot {label} of ladder {name} belongs to another entrant: choose another label", 403)
    mine = {e.label for e in every if e.entrant == entrant and e.status == "active"}
    if label not in mine and len(mine) >= MAX_BOTS:
        raise UploadRefused(f"{entrant} has {len(mine)} active bots in ladder {name}, the most one entrant may "
                            f"have: retire one first", 409)


def _check(agent, label, ladder, games):
    """check-agent on the ladder's game, its sandbox and its time rules, within the check's own
    budget: at most CHECK_MOVES moves a match, each within CHECK_MOVE_LIMIT seconds (a phase no
    match reaches then is not checked); UploadRefused (422) with the first failed check."""
    from arena.agent_list import agent_spec
    from arena.tournament.checks import EXEC_CHECKS, check_agent, not_required, not_run
    config = ladder.config
    try:
        spec = agent_spec(agent, label=label)
        results = check_agent(spec, ladder.game_id, ladder.params, games=games,
                              time_limit=min(config.time_limit, CHECK_MOVE_LIMIT), policy=config.sandbox,
                              time_control=config.time_control, max_moves=CHECK_MOVES)
    except ValueError as e:
        raise UploadRefused(f"the bot fails check-agent: {e}") from None
    failed = next((r for r in results if not r["ok"]), None)
    unreached = EXEC_CHECKS["phases"][1]   # a capped match may end before a phase
    missing = set(not_run(results, spec.kind == "exec")) - set(not_required(spec)) - {unreached}
    if failed:
        raise UploadRefused(f"the bot fails check-agent: {failed['check']}: {failed['detail']}")
    if missing:
        raise UploadRefused(f"the bot fails check-agent: not run: {', '.join(sorted(missing))}")


def _cache_root():
    from arena.sandbox import code_dir
    return os.path.dirname(code_dir("-"))


def _cache_entries():
    """The staged copies and build records in the cache now."""
    root = _cache_root()
    entries: set[str] = set()
    for folder in (root, os.path.join(root, "builds")):
        with contextlib.suppress(OSError):
            entries.update(os.path.join(folder, name) for name in os.listdir(folder))
    return entries


def _marker(agent):
    """(path in a staged copy, content) that only a copy of this upload holds: its bot.py or its bot.toml."""
    path = agent[len("exec:"):] if agent.startswith("exec:") else agent.rpartition(":")[0]
    rel = os.path.basename(path) if os.path.isfile(path) else os.path.join(os.path.basename(path), "bot.toml")
    with open(path if os.path.isfile(path) else os.path.join(path, "bot.toml"), "rb") as f:
        return rel, f.read()


def _discard_staged(before, marker):
    """Removes the staged copies (and their build records) that appeared since `before` and hold
    `marker` (nothing when None: no bot was written)."""
    from arena.sandbox.staging import discard
    if marker is None:
        return
    rel, content = marker
    gone = set()
    for entry in sorted(_cache_entries() - before):
        try:
            with open(os.path.join(entry, rel), "rb") as f:
                ours = f.read() == content
        except OSError:
            continue
        if ours:
            gone.add(os.path.basename(entry))
            discard(os.path.basename(entry))
    for entry in _cache_entries() - before:
        if os.path.isfile(entry):
            with contextlib.suppress(OSError), open(entry) as f:
                if f.read().strip() in gone:
                    os.unlink(entry)
