"""How `arena bench` measures: rates of a function over repeats, and its JSON rows (shared by the
engine, search, arena and reporting benchmarks)."""
import argparse
import json
import math
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Row = dict[str, Any]   # one benchmark row, as `arena bench` prints it


def calibrated_rates(fn: Callable[[int], object], repeats: int, seconds: float) -> list[float]:
    """Calibrates n so one call of fn(n) takes about `seconds`, then returns `repeats` rates."""
    n = 1
    while True:
        t = time.perf_counter()
        fn(n)
        dt = time.perf_counter() - t
        if dt > seconds / 4 or n >= 1 << 30:
            break
        n *= 4
    return timed(fn, max(1, int(n * seconds / max(dt, 1e-9))), repeats)


def timed(fn: Callable[[int], object], n: int, repeats: int) -> list[float]:
    """`repeats` rates of fn(n): n per second of wall time."""
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(n)
        rates.append(n / (time.perf_counter() - t))
    return rates


def row(case: str, unit: str, rates: Sequence[float], digits: int | None = 1, **extra: Any) -> Row:
    """A benchmark row; rates rounded to `digits` decimals (None: whole numbers)."""
    out = {"case": case, "unit": unit, "rates": [round(r, digits) for r in rates],
           "median_per_s": round(statistics.median(rates), digits)}
    out.update(extra)
    return out


def versus(base: Row, fast: Row, digits: int = 1) -> list[Row]:
    """`fast` measured against `base`: its "baseline" case and its "speedup" (median over median),
    to `digits` decimals, or to two significant figures where those would show less."""
    fast["baseline"] = base["case"]
    ratio = fast["median_per_s"] / base["median_per_s"]
    fast["speedup"] = round(ratio, max(digits, 1 - math.floor(math.log10(ratio))) if ratio > 0 else digits)
    return [base, fast]


class _OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line (no usage line before them)."""
    def error(self, message: str):   # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def run_alone(prog: str, rows: Callable[[list[str]], Iterable[Row]], default: Sequence[str] | None = None,
              argv: Sequence[str] | None = None,
              rounds: tuple[str, Callable[[int], Iterable[Row]]] | None = None) -> None:
    """`python -m PROG [game ...]`: prints `rows(games)` as JSON lines. Games default to `default`,
    else every registered game; an unknown game ends it with a one-line error (exit 2). With
    `rounds=(help, fn)`, `--rounds N` prints `fn(N)` instead and takes no game."""
    import engines
    ap = _OneLineParser(prog=f"python -m {prog}")
    ap.add_argument("games", nargs="*", metavar="game", help=f"default: {', '.join(default or ['every game'])}")
    if rounds:
        ap.add_argument("--rounds", metavar="N", nargs="?", const="", help=rounds[0])
    args = ap.parse_args(argv)
    if rounds and args.rounds is not None:
        if not args.rounds.isdigit() or int(args.rounds) < 1:
            ap.error("--rounds takes a whole number of rounds, at least 1")
        if args.games:
            ap.error("--rounds takes no game")
        for r in rounds[1](int(args.rounds)):
            print(json.dumps(r), flush=True)
        return
    games = args.games or list(default or engines.game_ids())
    unknown = [g for g in games if g not in engines.game_ids()]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}; valid games: {', '.join(engines.game_ids())}")
    for r in rows(games):
        print(json.dumps(r), flush=True)
