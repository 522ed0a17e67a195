"""Known distributions of a deal's observation, for the simulations of the sequential tests and
the settled rule (tests/arena/compare/test_sprt.py, tests/arena/results/test_settle.py)."""
import numpy as np

from arena.compare import correction


def tilted(base, values, mean):
    """The exponential tilt of `base` with the given mean (found by bisection): a known distribution."""
    a = np.array(values)
    lo, hi = -60.0, 60.0
    for _ in range(200):
        lam = (lo + hi) / 2
        w = np.array(base) * np.exp(lam * (a - a.mean()))
        w /= w.sum()
        lo, hi = (lam, hi) if (w * a).sum() < mean else (lo, lam)
    return w


def corrected_probs(base, values, replays, identical, spread):
    """The distribution, on correction.grid(values, replays), of the corrected observation of two equal
    agents under coupled seeds: a deal plays identically (exactly 1/2) with probability `identical`;
    otherwise its conditional mean after the divergence is 1/2 - spread, 1/2 or 1/2 + spread (equally
    likely: equal agents, so symmetric), and it is scored by the mean of replays + 1 continuations
    drawn from the distribution with that mean (`tilted`)."""
    out = np.zeros(len(correction.grid(values, replays)))
    for mean in (0.5 - spread, 0.5, 0.5 + spread):
        one = tilted(base, values, mean)
        total = one
        for _ in range(replays):
            total = np.convolve(total, one)   # the sum of replays + 1 draws, index by index
        out += (1 - identical) / 3 * total
    out[len(out) // 2] += identical
    return out
