"""The page-cache channel a box is left (docs/sandbox.md): warming cold pages, as JSON rows.

No box can evict a page (the seccomp filter denies it), but every box can read the files it shows.
A sender reads one byte of the pages its random bits say (one every STRIDE bytes, beyond the
kernel's readahead of a lone read); a receiver times a read of each and calls one under
WARM_SECONDS warm. Both run in one process: the row gives the file, the share of its pages in the
cache before (mincore; None in a box, which is denied it), the bits sent and read right, and the
bits per second over both sides' time. A file read once is warm: each page carries one bit, once,
until the kernel evicts it.

- `python -m experiments.pagecache_channel FILE [FILE ...]`: on the host, outside any box (large
  files that nothing has read lately; a cached file gives chance).
- `python -m experiments.pagecache_channel --box [N]`: inside a real box (a bot of this file, as a
  submitted agent, in the arena's sandbox), on the N largest files the box shows (default 8),
  after the box was made and warmed as for a match: what is left of the channel to a bot; and the
  same channel through the names a shared folder does not have (`dentry_row`), which warming
  cannot close.
- `python -m experiments.pagecache_channel --warm`: what warming costs: per view (a Python bot's,
  and an exec bot's for each starter kit's program on this machine), its files, MB, and the
  milliseconds of a warming on cached pages and on pages evicted first.
"""
import ctypes
import json
import mmap
import os
import random
import sys
import time

STRIDE = 64 * 4096
WARM_SECONDS = 20e-6
PAGE = 4096


def cached_share(path: str) -> float | None:
    """The share of `path`'s pages in the page cache (None where mincore is denied: in a box)."""
    libc = ctypes.CDLL(None, use_errno=True)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        mapped = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)
    pages = (size + PAGE - 1) // PAGE
    vector = (ctypes.c_ubyte * pages)()
    start = ctypes.c_char.from_buffer(mapped)
    denied = libc.mincore(ctypes.c_void_p(ctypes.addressof(start)), ctypes.c_size_t(size), vector) != 0
    del start
    mapped.close()
    return None if denied else sum(v & 1 for v in vector) / pages


