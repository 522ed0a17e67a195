"""One estimate of the tricks a Wizard hand promises (engines/wizard_rules.pxd, hand_promise): the
engine's playout policy bids it, and the solver takes it for a bid not made yet (so pimc's playouts
do), so the two agree on every hand."""
import random

import pytest
from agents.wizard_solver import Deal

import engines
from engines.wizard import WizardState


def bid_time_states(seed, count):
    """States at a player's bid, without the bid-total rule, from seeded random deals."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        players = rng.choice([3, 4, 5, 6])
        state = engines.make("wizard", seed=rng.getrandbits(32), players=players,
                             hands=(rng.randrange(1, 60 // players + 1),))
        while state.phase() == "trump":
            state.apply_action(rng.choice(state.legal_actions()))
        for _ in range(rng.randrange(players)):
            state.apply_action(rng.choice(state.legal_actions()))
        out.append(state)
    return out


def test_the_policy_bids_what_the_solver_estimates():
    for state in bid_time_states(11, 300):
        me = state.current_player()
        bid = int(state.action_to_string(state.policy_action()).split()[1])
        assert bid == Deal.from_state(state).estimate(me), (state.hand(me), state.trump())


@pytest.mark.parametrize("hand, turn_up, tricks", [
    ("11d 11e 11g 11h 12d", "J", 1),      # no trump; four queens (0.1 each) and a king (0.3): 0.7
    ("W W 13h", "5d", 2),                 # two Wizards (0.9 each) and an ace (0.6): 2.4
    ("1h 2h 13d", "5h", 1),               # trumps by rank (0.2, 0.254) and an ace: 1.05
    ("J J 1d", "5h", 0),                  # Jesters and low cards promise nothing
])
def test_the_estimate_counts_wizards_trumps_and_the_top_three_ranks(hand, turn_up, tricks):
    size = len(hand.split())
    low = [c for c in ("2e 3e 4e 5e 6e 7e 8e 9e 10e 2g 3g 4g 5g 6g 7g".split()) if c not in hand.split()]
    hands = [hand.split(), low[:size], low[size:2 * size]]
    state = WizardState.from_deal(3, hands, turn_up=turn_up, dealer=2, rounds=(size,))
    assert state.current_player() == 0 and state.phase() == "bid"
    assert state.action_to_string(state.policy_action()) == f"bid {tricks}"
    assert Deal.from_state(state).estimate(0) == tricks
