"""Hostile archives (arena.ladder.uploads): whatever a member's name, type or bytes, an upload is
taken or refused with an UploadRefused (its HTTP status), never another exception (a 500)."""
import io
import os
import tarfile
import zipfile

import pytest

from arena.ladder import uploads
from arena.ladder.uploads import UploadRefused

MANIFEST = b"name = 'x'\ncommand = ['python3', 'bot.py']\n"


def zip_of(members, compression=zipfile.ZIP_STORED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        for name, content in members:
            archive.writestr(name, content)
    return out.getvalue()


def tar_gz_of(members, tar_format=tarfile.GNU_FORMAT):
    """A .tar.gz of [(TarInfo, bytes or None)]."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tar_format) as archive:
        for info, content in members:
            info.size = len(content or b"")
            archive.addfile(info, io.BytesIO(content) if content is not None else None)
    return out.getvalue()


def member(name, kind=tarfile.REGTYPE):
    info = tarfile.TarInfo(name)
    info.type = kind
    return info


def pax_member(name, path):
    info = member(name)
    info.pax_headers = {"path": path}
    return info


def bad_crc_zip():
    data = bytearray(zip_of([("bot.toml", MANIFEST)]))
    at = data.find(b"name = ")
    data[at] ^= 0x20
    return bytes(data)


def cut_tar_gz():
    """A .tar.gz cut short inside its one member's bytes (its header read whole)."""
    return tar_gz_of([(member("bot.toml"), os.urandom(200_000))])[:100_000]


@pytest.mark.parametrize("data, message", [
    (zip_of([("bot.toml", MANIFEST), ("bot.toml/x", b"")]), "cannot be unpacked"),
    (zip_of([("bot.toml", MANIFEST), ("bot.toml/", b"")]), "cannot be unpacked"),
    (tar_gz_of([(member("bot.toml"), MANIFEST), (member("bot.toml/x"), b"")]), "cannot be unpacked"),
    (zip_of([("bot.toml", MANIFEST), ("x" * 300, b"")]), "cannot be unpacked"),
    (zip_of([("bot.toml", MANIFEST), ("/".join(["d" * 200] * 30) + "/f", b"")]), "cannot be unpacked"),
    (bad_crc_zip(), "cannot be read"),
    (cut_tar_gz(), "cannot be read"),
], ids=["zip-file-then-a-file-under-it", "zip-file-then-a-folder-of-its-name", "tar-file-then-a-file-under-it",
        "name-too-long", "path-too-long", "zip-bad-crc", "tar-gz-cut-short"])
def test_an_archive_that_cannot_be_unpacked_is_refused(tmp_path, data, message):
    with pytest.raises(UploadRefused, match=message) as refused:
        uploads.write_bot(data, "bot.zip", str(tmp_path), None)
    assert refused.value.status == 422


# These held before they were written; they guard member names and types the other tests do not
# send: a backslash, a `..` carried by a GNU long-name or a pax header, a FIFO.
@pytest.mark.parametrize("data, message", [
    (zip_of([("bot.toml", MANIFEST), ("..\\..\\evil", b"x")]), "relative paths"),
    (tar_gz_of([(member("bot.toml"), MANIFEST), (member("a/" * 60 + "../" * 70 + "evil"), b"x")]), r"\.\."),
    (tar_gz_of([(member("bot.toml"), MANIFEST), (pax_member("fine", "../../evil"), b"x")], tarfile.PAX_FORMAT),
     r"\.\."),
    (tar_gz_of([(member("bot.toml"), MANIFEST), (member("pipe", tarfile.FIFOTYPE), None)]), "link or a device"),
], ids=["backslash", "gnu-long-name-dotdot", "pax-path-dotdot", "fifo"])
def test_a_member_name_or_type_that_escapes_is_refused(tmp_path, data, message):
    folder = tmp_path / "upload"
    folder.mkdir()
    with pytest.raises(UploadRefused, match=message):
        uploads.write_bot(data, "bot.tar.gz", str(folder), None)
    assert not (tmp_path / "evil").exists() and not (folder / "evil").exists()


@pytest.mark.parametrize("source", ["x = a" + ".b" * 200_000, "x = " + "1+" * 200_000 + "1", "x = " + "-" * 200_000 + "1",
                                    "x = " + "lambda: " * 100_000 + "1"],
                         ids=["attributes", "sum", "unary", "lambdas"])
def test_a_python_file_nested_too_deep_for_the_parser_is_refused(tmp_path, source):
    with pytest.raises(UploadRefused, match="cannot be parsed") as refused:
        uploads.write_bot(source.encode() + b"\n", "bot.py", str(tmp_path), None)
    assert refused.value.status == 422


@pytest.mark.parametrize("manifest", [b"name = " + b"[" * 100_000 + b"]" * 100_000,
                                      b"name = " + b"{a = " * 50_000 + b"1" + b"}" * 50_000],
                         ids=["arrays", "tables"])
def test_a_bot_toml_nested_too_deep_is_refused(tmp_path, manifest):
    with pytest.raises(UploadRefused, match="bot.toml.*nested too deep") as refused:
        uploads.write_bot(zip_of([("bot.toml", manifest)]), "bot.zip", str(tmp_path), None)
    assert refused.value.status == 422
