"""The frames between the arena and a submitted bot's process: a 4-byte length, then the payload.

The arena treats everything on the bot's side as hostile: every read and every write has one
deadline for the whole frame (a bot that sends half a header and sleeps, or that stops reading its
requests, is out of time like one that sends nothing), a reply has a bounded size, and its payload
is JSON plain data that the arena validates. Nothing a bot sends is ever unpickled.

What a bot prints (its stdout and stderr, one pipe of its own per match) is `Output`: read while
the arena waits on the bot's frames, never blocking, the first OUTPUT_LIMIT bytes kept and the
rest only counted, so a bot that prints without end neither stalls on a full pipe nor fills the
arena's memory.
"""
import json
import os
import select
import struct
import time
from typing import Any

HEADER = struct.Struct(">I")
MAX_REPLY = 64 * 1024   # bytes: a reply is an action or a short error, never more


class WireError(Exception):
    """The other side closed the pipe or broke the framing; `timeout` says whether time ran out."""

    def __init__(self, message, timeout=False):
        super().__init__(message)
        self.timeout = timeout


OUTPUT_LIMIT = 64 * 1024   # bytes of a bot's printed output kept per match; the rest is counted
OUTPUT_READS = 16          # reads of 64 KiB at most, each time the output is read


class Output:
    """The read end of the pipe a bot's process prints to: `kept`, the first `limit` bytes it
    printed, and `cut`, how many more it printed."""

    def __init__(self, fd: int, limit: int = OUTPUT_LIMIT) -> None:
        self.fd, self.limit = nonblocking(fd), limit
        self.kept, self.cut, self.ended = bytearray(), 0, False

    def read(self, reads: int = OUTPUT_READS) -> None:
        """Reads what is waiting, at most `reads` times, so that a bot printing without end cannot
        hold the arena here past its deadline."""
        for _ in range(reads):
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                self.ended = True
                return
            room = max(0, self.limit - len(self.kept))
            self.kept += chunk[:room]
            self.cut += max(0, len(chunk) - room)

    def close(self) -> None:
        """The rest of the output (its writers are gone, but what they left is in the pipe), then
        the pipe closed."""
        if self.fd >= 0:
            self.read(reads=64)
            os.close(self.fd)
            self.fd = -1

    def text(self) -> str:
        return self.kept.decode("utf-8", "replace")


def _wait(fd: int, deadline: float | None, writing: bool, output: Output | None = None) -> None:
    """Waits until `fd` is ready, reading `output` meanwhile, or raises WireError(timeout=True)
    once `deadline` has passed."""
    if deadline is None and output is None:
        return
    poller = select.poll()
    poller.register(fd, select.POLLOUT if writing else select.POLLIN)
    if output is not None and not output.ended:
        poller.register(output.fd, select.POLLIN)
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise WireError("did not take the request in time" if writing else "no complete answer in time",
                            timeout=True)
        ready = {f for f, _ in poller.poll(None if left is None else left * 1000)}
        if output is not None and output.fd in ready:
            output.read()
            if output.ended:
                poller.unregister(output.fd)
        if fd in ready:
            return


def write_frame(fd: int, payload: bytes, deadline: float | None = None, output: Output | None = None) -> None:
    """Writes one frame; with a deadline `fd` must be non-blocking (see `nonblocking`)."""
    data = memoryview(HEADER.pack(len(payload)) + payload)
    while data:
        _wait(fd, deadline, writing=True, output=output)
        try:
            data = data[os.write(fd, data):]
        except BlockingIOError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            raise WireError("closed its end of the pipe") from None


def nonblocking(fd: int) -> int:
    os.set_blocking(fd, False)
    return fd


def read_frame(fd: int, deadline: float | None = None, limit: int | None = None,
               output: Output | None = None) -> bytes:
    """The next frame's payload; `deadline` is a time.monotonic() value for the whole frame."""
    header = _read_exactly(fd, HEADER.size, deadline, output)
    (size,) = HEADER.unpack(header)
    if limit is not None and size > limit:
        raise WireError(f"sent a message of {size} bytes (at most {limit})")
    return _read_exactly(fd, size, deadline, output)


def _read_exactly(fd, n, deadline, output=None):
    chunks, missing = [], n
    while missing:
        _wait(fd, deadline, writing=False, output=output)
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


def read_json(fd: int, deadline: float | None = None, output: Output | None = None) -> Any:
    """A reply from a bot: a JSON object of at most MAX_REPLY bytes, else WireError; the bot's
    `output` is read meanwhile."""
    payload = read_frame(fd, deadline, MAX_REPLY, output)
    try:
        value = json.loads(payload)
    except RecursionError:   # nested thousands deep: the decoder's own stack, not the referee's bug
        raise WireError("sent a message nested too deep") from None
    except (UnicodeDecodeError, ValueError):
        raise WireError("sent a message that is not JSON") from None
    if not isinstance(value, dict):
        raise WireError("sent a message that is not a JSON object")
    return value
