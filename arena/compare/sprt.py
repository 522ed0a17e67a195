"""Sequential tests and Elo estimates for paired games: pure functions, no games, no store.

The model (what `arena compare` tests, see arena.compare.compare for how the games are laid out):

* An **observation** is one deal played as a pair of matches, scored as one number `y` on a fixed
  grid of values (`values`); results are the **counts** of each grid value.
  - Two players: the pentanomial model of fishtest. The deal is played twice with the seats swapped;
    `y` is the candidate's score over the pair (1 a win, 1/2 a draw, per match), divided by 2:
    0, 1/4, 1/2, 3/4 or 1 (`PENTANOMIAL`).
  - More players: the paired difference. The candidate and the baseline each take the same seat
    on the same deal against the same field; `d` is the candidate's score share in its match minus
    the baseline's in its (a share is 1 per other seat placed below, 1/2 per tie, over the other
    seats) and `y = 1/2 + d`, on the grid `paired_values(players)` (4(n-1)+1 values from -1/2 to
    3/2). With the baseline as the field (the default), the mean of `y` is the candidate's score
    against the baseline, so it reads like the two-player score; against another field it is 1/2
    plus the difference of the two agents' scores against that field.
* **Hypotheses**: H0 "mean of y = L(elo0)" against H1 "mean of y = L(elo1)", L the logistic
  `1 / (1 + 10^(-elo/400))`. Elo is logistic Elo, as in fishtest's `elo_model=logistic`.
* **The test**: the generalized SPRT (GSPRT) of M. Van den Bergh, as fishtest computes it exactly
  (LLRcalc.LLR_logistic): the distribution of y is multinomial on its grid with unknown
  probabilities; under each hypothesis they are replaced by their maximum-likelihood estimate with
  the hypothesis' mean (`mle_expected`: p_i = phat_i / (1 + x (a_i - s)), x solving
  sum phat_i (a_i - s) / (1 + x (a_i - s)) = 0), and LLR = N sum phat_i log(p1_i / p0_i). Empty
  cells count 1e-3 (fishtest's regularization), so the LLR is finite from the first deal. The test
  stops at LLR <= log(beta / (1 - alpha)) (H0) or LLR >= log((1 - beta) / alpha) (H1), Wald's
  bounds, without fishtest's overshoot correction (so the error rates are at most about alpha and
  beta; tests/arena/compare/test_sprt.py measures them by simulation).
  Why the same test for more players: the paired difference takes finitely many values, so the
  multinomial GSPRT applies to it as it is, with no normal approximation and no assumption on the
  shape of the distribution; it needs only independent deals with the same distribution.
* **Estimates** (95%, normal approximation over deals, as fishtest's get_elo):
  score = mean of y +- 1.96 sd / sqrt(N); Elo = -400 log10(1/score - 1) at the mean and at both
  ends (infinite when the score reaches 0 or 1, which the paired difference can); normalized Elo
  (fishtest) = t * 800 / ln 10 / sqrt(2), t = (mean - 1/2) / sd per deal, the sqrt(2) because a deal
  is two matches; its interval from t's asymptotic variance (1 - t skew + t^2 (kurt - 1) / 4) / N.

References: Van den Bergh, "A practical introduction to the GSPRT" and "Normalized Elo" (notes of
the fishtest project); Wald, "Sequential tests of statistical hypotheses" (1945).
"""
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
NELO_PER_T = 800 / math.log(10)   # fishtest's nelo_divided_by_nt
Z975 = 1.959963984540054
EPSILON = 1e-3                    # fishtest's count for an empty cell
DEFAULTS = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}


@dataclass(frozen=True)
class SprtParams:
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def text(self) -> str:
        # %g unless it would round the value (the text must give back the same run).
        return ",".join(f"{k}={v:g}" if float(f"{v:g}") == v else f"{k}={v!r}" for k, v in asdict(self).items())

    def as_dict(self) -> dict:
        return {**asdict(self), "lower": self.lower, "upper": self.upper}


def parse_sprt(text: str | None) -> SprtParams:
    """"elo0=0,elo1=10,alpha=0.05,beta=0.05" (any of them; the others keep their defaults); ValueError
    (one line) for anything else, elo0 >= elo1, or alpha or beta outside (0, 0.5)."""
    values = dict(DEFAULTS)
    for part in (p.strip() for p in (text or "").split(",")):
        if not part:
            continue
        name, eq, value = (s.strip() for s in part.partition("="))
        if not eq or name not in DEFAULTS:
            raise ValueError(f"malformed --sprt part {part!r}: expected elo0=, elo1=, alpha= or beta= with a number")
        try:
            values[name] = float(value)
        except ValueError:
            raise ValueError(f"--sprt {name} must be a number, not {value!r}") from None
    return checked(values)


