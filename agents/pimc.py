"""`pimc`: perfect information Monte Carlo for Wizard: sampled worlds, each played out or solved
double-dummy (agents/wizard_solver.pyx).

For each decision the agent samples worlds consistent with what it knows (`state.determinize(seat,
seed)`: the void-respecting resampler of the engine) and scores every legal action in each:

- bidding (`bidding`="playout", the default): every legal bid b is scored by the round score p
  makes with bid b when every player plays the round out under the solver's bid-chasing rule
  (`Deal.playout`, see `policy_card` in agents/wizard_solver.pyx: short of its bid a player plays
  its cheapest sure winner, at its bid its highest loser; p itself, by default, judging "sure" by
  the cards it cannot see: `blind` below), the bids not made yet being the hands' estimates;
  `bid_samples` worlds (400). "solver" scores bid b by the solver's paranoid value (the
  score the hand can guarantee when all the others spoil it) within `nodes`;
- card play: above `solve_cards` cards in hand (0, the default: always) the same playouts after
  each card, over `bid_samples` worlds; at or below it each card's solved paranoid score over
  `samples` worlds, the playout's score breaking ties (against the coalition many cards lose alike);
- the dealer's trump choice after a Wizard is turned up: the suit of which it holds the most
  strength (cards, then rank), a rule of thumb.

Why playouts: the paranoid value is the score against three players who all spoil p's bid, and they
nearly always can (at 8 cards most first-lead values are -10 to -40 whatever the bid), so it
separates bids poorly; the real table chases its own bids. Measured by hand (`pimc[samples=8,
nodes=20000]` against three `greedy`, the engine's deals 1000.., pimc's seat rotating, 2026-11-30,
bid accuracy over every round):

| pimc | deals x hands | bid accuracy |
|---|---|---|
| playouts to bid and play (the earlier rule: cheapest winner only when last) | 80 x 2, 4, ..., 14 | 0.738 |
| same, the solver for the last 6 cards (solve_cards=6) | 80 x 2, 4, ..., 14 | 0.696 |
| playouts, the earlier rule / the rule that sees every hand (the default) | 60 x 2, 4, ..., 14 | 0.731 / 0.731 |
| the default, p choosing its next 2 / 3 cards by search over playouts | 60 x 2, 4, ..., 14 | 0.726 / 0.714 |
| bids by playouts / by the solver, both playing with the solver | 30 x 1, 3, ..., 15 | 0.592 / 0.588 |

So the solver's paranoid play is worse than the playouts' even where it is exact, and searching p's
own next cards over playouts buys nothing (it plans with sight of every hand).

Sight in the playouts (`blind`): a playout sees every hand, so in it p takes a trick with the
cheapest card that nobody holding cards *in that world* can beat, which at the table it cannot know:
its bids and its choice of card counted on sight it will not have. With `blind`="self" (the
default) p judges its sure winners in the playouts by the cards it cannot see (any unseen Wizard,
higher card of the led suit or trump may come: `beatable_unseen` in agents/wizard_solver.pyx), and
as few cards are sure to it, when it leads short of its bid without one it leads its strongest card
rather than its lowest (rows "lead rule"); "all" makes every player do so; "none" is the earlier
rule. Measured on the same deals (`arena run --game wizard --players 4 --param
hands=2,4,6,8,10,12,14 --agents "pimc[samples=8,nodes=20000,OPTIONS] as NAME, greedy" --games 100
-j 1 --seed SEED --deal-key 0000000000000000000000000000a023`, 200 matches: pimc in two seats
against two `greedy`, each deal in both seatings; 2026-11-30): pimc's bid accuracy, its mean score
minus greedy's (score gap), and both against blind=none on the same 100 deals, paired by deal, with
95% intervals:

| SEED | OPTIONS | bid accuracy | score gap | against blind=none: accuracy / score gap |
|---|---|---|---|---|
| 1000 | blind=none | 0.685 | 79.8 | |
| 1000 | blind=self | 0.699 | 87.4 | +0.014 [-0.001, +0.029] / +7.7 [-2.0, +17.3] |
| 1000 | blind=all | 0.697 | 86.6 | +0.013 [-0.003, +0.028] / +6.8 [-3.6, +17.2] |
| 1000 | blind=none, worlds weighted by 0.5 per trick that another's bid is off its hand's estimate (removed) | 0.694 | 81.9 | +0.010 [-0.007, +0.027] / +2.1 [-8.1, +12.4] |
| 1000 | blind=self, bid_samples=2000 (card play kept at 400 worlds by a since-removed play_samples) | 0.693 | 83.6 | +0.009 [-0.010, +0.027] / +3.9 [-5.9, +13.7] |
| 1000 | blind=self, leaders keeping their Jesters in the playouts (a policy_card rule, removed) | 0.691 | 84.8 | +0.006 [-0.009, +0.022] / +5.0 [-4.1, +14.1] |
| 1000 | blind=self with the lead rule (the default) | 0.714 | 95.7 | +0.029 [+0.010, +0.048] / +15.9 [+4.6, +27.2] |
| 1000 | the default for card play, bids by playouts with blind=none (a since-removed bid_blind) | 0.675 | 72.8 | against the default: -0.039 [-0.055, -0.022] / -22.9 [-33.1, -12.7] |
| 1000 | the default for card play, bids by playouts with blind=all (the same bid_blind) | 0.698 | 88.9 | against the default: -0.015 [-0.032, +0.002] / -6.8 [-16.4, +2.8] |
| 1000 | the other players' bids not made yet at 0.8 / 1.25 / 1.5 times their hands' estimates (unrounded; a since-removed `others`) | 0.700 / 0.719 / 0.711 | 83.7 / 99.5 / 97.9 | against the default: -0.014 [-0.027, -0.000] / +0.006 [-0.005, +0.017] / -0.002 [-0.014, +0.010] in accuracy |
| 2000 | blind=none | 0.683 | 84.0 | |
| 2000 | blind=self | 0.696 | 86.1 | +0.013 [-0.004, +0.031] / +2.1 [-9.2, +13.4] |
| 2000 | blind=all | 0.679 | 74.0 | -0.004 [-0.020, +0.013] / -10.0 [-20.1, +0.1] |
| 2000 | blind=self with the lead rule (the default) | 0.717 | 97.6 | +0.034 [+0.017, +0.052] / +13.6 [+3.4, +23.7] |

The other blind rows were played before the lead rule (their blind seats lead low when short of a
bid). Over both sets of deals (200, paired) blind=self alone gains +0.014 [+0.002, +0.025] in bid
accuracy and +4.9 [-2.5, +12.3] in score gap; with the lead rule (the default) +0.032 [+0.019,
+0.045] (0.684 to 0.715) and +14.7 [+7.2, +22.3]; the lead rule over blind=self alone: +0.015
[-0.003, +0.033] and +8.2 [-2.1, +18.6] at seed 1000, +0.021 [+0.002, +0.040] and +11.5 [+0.8,
+22.1] at seed 2000. blind=all, close to blind=self on the first deals, is worse than it on the
second (-0.017 [-0.033, -0.000] and -12.1 [-21.0, -3.3]): modelling the opponents as blind as well
does not pay.

By hand size (`arena analyze --run RUN --store STORE`), seed 1000, blind=none / blind=self with the
lead rule: 2 cards 0.75 / 0.75, 4: 0.73 / 0.76, 6: 0.65 / 0.69, 8: 0.63 / 0.68, 10: 0.64 / 0.70,
12: 0.69 / 0.69, 14: 0.71 / 0.72. Its misses are more often over the bid than under it (0.165 and
0.121 of the rounds; blind=none 0.153 and 0.162; 0.159 and 0.116 in the full game below): the
blind self-model takes fewer tricks than pimc does at the table. Bidding by a self-model that sees
every hand (the first bid_blind row) bids higher but loses more than it gains, and one where every
player is blind (the second) is no better, so the bias is not sight alone. The bias is largest when
pimc bids first (over 0.213 and under 0.098 of its rounds at the first bid, 0.131 and 0.147 at the
last, where every other bid is known; full game below), which points at the estimates that stand
in for the bids not made yet; but they are low if anything (1.60 tricks a hand on average, where
the other agents bid 1.67-2.04 and took 2.01-2.14), and scaling them (the `others` row) moved
nothing beyond the noise. It is left to correct. More worlds for the bids, the bids as evidence
about the hands, and keeping Jesters measured no better. The target of 0.80 is not reached.

In a full game (`arena run --game wizard --players 4 --agents "pimc[time=0.1,samples=10000,
bid_samples=100000], ismcts[iterations=1000000,time=0.1], minimax[determinizations=100000,time=0.1],
greedy" --games 30 --seed 23 -j 2`, 120 matches, 2026-12-01, blind=self with the lead rule): bid
accuracy pimc 0.726 [0.704-0.747], ismcts 0.65, minimax 0.48, greedy 0.46; ratings pimc 30.81,
ismcts 28.45 (sigma 0.77 and 0.74: mu - 3 sigma of pimc, 28.52, is below ismcts's mu + 3 sigma, so
not separated; pimc scores 0.56 [0.46-0.65] against ismcts), minimax 20.64, greedy 20.08. By hand
size (`arena analyze --run RUN --store STORE`) pimc is at or above ismcts at every size but 9 and
12 (0.63 against 0.68 and 0.64), from 0.87 at 1 card to 0.63-0.77 from 5 cards up. With
blind=none the same line-up gave pimc 0.682 [0.661-0.702] against ismcts 0.662, and ismcts rated
above it (29.85 against 29.30). The same command with `--games 70` (new deals, 280 matches): bid
accuracy pimc 0.712 [0.699-0.726], ismcts 0.663 [0.648-0.678], minimax 0.484, greedy 0.477;
ratings pimc 30.80, ismcts 30.02 (sigma 0.72 and 0.71), and pimc scores 0.51 [0.45-0.57] against
ismcts: the better bidder, not yet the stronger player.

Neither is better within one round. pimc's bids with ismcts's card play (a since-removed
`play=ismcts`, ismcts at pimc's `time`) against pimc and against ismcts, one 8-card round, 4
players, two seats each, `--games 100 -j 1 --seed 7`, 0.05 s a move (pimc with `samples=10000,
bid_samples=100000`), 2026-12-01: 0.49 [0.45-0.52] against pimc, 0.48 [0.45-0.52] against
`ismcts[time=0.05,iterations=10000000]`. Against OpenSpiel's ISMCTS at 1,000 iterations in one
5-card round (`python -m arena.bench.ismcts_strength --openspiel 120 wizard --param players=4
--param hands=5 --agent pimc --first-deal D`, D = 300, 500, 700) pimc at its defaults scores 0.475
[0.456, 0.494] over 360 deals, -0.013 [-0.039, +0.012] against ismcts's default on the same deals.

`model`="mixed" scores each solved action by the mean of its paranoid value and its optimistic one
(every other player helping); "paranoid" (the default) uses the first alone.

Budgets: each solve may search `nodes` card plays (all the bids of one world share one budget);
within it the solver deepens trick by trick (iterative deepening on its `horizon`, positions past
it scored by a count of the hand's likely winners) and the deepest completed depth counts. `time`
(seconds per decision, 0 for none) stops sampling once spent (at least one world is always
scored). With `time` = 0 the agent is deterministic for its `seed` and the match seed. Ties between
equally scored actions go to a seeded draw.

It plays only Wizard (`cannot_play` says so for every other game): no other engine has a solver.
"""
import random
import time

