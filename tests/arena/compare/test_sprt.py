"""arena.compare.sprt: the GSPRT and the Elo estimates against references written from the published formulas
(fishtest's LLRcalc and stat_util, Van den Bergh's notes), and error rates by simulation."""
import math

import numpy as np
import pytest

from arena.compare import sprt
from sprt_models import corrected_probs, tilted

# ---- references, written from the formulas, not with the code under test ------------------------


def ref_pdf(counts):
    """fishtest's results_to_pdf: empty cells count 1e-3."""
    c = [x if x else 1e-3 for x in counts]
    n = sum(c)
    return n, [x / n for x in c]


def ref_mle(values, probs, s):
    """MLE with mean s (Van den Bergh, support_MLE_multinomial, Prop. 1.1): p_i / (1 + x (a_i - s)),
    x the root of sum p_i (a_i - s) / (1 + x (a_i - s)) on its pole-free interval, by plain bisection."""
    a = [v - s for v in values]
    lo, hi = -1 / max(a), -1 / min(a)
    for _ in range(300):
        mid = (lo + hi) / 2
        f = sum(p * ai / (1 + mid * ai) for p, ai in zip(probs, a))
        lo, hi = (mid, hi) if f > 0 else (lo, mid)
    x = (lo + hi) / 2
    return [p / (1 + x * ai) for p, ai in zip(probs, a)]


def ref_llr(counts, elo0, elo1, values=sprt.PENTANOMIAL):
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    n, p = ref_pdf(counts)
    p0, p1 = ref_mle(values, p, s0), ref_mle(values, p, s1)
    return n * sum(pi * math.log(b / a) for pi, a, b in zip(p, p0, p1))


COUNTS = [[2, 10, 30, 12, 3], [1, 5, 10, 5, 1], [0, 0, 0, 0, 5], [7, 0, 3, 0, 1], [120, 900, 2100, 950, 140],
          [0, 0, 20, 0, 0]]


@pytest.mark.parametrize("counts", COUNTS)
@pytest.mark.parametrize("elo0, elo1", [(0, 10), (-5, 5), (0, 2), (0, 100)])
def test_llr_matches_the_published_gsprt(counts, elo0, elo1):
    got = sprt.llr_logistic(counts, sprt.SprtParams(elo0, elo1))
    assert got == pytest.approx(ref_llr(counts, elo0, elo1), abs=1e-6)


def test_llr_on_the_paired_difference_grid_and_in_rows():
    values = sprt.paired_values(4)
    assert len(values) == 13 and values[0] == -0.5 and values[6] == 0.5 and values[-1] == 1.5
    rows = np.array([[0, 1, 0, 2, 3, 4, 9, 4, 3, 5, 0, 1, 0], [0] * 12 + [4]])
    got = sprt.llr(rows, values, sprt.logistic(0), sprt.logistic(20))
    for row, value in zip(rows, got):
        assert value == pytest.approx(ref_llr(list(row), 0, 20, values), abs=1e-6)


def test_bounds_are_walds():
    p = sprt.SprtParams(0, 10, 0.05, 0.05)
    assert p.lower == pytest.approx(-2.944438979) and p.upper == pytest.approx(2.944438979)
    p = sprt.SprtParams(0, 10, 0.01, 0.2)
    assert p.lower == pytest.approx(math.log(0.2 / 0.99)) and p.upper == pytest.approx(math.log(0.8 / 0.01))
    assert sprt.decide(3.0, sprt.SprtParams()) == "H1" and sprt.decide(-3.0, sprt.SprtParams()) == "H0"
    assert sprt.decide(0.0, sprt.SprtParams()) is None


