"""The plain-C yardstick of the Wizard engine's playouts: `wizard_hand.c`, the bench's hand (4 players,
10 cards, deal included) written plainly in C, compiled here with `cc -O2` into a temporary folder.

`arena bench --game wizard` times it against `engines.core.run_rollouts` in interleaved rounds
(`interleaved`, through `arena.bench.yardstick_rows`), and `arena bench --instructions --game wizard` counts its instructions per
playout under callgrind beside the engine's (arena.bench.instructions).
"""
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

SOURCE = os.path.join(os.path.dirname(__file__), "wizard_hand.c")


class CompilerMissing(RuntimeError):
    pass


def compiler() -> str | None:
    """The C compiler `cc` (or `gcc`, `clang`), None if there is none."""
    for name in ("cc", "gcc", "clang"):
        path = shutil.which(name)
        if path:
            return path
    return None


def compile_yardstick(folder: str) -> str:
    """Compiles wizard_hand.c with -O2 into `folder`; returns the program's path."""
    cc = compiler()
    if cc is None:
        raise CompilerMissing("the plain-C yardstick needs a C compiler (cc)")
    program = os.path.join(folder, "wizard_hand")
    subprocess.run([cc, "-O2", "-o", program, SOURCE], check=True, capture_output=True, text=True)
    return program


def run(program: str, n: int, seed: int, show: bool = False) -> dict[str, Any]:
    """Plays n hands: {"hands", "seconds" (the playout loop alone, timed by the program), "checksum",
    "cpu_seconds" (the loop's CPU time)}, with "deals" too when `show`: each hand's {"bids", "tricks", "scores"}."""
    out = subprocess.run([program, str(n), str(seed)] + (["show"] if show else []),
                         check=True, capture_output=True, text=True).stdout.splitlines()
    words = out[-1].split()
    result: dict[str, Any] = {"hands": int(words[1]), "seconds": float(words[3]), "checksum": int(words[5]),
                              "cpu_seconds": float(words[7])}
    if show:
        result["deals"] = [{"bids": [int(x) for x in w[1:5]], "tricks": [int(x) for x in w[6:10]],
                            "scores": [int(x) for x in w[11:15]]} for w in (line.split() for line in out[:-1])]
    return result


def interleaved(engine: Callable[[int, int], object], program: str, rounds: int,
                seconds: float = 0.2) -> tuple[list[float], list[float]]:
    """(engine playouts/s, yardstick playouts/s), one of each per round, measured alternately
    (engine, yardstick, engine, ...) on the same number of playouts, about `seconds` each.
    `engine(n, seed)` plays n playouts. Both are timed in CPU time (the engine's process, the
    program's loop): on a shared machine, wall time also counts whatever else held the core."""
    n = 1000
    while True:
        t = time.perf_counter()
        engine(n, 0)
        dt = time.perf_counter() - t
        if dt > seconds / 4:
            break
        n *= 4
    n = max(1, int(n * seconds / dt))
    mine, plain = [], []
    for r in range(rounds):
        t = time.process_time()
        engine(n, r)
        mine.append(n / max(time.process_time() - t, 1e-9))
        plain.append(n / max(run(program, n, r)["cpu_seconds"], 1e-9))
    return mine, plain


def median_ratio(mine: list[float], plain: list[float]) -> float:
    return statistics.median(a / b for a, b in zip(mine, plain))


def temporary_program() -> tuple[str, tempfile.TemporaryDirectory]:
    """The compiled yardstick in a fresh temporary folder (removed with the returned handle)."""
    folder = tempfile.TemporaryDirectory(prefix="arena-yardstick-")
    return compile_yardstick(folder.name), folder
