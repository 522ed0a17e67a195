"""`pimc`: perfect information Monte Carlo for Wizard: sampled worlds, each played out or solved
double-dummy (agents/wizard_solver.pyx). Measurements: docs/agents.md, "PIMC".

For each decision the agent samples worlds consistent with what it knows (`state.determinize(seat,
seed)`: the void-respecting resampler of the engine) and scores every legal action in each:

- bidding (`bidding`="playout", the default): every legal bid b is scored by the round score p
  makes with bid b when every player plays the round out under the solver's bid-chasing rule
  (`Deal.playout`, see `policy_card` in agents/wizard_solver.pyx: short of its bid a player plays
  its cheapest sure winner, at its bid its highest loser), the bids not made yet being the hands'
  estimates (the solver's `hand_estimate`); over `bid_samples` worlds (400). "solver" scores bid b
  by the solver's paranoid value (the score the hand can guarantee when all the others spoil it)
  within `nodes`, over `samples` worlds;
- card play: above `solve_cards` cards in hand (0, the default: always) the same playouts after
  each card, over `bid_samples` worlds; at or below it each card's solved paranoid score over
  `samples` worlds, the playout's score breaking ties (against the coalition many cards lose alike);
- bidding="learned": the bid of highest expected score under a trained model's distribution of
  the tricks the hand takes (agents/learned.py, its trees walked in C by agents/forest.pyx;
  `arena train` makes one, docs/training.md): the
  model file `bid_model`, or "" for the one shipped (4 players, the default rules); a model
  changed since it was written, built on other features, or for another game or parameters is
  refused. Card play is unchanged;
- the dealer's trump choice after a Wizard is turned up: the suit of which it holds the most
  strength (cards, then rank), a rule of thumb.

`blind`: who in the playouts judges sure winners by the cards it cannot see (any unseen Wizard,
higher card of the led suit or trump may come: `beatable_unseen` in agents/wizard_solver.pyx) rather
than by every hand of the world, and so, short of its bid without a sure winner, leads its strongest
card: "self" (the default: p's bids and cards do not count on sight it will not have at the table),
"all" or "none".

`inference`="weight" weights each sampled world by how likely the other seats' bids that p has
seen are with the hands they hold in it (importance weights, normalized over the worlds: the product
over those seats of P(bid | the seat's view when it bid) under the model `bid_model`, worked out in
C by agents/world_weights.pyx as `ismcts[inference=learned]` does); "none" (the default) counts
every world alike. The sampler draws hands uniformly among those consistent with the play, blind to
the bids: a seat that bid 0 holding four Wizards is as likely as one that bid 4. Hidden bids are not
weighted (p has not seen them).

`model`="mixed" scores each solved action by the mean of its paranoid value and its optimistic one
(every other player helping); "paranoid" (the default) uses the first alone.

Budgets: each solve may search `nodes` card plays (all the bids of one world share one budget);
within it the solver deepens trick by trick (iterative deepening on its `horizon`, positions past
it scored by the hand's estimate) and the deepest completed depth counts. `time` (seconds per
decision, 0 for none) stops sampling once spent (at least one world is always scored). With `time`
= 0 the agent is deterministic for its `seed` and the match seed. Ties between equally scored
actions go to a seeded draw.

It plays only Wizard (`cannot_play` says so for every other game): no other engine has a solver.
"""
import random
import time
from typing import Any

