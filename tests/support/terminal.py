"""What a command shows a person: it runs in a real tmux pane of a given size, and the pane's text
(with its scrollback) is read back as the screen. Skips the test when tmux is not installed."""
import os
import shutil
import subprocess
import time
import uuid

import pytest

END = "<end>"


def screen(command, width, height, timeout=120):
    """The text of a width x height tmux pane once `command` (a shell command line) has finished,
    from the top of its scrollback."""
    if shutil.which("tmux") is None:
        pytest.skip("no tmux (apt-get install -y tmux) to look at the terminal with")
    tmux = ["tmux", "-L", f"arena-test-{uuid.uuid4().hex[:8]}"]
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("TMUX", None)
    # `exec cat` keeps the pane open (and still) once the command has printed.
    subprocess.run(tmux + ["new-session", "-d", "-s", "pane", "-x", str(width), "-y", str(height),
                           f"{command}; echo '{END}'; exec cat"], env=env, check=True, timeout=30)
    try:
        text = ""
        deadline = time.monotonic() + timeout
        while END not in text.splitlines() and time.monotonic() < deadline:
            time.sleep(0.3)
            text = subprocess.run(tmux + ["capture-pane", "-p", "-S", "-", "-E", "-", "-t", "pane"],
                                  capture_output=True, text=True, timeout=30).stdout
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True, timeout=30)
    assert END in text.splitlines(), text
    return text[:text.rindex(END)]