def _finite(number: Any) -> bool:
    """A number (not a bool) that is finite as a float."""
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return False
    try:
        return math.isfinite(float(number))
    except OverflowError:   # an int beyond any float
        return False


def checked(values: Mapping[str, Any]) -> SprtParams:
    """The test of these hypotheses and error rates (all four, as `parse_sprt` reads them or a
    comparison's config stores them); ValueError (one line) for a missing or unknown one, a value
    that is no finite number, elo0 >= elo1, or alpha or beta outside (0, 0.5)."""
    if set(values) != set(DEFAULTS):
        raise ValueError(f"--sprt needs {', '.join(DEFAULTS)}, not {', '.join(map(str, values)) or 'none'}")
    for name, number in values.items():
        if not _finite(number):
            raise ValueError(f"--sprt {name} must be a finite number, not {repr(number):.40}")
    p = SprtParams(**{name: float(number) for name, number in values.items()})
    if not p.elo0 < p.elo1:
        raise ValueError(f"--sprt needs elo0 < elo1 (H0: elo0, H1: elo1), not elo0={p.elo0:g}, elo1={p.elo1:g}")
    if max(abs(p.elo0), abs(p.elo1)) >= 2000:
        raise ValueError("--sprt elo0 and elo1 must be between -2000 and 2000")
    for name in ("alpha", "beta"):
        if not 0 < getattr(p, name) < 0.5:
            raise ValueError(f"--sprt {name} must be between 0 and 0.5 (exclusive), not {getattr(p, name):g}")
    return p


