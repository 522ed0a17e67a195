"""Throughput of the Wizard double-dummy solver (agents/wizard_solver.pyx) and the `pimc` agent, as
JSON rows for `arena bench`.

`cases(game_ids)` yields, when "wizard" is among the game ids (4 players, hands dealt by the engine
with seeds 0.., trump as the turn-up gives it, a turned-up Wizard making hearts trump), for hand
sizes 5, 8, 10 and 15 (`hand_<n>`):
- `wizard_solver/hand_<n>`: hands solved per second from the first lead (the exact paranoid round
  score of the player who leads, for a bid of n // 4), each solve capped at `NODE_CAP` card plays
  (`NODE_CAPS` at 10 cards, where it is measured once, not `repeats` times);
  extra keys `solved` (hands finished within the cap, of `hands` tried), `nodes_per_hand` (median
  over the finished ones) and `node_cap`. The rate counts finished hands only, over the CPU time of
  all of them (capped ones included), so a cap that is hit shows as a lower rate.
- baseline `wizard_plain/hand_<n>`: the same hands by the plain reference search (`plain_value`:
  minimax over every card, no pruning, table, merging or ordering); only at 5 cards, as at 6 it
  already takes 10-100 s a hand and grows about a hundredfold per card.
- `wizard_playout/hand_<n>`: the bid-chasing playout (`Deal.playout`, every player chasing the
  same bid n // 4) from the first lead to the end of the round, per second: what `pimc` bids by.
- `wizard_horizon2/hand_<n>`: solves per second with the horizon at two tricks (what `pimc`
  completes first in its budget at these sizes; not exact), same hands, no cap.
- `pimc/wizard/bid_<n>`, `pimc/wizard/play_<n>`: decisions per second of a default `pimc` (400
  worlds of playouts to bid; to play, 20 worlds of 100,000 card plays per solve up to
  `solve_cards` cards in hand, playouts above) at the hand's first bid and first card; extra key
  `exact` (worlds solved to the end of the round, when solved).

Rates are per second of the process's CPU time, one core. Run alone: `python -m arena.bench.pimc`.

Wizard bid accuracy by hand size, from the matches of a run: `arena analyze --run RUN --store FILE`.
"""
import statistics
import time
from collections.abc import Iterable, Iterator

import engines
from agents.pimc import PIMCAgent
from arena.bench.measure import Row, row, run_alone
from engines.wizard import WizardState

GAME = "wizard"   # the game whose positions these cases measure

SIZES = (5, 8, 10, 15)
HANDS = 3
NODE_CAP = 5_000_000
NODE_CAPS = {10: 500_000_000}   # full 10-card hands: some take a few hundred million card plays
PLAYOUTS = 2000


def _deal_state(cards, seed):
    st = engines.make(GAME, players=4, hands=(cards,), seed=seed)
    assert isinstance(st, WizardState)
    if st.phase() == "trump":
        st.apply_action(st.string_to_action("trump h"))
    return st


def _solver_rows(cards, repeats):
    from agents.wizard_solver import Deal, Solver, plain_value
    deals = [Deal.from_state(_deal_state(cards, i)) for i in range(HANDS)]
    bid = cards // 4
    rates, nodes, solved = [], [], 0
    cap = NODE_CAPS.get(cards, NODE_CAP)
    for _ in range(repeats if cap == NODE_CAP else 1):
        s = Solver(22)
        done, t0 = 0, time.process_time()
        for d in deals:
            n0 = s.nodes
            s.node_limit = n0 + cap
            s.clear()
            if s.value(d, d.to_move, bid) is not None:
                done += 1
                nodes.append(s.nodes - n0)
        rates.append(done / (time.process_time() - t0))
        solved = done
    extra = dict(hands=HANDS, solved=solved, node_cap=cap,
                 nodes_per_hand=round(statistics.median(nodes)) if nodes else None)
    if cards <= 5:
        extra["baseline"] = f"wizard_plain/hand_{cards}"
    yield row(f"wizard_solver/hand_{cards}", "hands/s", rates, digits=2, **extra)
    if cards <= 5:
        rates, nodes = [], []
        for _ in range(repeats):
            t0 = time.process_time()
            for d in deals:
                nodes.append(plain_value(d, d.to_move, bid)[1])
            rates.append(len(deals) / (time.process_time() - t0))
        yield row(f"wizard_plain/hand_{cards}", "hands/s", rates, digits=2, hands=HANDS,
                  nodes_per_hand=round(statistics.median(nodes)))
    rates = []
    bids = [bid] * 4
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(PLAYOUTS):
            for d in deals:
                d.playout(bids)
        rates.append(PLAYOUTS * len(deals) / (time.process_time() - t0))
    yield row(f"wizard_playout/hand_{cards}", "playouts/s", rates, digits=0, hands=HANDS)
    rates = []
    for _ in range(repeats):
        s = Solver(22)
        s.horizon = 2
        t0 = time.process_time()
        for d in deals:
            s.value(d, d.to_move, bid)
        rates.append(len(deals) / (time.process_time() - t0))
    yield row(f"wizard_horizon2/hand_{cards}", "solves/s", rates, digits=2, hands=HANDS)


def _pimc_rows(cards, repeats):
    st = _deal_state(cards, 0)
    points = {"bid": st.clone()}
    while st.phase() == "bid":
        st.apply_action(st.legal_actions()[0])
    points["play"] = st
    for name, state in points.items():
        rates: list[float] = []
        exact = None   # how many of the last decision's worlds were solved exactly
        for i in range(repeats):
            bot = PIMCAgent()
            bot.reset(GAME, state.params, state.current_player(), i)
            view = state.determinize(state.current_player(), i)
            t0 = time.process_time()
            bot.act(view)
            rates.append(1 / (time.process_time() - t0))
            exact = bot.last.get("exact")
        yield row(f"pimc/wizard/{name}_{cards}", "decisions/s", rates, digits=2, exact=exact)


def cases(game_ids: Iterable[str], repeats: int = 3) -> Iterator[Row]:
    """Yields the benchmark rows described in the module docstring for the given game ids."""
    if GAME not in game_ids:
        return
    for cards in SIZES:
        yield from _solver_rows(cards, repeats)
        yield from _pimc_rows(cards, repeats)


if __name__ == "__main__":
    run_alone("arena.bench.pimc", cases)
