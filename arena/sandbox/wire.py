"""The frames between the arena and a submitted bot's process: a 4-byte length, then the payload.

The arena treats everything on the bot's side as hostile: every read and every write has one
deadline for the whole frame (a bot that sends half a header and sleeps, or that stops reading its
requests, is out of time like one that sends nothing), a reply has a bounded size, and its payload
is JSON plain data that the arena validates. Nothing a bot sends is ever unpickled.
"""
import json
import os
import select
import struct
import time
from typing import Any, Optional

HEADER = struct.Struct(">I")
MAX_REPLY = 64 * 1024   # bytes: a reply is an action or a short error, never more


class WireError(Exception):
    """The other side closed the pipe or broke the framing; `timeout` says whether time ran out."""

    def __init__(self, message, timeout=False):
        super().__init__(message)
        self.timeout = timeout


def _wait(fd, deadline, writing):
    """Waits until `fd` is ready, or raises WireError(timeout=True) once `deadline` has passed."""
    if deadline is None:
        return
    left = deadline - time.monotonic()
    poller = select.poll()
    poller.register(fd, select.POLLOUT if writing else select.POLLIN)
    if left <= 0 or not poller.poll(left * 1000):
        raise WireError("did not take the request in time" if writing else "no complete answer in time",
                        timeout=True)


def write_frame(fd: int, payload: bytes, deadline: Optional[float] = None) -> None:
    """Writes one frame; with a deadline `fd` must be non-blocking (see `nonblocking`)."""
    data = memoryview(HEADER.pack(len(payload)) + payload)
    while data:
        _wait(fd, deadline, writing=True)
        try:
            data = data[os.write(fd, data):]
        except BlockingIOError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            raise WireError("closed its end of the pipe") from None


def nonblocking(fd: int) -> int:
    os.set_blocking(fd, False)
    return fd


def read_frame(fd: int, deadline: Optional[float] = None, limit: Optional[int] = None) -> bytes:
    """The next frame's payload; `deadline` is a time.monotonic() value for the whole frame."""
    header = _read_exactly(fd, HEADER.size, deadline)
    (size,) = HEADER.unpack(header)
    if limit is not None and size > limit:
        raise WireError(f"sent a message of {size} bytes (at most {limit})")
    return _read_exactly(fd, size, deadline)


def _read_exactly(fd, n, deadline):
    chunks, missing = [], n
    while missing:
        _wait(fd, deadline, writing=False)
        try:
            chunk = os.read(fd, min(missing, 1 << 20))
        except BlockingIOError:
            continue
        if not chunk:
            raise WireError("closed its end of the pipe")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def send_json(fd: int, value: Any) -> None:
    write_frame(fd, json.dumps(value).encode())


def read_json(fd: int, deadline: Optional[float] = None) -> Any:
    """A reply from a bot: a JSON object of at most MAX_REPLY bytes, else WireError."""
    payload = read_frame(fd, deadline, MAX_REPLY)
    try:
        value = json.loads(payload)
    except RecursionError:   # nested thousands deep: the decoder's own stack, not the referee's bug
        raise WireError("sent a message nested too deep") from None
    except (UnicodeDecodeError, ValueError):
        raise WireError("sent a message that is not JSON") from None
    if not isinstance(value, dict):
        raise WireError("sent a message that is not a JSON object")
    return value