def test_elo_estimates_by_hand():
    # [2, 10, 30, 12, 3] pairs: mean (10/4 + 30/2 + 12 * 3/4 + 3) / 57 = 29.5 / 57.
    counts = [2, 10, 30, 12, 3]
    n, mu = 57, 29.5 / 57
    var = (2 * mu ** 2 + 10 * (0.25 - mu) ** 2 + 30 * (0.5 - mu) ** 2 + 12 * (0.75 - mu) ** 2
           + 3 * (1 - mu) ** 2) / n
    half = 1.959963984540054 * math.sqrt(var / n)
    est = sprt.estimates(counts, sprt.PENTANOMIAL)
    assert est["score"].mean == pytest.approx(mu, abs=1e-12)
    assert est["score"].low == pytest.approx(mu - half, abs=1e-12)

    def elo(s):
        return -400 * math.log10(1 / s - 1)
    assert est["elo"].mean == pytest.approx(elo(mu), abs=1e-6)
    assert (est["elo"].low, est["elo"].high) == pytest.approx((elo(mu - half), elo(mu + half)), abs=1e-6)
    # Normalized Elo (fishtest): t per pair / sqrt(2) * 800 / ln 10; interval from t's asymptotic
    # variance 1 - t skew + t^2 (excess kurtosis + 2) / 4.
    sd = math.sqrt(var)
    t = (mu - 0.5) / sd
    m3 = (2 * (0 - mu) ** 3 + 10 * (0.25 - mu) ** 3 + 30 * (0.5 - mu) ** 3 + 12 * (0.75 - mu) ** 3
          + 3 * (1 - mu) ** 3) / n
    m4 = (2 * (0 - mu) ** 4 + 10 * (0.25 - mu) ** 4 + 30 * (0.5 - mu) ** 4 + 12 * (0.75 - mu) ** 4
          + 3 * (1 - mu) ** 4) / n
    skew, exkurt = m3 / sd ** 3, m4 / var ** 2 - 3
    t_half = 1.959963984540054 * math.sqrt((1 - t * skew + t * t * (exkurt + 2) / 4) / n)
    scale = 800 / math.log(10) / math.sqrt(2)
    assert est["nelo"].mean == pytest.approx(t * scale, abs=1e-6)
    assert est["nelo"].low == pytest.approx((t - t_half) * scale, abs=1e-6)
    assert est["nelo"].high == pytest.approx((t + t_half) * scale, abs=1e-6)


def test_elo_of_a_clean_sweep_is_infinite_at_the_top():
    est = sprt.estimates([0, 0, 0, 0, 8], sprt.PENTANOMIAL)
    assert est["score"].high == 1.0 and est["elo"].high == math.inf
    assert est["elo"].as_dict()["high"] is None
    assert sprt.elo(0.5) == 0 and sprt.elo(0) == -math.inf


@pytest.mark.parametrize("text, words", [
    ("elo0=10,elo1=10", ["elo0 < elo1"]),
    ("elo0=5,elo1=0", ["elo0 < elo1"]),
    ("alpha=0", ["alpha", "between 0 and 0.5"]),
    ("beta=0.5", ["beta", "between 0 and 0.5"]),
    ("alpha=-1", ["alpha"]),
    ("elo1", ["malformed"]),
    ("gamma=3", ["malformed"]),
    ("elo1=ten", ["number"]),
    ("elo1=nan", ["finite"]),
])
def test_bad_sprt_text_is_one_line(text, words):
    with pytest.raises(ValueError) as e:
        sprt.parse_sprt(text)
    assert "\n" not in str(e.value) and all(w in str(e.value) for w in words), str(e.value)


@pytest.mark.parametrize("change, words", [
    ({"elo1": 10 ** 400}, ["elo1", "finite"]), ({"elo1": True}, ["elo1", "finite"]), ({"alpha": "0.05"}, ["alpha"]),
    ({"gamma": 1}, ["needs elo0, elo1, alpha, beta"]), ({"alpha": 0.7}, ["alpha", "between 0 and 0.5"])])
def test_stored_hypotheses_that_make_no_test_are_refused_in_one_short_line(change, words):
    """A comparison's config, as a store gives it back (a store changed by hand included)."""
    with pytest.raises(ValueError) as e:
        sprt.checked({**sprt.DEFAULTS, **change})
    assert "\n" not in str(e.value) and len(str(e.value)) < 120 and all(w in str(e.value) for w in words), str(e.value)
    assert sprt.checked(dict(sprt.DEFAULTS)) == sprt.SprtParams()


def test_sprt_text_keeps_defaults():
    assert sprt.parse_sprt("elo1=5") == sprt.SprtParams(0, 5, 0.05, 0.05)
    assert sprt.parse_sprt(" elo0 = -3 , beta=0.1") == sprt.SprtParams(-3, 10, 0.05, 0.1)
    assert sprt.parse_sprt(None) == sprt.SprtParams()
    precise = sprt.parse_sprt("alpha=0.0123456789,elo1=2.5")
    assert sprt.parse_sprt(precise.text()) == precise   # the reproduce line gives back the same test


