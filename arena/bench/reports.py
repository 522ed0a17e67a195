"""`arena bench --reports`: the reporting commands on stores of 10,000 to 1,000,000 matches.

Each store is synthetic and deterministic: an Insert round robin of four agents of unequal strength
(six pairs, both seatings of every deal), outcomes drawn from a seeded generator, one match in a
thousand ended by a fault. It is written as a tournament's coordinator writes it: one match per
transaction through `Store.record`, the checkpointed tallies (arena.results.tallies) advanced after each.

Then each command runs as its own process, as a user runs it (`python -m arena leaderboard --store
...`), timed from start to exit, its peak resident memory read from `wait4`. Rows, per store size N:

- `reports/N/build`: matches written per second (record + checkpoint), `peak_mb` of the builder.
- `reports/N/count_floor`: the floor, a Python process that opens the store and counts its rows
  with SQLite.
- `reports/N/leaderboard`, `/matchups`, `/report` (HTML), `/graph` (PNG): runs per second beside
  the floor (`speedup` below 1: how much slower than counting), with `seconds` and `peak_mb`.
"""
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence

from arena.bench.measure import Row, row

SIZES = (10_000, 100_000, 1_000_000)
STRENGTHS = {"ismcts": 1.6, "minimax": 1.2, "greedy": 0.8, "random": 0.0}
COMMANDS = ("leaderboard", "matchups", "report", "graph")
FLOOR = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM matches').fetchone()[0])"


def build_store(path: str, matches: int, seed: int = 0) -> str:
    """Writes a synthetic finished run of about `matches` matches (whole deals) to a new store at
    `path`; returns its run id."""
    import engines
    from arena import edge
    from arena.match import Fault, MatchResult
    from arena.results.tallies import Checkpoint
    from arena.run_config import GameSetting
    from arena.sandbox import DEFAULT_POLICY
    from arena.store import Store
    from arena.tournament import schedule as sched

    specs = edge.agents(",".join(STRENGTHS))
    params = engines.registry.resolve("insert")
    per_deal = len(sched.lineups(specs, 2)) * 2
    deals = max(1, matches // per_deal)
    config = sched.tournament_config([GameSetting("insert", params)], specs, deals, seed, 10.0, DEFAULT_POLICY)
    run_id = config.run_id
    schedule = sched.schedule_from_config(run_id, config)
    store = Store(path)
    store.create_run(run_id, config, len(schedule))
    checkpoint = Checkpoint(store, run_id)
    rng = random.Random(seed)
    for spec in schedule:
        a, b = (STRENGTHS[s.label] for s in spec.seats)
        x = rng.random()
        p_first = 1 / (1 + 10 ** ((b - a) / 2))
        places = [1, 1] if x < 0.03 else [1, 2] if x < 0.03 + 0.97 * p_first else [2, 1]
        faults = []
        if rng.random() < 0.001:
            places = [1, 2]
            faults = [Fault(1, spec.seats[1].label, "timeout", "no move within 10.0 s", rng.randrange(30))]
        returns = [float(places[1] - places[0]), float(places[0] - places[1])]
        actions = [rng.randrange(36) for _ in range(rng.randrange(20, 36))]
        store.record(spec, MatchResult(spec.match_id, returns, places, actions, faults, {}, 0.01))
        checkpoint.stored(spec.match_id)
    checkpoint.save()
    store.set_status(run_id, "finished")
    store.close()
    return run_id


# Peak memory is read by a small launcher process: a child forked straight from the benchmark would
# inherit the benchmark's own resident size as its peak (Linux keeps the high-water mark across exec).
LAUNCHER = """
import os, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(time.perf_counter() - t, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def timed_process(args: Sequence[object], cwd: str) -> tuple[float, float]:
    """(seconds, peak resident MB) of one process, from start to exit; ValueError if it fails."""
    done = subprocess.run([sys.executable, "-c", LAUNCHER, *map(str, args)], cwd=cwd, capture_output=True,
                          text=True)
    try:
        seconds, peak_kb, code = done.stdout.split()
    except ValueError:
        code = "-1"
    if done.returncode != 0 or code != "0":
        raise ValueError(f"{' '.join(map(str, args))} failed: {done.stderr.strip()[-300:]}")
    return float(seconds), int(peak_kb) / 1024


def command_args(command: str, store: str, out_dir: str) -> list[str]:
    args = [sys.executable, "-m", "arena", command, "--store", store]
    if command == "report":
        args += ["--out", os.path.join(out_dir, "report.html")]
    if command == "graph":
        args += ["--out", os.path.join(out_dir, "graph.png")]
    return args


def _measured(case, runs, **extra):
    seconds = [s for s, _ in runs]
    return row(case, "runs/s", [1 / s for s in seconds], digits=3, seconds=[round(s, 3) for s in seconds],
               peak_mb=round(max(m for _, m in runs), 1), **extra)


def rows(sizes: Sequence[int] = SIZES, repeats: int = 3) -> Iterator[Row]:
    """The rows for each store size (see the module's docstring)."""
    import resource
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            store = os.path.join(tmp, "arena.sqlite")
            t = time.perf_counter()
            build_store(store, n)
            built = time.perf_counter() - t
            from arena.store import Store
            s = Store(store, readonly=True)
            stored = s.count(s.run().run_id)
            s.close()
            yield row(f"reports/{n}/build", "matches/s", [stored / built], digits=0, matches=stored,
                      seconds=round(built, 1), store_mb=round(os.path.getsize(store) / 2 ** 20, 1),
                      peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))
            floor = _measured(f"reports/{n}/count_floor", [timed_process([sys.executable, "-c", FLOOR, store], tmp)
                                                          for _ in range(repeats)], matches=stored)
            yield floor
            for command in COMMANDS:
                r = _measured(f"reports/{n}/{command}",
                              [timed_process(command_args(command, store, tmp), tmp) for _ in range(repeats)],
                              matches=stored, baseline=floor["case"])
                r["speedup"] = round(r["median_per_s"] / floor["median_per_s"], 3)
                yield r
