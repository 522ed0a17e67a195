"""Uploaded bots (arena.ladder.uploads): archives unpacked safely or refused with their HTTP status."""
import io
import os
import tarfile
import zipfile

import pytest

from arena import edge
from arena.ladder import uploads
from arena.ladder.uploads import UploadRefused
from paths import FIXTURES, ROOT

PYTHON_KIT = os.path.join(ROOT, "examples", "bots", "python")


def tar_gz(members):
    """A .tar.gz of [(TarInfo, bytes or None)]."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for info, content in members:
            if content is not None:
                info.size = len(content)
            archive.addfile(info, io.BytesIO(content) if content is not None else None)
    return out.getvalue()


def file_info(name, mode=0o644):
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info


def kit_archive(prefix="python/", extra=()):
    members = []
    for name in sorted(os.listdir(PYTHON_KIT)):
        with open(os.path.join(PYTHON_KIT, name), "rb") as f:
            members.append((file_info(prefix + name), f.read()))
    return tar_gz(members + list(extra))


def test_a_tar_gz_of_an_exec_bot_unpacks_to_its_folder(tmp_path):
    agent, name = uploads.write_bot(kit_archive(), "kit.tar.gz", str(tmp_path), None)
    assert agent == f"exec:{tmp_path}/bot/python" and name == "python-kit"
    with open(os.path.join(PYTHON_KIT, "bot.py"), "rb") as f:
        assert (tmp_path / "bot" / "python" / "bot.py").read_bytes() == f.read()


def test_a_zip_with_bot_toml_at_its_top_unpacks(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in os.listdir(PYTHON_KIT):
            archive.write(os.path.join(PYTHON_KIT, name), name)
    agent, _ = uploads.write_bot(out.getvalue(), "kit.zip", str(tmp_path), None)
    assert agent == f"exec:{tmp_path}/bot" and (tmp_path / "bot" / "bot.toml").is_file()


def test_a_python_file_names_its_agent_class(tmp_path):
    with open(os.path.join(FIXTURES, "hostile_bots.py"), "rb") as f:
        data = f.read()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(UploadRefused, match="several Agent classes"):
        uploads.write_bot(data, "hostile_bots.py", str(tmp_path / "a"), None)
    agent, label = uploads.write_bot(data, "x.py", str(tmp_path / "b"), "MemoryBomb")
    assert agent == f"{tmp_path}/b/bot.py:MemoryBomb" and label == "MemoryBomb"


def symlink_info():
    info = tarfile.TarInfo("python/link")
    info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
    return info


def hardlink_info():
    info = tarfile.TarInfo("python/hard")
    info.type, info.linkname = tarfile.LNKTYPE, "python/bot.py"
    return info


def device_info():
    info = tarfile.TarInfo("python/null")
    info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
    return info


def huge_zero_file():
    """A member of MAX_UNPACKED + 1 bytes whose header says 10 bytes: written raw, the size is a lie."""
    return tarfile.TarInfo("python/zeros"), b"\0" * (uploads.MAX_UNPACKED + 1)


@pytest.mark.parametrize("data, status, message", [
    (kit_archive(extra=[(file_info("/tmp/evil"), b"x")]), 422, "relative paths"),
    (kit_archive(extra=[(file_info("python/../../evil"), b"x")]), 422, r"\.\."),
    (kit_archive(extra=[(symlink_info(), None)]), 422, "link or a device"),
    (kit_archive(extra=[(hardlink_info(), None)]), 422, "link or a device"),
    (kit_archive(extra=[(device_info(), None)]), 422, "link or a device"),
    (kit_archive(extra=[huge_zero_file()]), 413, "unpacks to more than"),
    (kit_archive(extra=[(file_info(f"python/f{i}"), b"") for i in range(uploads.MAX_MEMBERS)]), 413, "members"),
    (b"\x1f\x8b" + b"\0" * (uploads.MAX_UPLOAD - 1), 413, "at most"),
    (kit_archive(prefix="a/") + b"", 422, None),
    (b"\x1f\x8bnot gzip", 422, "cannot be read"),
    (b"print('hi')", 422, "Python bot file"),
], ids=["absolute", "dotdot", "symlink", "hardlink", "device", "too-big-unpacked", "too-many-members",
        "oversized-upload", "ok", "not-an-archive", "not-a-bot"])
def test_a_bad_archive_is_refused_with_its_status(tmp_path, data, status, message):
    folder = tmp_path / "upload"
    folder.mkdir()
    if message is None:
        uploads.write_bot(data, "bot.tar.gz", str(folder), None)
        return
    with pytest.raises(UploadRefused, match=message) as refused:
        uploads.write_bot(data, "bot.tar.gz" if data[:2] == b"\x1f\x8b" else "bot.txt", str(folder), None)
    assert refused.value.status == status
    assert not os.path.exists("/tmp/evil") and not (tmp_path / "evil").exists()


def test_a_zip_symlink_is_refused(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        info = zipfile.ZipInfo("bot.toml")
        info.external_attr = (0o120777 << 16)
        archive.writestr(info, "/etc/passwd")
    with pytest.raises(UploadRefused, match="link or a device"):
        uploads.write_bot(out.getvalue(), "bot.zip", str(tmp_path), None)


def test_a_zip_bomb_stops_at_the_cap_while_streaming(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.toml", b"name = 'x'\ncommand = ['python3', 'bot.py']\n")
        archive.writestr("bomb", b"\0" * (uploads.MAX_UNPACKED + 1))
    assert len(out.getvalue()) < uploads.MAX_UPLOAD
    with pytest.raises(UploadRefused, match="unpacks to more than") as refused:
        uploads.write_bot(out.getvalue(), "bot.zip", str(tmp_path), None)
    assert refused.value.status == 413
    assert os.path.getsize(tmp_path / "bot" / "bomb") <= uploads.MAX_UNPACKED


@pytest.mark.parametrize("label", ["", "../x", "a/b", "<script>", ".hidden", "x" * 41, "a b"])
def test_a_bad_label_is_refused(label):
    with pytest.raises(UploadRefused, match="label"):
        uploads.check_label(label)


DIES_DURING_ITS_CHECK = """
import os, sys, time
from arena import edge
from arena.ladder import store as ladders, uploads
from arena.store import Store
store = Store(sys.argv[1])
ladders.create(store, "club", game=edge.game("insert", None), seed=1)
def check(*args):
    open(sys.argv[2], "w").close()
    time.sleep(600)