import engines
from agents.base import SEED_LIMITS, TIME_LIMITS, Agent, BadAgentParameter
from engines.core import GameState
from engines.wizard import WizardState

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
    sure winners by the cards it cannot see: "self" (the default), "all" or "none". `bid_model`: the
    model file of bidding="learned" and inference="weight" ("" for the shipped one)."""

    name = "pimc"
    PARAMS = {"samples": 20, "nodes": 100000, "time": 0.0, "model": "paranoid", "bidding": "playout",
              "bid_samples": 400, "solve_cards": 0, "blind": "self", "bid_model": "", "inference": "none", "seed": 0}
    LIMITS = {"samples": (1, 10000), "nodes": (100, 100_000_000), "time": TIME_LIMITS,
              "bid_samples": (1, 100000), "solve_cards": (0, 99), "seed": SEED_LIMITS}
    CHOICES = {"model": ("paranoid", "mixed"), "bidding": ("playout", "solver", "learned"),
               "blind": ("none", "self", "all"), "inference": ("none", "weight")}
    FILE_PARAMS = {"bid_model": ("",)}

    def __init__(self, **params):
        super().__init__(**params)
        self._solver = None
        self.rng = random.Random(self.params["seed"])
        self.last = {}
        self._bidder = None
        self._likelihood = None
        self._model = None
        if self.params["bidding"] == "learned" or self.params["inference"] == "weight":
            from agents import learned
            try:
                self._model = learned.load(self.params["bid_model"], learned.BID_FEATURES)
                if self.params["bidding"] == "learned":
                    self._bidder = learned.WizardBidder(self._model)
                if self.params["inference"] == "weight":
                    from agents.world_weights import WorldWeights
                    self._likelihood = WorldWeights(self._model, self.params["bid_model"])
            except learned.BadModel as e:
                raise BadAgentParameter(f"parameter 'bid_model' of agent pimc: {e}") from None
        elif self.params["bid_model"]:
            raise BadAgentParameter("parameter 'bid_model' of agent pimc is for bidding=learned or inference=weight")

    @classmethod
    def cannot_play(cls, game_id: str, players: int) -> str | None:
        if game_id not in engines.game_ids() or not engines.spec(game_id).double_dummy:
            return "it needs a double-dummy solver, and only Wizard has one"
        return None

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        super().reset(game_id, game_params, seat, seed)
        reason = self.cannot_play(game_id, game_params.get("players", 0))
        if reason:
            raise ValueError(f"agent pimc cannot play {game_id}: {reason}")
        if self._model is not None:
            from agents import learned
            try:
                learned.check_for(self._model, game_id, game_params, self.params["bid_model"])
            except learned.BadModel as e:
                raise BadAgentParameter(f"parameter 'bid_model' of agent pimc: {e}") from None

    def solver(self) -> Any:   # agents.wizard_solver.Solver
        if self._solver is None:
            from agents.wizard_solver import Solver
            self._solver = Solver(18)
        return self._solver

    def act(self, state: GameState) -> int:
        if not isinstance(state, WizardState):
            raise ValueError(f"agent pimc cannot play {state.game_id}: {self.cannot_play(state.game_id, 0)}")
        if state.is_terminal():
            raise ValueError("agent pimc was asked to move in a finished game of wizard")
        self.rng = random.Random(f"{self.params['seed']}/{self.next_seed()}")   # each decision's worlds afresh
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = {"samples": 0}
            return legal[0]
        phase = state.phase()
        if phase == "trump":
            return self._trump(state)
        if phase == "bid" and self._bidder is not None:
            self.last = {"samples": 0}
            return self._bidder.bid(state.observation(state.current_player()), legal)
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
        weights = []
        for k, (world, weight) in enumerate(self._worlds(state, p["samples"])):
            if k and p["time"] and time.monotonic() - t0 >= p["time"]:
                break
            deal = Deal.from_state(world)
            values, whole = self._values(deal, me, legal, world, phase, False)
            if p["model"] == "mixed":
                hope = self._values(deal, me, legal, world, phase, True)[0]
                values = {a: (v + hope[a]) / 2 for a, v in values.items()}
            weights.append(weight)
            for a in legal:
                totals[a] += weight * values[a]
            if phase == "play":
                # the solved scores often tie (every card loses the same against the coalition):
                # the bid-chasing playout's score breaks the ties
                bids = list(world.bids())
                blind = self._blind(me, deal.players)
                for a in legal:
                    t = deal.play(_card(deal, a)).playout(bids, blind)[me]
                    totals[a] += weight * 1e-3 * (20 + 10 * t if t == bids[me] else -10 * abs(t - bids[me]))
            done += 1
            exact += whole
        self.last = {"samples": done, "exact": exact, "nodes": solver.nodes - nodes0,
                     "seconds": time.monotonic() - t0, **self._weights_seen(weights)}
        return self._normalized(totals, weights)

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
        weights = []
        for k, (world, weight) in enumerate(self._worlds(state, p["bid_samples"])):
            if k and p["time"] and time.monotonic() - t0 >= p["time"]:
                break
            deal = Deal.from_state(world)
            bids = list(world.bids())
            blind = self._blind(me, deal.players)
            weights.append(weight)
            for a in legal:
                if phase == "bid":
                    b = bids[me] = a - A_BID
                    t = deal.playout(bids, blind)[me]
                else:
                    b = bids[me]
                    t = deal.play(_card(deal, a)).playout(bids, blind)[me]
                totals[a] += weight * (20 + 10 * t if t == b else -10 * abs(t - b))
            done += 1
        self.last = {"samples": done, "seconds": time.monotonic() - t0, **self._weights_seen(weights)}
        return self._normalized(totals, weights)

    def _worlds(self, state, count):
        """`count` worlds sampled for the player to move, drawn as they are scored (a `time` budget
        may stop early), each with its weight: 1 under inference="none", else the likelihood of the
        bids seen (`world_likelihoods`)."""
        me = state.current_player()
        for _ in range(count):
            world = state.determinize(me, self.rng.getrandbits(64))
            yield world, self._likelihood.weight(world, me) if self._likelihood is not None else 1.0

    def world_likelihoods(self, state: WizardState, worlds: list[WizardState]) -> list[float]:
        """Each world's P(the bids the player to move has seen | the other seats' hands in it): the
        product over the other seats whose bid it sees of the likelihood of that bid given the
        seat's view when it bid in that world; 1 when it has seen none."""
        assert self._likelihood is not None, "inference=weight makes it"
        me = state.current_player()
        return [self._likelihood.weight(w, me) for w in worlds]

    def world_weights(self, state: WizardState, worlds: list[WizardState]) -> list[float]:
        """The worlds' importance weights: their likelihoods normalized to sum 1 (equal if all are 0)."""
        likely = self.world_likelihoods(state, worlds)
        total = sum(likely)
        return [x / total for x in likely] if total > 0 else [1.0 / len(worlds)] * len(worlds)

    def _normalized(self, totals, weights):
        """Under inference="weight", each action's weighted mean over the worlds scored (the
        self-normalized importance sampling estimate); else the sums as they are."""
        total = sum(weights)
        if self._likelihood is None or total <= 0:
            return totals
        return {a: v / total for a, v in totals.items()}

    def _weights_seen(self, weights):
        """For `last`: the effective number of worlds, (sum of weights)**2 / sum of squared weights."""
        if self._likelihood is None:
            return {}
        squares = sum(w * w for w in weights)
        return {"effective_worlds": round(sum(weights) ** 2 / squares, 2) if squares > 0 else 0.0}

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
