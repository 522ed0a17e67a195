"""TrueSkill ratings, folded over stored matches in match-id order (arena.results.standings.GroupTally).

How matches are rated (quoted in the README):

* One TrueSkill player per agent label, per game and rule variant (mu 25, sigma 25/3, the trueskill
  package's defaults). Ratings are replayed over the stored matches in match-id order, so a parallel,
  distributed or resumed run gives exactly the leaderboard of a serial one.
* Each match is a free-for-all between the agents at the table. An agent holding several seats
  (fewer agents than seats) is ranked by the mean of its seats' placements; agents with equal means
  tie. A win is first place alone, a draw is a shared first place, anything else a loss.
* A match with a fault is rated by the fault rule (arena.results.outcome): the agents that did not
  fault are rated together on the played-out game's placements, and each agent that faulted gets
  the update of a free-for-all in which it is last, so a fault costs the faulter rating like a loss
  and moves no other agent's rating by more than the played-out game does.
* `conservative` is mu - 3 sigma; leaderboards are sorted by it.
"""
import math
from collections.abc import Callable
from typing import Any

import trueskill

from arena.results.outcome import faulty_labels, placements_seen_by


def agent_ranks(match: dict[str, Any], label: str | None = None) -> list[tuple[str, int]]:
    """[(label, rank)] for the agents of a match, in first-seat order; rank 1 = best, ties share:
    as agent `label`'s result reads the match (arena.results.outcome), the played-out game's
    placements when `label` is None or did not fault."""
    places = match["placements"] if label is None else placements_seen_by(match, label)
    seats: dict[str, list[int]] = {}
    for seat, placement in zip(match["seats"], places):
        seats.setdefault(seat["label"], []).append(placement)
    mean = {label: sum(p) / len(p) for label, p in seats.items()}
    return [(label, 1 + sum(1 for other in mean.values() if other < m)) for label, m in mean.items()]


def results(match: dict[str, Any]) -> dict[str, tuple[list[tuple[str, int]], str]]:
    """{label: (agent_ranks as that agent's result reads the match, "win", "draw" or "loss")} for
    every agent of the match, in first-seat order: a win is first place alone, a draw a shared
    first place. The agents that did not fault share one reading, the played-out game's."""
    played = agent_ranks(match)
    faulty = faulty_labels(match)
    out = {}
    for label, _ in played:
        ranked = agent_ranks(match, label) if label in faulty else played
        mine = dict(ranked)[label]
        firsts = sum(1 for _, r in ranked if r == 1)
        out[label] = (ranked, "win" if mine == 1 and firsts == 1 else "draw" if mine == 1 else "loss")
    return out


def rate_match(env: trueskill.TrueSkill, match: dict[str, Any],
               rating: Callable[[str], trueskill.Rating]) -> dict[str, tuple[trueskill.Rating, str]]:
    """{label: (its new rating, "win", "draw" or "loss")} for the agents of a match (`rating(label)`
    gives each one's rating before it): one free-for-all per reading of the match (`results`),
    each agent taking its update from its own reading. A match of one agent changes no rating."""
    out = {}
    rated: dict[tuple, list[trueskill.Rating]] = {}
    for label, (ranked, result) in results(match).items():
        key = tuple(ranked)
        if key not in rated:
            before = [rating(other) for other, _ in ranked]
            rated[key] = rate(env, before, [r for _, r in ranked]) if len(ranked) > 1 else before
        out[label] = (rated[key][[other for other, _ in ranked].index(label)], result)
    return out


def environment() -> trueskill.TrueSkill:
    """The TrueSkill environment every leaderboard uses (the package's defaults, draws 10%)."""
    return trueskill.TrueSkill(draw_probability=0.10)


def from_bits(pi: float, tau: float) -> trueskill.Rating:
    """The rating with these exact (pi, tau), as the fold keeps it (mu and sigma are rounded)."""
    r = trueskill.Rating.__new__(trueskill.Rating)
    r.pi, r.tau = pi, tau
    return r


def rate(env: trueskill.TrueSkill, players: list[trueskill.Rating], ranks: list[int]) -> list[trueskill.Rating]:
    """`env.rate` of a free-for-all, one player per team: the new rating of each player (the same
    order), rank 1 = best. Two players go through `rate_two`, the same bits faster."""
    if len(players) == 2:
        # trueskill sorts the teams by rank (a stable sort) before it builds the graph
        first, second = (0, 1) if ranks[0] <= ranks[1] else (1, 0)
        new = rate_two(env, players[first], players[second], ranks[0] == ranks[1])
        return [new[0], new[1]] if first == 0 else [new[1], new[0]]
    return [group[0] for group in env.rate([(r,) for r in players], ranks=ranks)]


_margins: dict[tuple[Any, ...], float] = {}


def _draw_margin(env: trueskill.TrueSkill) -> float:
    """The draw margin of a match between two players (trueskill.calc_draw_margin, computed once)."""
    key = (env.draw_probability, env.beta, env.backend)
    if key not in _margins:
        _margins[key] = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    return _margins[key]


def _sum1(coeff: float, pi: float, tau: float) -> tuple[float, float]:
    """trueskill's SumFactor.update of one term: (pi, tau) of the message from the term
    (coefficient, pi, tau), the variable divided by its message to the factor."""
    mu = 0.0 + coeff * (pi and tau / pi)
    try:
        pi_inv = 0.0 + coeff ** 2 / pi
    except ZeroDivisionError:
        pi_inv = math.inf
    out = 1. / pi_inv
    return out, out * mu