def channel_row(path: str, seed: int = 0) -> dict:
    share = cached_share(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        offsets = range(0, os.fstat(fd).st_size - PAGE, STRIDE)
        rng = random.Random(seed)
        bits = [rng.getrandbits(1) for _ in offsets]
        start = time.perf_counter()
        for offset, bit in zip(offsets, bits):   # the sender
            if bit:
                os.pread(fd, 1, offset)
        read = []
        for offset in offsets:   # the receiver
            before = time.perf_counter()
            os.pread(fd, 1, offset)
            read.append(int(time.perf_counter() - before < WARM_SECONDS))
        seconds = time.perf_counter() - start
    finally:
        os.close(fd)
    right = sum(a == b for a, b in zip(bits, read))
    return {"case": "pagecache_channel", "file": path, "cached_before": share if share is None else round(share, 3),
            "bits": len(bits),
            "right": right, "bits_per_s": round(len(bits) / seconds)}


def dentry_row(folder: str, count: int = 4096, seed: int = 0, pause: float = 0.0) -> dict:
    """The same channel through the kernel's cache of names a folder does not have (negative
    dentries): a sender looks up the names its bits say, a receiver times a lookup of each and
    calls the faster half (under the median) cached. `pause`: seconds the receiver waits, and
    writes 32 MiB, before it times: what is left is what the kernel keeps, not what the CPU's
    caches hold for a moment."""
    rng = random.Random(seed)
    tag = rng.getrandbits(64)
    names = [os.path.join(folder, f".absent-{tag:x}-{i}") for i in range(count)]
    bits = [rng.getrandbits(1) for _ in names]

    def lookup(path):
        try:
            os.stat(path)
        except OSError:
            pass

    start = time.perf_counter()
    for name, bit in zip(names, bits):   # the sender
        if bit:
            lookup(name)
    if pause:
        time.sleep(pause)
        flush = bytearray(32 << 20)
        flush[::64] = b"\1" * (len(flush) // 64)
    times = []
    for name in names:   # the receiver
        before = time.perf_counter()
        lookup(name)
        times.append(time.perf_counter() - before)
    seconds = time.perf_counter() - start
    median = sorted(times)[len(times) // 2]
    right = sum(bit == int(t < median) for bit, t in zip(bits, times))
    return {"case": "dentry_channel", "folder": folder, "pause_s": pause, "bits": count, "right": right,
            "bits_per_s": round(count / seconds)}


def largest_files(count: int) -> list[str]:
    """The `count` largest regular files of what this process's mount table shows read-only (in a
    box: its view and its bot's code)."""
    with open("/proc/self/mountinfo") as f:
        points = {line.split()[4] for line in f if line.split()[5].split(",")[0] == "ro"}
    sizes = {}
    for point in points:
        if point.startswith(("/proc", "/dev", "/sys")):
            continue
        for top, _, names in os.walk(point) if os.path.isdir(point) else [(os.path.dirname(point), [], [os.path.basename(point)])]:
            for name in names:
                path = os.path.join(top, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    sizes[path] = os.path.getsize(path)
    return sorted(sizes, key=lambda path: sizes[path], reverse=True)[:count]


from agents import Agent


class ChannelBot(Agent):
    """The experiment as a submitted bot: at its first move, a row for each of the `files` largest
    files its box shows, and one of the names its standard library's folder does not have,
    printed as JSON lines."""
    PARAMS = {"files": 8}

    def act(self, state):
        for path in largest_files(int(self.params["files"])):
            print(json.dumps(channel_row(path)), flush=True)
        for pause in (0.0, 0.05):   # the standard library's folder
            print(json.dumps(dentry_row(os.path.dirname(os.__file__), seed=random.getrandbits(32), pause=pause)),
                  flush=True)
        return state.legal_actions()[0]


def in_box(count: int) -> list[dict]:
    """The rows of ChannelBot, run in the arena's sandbox as a submitted agent."""
    import engines
    from arena.agent_list import parse_agent
    from arena.sandbox import RemoteAgent, make_policy
    spec = parse_agent(f"{os.path.abspath(__file__)}:ChannelBot[files={count}]")
    agent = RemoteAgent(spec, 600.0, make_policy("bwrap"))
    try:
        agent.reset("insert", {}, 0, 0)
        agent.act(engines.make("insert", seed=0))
    finally:
        agent.kill()
    said = agent.captured() or {"text": ""}
    return [json.loads(line) for line in said["text"].splitlines() if line.startswith("{")]


def warm_rows() -> list[dict]:
    """Per view: its files, MB, and the milliseconds of warming it on cached pages and on pages
    evicted first (posix_fadvise DONTNEED, here outside any box; pages some process maps stay)."""
    from arena.sandbox import confine, exec_host
    views = {"python": confine.python_view()}
    for name in ("python3", "node", "java"):
        program = exec_host._host_program(name)
        if program:
            views[f"exec {name}"] = confine.python_view() + confine.program_view(program)
    rows = []
    for name, view in views.items():
        start = time.perf_counter()
        files, size = confine.warm(view)
        cached = time.perf_counter() - start
        for path in view.files():
            fd = os.open(path, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        start = time.perf_counter()
        confine.warm(view)
        cold = time.perf_counter() - start
        rows.append({"case": "pagecache_warm", "view": name, "binds": len(view.binds), "files": files,
                     "mb": round(size / 1e6, 1), "ms_cached": round(cached * 1e3, 1), "ms_evicted": round(cold * 1e3, 1)})
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--box"]:
        rows = in_box(int(sys.argv[2]) if len(sys.argv) > 2 else 8)
    elif sys.argv[1:2] == ["--warm"]:
        rows = warm_rows()
    else:
        rows = [channel_row(path) for path in sys.argv[1:]]
    for row in rows:
        print(json.dumps(row))