def logistic(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def elo(score: float) -> float:
    """Logistic Elo of a score; -inf / inf at or beyond 0 / 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def paired_values(players: int) -> tuple:
    """The grid of y = 1/2 + (candidate's share - baseline's share) for `players` seats."""
    steps = 2 * (players - 1)
    return tuple(0.5 + j / steps for j in range(-steps, steps + 1))


def _pdf(counts):
    c = np.asarray(counts, dtype=float)
    c = np.where(c == 0, EPSILON, c)
    n = c.sum(axis=-1, keepdims=True)
    return n[..., 0], c / n


def mle_expected(values: Sequence[float], probs: ArrayLike, s: float) -> np.ndarray:
    """The maximum-likelihood distribution on `values` with mean `s`, given the observed
    probabilities `probs` (all positive; any leading dimensions): phat_i / (1 + x (a_i - s))."""
    a = np.asarray(values, dtype=float) - s
    p = np.asarray(probs, dtype=float)
    if not (a.min() < 0 < a.max()):
        raise ValueError(f"the mean {s} is not inside the values' range")
    # f(x) = sum p a / (1 + x a) decreases from +inf to -inf on (-1/max a, -1/min a). Newton's
    # method from x = 0 on g = f (1 + x max a)(1 + x min a), which has the same root and no poles,
    # kept inside the bracket by bisection.
    top, bottom = a.max(), a.min()
    lo = np.full(p.shape[:-1], -1 / top)
    hi = np.full(p.shape[:-1], -1 / bottom)
    x = np.zeros(p.shape[:-1])
    for _ in range(200):
        d = 1 + x[..., None] * a
        f = (p * a / d).sum(axis=-1)
        slope = -(p * a * a / (d * d)).sum(axis=-1)
        q = (1 + x * top) * (1 + x * bottom)
        g, g_slope = f * q, slope * q + f * (top * (1 + x * bottom) + bottom * (1 + x * top))
        lo, hi = np.where(f > 0, x, lo), np.where(f < 0, x, hi)
        newton = x - g / g_slope
        done = (f == 0) | (np.abs(newton - x) <= 1e-13 * np.maximum(1, np.abs(x)))
        step = np.where((newton > lo) & (newton < hi), newton, np.where(done, x, (lo + hi) / 2))
        x = step
        if np.all(done):
            break
    return p / (1 + x[..., None] * a)


def llr(counts: ArrayLike, values: Sequence[float], s0: float, s1: float) -> float | np.ndarray:
    """The GSPRT log-likelihood ratio of mean s1 against mean s0 for the counts of each value
    (fishtest's N * LLR(pdf, s0, s1)); counts may have leading dimensions (one LLR per row)."""
    n, phat = _pdf(counts)
    p0, p1 = mle_expected(values, phat, s0), mle_expected(values, phat, s1)
    out = n * (phat * np.log(p1 / p0)).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def llr_logistic(counts: ArrayLike, params: SprtParams, values: Sequence[float] = PENTANOMIAL
                 ) -> float | np.ndarray:
    return llr(counts, values, logistic(params.elo0), logistic(params.elo1))


def decide(value: float, params: SprtParams) -> str | None:
    """"H1", "H0", or None while the LLR is between the bounds."""
    if value >= params.upper:
        return "H1"
    if value <= params.lower:
        return "H0"
    return None


@dataclass(frozen=True)
class Range:
    """An estimate with its 95% interval."""
    mean: float
    low: float
    high: float

    def as_dict(self) -> dict:
        return {k: (v if math.isfinite(v) else None) for k, v in asdict(self).items()}


def estimates(counts: ArrayLike, values: Sequence[float]) -> dict:
    """{"score", "elo", "nelo"}: Ranges from the (regularized) counts of each value."""
    n, p = _pdf(counts)
    a = np.asarray(values, dtype=float)
    mu = float((p * a).sum())
    var = float((p * (a - mu) ** 2).sum())
    sd = math.sqrt(var)
    half = Z975 * sd / math.sqrt(n)
    score = Range(mu, max(a[0], mu - half), min(a[-1], mu + half))
    t = (mu - 0.5) / sd
    skew = float((p * (a - mu) ** 3).sum()) / sd ** 3
    kurt = float((p * (a - mu) ** 4).sum()) / var ** 2
    t_half = Z975 * math.sqrt(max(0.0, 1 - t * skew + t * t * (kurt - 1) / 4) / n)
    scale = NELO_PER_T / math.sqrt(2)
    return {"score": score,
            "elo": Range(elo(score.mean), elo(score.low), elo(score.high)),
            "nelo": Range(t * scale, (t - t_half) * scale, (t + t_half) * scale)}



def tilt(observations: Sequence[float], values: Sequence[float], mean: float | None = None) -> np.ndarray:
    """The distribution on the grid `values` of the observations (each taken at its nearest grid
    point), or with `mean`, the nearest to it (least Kullback-Leibler divergence, `mle_expected`) that
    has that mean: the observations' shape at another mean. Cells never observed stay empty."""
    grid = np.asarray(values, dtype=float)
    cells = np.abs(np.asarray(observations, dtype=float)[:, None] - grid[None, :]).argmin(axis=1)
    counts = np.bincount(cells, minlength=len(grid)).astype(float)
    seen = counts > 0
    probs = counts / counts.sum()
    if mean is not None and seen.sum() > 1:
        probs[seen] = mle_expected(grid[seen].tolist(), probs[seen], mean)
    return probs


def resampled_stops(observations: Sequence[float], values: Sequence[float], params: SprtParams,
                    mean: float | None = None, sequences: int = 200, cap: int = 4000, seed: int = 0) -> np.ndarray:
    """The deals the test takes to decide on each of `sequences` sequences of deals drawn from the
    observations (each on the grid `values`), or from their shape moved to `mean` (`tilt`): a
    bootstrap of its stopping time on deals like these, `cap` for a sequence still undecided after
    `cap` deals. The draws are quantiles of uniform numbers that depend on `seed` and `sequences`
    only, so two arms resampled at one mean draw alike (common random numbers)."""
    grid = np.asarray(values, dtype=float)
    cumulative = np.cumsum(tilt(observations, values, mean))
    uniform = np.random.default_rng(seed).random((sequences, cap)) * cumulative[-1]
    draws = np.minimum(np.searchsorted(cumulative, uniform, side="right"), len(grid) - 1)
    s0, s1 = logistic(params.elo0), logistic(params.elo1)
    counts = np.zeros((sequences, len(grid)))
    stops = np.full(sequences, cap)
    live = np.arange(sequences)
    for n in range(1, cap + 1):
        counts[live, draws[live, n - 1]] += 1
        ratio = np.atleast_1d(llr(counts[live], values, s0, s1))
        decided = (ratio >= params.upper) | (ratio <= params.lower)
        stops[live[decided]] = n
        live = live[~decided]
        if not len(live):
            break
    return stops
