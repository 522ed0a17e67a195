"""The arena's copies on a tmpfs of the folders its boxes bind whole (arena.sandbox.copies): what
they hold, where a box binds them from, and what is left when no tmpfs has room."""
import os
import subprocess
import sys

import pytest

from arena.sandbox import confine, copies

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm") or copies._fs_type("/dev/shm") != "tmpfs",
                                reason="no tmpfs at /dev/shm")


@pytest.fixture
def fresh(monkeypatch):
    """This test's own folder of copies, removed after it."""
    monkeypatch.setattr(copies, "_root", {})
    monkeypatch.setattr(copies, "_folders", {})
    yield
    copies.remove_all()


def folder_with_an_empty_part(tmp_path):
    runtime = tmp_path / "runtime"
    (runtime / "lib" / "tests").mkdir(parents=True)
    (runtime / "lib" / "mod.py").write_text("x = 1\n")
    (runtime / "lib" / "tests" / "big.py").write_text("y = 2\n")
    os.symlink("mod.py", runtime / "lib" / "alias.py")
    return str(runtime.resolve())


def test_a_view_reads_each_folder_it_binds_whole_from_a_copy_on_a_tmpfs(tmp_path, fresh):
    runtime = folder_with_an_empty_part(tmp_path)
    single = tmp_path / "single.so"
    single.write_bytes(b"\x7fELF")
    view = copies.with_copies(confine.View((runtime, str(single)), empty=(runtime + "/lib/tests",)))
    [(host, copy)] = view.copies
    assert host == runtime and copies._fs_type(copy) == "tmpfs" and copy.startswith(copies.root())
    assert open(os.path.join(copy, "lib", "mod.py")).read() == "x = 1\n"
    assert os.readlink(os.path.join(copy, "lib", "alias.py")) == "mod.py"
    assert os.listdir(os.path.join(copy, "lib", "tests")) == []   # shown empty: not copied
    assert list(view.files()) == [str(single)]   # warmed from the host: only what is not a copy
    again = copies.with_copies(confine.View((runtime,), empty=(runtime + "/lib/tests",)))
    assert again.copies == view.copies   # one copy per arena process


def test_a_copy_has_a_mount_point_for_a_bind_in_a_folder_it_shows_empty(tmp_path, fresh):
    """A runtime without a virtual environment: numpy is in the standard library's site-packages,
    which the box shows empty and then binds numpy into; the read-only copy must have its place."""
    runtime = folder_with_an_empty_part(tmp_path)
    package = os.path.join(runtime, "lib", "tests", "pkg")
    os.makedirs(package)
    open(os.path.join(package, "__init__.py"), "w").close()
    view = copies.with_copies(confine.View((runtime, package), empty=(runtime + "/lib/tests",)))
    copied = dict(view.copies)
    assert os.listdir(os.path.join(copied[runtime], "lib", "tests")) == ["pkg"]
    assert os.listdir(os.path.join(copied[runtime], "lib", "tests", "pkg")) == []   # only the mount point
    assert os.listdir(copied[package]) == ["__init__.py"]


def test_a_box_binds_the_copies_from_its_first_bubblewrap_and_the_code_from_its_own(tmp_path, fresh):
    runtime = folder_with_an_empty_part(tmp_path)
    code = tmp_path / "bot"
    code.mkdir()
    (code / "bot.py").write_text("pass\n")
    view = copies.with_copies(confine.View((runtime,)))
    code_copy = copies.code_copy(str(code), "box-1")
    view = confine.View(view.binds, view.links, view.empty, view.copies + ((str(code), code_copy),))
    limits = {"disk": 16, "memory": 100, "processes": 10}
    [(_, runtime_copy)] = [c for c in view.copies if c[0] == runtime]

    def binds(argv):
        return [(argv[i + 1], argv[i + 2]) for i, word in enumerate(argv) if word == "--ro-bind"]

    alone = binds(confine.command(["true"], str(code), limits, 3, {}, None, True, view))
    assert (runtime_copy, runtime) in alone and (code_copy, confine.BOT_ROOT) in alone
    assert not any(source == runtime for source, _ in alone)
    argv = confine.command(["true"], str(code), limits, 3, {}, 12345, True, view)
    inner = argv.index("setpriv")
    outer, inside = binds(argv[:inner]), binds(argv[inner:])
    assert (runtime_copy, runtime) in outer and (code_copy, str(code)) in outer
    assert (runtime, runtime) in inside and (str(code), confine.BOT_ROOT) in inside
    copies.remove_box("box-1")
    assert not os.path.exists(code_copy)


def test_without_a_tmpfs_the_host_folders_are_bound_as_they_are(tmp_path, fresh, monkeypatch):
    monkeypatch.setattr(copies, "COPY_BASES", (str(tmp_path),))   # a disk's folder, not a tmpfs
    runtime = folder_with_an_empty_part(tmp_path)
    view = confine.View((runtime,))
    assert copies.with_copies(view) == view and not copies.available()


def test_a_folder_with_no_room_on_the_tmpfs_is_bound_from_the_host(tmp_path, fresh, monkeypatch):
    runtime = folder_with_an_empty_part(tmp_path)
    monkeypatch.setattr(copies, "ROOM", float(os.statvfs("/dev/shm").f_blocks * os.statvfs("/dev/shm").f_frsize))
    assert copies.with_copies(confine.View((runtime,))).copies == ()


def test_copies_left_by_an_arena_process_that_is_gone_are_swept(fresh):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    left = os.path.join("/dev/shm", f"{copies.PREFIX}{dead.stdout.strip()}-left")
    mine = os.path.join("/dev/shm", f"{copies.PREFIX}{os.getpid()}-mine")
    for folder in (left, mine):
        os.makedirs(os.path.join(folder, "view"))
    try:
        copies.sweep()
        assert not os.path.exists(left) and os.path.exists(mine)
    finally:
        for folder in (left, mine):
            subprocess.run(["rm", "-rf", folder], check=True)
