"""`arena` as a real process, for the tests that signal or kill it (test_arena, test_robustness)."""
import sqlite3
import subprocess
import sys
import time


def start(args, cwd, command="run"):
    """`python -m arena COMMAND ARGS` in its own session, with its output captured."""
    return subprocess.Popen([sys.executable, "-m", "arena", command, *map(str, args)], cwd=str(cwd),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def count_matches(store):
    """The matches stored so far (0 while the store does not exist yet)."""
    try:
        db = sqlite3.connect(str(store), timeout=5)
        try:
            return db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def wait_for_matches(store, n, proc, limit=120):
    """Waits until `n` matches are stored, the process still running."""
    deadline = time.time() + limit
    while count_matches(store) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "too few matches stored"
        time.sleep(0.05)
