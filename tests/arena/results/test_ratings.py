"""The two-player rating update (arena.results.ratings.rate) against the trueskill package's own
factor graph: the same bits for wins, losses and draws, in either seat order."""
import random

import pytest

from arena.results import ratings


def bits(rs):
    return [(r.pi, r.tau) for r in rs]


def test_two_players_are_rated_as_trueskill_rates_them_bit_for_bit():
    env = ratings.environment()
    rng = random.Random(5)
    compared = 0
    for _ in range(3000):
        players = [env.create_rating(rng.uniform(-20, 70), rng.uniform(0.3, 9)) for _ in range(2)]
        ranks = rng.choice([[1, 2], [2, 1], [1, 1]])
        try:
            want = [group[0] for group in env.rate([(r,) for r in players], ranks=ranks)]
        except FloatingPointError:
            with pytest.raises(FloatingPointError):
                ratings.rate(env, players, ranks)
            continue
        assert bits(ratings.rate(env, players, ranks)) == bits(want), (players, ranks)
        compared += 1
    assert compared > 2500


def test_more_players_go_through_trueskill():
    env = ratings.environment()
    players = [env.create_rating(25 + k, 8 - k) for k in range(3)]
    want = [group[0] for group in env.rate([(r,) for r in players], ranks=[2, 1, 2])]
    assert bits(ratings.rate(env, players, [2, 1, 2])) == bits(want)
