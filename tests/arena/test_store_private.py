"""The store is its owner's only (arena.store.make_private): it holds every run's deal key and the
ladders' token hashes. Made 0600 with its -wal, -shm and run locks whatever the umask; a store
other users may read is tightened with one line, or refused for writing when it cannot be."""
import os
import stat

import pytest

from arena.match import AgentSpec, MatchResult, MatchSpec
from arena.store import Store, StoreError
from cli import ok
from configs import a_config


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def write_a_match(store):
    store.create_run("r", a_config(), 1, "ab" * 16)
    seat = AgentSpec("random", "random", (), "builtin", "random")
    store.record(MatchSpec("r", 0, "insert", (("players", 2),), 1, (seat, seat)),
                 MatchResult(0, [1.0, 0.0], [1, 2], [0], [], {}, 0.1))


def test_a_new_store_its_log_and_its_locks_are_the_owners_only_whatever_the_umask(tmp_path):
    path = str(tmp_path / "new" / "arena.sqlite")
    old = os.umask(0o022)
    try:
        store = Store(path)
        write_a_match(store)
        store.claim("r")
        companions = [path + "-wal", path + "-shm", store._lock_path("r")]
        assert all(os.path.exists(p) for p in companions)
        assert {p: mode(p) for p in [path] + companions} == {p: 0o600 for p in [path] + companions}
        store.close()
    finally:
        os.umask(old)


def test_a_store_others_may_read_is_tightened_with_one_line(tmp_path, capfd):
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    write_a_match(store)
    store.close()
    os.chmod(path, 0o644)
    capfd.readouterr()
    Store(path, readonly=True).close()
    said = capfd.readouterr().err
    assert mode(path) == 0o600
    assert said.count("\n") == 1 and path in said and "0644" in said and "0600" in said
    Store(path).close()
    assert capfd.readouterr().err == ""   # private now: nothing more to say


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_another_users_readable_store_is_refused_for_writing_in_one_line(tmp_path):
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    write_a_match(store)
    store.close()
    os.chmod(path, 0o644)
    os.chown(path, 12345, 12345)
    with pytest.raises(StoreError) as refused:
        Store(path)
    assert "\n" not in str(refused.value) and "other users" in str(refused.value)
    assert mode(path) == 0o644   # not changed behind its owner's back
    Store(path, readonly=True).close()   # still read as it is


def test_a_store_made_by_the_command_line_is_private(tmp_path):
    path = str(tmp_path / "arena.sqlite")
    old = os.umask(0o022)
    try:
        ok("ladder", "new", "club", "--game", "insert", "--store", path)
        ok("ladder", "add", "club", "random", "--store", path)
    finally:
        os.umask(old)
    assert mode(path) == 0o600 and all(mode(p) == 0o600 for p in (path + "-wal", path + "-shm")
                                       if os.path.exists(p))


def test_a_store_path_that_names_no_regular_file_is_never_changed(tmp_path):
    """`--store /dev/null` (or a pipe, a device) names nothing the arena made: its mode is left as it
    is, whatever the open then says."""
    from arena.store import make_private
    pipe = tmp_path / "a-pipe"
    os.mkfifo(pipe, 0o644)
    os.chmod(pipe, 0o666)
    make_private(str(pipe), writing=True)
    assert mode(pipe) == 0o666
    before = mode("/dev/null")
    with pytest.raises(StoreError):
        Store("/dev/null")
    assert mode("/dev/null") == before
