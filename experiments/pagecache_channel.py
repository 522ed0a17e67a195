"""The page-cache channel a box is left (docs/sandbox.md): warming cold pages, as a JSON row.

No box can evict a page (the seccomp filter denies it), but every box can read the files under
/usr. A sender reads one byte of the pages its random bits say (one every STRIDE bytes, beyond the
kernel's readahead of a lone read); a receiver times a read of each and calls one under
WARM_SECONDS warm. Both run here in one process, outside any box: the box changes neither side's
reads. The row: the file, the share of its pages in the cache before (mincore, which the boxes are
denied), the bits sent and read right, and the bits per second over both sides' time. A file read
once is warm: each page carries one bit, once, until the kernel evicts it.

Run alone: `python -m experiments.pagecache_channel FILE [FILE ...]` (large files under /usr that
nothing has read lately; a cached file gives chance).
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


def cached_share(path: str) -> float:
    """The share of `path`'s pages in the page cache."""
    libc = ctypes.CDLL(None, use_errno=True)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        mapped = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)
    pages = (size + PAGE - 1) // PAGE
    vector = (ctypes.c_ubyte * pages)()
    start = ctypes.c_char.from_buffer(mapped)
    libc.mincore(ctypes.c_void_p(ctypes.addressof(start)), ctypes.c_size_t(size), vector)
    del start
    mapped.close()
    return sum(v & 1 for v in vector) / pages


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
    return {"case": "pagecache_channel", "file": path, "cached_before": round(share, 3), "bits": len(bits),
            "right": right, "bits_per_s": round(len(bits) / seconds)}


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(json.dumps(channel_row(path)))