from agents.base import Agent, SEED_LIMITS, TIME_LIMITS

A_WIZ, A_JES, A_BID, A_TRUMP = 52, 53, 54, 75


def _action(card):
    """A solver card (engine hand bit) as the engine's action."""
    return card if card < 52 else (A_WIZ if card < 56 else A_JES)


def _card(deal, action):
    """The engine action as a card of the player to move in the solver's deal."""
    if action < A_WIZ:
        return action
    mask = (0xF << 52) if action == A_WIZ else (0xF << 56)
    bits = deal.hand_bits(deal.to_move) & mask
    return (bits & -bits).bit_length() - 1


class PIMCAgent(Agent):
    """Sampled worlds, each played out (or solved double-dummy); Wizard only.

    Limits (LIMITS): samples 1 to 10,000 solved worlds per decision; nodes 100 to 100,000,000 card
    plays per solve; bid_samples 1 to 100,000 played-out worlds per decision; solve_cards 0 to 99;
    time 0 to 3600 seconds per decision; seed 0 to 2**64 - 1. `blind`: who in the playouts judges
    sure winners by the cards it cannot see: "self" (the default), "all" or "none"."""

    name = "pimc"
    PARAMS = {"samples": 20, "nodes": 100000, "time": 0.0, "model": "paranoid", "bidding": "playout",
              "bid_samples": 400, "solve_cards": 0, "blind": "self", "seed": 0}
    LIMITS = {"samples": (1, 10000), "nodes": (100, 100_000_000), "time": TIME_LIMITS,
              "bid_samples": (1, 100000), "solve_cards": (0, 99), "seed": SEED_LIMITS}
    CHOICES = {"model": ("paranoid", "mixed"), "bidding": ("playout", "solver"),
               "blind": ("none", "self", "all")}

    def __init__(self, **params):
        super().__init__(**params)
        self._solver = None
        self.rng = random.Random(self.params["seed"])
        self.last = {}

    @classmethod
    def cannot_play(cls, game_id, players):
        if game_id != "wizard":
            return "it needs a double-dummy solver, and only Wizard has one"
        return None

    def reset(self, game_id, game_params, seat, seed):
        super().reset(game_id, game_params, seat, seed)
        reason = self.cannot_play(game_id, game_params.get("players", 0))
        if reason:
            raise ValueError(f"agent pimc cannot play {game_id}: {reason}")
        self.rng = random.Random(f"{self.params['seed']}/{seed}")

    def solver(self):
        if self._solver is None:
            from agents.wizard_solver import Solver
            self._solver = Solver(18)
        return self._solver

    def act(self, state):
        if state.game_id != "wizard":
            raise ValueError(f"agent pimc cannot play {state.game_id}: {self.cannot_play(state.game_id, 0)}")
        if state.is_terminal():
            raise ValueError("agent pimc was asked to move in a finished game of wizard")
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = {"samples": 0}
            return legal[0]
        phase = state.phase()
        if phase == "trump":
            return self._trump(state)
        if phase == "bid" and self.params["bidding"] == "playout":
            totals = self._playouts(state, legal, phase)
        elif phase == "play" and len(state.hand(state.current_player())) > self.params["solve_cards"]:
            totals = self._playouts(state, legal, phase)
        else:
            totals = self._sampled(state, legal, phase)
        best = max(totals.values())
        choices = sorted(a for a, v in totals.items() if v == best)
        return choices[self.rng.randrange(len(choices))] if len(choices) > 1 else choices[0]

    def _trump(self, state):
        """The suit of the hand's greatest strength: most cards, then highest rank sum."""
        me = state.current_player()
        strength = [(0, 0)] * 4
        for text in state.hand(me):
            if text not in ("W", "J"):
                s = "degh".index(text[-1])
                strength[s] = (strength[s][0] + 1, strength[s][1] + int(text[:-1]))
        suit = max(range(4), key=lambda s: (strength[s], -s))
        return A_TRUMP + suit

    def _sampled(self, state, legal, phase):
        """Sum over sampled worlds of each legal action's solved score."""
        from agents.wizard_solver import Deal
        p = self.params
        me = state.current_player()
        solver = self.solver()
        totals = {a: 0.0 for a in legal}
        t0 = time.monotonic()
        done = exact = 0
        nodes0 = solver.nodes
        for k in range(p["samples"]):
            if k and p["time"] and time.monotonic() - t0 >= p["time"]:
                break
            world = state.determinize(me, self.rng.getrandbits(64))
            deal = Deal.from_state(world)
            values, whole = self._values(deal, me, legal, world, phase, False)
            if p["model"] == "mixed":
                hope = self._values(deal, me, legal, world, phase, True)[0]
                values = {a: (v + hope[a]) / 2 for a, v in values.items()}
            for a in legal:
                totals[a] += values[a]
            if phase == "play":
                # the solved scores often tie (every card loses the same against the coalition):
                # the bid-chasing playout's score breaks the ties
                bids = list(world.bids())
                blind = self._blind(me, deal.players)
                for a in legal:
                    t = deal.play(_card(deal, a)).playout(bids, blind)[me]
                    totals[a] += 1e-3 * (20 + 10 * t if t == bids[me] else -10 * abs(t - bids[me]))
            done += 1
            exact += whole
        self.last = {"samples": done, "exact": exact, "nodes": solver.nodes - nodes0,
                     "seconds": time.monotonic() - t0}
        return totals

    def _playouts(self, state, legal, phase):
        """Sum over sampled worlds of each legal action's round score when every player plays the
        round out under the solver's bid-chasing rule (Deal.playout; bids not made yet: the
        hand's estimate)."""
        from agents.wizard_solver import Deal
        p = self.params
        me = state.current_player()
        totals = {a: 0.0 for a in legal}
        t0 = time.monotonic()
        done = 0
        for k in range(p["bid_samples"]):
            if k and p["time"] and time.monotonic() - t0 >= p["time"]:
                break
            world = state.determinize(me, self.rng.getrandbits(64))
            deal = Deal.from_state(world)
            bids = list(world.bids())
            blind = self._blind(me, deal.players)
            for a in legal:
                if phase == "bid":
                    b = bids[me] = a - A_BID
                    t = deal.playout(bids, blind)[me]
                else:
                    b = bids[me]
                    t = deal.play(_card(deal, a)).playout(bids, blind)[me]
                totals[a] += 20 + 10 * t if t == b else -10 * abs(t - b)
            done += 1
        self.last = {"samples": done, "seconds": time.monotonic() - t0}
        return totals

    def _blind(self, me, players):
        """The players who, in the playouts, judge sure winners by the cards they cannot see."""
        return {"none": (), "self": (me,), "all": tuple(range(players))}[self.params["blind"]]

    def _values(self, deal, me, legal, world, phase, optimistic):
        """({action: solved score}, exact) for one world."""
        solver = self.solver()
        if phase == "bid":
            bids = [a - A_BID for a in legal]
            values, whole = self._solve(deal, lambda: _all_bids(solver, deal, me, bids, optimistic))
            return {A_BID + b: v for b, v in zip(bids, values)}, whole
        bid = world.bids()[me]
        values, whole = self._solve(deal, lambda: solver.move_values(deal, bid, optimistic))
        return {_action(c): v for c, v in values.items()}, whole

    def _solve(self, deal, fn):
        """fn() under the node budget, deepening the horizon a trick at a time: the deepest
        completed result and whether it was exact."""
        solver = self.solver()
        left = deal.cards_left(deal.to_move)
        limit = solver.nodes + self.params["nodes"]
        result, exact = None, False
        for horizon in range(1, left + 1):
            solver.horizon = horizon if horizon < left else 99
            solver.node_limit = limit
            out = fn()
            if out is None:
                break
            result, exact = out, horizon == left
        solver.node_limit = 0
        solver.horizon = 99
        if result is None:      # not even one trick within the budget: one trick, unbounded
            solver.horizon = 1
            result = fn()
            solver.horizon = 99
        return result, exact


def _all_bids(solver, deal, me, bids, optimistic):
    out = []
    for b in bids:
        v = solver.value(deal, me, b, optimistic)
        if v is None:
            return None
        out.append(v)
    return out
