"""Instruction counts per playout and per search iteration: `arena bench --instructions`.

Seconds on a shared machine move with the load; instruction counts do not. Each case runs in a child
process under valgrind's callgrind, which counts the instructions the process executes (`Ir`), the
same count for the same binary, inputs and environment whatever else the machine does. A case is
counted twice, with `n` and with `2n` units of work from the same seed, and the difference over
`n` is the cost of one unit: the interpreter's start, the imports and the setup cancel out. For a
search, the unit is one of iterations n+1 to 2n (the tree is as deep as n iterations make it).

Cases per game (the states of `arena bench`: Wizard one 4-player hand of 10 cards, Royal Ball one
round), each row beside its baseline from the same run:

- `<game>/rollouts`: one random playout from a fresh deal to the end, the loop in C
  (`engines.core.run_rollouts`); baseline `<game>/rollouts_python`, the same through the Python face.
- `wizard/rollouts_plain_c`: one playout of the same hand by the plain-C yardstick
  (arena/bench/yardstick/wizard_hand.c, `cc -O2`), counted on the program itself; when a C compiler
  is present it is the baseline of `wizard/rollouts` (whose `python_ratio` then compares it with
  `wizard/rollouts_python`).
- `arena/<game>/matches`: one match of `random` against `random` (default parameters) through the
  arena in one process (`--jobs 1`: the match played, stored in SQLite, folded into the run's
  tallies); baseline `<game>/rollouts`, so its ratio (`playout_pct`, in percent) is the arena's match
  rate as a fraction of the raw playout rate on one core.
- `ismcts/<game>/iterations`: one iteration of the ISMCTS search with its core settings (c=0.7,
  horizon=round) from the game's first decision; baseline `<game>/rollouts`, a playout.

Rows: `{"case", "unit", "instructions", "n", "baseline", "ratio"}` (ratio: baseline / this row).
Run a single count with `python -m arena.bench.instructions CASE GAME N` (what the child runs).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

import engines
from arena.bench import yardstick
from arena.bench.measure import run_alone

UNITS = {"rollouts": "instructions/playout", "rollouts_python": "instructions/playout",
         "rollouts_plain_c": "instructions/playout",
         "iterations": "instructions/iteration", "arena": "instructions/match"}
WORK = {"rollouts": 200, "rollouts_plain_c": 200, "rollouts_python": 10, "iterations": 500, "arena": 200}   # n of each case


class ValgrindMissing(ValueError):
    pass


def work(case: str, game_id: str, n: int) -> None:
    """Does n units of the case's work (in the child, under callgrind)."""
    import random

    import engines
    import engines.core as core
    from arena.bench import bench_state
    proto = bench_state(game_id)
    if case == "rollouts":
        core.run_rollouts(proto, n, 7)
    elif case == "rollouts_python":
        rng = random.Random(7)
        params = dict(proto.params)
        for i in range(n):
            s = engines.make(game_id, seed=i, **params)
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
    elif case == "iterations":
        from agents.ismcts import Search
        search = Search()
        search.seed(7)
        search.search(proto, n, 0.0, 0.7, "round", 0.5)
    elif case == "arena":
        from arena import edge
        from arena.bench import arena_schedule, play_through_arena
        config, matches = arena_schedule(game_id, engines.registry.resolve(game_id),
                                         edge.agents("random, random as random2"), (n + 1) // 2)
        play_through_arena(config, matches[:n], 1)
    else:
        raise ValueError(f"unknown instruction case {case!r}; cases: {', '.join(UNITS)}")


def count(case: str, game_id: str, n: int) -> int:
    """Instructions a child process executes doing n units of the case, under callgrind."""
    return callgrind([sys.executable, "-m", "arena.bench.instructions", case, game_id, str(n)], f"{case} {game_id}")


def callgrind(command: list[str], what: str) -> int:
    """Instructions the process of `command` executes, under callgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise ValgrindMissing("--instructions needs valgrind (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="arena-callgrind-") as folder:
        run = subprocess.run([valgrind, "--tool=callgrind", f"--callgrind-out-file={os.path.join(folder, 'out')}"]
                             + command, capture_output=True, text=True,
                             # numpy's BLAS threads spin as they start, a different count each run: one thread
                             env=dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
    found = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    if run.returncode != 0 or not found:
        tail = run.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"callgrind failed on {what} (exit {run.returncode}): {tail[0]}")
    return int(found.group(1))


def per_unit(case: str, game_id: str, n: int | None = None) -> tuple[float, int]:
    """Instructions of one unit of the case: (count(2n) - count(n)) / n."""
    n = n or WORK[case]
    if case == "rollouts_plain_c":
        program, folder = yardstick.temporary_program()
        with folder:
            counts = [callgrind([program, str(k), "7"], "the plain-C yardstick") for k in (n, 2 * n)]
        return (counts[1] - counts[0]) / n, n
    return (count(case, game_id, 2 * n) - count(case, game_id, n)) / n, n


def _row(case, name, game_id, baseline=None, n=None):
    instructions, n = per_unit(case, game_id, n)
    shown = round(instructions)
    out = {"case": name, "unit": UNITS[case], "instructions": shown, "n": n}
    if baseline:   # ratios of the printed counts, so that a reader dividing the row's figures gets the same
        out["baseline"] = baseline["case"]
        out["ratio"] = round(baseline["instructions"] / max(shown, 1), 2)
        if case == "arena":   # the ratio as the arena's share of the raw playout rate, to a hundredth of a percent
            out["playout_pct"] = round(100 * baseline["instructions"] / max(shown, 1), 2)
    return out


def rows(game_ids: Iterable[str], search: bool = True, scale: float = 1.0) -> Iterator[dict[str, Any]]:
    """The rows of the module docstring for the given games (`scale` shrinks every case's n, for tests)."""
    def n(case):
        return max(1, int(WORK[case] * scale))
    for game_id in game_ids:
        python = _row("rollouts_python", f"{game_id}/rollouts_python", game_id, n=n("rollouts_python"))
        yield python
        if engines.spec(game_id).yardstick and yardstick.compiler():
            plain = _row("rollouts_plain_c", "wizard/rollouts_plain_c", game_id, n=n("rollouts"))
            yield plain
            rollouts = _row("rollouts", f"{game_id}/rollouts", game_id, plain, n=n("rollouts"))
            rollouts["python_ratio"] = round(python["instructions"] / max(rollouts["instructions"], 1), 2)
        else:
            rollouts = _row("rollouts", f"{game_id}/rollouts", game_id, python, n=n("rollouts"))
        yield rollouts
        yield _row("arena", f"arena/{game_id}/matches", game_id, rollouts, n=n("arena"))
        if search:
            yield _row("iterations", f"ismcts/{game_id}/iterations", game_id, rollouts, n=n("iterations"))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] in WORK:   # one count, in callgrind's child
        work(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    else:
        run_alone("arena.bench.instructions", rows, default=["insert"])
