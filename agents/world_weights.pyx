"""How likely a sampled Wizard world is, given the bids its searcher has seen: the product, over
the other seats whose bid it sees, of P(that bid | the seat's view when it bid in that world).

P(bid b | view) is a softmax over the seat's bids of their expected round score under the model's
distribution of the tricks the hand takes (agents/learned.py's `view_scores`), divided by the
model's `bid_temperature` (`fit_temperature`), the bid plus_minus_one forbade given none. Here it
is worked out in C for a whole world from its position (engines/wizard.pyx `bid_view`: the
features of each seat's view when it bid), the model's trees walked from their arrays
(agents/forest.pyx): no Python call, so `ismcts[inference=learned]` weighs its worlds inside the
search and `pimc[inference=weight]` without reading views. Trees only: a network model is refused."""
from libc.math cimport exp
from engines.core cimport GameState
from engines.wizard cimport bid_view, BID_VIEW_FEATURES, BID_VIEW_FACTS
from engines.wizard_rules cimport round_score
from agents.forest cimport Forest
from engines.wizard import WizardState

DEF MAX_CARDS = 20   # Wizard's largest hand


cdef class WorldWeights:
    def __init__(self, dict body, str path=""):
        """From a model file's checked body (agents/learned.py `load`, kind trees)."""
        from agents import learned
        where = f"model {path or learned.shipped_path()}"
        temperature = body.get("bid_temperature")
        if not isinstance(temperature, (int, float)) or not 0 < temperature < float("inf"):
            raise learned.BadModel(f"{where}: no bid_temperature (a model of an older arena train): retrain it")
        net = body["model"]
        if net.get("kind") != "trees":
            raise learned.BadModel(f"{where}: weighing worlds needs trees (arena train --fit trees), not a network")
        classes = [int(c) for c in net["classes"]]
        if any(not -MAX_CARDS <= c <= MAX_CARDS for c in classes):
            raise learned.BadModel(f"{where}: its classes are not counts of tricks")
        if not 2 <= len(classes) <= MAX_CLASSES or int(net["columns"]) != (1 if len(classes) == 2 else len(classes)):
            raise learned.BadModel(f"{where}: its trees do not give one logit per class")
        try:
            self.forest = Forest(net, BID_VIEW_FEATURES)
        except ValueError as e:
            raise learned.BadModel(f"{where}: {e}") from None
        self.n_classes = len(classes)
        for k, c in enumerate(classes):
            self.classes[k] = c
        self.temperature = float(temperature)

    cdef double c_bid_chance(self, const double* features, const int* facts) noexcept nogil:
        """P(the bid in facts | the view of `features`): see the module."""
        cdef double logit[MAX_CLASSES]
        cdef double dist[MAX_CARDS + 1]
        cdef double score[MAX_CARDS + 1]
        cdef double top, total = 0.0, chance
        cdef int k, t, b, cards = facts[1], wizards = facts[0], bid = facts[2], forbidden = facts[3]
        if self.n_classes == 2 and self.forest.columns == 1:
            self.forest.c_logits(features, &logit[1])
            logit[0] = 0.0
        else:
            self.forest.c_logits(features, logit)
        top = logit[0]
        for k in range(1, self.n_classes):
            if logit[k] > top:
                top = logit[k]
        for t in range(cards + 1):
            dist[t] = 0.0
        for k in range(self.n_classes):         # tricks beyond the Wizards, within 0..cards
            logit[k] = exp(logit[k] - top)
            total += logit[k]
        chance = 0.0
        for k in range(self.n_classes):
            t = self.classes[k] + wizards
            if 0 <= t <= cards:
                dist[t] += logit[k] / total
                chance += logit[k] / total
        for t in range(cards + 1):
            dist[t] = dist[t] / chance if chance > 0 else 1.0 / (cards + 1)
        top = -1e300
        for b in range(cards + 1):
            score[b] = 0.0
            for t in range(cards + 1):
                score[b] += dist[t] * round_score(b, t)
            score[b] /= self.temperature
            if b != forbidden and score[b] > top:
                top = score[b]
        total = 0.0
        for b in range(cards + 1):
            if b != forbidden:
                total += exp(score[b] - top)
        return exp(score[bid] - top) / total

    cdef double c_weight(self, GameState world, int observer) noexcept nogil:
        """The product over the seats whose bid `observer` sees of P(bid | that seat's view when it
        bid in `world`); 1 when it sees none. `world` must be a Wizard position."""
        cdef double x[BID_VIEW_FEATURES]
        cdef int facts[BID_VIEW_FACTS]
        cdef double w = 1.0
        cdef int q
        for q in range(world.num_players):
            if bid_view(world, observer, q, x, facts):
                w *= self.c_bid_chance(x, facts)
        return w

    @staticmethod
    def check(GameState world):
        """:raises ValueError: `world` is not a Wizard position, the only kind these weights read."""
        if not isinstance(world, WizardState):
            raise ValueError(f"world weights are Wizard's, not {world.game_id}'s")

    def weight(self, GameState world, observer):
        """`c_weight` of `world` for seat `observer` (a Wizard position)."""
        self.check(world)
        return self.c_weight(world, world.seat(observer))

    def bid_view(self, GameState world, observer, seat):
        """(features, [wizards, hand size, bid, forbidden bid]) of `seat`'s view when it bid, as
        `observer` sees it in `world`, or None when it has not seen that bid."""
        cdef double x[BID_VIEW_FEATURES]
        cdef int facts[BID_VIEW_FACTS]
        self.check(world)
        if not bid_view(world, world.seat(observer), world.seat(seat), x, facts):
            return None
        return [x[i] for i in range(BID_VIEW_FEATURES)], [facts[i] for i in range(BID_VIEW_FACTS)]


def bench_weights(GameState world, observer, long calls, WorldWeights weights=None):
    """`calls` weights of `world` for `observer` in C, for `arena bench` (arena/bench/learned.py):
    `weights`'s, or without it the engine's hand-written `c_plausibility`, which it replaces."""
    cdef int o = world.seat(observer)
    cdef double total = 0.0
    cdef long i
    WorldWeights.check(world)
    with nogil:
        for i in range(calls):
            total += weights.c_weight(world, o) if weights is not None else world.c_plausibility(o)
    return total
