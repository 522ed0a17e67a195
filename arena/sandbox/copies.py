"""The arena's copies, on a tmpfs, of the folders its boxes bind whole (the standard library,
numpy, the project's packages, a runtime's folders, a bot's code).

Why copies: a folder of a disk's file system keeps, in the kernel's cache, each name a lookup
did not find (a negative dentry). Bound from the host, such a folder lets a bot look up names its
hand chooses and a partner in another box (or the same bot in its box's next match) time a lookup
of each: a channel of tens of thousands of bits a second. A tmpfs keeps no name it did not find
(its lookups drop a negative dentry as soon as it is used), and its pages are never evicted, so
a copy there leaves no trace of a lookup and no page to turn cold or warm (docs/sandbox.md).

The view's folders are copied once per arena process and shared by its boxes, read-only; a bot's
code is copied for each box and removed with it. Where no tmpfs has room (COPY_BASES), folders are
bound from the host as they are, and `available()` says so."""
import os
import shutil
import tempfile
import threading
from dataclasses import replace

from arena.sandbox.confine import View, _inside

# Where the copies go, in order: the first that is a tmpfs this process can write, with room.
COPY_BASES = ("/dev/shm", os.environ.get("XDG_RUNTIME_DIR") or "")
PREFIX = "tabletop-arena-"
ROOM = 1.5   # free space a copy needs on its tmpfs, as a multiple of its size

_lock = threading.Lock()
_root: dict[int, str | None] = {}   # by process id: a forked process makes, and removes, its own
_folders: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str | None] = {}


def _fs_type(path: str) -> str:
    """The type of the file system `path` is on, from this process's mount table."""
    best, kind = "", ""
    real = os.path.realpath(path)
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                point = fields[4].replace("\\040", " ")
                fstype = fields[fields.index("-") + 1]
                if (real == point or real.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                    best, kind = point, fstype
    except (OSError, ValueError, IndexError):
        return ""
    return kind


def root() -> str | None:
    """This process's folder of copies on a tmpfs (None where there is none to write)."""
    with _lock:
        if os.getpid() not in _root:
            _root.clear()
            _folders.clear()
            _root[os.getpid()] = _make_root()
        return _root[os.getpid()]


def _make_root():
    sweep()
    for base in COPY_BASES:
        if base and os.path.isdir(base) and os.access(base, os.W_OK) and _fs_type(base) == "tmpfs":
            try:
                return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base)
            except OSError:
                continue
    return None


def available() -> bool:
    """Whether this process's boxes read the folders they bind whole from copies on a tmpfs."""
    return root() is not None


def sweep() -> None:
    """Removes the folders of copies left by arena processes that are gone (killed with -9)."""
    for base in COPY_BASES:
        try:
            names = os.listdir(base) if base else []
        except OSError:
            continue
        for name in names:
            if not name.startswith(PREFIX):
                continue
            try:
                os.kill(int(name[len(PREFIX):].split("-")[0]), 0)
                continue   # its arena process is alive
            except ProcessLookupError:
                pass
            except (ValueError, OSError):
                continue
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)


def remove_all() -> None:
    """Removes this process's copies (at its exit; not those of the process it was forked from)."""
    with _lock:
        where = _root.pop(os.getpid(), None)
        if where:
            shutil.rmtree(where, ignore_errors=True)
        _root.clear()
        _folders.clear()


def _size(folder, empty):
    total = 0
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if os.path.join(top, d) not in empty]
        for name in names:
            try:
                total += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                pass
    return total


def copy(folder: str, into: str, empty: tuple[str, ...] = (), inside: tuple[str, ...] = ()) -> str | None:
    """A copy of `folder` under `into` (the folders in `empty` copied empty, with a mount point for
    each path of `inside`, bound there in a folder shown empty), or None where the tmpfs has no
    room for it or the copy fails (nothing of it is left)."""
    os.makedirs(into, exist_ok=True)
    stats = os.statvfs(into)
    if stats.f_bavail * stats.f_frsize < ROOM * _size(folder, empty):
        return None
    own = tempfile.mkdtemp(dir=into)   # a folder of its own: a copy is never inside another
    target = os.path.join(own, os.path.basename(folder.rstrip("/")) or "root")

    def skipped(top, names):
        return names if os.path.normpath(top) in empty else []
    try:
        shutil.copytree(folder, target, symlinks=True, ignore=skipped)
        for path in inside:   # made here: a box cannot make a mount point in a read-only copy
            point = os.path.join(target, os.path.relpath(path, folder))
            if os.path.isdir(path):
                os.makedirs(point, exist_ok=True)
            elif not os.path.lexists(point):
                os.makedirs(os.path.dirname(point), exist_ok=True)
                open(point, "x").close()
    except (OSError, shutil.Error):
        shutil.rmtree(own, ignore_errors=True)
        return None
    return target


def with_copies(view: View) -> View:
    """`view` with each folder it binds whole read from this process's copy of it (made at the
    first call for that folder, and kept for the process's boxes)."""
    where = root()
    if where is None:
        return view
    copies = []
    for folder in view.binds:
        if not os.path.isdir(folder) or os.path.islink(folder):
            continue
        empty = tuple(e for e in view.empty if _inside(e, (folder,)))
        inside = tuple(b for b in view.binds if _inside(b, (folder,)))
        with _lock:
            if (folder, empty, inside) not in _folders:
                _folders[folder, empty, inside] = copy(folder, os.path.join(where, "view"), empty, inside)
            made = _folders[folder, empty, inside]
        if made is not None:
            copies.append((folder, made))
    return replace(view, copies=view.copies + tuple(copies))


def code_copy(code: str, box: str) -> str | None:
    """A copy of a bot's staged `code` for the box named `box` (removed with remove_box), or None."""
    where = root()
    if where is None:
        return None
    return copy(code, os.path.join(where, "box-" + box))


def remove_box(box: str) -> None:
    where = _root.get(os.getpid())
    if where:
        shutil.rmtree(os.path.join(where, "box-" + box), ignore_errors=True)