# ---- error rates by simulation -------------------------------------------------------------------

def simulate(probs, values, params, sequences=2000, cap=5000, seed=20261130):
    """Runs `sequences` SPRTs on deals drawn from `probs`: (share accepting H1, share accepting H0,
    mean deals used)."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((sequences, len(values)))
    active = np.arange(sequences)
    decision = np.zeros(sequences, dtype=int)
    used = np.full(sequences, cap)
    s0, s1 = sprt.logistic(params.elo0), sprt.logistic(params.elo1)
    for n in range(1, cap + 1):
        counts[active, rng.choice(len(values), size=len(active), p=probs)] += 1
        llr = np.atleast_1d(sprt.llr(counts[active], values, s0, s1))
        up, down = llr >= params.upper, llr <= params.lower
        decision[active[up]], decision[active[down]] = 1, -1
        used[active[up | down]] = n
        active = active[~(up | down)]
        if not len(active):
            break
    return (decision == 1).mean(), (decision == -1).mean(), used.mean()


TOLERANCE = 3 * math.sqrt(0.05 * 0.95 / 2000)   # three standard errors of a rate of 0.05


def test_error_rates_of_the_pentanomial_test(capsys):
    params = sprt.SprtParams(0, 40, 0.05, 0.05)
    base = [0.05, 0.2, 0.5, 0.2, 0.05]
    false_h1, h0, mean_equal = simulate(np.array(base), sprt.PENTANOMIAL, params)
    assert false_h1 <= params.alpha + TOLERANCE and false_h1 + h0 == 1
    h1, h0, mean_better = simulate(tilted(base, sprt.PENTANOMIAL, sprt.logistic(40)), sprt.PENTANOMIAL, params)
    assert h0 <= params.beta + TOLERANCE and h1 + h0 == 1
    with capsys.disabled():
        print(f"\npentanomial SPRT [0, 40], 2000 runs: H1 accepted by {false_h1:.3f} of equal agents, H0 by "
              f"{h0:.3f} at elo1; mean deals {mean_equal:.0f} (equal), {mean_better:.0f} (at elo1)")


@pytest.mark.slow
def test_error_rates_of_the_paired_difference_test(capsys):
    values = sprt.paired_values(4)
    params = sprt.SprtParams(0, 60, 0.05, 0.05)
    base = np.array([1, 1, 2, 3, 5, 8, 12, 8, 5, 3, 2, 1, 1], dtype=float)
    base /= base.sum()
    false_h1, h0, mean_equal = simulate(base, values, params)
    assert false_h1 <= params.alpha + TOLERANCE and false_h1 + h0 == 1
    h1, h0, mean_better = simulate(tilted(base, values, sprt.logistic(60)), values, params)
    assert h0 <= params.beta + TOLERANCE and h1 + h0 == 1
    with capsys.disabled():
        print(f"\npaired-difference SPRT [0, 60], 4 players, 2000 runs: H1 accepted by {false_h1:.3f} of equal "
              f"agents, H0 by {h0:.3f} at elo1; mean deals {mean_equal:.0f} (equal), {mean_better:.0f} (at elo1)")


# Coupled seeds (arena.seeds) make most deals of two near-equal agents identical: a mass at the middle.
# Measured: ismcts[iterations=200] against ismcts[iterations=201] on Insert, 200 coupled deals, 191 at
# 1/2 (180 of them identical), 6 at 0, 3 at 1; symmetrised, as equal agents' deals are.
COUPLED = [0.0225, 0.0, 0.955, 0.0, 0.0225]


@pytest.mark.parametrize("elo1", [pytest.param(10, marks=pytest.mark.slow), 40])
def test_error_rate_of_the_pentanomial_test_on_coupled_deals(elo1):
    params = sprt.SprtParams(0, elo1, 0.05, 0.05)
    false_h1, h0, _ = simulate(np.array(COUPLED), sprt.PENTANOMIAL, params)
    assert false_h1 <= params.alpha + TOLERANCE and false_h1 + h0 == 1


# ---- equal agents, coupled and corrected --------------------------------------------------------

def test_corrected_observations_lie_on_their_grid():
    from arena.compare import correction
    grid = correction.grid(sprt.PENTANOMIAL, 3)
    assert len(grid) == 17 and grid[0] == 0 and grid[-1] == 1 and grid[8] == 0.5
    rng = np.random.default_rng(5)
    for _ in range(200):
        draws = rng.choice(sprt.PENTANOMIAL, size=4)
        assert grid[correction.grid_index(grid, draws.mean())] == pytest.approx(draws.mean())


@pytest.mark.parametrize("identical, spread", [(0.5, 0.1), (0.2, 0.2), (0.0, 0.05)])
def test_equal_agents_coupled_and_corrected_are_told_apart_at_most_alpha_of_the_time(identical, spread):
    from arena.compare import correction
    params = sprt.SprtParams(0, 40, 0.05, 0.05)
    values = correction.grid(sprt.PENTANOMIAL, 2)
    probs = corrected_probs([0.05, 0.2, 0.5, 0.2, 0.05], sprt.PENTANOMIAL, 2, identical, spread)
    assert probs.sum() == pytest.approx(1) and (probs * values).sum() == pytest.approx(0.5)
    false_h1, h0, _ = simulate(probs, values, params)
    assert false_h1 <= params.alpha + TOLERANCE and false_h1 + h0 == 1


def test_resampled_stops_of_one_repeated_observation_are_the_sequential_test_s_own():
    # every resampled sequence is the same: it stops where the test on n copies first crosses a bound
    grid, test = sprt.paired_values(3), sprt.SprtParams()
    s0, s1 = sprt.logistic(test.elo0), sprt.logistic(test.elo1)
    for y in (grid[-1], grid[0], grid[5]):
        counts, n = [0] * len(grid), 0
        while sprt.decide(float(sprt.llr(counts, grid, s0, s1)), test) is None or n == 0:
            counts[grid.index(y)] += 1
            n += 1
        assert list(sprt.resampled_stops([y] * 7, grid, test, sequences=5, cap=500)) == [n] * 5


def test_resampled_stops_shrink_with_the_spread_and_count_the_undecided_at_the_cap():
    grid, test = sprt.paired_values(4), sprt.SprtParams(elo0=0, elo1=60)
    wide = [grid[0], grid[-1]] * 40 + [1.0] * 20            # mean 0.6, sd 0.92
    narrow = [0.25, 0.75] * 40 + [1.0] * 20                 # mean 0.6, sd 0.3
    wide_stops, narrow_stops = (sprt.resampled_stops(o, grid, test, sequences=60, cap=3000) for o in (wide, narrow))
    assert np.median(narrow_stops) * 3 < np.median(wide_stops)
    even = [0.25, 0.75] * 10                                # mean 0.5: H0 at these bounds, slowly
    stops = sprt.resampled_stops(even, grid, test, sequences=20, cap=5)
    assert set(stops) == {5}
    # observations already at the mean asked for are drawn as they are
    a = sprt.resampled_stops(wide, grid, test, sequences=10, cap=500, seed=3)
    assert list(a) == list(sprt.resampled_stops(wide, grid, test, mean=0.6, sequences=10, cap=500, seed=3))


def test_tilt_moves_the_observations_to_a_mean_keeping_their_cells():
    grid = sprt.paired_values(4)
    observations = [0.25, 0.75] * 30 + [1.0] * 15 + [grid[0]] * 5    # mean 0.53125
    probs = sprt.tilt(observations, grid)
    assert probs.sum() == pytest.approx(1) and float(probs @ np.array(grid)) == pytest.approx(0.53125)
    for mean in (0.5, 0.6):
        moved = sprt.tilt(observations, grid, mean)
        assert float(moved @ np.array(grid)) == pytest.approx(mean, abs=1e-9) and moved.sum() == pytest.approx(1)
        assert list(moved > 0) == list(probs > 0)
        # the least-divergence form: p_i = phat_i / (1 + x (a_i - mean)), one x for every cell
        seen = probs > 0
        x = (probs[seen] / moved[seen] - 1) / (np.array(grid)[seen] - mean)
        assert np.allclose(x, x[0])
    # a lower mean takes longer to reach H1's side: more deals, the same shape
    test = sprt.SprtParams(elo0=0, elo1=60)
    high, low = (np.median(sprt.resampled_stops(observations, grid, test, mean=m, sequences=40, cap=3000))
                 for m in (0.62, 0.56))
    assert high < low