def _sum2(c1: float, pi1: float, tau1: float, c2: float, pi2: float, tau2: float) -> tuple[float, float]:
    """`_sum1` of two terms: the same floating-point operations in the same order."""
    mu = 0.0 + c1 * (pi1 and tau1 / pi1)
    try:
        pi_inv = 0.0 + c1 ** 2 / pi1
    except ZeroDivisionError:
        pi_inv = math.inf
    mu += c2 * (pi2 and tau2 / pi2)
    if pi_inv != math.inf:
        try:
            pi_inv += c2 ** 2 / pi2
        except ZeroDivisionError:
            pi_inv = math.inf
    out = 1. / pi_inv
    return out, out * mu


def rate_two(env: trueskill.TrueSkill, winner: trueskill.Rating, loser: trueskill.Rating,
             drawn: bool) -> tuple[trueskill.Rating, trueskill.Rating]:
    """`env.rate([(winner,), (loser,)], ranks=[0, 0 if drawn else 1])`, bit for bit, without
    building its factor graph: the same floating-point operations in the same order, on plain
    floats (the arena rates every match, and the graph's objects cost most of a cheap match's time
    in the coordinator). tests/arena/results/test_ratings.py compares the two."""
    beta2, tau2 = env.beta ** 2, env.tau ** 2
    # per player: messages (pi, tau) of the downward pass: prior, performance, team
    prior_pi, prior_tau, perf_pi, perf_tau, team_pi, team_tau = [], [], [], [], [], []
    for r in (winner, loser):
        pi, tau = r.pi, r.tau
        mu, sigma = pi and tau / pi, math.sqrt(1 / pi) if pi else math.inf   # Gaussian.mu, .sigma
        spread = math.sqrt(sigma ** 2 + tau2)                                  # PriorFactor.down
        if spread == 0:
            raise ValueError('sigma**2 should be greater than 0')
        pi = spread ** -2                                                      # Gaussian(mu, spread)
        tau = pi * mu
        prior_pi.append(pi)
        prior_tau.append(tau)
        a = 1. / (1. + beta2 * pi)                                             # LikelihoodFactor.down
        perf_pi.append(a * pi)
        perf_tau.append(a * tau)
        t = _sum1(1, perf_pi[-1], perf_tau[-1])                                # SumFactor.down
        team_pi.append(t[0])
        team_tau.append(t[1])
    margin = _draw_margin(env)
    diff_pi = diff_tau = 0.0          # the difference variable
    msg_pi = msg_tau = 0.0            # its message from the difference factor
    trunc_pi = trunc_tau = 0.0        # its message from the truncation factor
    for _ in range(10):
        new_pi, new_tau = _sum2(1, team_pi[0], team_tau[0], -1, team_pi[1], team_tau[1])
        diff_pi, diff_tau = diff_pi - msg_pi + new_pi, diff_tau - msg_tau + new_tau
        msg_pi, msg_tau = new_pi, new_tau
        div_pi, div_tau = diff_pi - trunc_pi, diff_tau - trunc_tau            # TruncateFactor.up
        sqrt_pi = math.sqrt(div_pi)
        x, y = div_tau / sqrt_pi, margin * sqrt_pi
        if drawn:
            v, w = env.v_draw(x, y), env.w_draw(x, y)
        else:
            v = env.v_win(x, y)
            w = v * (v + (x - y))   # TrueSkill.w_win, without computing v_win again
            if not 0 < w < 1:
                w = env.w_win(x, y)   # raises its FloatingPointError
        denom = (1. - w)
        pi, tau = div_pi / denom, (div_tau + sqrt_pi * v) / denom
        trunc_pi, trunc_tau = pi + trunc_pi - diff_pi, tau + trunc_tau - diff_tau
        pi_delta = abs(diff_pi - pi)
        delta = 0. if pi_delta == math.inf else max(abs(diff_tau - tau), math.sqrt(pi_delta))
        diff_pi, diff_tau = pi, tau
        if delta <= trueskill.DELTA:
            break
    # up both ends of the difference factor, then the team, performance and rating layers
    up0 = _sum2(1.0, diff_pi - msg_pi, diff_tau - msg_tau, 1.0, team_pi[1], team_tau[1])
    first = (team_pi[0] + up0[0], team_tau[0] + up0[1])
    up1 = _sum2(1.0, first[0] - up0[0], first[1] - up0[1], -1.0, diff_pi - msg_pi, diff_tau - msg_tau)
    teams = [first, (team_pi[1] + up1[0], team_tau[1] + up1[1])]
    out = []
    for i in range(2):
        to_perf = _sum1(1.0, teams[i][0] - team_pi[i], teams[i][1] - team_tau[i])
        p = (perf_pi[i] + to_perf[0], perf_tau[i] + to_perf[1])
        msg = (p[0] - perf_pi[i], p[1] - perf_tau[i])
        a = 1. / (1. + beta2 * msg[0])
        pi, tau = prior_pi[i] + a * msg[0], prior_tau[i] + a * msg[1]
        out.append(trueskill.Rating(float(pi and tau / pi), float(math.sqrt(1 / pi) if pi else math.inf)))
    return out[0], out[1]