uploads._check = check
uploads.submit(store, "club", "alice", open(sys.argv[3], "rb").read(), "bot.py")
"""


def test_the_scratch_of_a_server_killed_during_an_upload_is_swept_by_the_next_upload(tmp_path):
    """kill -9 during a check leaves the upload's scratch folder; the next upload (of any server)
    removes it, and never the scratch of a process still alive."""
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    from arena.ladder import store as ladders
    from arena.store import Store
    bot = tmp_path / "bot.py"
    bot.write_text("from agents import Agent\n\n\nclass Bot(Agent):\n    def act(self, state):\n        return 0\n")
    started = tmp_path / "checking"
    dying = subprocess.Popen([sys.executable, "-c", DIES_DURING_ITS_CHECK, str(tmp_path / "dead.sqlite"),
                              str(started), str(bot)], cwd=ROOT)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    kept = None
    try:
        deadline = time.monotonic() + 120
        while not started.exists():
            assert dying.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        left = os.path.join(tempfile.gettempdir(), f"{uploads.SCRATCH}{dying.pid}-")
        os.kill(dying.pid, signal.SIGKILL)
        dying.wait()
        orphans = [p for p in os.listdir(tempfile.gettempdir()) if os.path.join(tempfile.gettempdir(), p).startswith(left)]
        assert orphans, "the killed upload left no scratch folder to sweep"
        kept = tempfile.mkdtemp(prefix=f"{uploads.SCRATCH}{alive.pid}-")

        store = Store(str(tmp_path / "arena.sqlite"))
        ladders.create(store, "club", game=edge.game("insert", None), seed=1)
        with pytest.raises(UploadRefused):
            uploads.submit(store, "club", "bob", b"not a bot", "bot.bin")
        store.close()
        assert not any(os.path.exists(os.path.join(tempfile.gettempdir(), p)) for p in orphans)
        assert os.path.isdir(kept)
    finally:
        for p in (dying, alive):
            p.kill()
            p.wait()
        if kept:
            uploads.remove(kept)
