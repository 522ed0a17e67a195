"""Every built-in agent draws each decision's random numbers afresh from its match seed and the number
of decisions it has made (agents.base.decision_seed): a decision that draws more numbers than another
leaves the next decision's numbers, so its move and its search, unchanged. That is what keeps two
coupled matches identical after one of their agents searched longer somewhere (docs/reading-results.md)."""
import pytest

import agents
import engines
from agents.base import decision_seed

# (agent, game, players, plies): every built-in agent that draws random numbers, at small budgets,
# and the plies of its two first decisions and its second (greedy and alphabeta draw only to break
# ties: their plies are ones where the second decision has ties to break).
CASES = [
    ("random", "wizard", 4, (3, 8, 14)), ("greedy", "belladone_bluff", 4, (0, 6, 11)),
    ("ismcts[iterations=60]", "belle_of_the_ball", 3, (3, 8, 14)),
    ("ismcts[iterations=60,threads=2]", "royal_ball", 2, (3, 8, 14)),
    ("minimax[determinizations=3,depth=1]", "belladone_bluff", 4, (3, 8, 14)),
    ("alphabeta[depth=1]", "insert", 2, (0, 1, 2)),
    ("pimc[samples=3,bid_samples=3,nodes=1000]", "wizard", 4, (3, 8, 14)),
]
SEEDS = range(12)


def positions(game, players, plies):
    """The mover's views of one deal after each of `plies`."""
    state = engines.make(game, players=players, seed=5)
    out = []
    for ply in range(max(plies) + 1):
        if ply in plies:
            out.append(state.determinize(state.current_player(), 100 + ply))
        legal = state.legal_actions()
        state.apply_action(legal[(7 * ply) % len(legal)])
    return out


def make(text):
    source, _, params = text.partition("[")
    pairs = [p.split("=") for p in params.rstrip("]").split(",") if p]
    return agents.make(source, **{k: int(v) for k, v in pairs})


def second_decision(text, game, players, first, then, seed):
    """The agent's move and statistics at its second decision (`then`), its first being `first`."""
    agent = make(text)
    agent.reset(game, engines.registry.resolve(game, players=players), 0, seed)
    agent.act(first.clone())
    action = agent.act(then.clone())
    stats = agent.last_stats() if hasattr(agent, "last_stats") else getattr(agent, "last", None)
    return action, {k: v for k, v in (stats or {}).items() if k not in ("elapsed", "time", "seconds")}


@pytest.mark.parametrize("text, game, players, plies", CASES)
def test_a_decision_that_draws_more_leaves_the_next_one_unchanged(text, game, players, plies):
    a, b, then = positions(game, players, plies)
    for seed in SEEDS:
        assert second_decision(text, game, players, a, then, seed) == \
            second_decision(text, game, players, b, then, seed), (text, seed)


def test_the_decision_seeds_step_from_the_match_seed():
    agent = agents.make("random")
    agent.reset("insert", engines.registry.resolve("insert"), 1, 2**64 - 3)
    seeds = [agent.next_seed() for _ in range(3)]
    assert seeds == [decision_seed(2**64 - 3, k) for k in range(3)] and len(set(seeds)) == 3
    assert all(0 <= s < 2**64 for s in seeds)
    agent.reset("insert", engines.registry.resolve("insert"), 1, 2**64 - 3)
    assert agent.next_seed() == seeds[0]   # a new match counts from 0 again
