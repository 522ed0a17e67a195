"""Means with 95% intervals over deals, kept as running moments: what every figure of the arena is
shown with (the leaderboard, the ladder, compare, analyze, the stopping rule).

Statistics are over *deals*, not matches: the matches of one duplicate group share a deal and replay
it with the agents rotated through the seats, so their average is one observation with the luck of
the deal cancelled out; an `Interval` counts deals (`n`) and the matches behind them (`games`).
"""
import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054
# Student t 97.5% quantiles for 1..30 degrees of freedom; beyond, a Cornish-Fisher expansion.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


@functools.lru_cache(maxsize=4096)
def t_quantile(confidence: float, df: int) -> float:
    """The two-sided Student t quantile for `confidence` (t975 for 95%, the table every view uses)."""
    if confidence == 0.95:
        return t975(df)
    from scipy.stats import t
    return float(t.ppf(1 - (1 - confidence) / 2, df))


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval, over `n` deals made of `games` matches."""
    mean: float
    low: float
    high: float
    n: int
    games: int

    @property
    def width(self) -> float:
        return self.high - self.low

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "deals": self.n,
                "games": self.games}


class Moments:
    """The count, mean and sum of squared deviations of a stream of numbers (Welford's update): an
    interval without the list of values, and the same stream always gives the same bits, however it
    was cut (the state is the JSON list [n, mean, m2])."""
    __slots__ = ("n", "mean", "m2")

    def __init__(self, n=0, mean=0.0, m2=0.0):
        self.n, self.mean, self.m2 = n, mean, m2

    @classmethod
    def of(cls, values: Iterable[float]) -> "Moments":
        out = cls()
        for v in values:
            out.add(v)
        return out

    def add(self, x: float) -> None:
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    def state(self) -> list[float]:
        return [self.n, self.mean, self.m2]


def moments_interval(mo: Moments, games: int | None = None, lo: float = 0.0, hi: float = 1.0,
                     confidence: float = 0.95) -> Interval | None:
    """95% (or `confidence`) interval for the mean of independent observations bounded by [lo, hi];
    None if empty.

    A Student t interval over the observations plus two pseudo-observations at lo and hi (what the
    "plus four" interval does for proportions): a few wins in a row, or deals with no spread, then
    give a wide interval rather than a certain one, and large samples are left as they are.
    """
    n = mo.n
    if n == 0:
        return None
    span = hi - lo
    m = min(1.0, max(0.0, (mo.mean - lo) / span))
    k = n + 2
    centre = (n * m + 1) / k
    ss = mo.m2 / span ** 2 + n * (m - centre) ** 2 + centre ** 2 + (1 - centre) ** 2
    half = t_quantile(confidence, k - 1) * math.sqrt(ss / (k - 1) / k)
    low, high = min(m, max(0.0, centre - half)), max(m, min(1.0, centre + half))
    return Interval(lo + m * span, lo + low * span, lo + high * span, n, n if games is None else games)


def moments_t_interval(mo: Moments, games: int | None = None) -> Interval | None:
    """Mean with a Student t 95% interval, for values with no known bounds; None if empty. One value
    has no spread to measure: its interval's ends are None."""
    n = mo.n
    if n == 0:
        return None
    games = n if games is None else games
    if n < 2:
        return Interval(mo.mean, None, None, n, games)  # type: ignore[arg-type]
    half = t975(n - 1) * math.sqrt(mo.m2 / (n - 1) / n)
    return Interval(mo.mean, mo.mean - half, mo.mean + half, n, games)


def interval(values: Iterable[float], games: int | None = None, lo: float = 0.0, hi: float = 1.0
             ) -> Interval | None:
    """`moments_interval` of a list of values."""
    return moments_interval(Moments.of(values), games, lo, hi)


def t_interval(values: Iterable[float], games: int | None = None) -> Interval | None:
    """`moments_t_interval` of a list of values."""
    return moments_t_interval(Moments.of(values), games)


def deals_to_settle(m: float, low: float, high: float, n: int) -> int | None:
    """How many deals in all would likely put the 95% interval (low, high) of a score with mean `m`
    over `n` deals (see `interval`) wholly on the side of 0.50 its mean is on, if further deals
    spread as these did; None if that is out of reach."""
    n = int(n)
    if m < 0.5:
        m, low, high = 1 - m, 1 - high, 1 - low
    if m - 0.5 < 0.005:
        return None
    k = n + 2
    c = (n * m + 1) / k
    # The spread of the deals, read back from the interval the same formula gave (see
    # interval); when both ends are clipped, the widest spread a mean of m allows.
    half = c - low if 0 < low < m else high - c if m < high < 1 else None
    if half is None or half <= 0:
        var = m * (1 - m)
    else:
        total = half ** 2 * k * (k - 1) / t975(k - 1) ** 2
        var = max(0.0, (total - n * (m - c) ** 2 - c ** 2 - (1 - c) ** 2) / n)

    def settled(n2):
        k2 = n2 + 2
        c2 = (n2 * m + 1) / k2
        ss = n2 * var + n2 * (m - c2) ** 2 + c2 ** 2 + (1 - c2) ** 2
        return c2 - t975(k2 - 1) * (ss / (k2 - 1) / k2) ** 0.5 > 0.5

    limit = max(1000, 100 * n)
    hi = n + 1
    while not settled(hi):
        if hi > limit:
            return None
        hi *= 2
    lo = max(n, hi // 2)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if settled(mid) else (mid, hi)
    return hi
