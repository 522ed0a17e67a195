"""The frames between the arena and a submitted bot's process: a 4-byte length, then the payload.

The arena reads a bot's frames as hostile input: a bounded size, one deadline for the whole frame
(a bot that sends half a header and sleeps is out of time like one that sends nothing), and a JSON
payload of plain data that the arena validates. Nothing a bot sends is ever unpickled.
"""
import json
import os
import select
import struct
import time

HEADER = struct.Struct(">I")
MAX_REPLY = 64 * 1024   # bytes: a reply is an action or a short error, never more


class WireError(Exception):
    """The other side closed the pipe or broke the framing; `timeout` says whether time ran out."""

    def __init__(self, message, timeout=False):
        super().__init__(message)
        self.timeout = timeout


def write_frame(fd, payload):
    data = HEADER.pack(len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]


def read_frame(fd, deadline=None, limit=None):
    """The next frame's payload; `deadline` is a time.monotonic() value for the whole frame."""
    header = _read_exactly(fd, HEADER.size, deadline)
    (size,) = HEADER.unpack(header)
    if limit is not None and size > limit:
        raise WireError(f"sent a message of {size} bytes (at most {limit})")
    return _read_exactly(fd, size, deadline)


def _read_exactly(fd, n, deadline):
    chunks, missing = [], n
    while missing:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise WireError("no complete answer in time", timeout=True)
        chunk = os.read(fd, min(missing, 1 << 20))
        if not chunk:
            raise WireError("closed its end of the pipe")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def send_json(fd, value):
    write_frame(fd, json.dumps(value).encode())


def read_json(fd, deadline=None):
    """A reply from a bot: a JSON object of at most MAX_REPLY bytes, else WireError."""
    payload = read_frame(fd, deadline, MAX_REPLY)
    try:
        value = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        raise WireError("sent a message that is not JSON") from None
    if not isinstance(value, dict):
        raise WireError("sent a message that is not a JSON object")
    return value
