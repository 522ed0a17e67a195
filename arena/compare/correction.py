"""The corrected score of a comparison: conditional Monte Carlo at the divergence of a coupled pair.

Under coupled seeds (arena.seeds) the two matches of a deal share everything up to the first move at
which they differ (arena.results.divergence), and that move too is what the two agents chose. From
there on each match continues on seeds the pair has not used yet. So the deal's observation y (the
candidate's pair score, or 1/2 + its share minus the baseline's) can be replaced by its mean over
the stored continuation and `replays` more, each replay playing both matches on from the move after
the divergence with fresh seeds of their own (keyed by the deal's seed, the seat and the replay, the
same for both matches, never the seeds of the stored match). That mean has the same expectation as
y: the divergence move is a stopping time of the seeds the pair shares (whether the matches differ
at move m depends only on the seeds up to m), and every continuation, stored or replayed, is a draw
of the rest of the match given everything up to it (the tower rule: E[E[y | the first f+1 moves]] =
E[y]). Nothing is fitted, so nothing can bias it; it only averages out the luck of the search
after the agents parted. A deal that played identically needs no replay: its y is already exact.

What it costs: a replay plays both matches from the divergence to the end, so it is cheap where the
agents part late and as dear as a new deal where they part at their first decision. Where it pays
per CPU second is measured by `arena bench --verdict` (the `corrected` rows); docs/reading-results.md
has the figures. The corrected means lie on a grid (`grid`: the observation's grid, its step divided
by replays + 1), so the SPRT of arena.compare.sprt and the settled rule take them as they are.

Only built-in agents without a clock are replayed (they are stateless between decisions but for the
seed of each: `Agent.next_seed()`); a comparison with a submitted agent, a time control or
independent seeds has no corrected score (`unavailable` says why).
"""
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import engines
from arena import referee
from arena.compare import compare, sprt
from arena.match import AgentSpec, MatchSpec
from arena.results.divergence import divergence
from arena.results.intervals import t_interval
from arena.seeds import derive_seed, view_base
from arena.tournament import coordinator

if TYPE_CHECKING:
    from arena.compare.compare import ComparePlan
    from arena.store import Store


@dataclass(frozen=True)
class Corrected:
    """The first deals of a comparison, raw and corrected (on the observation's scale, y)."""
    replays: int
    raw: list[float]       # y per deal, as the SPRT counts it
    values: list[float]    # y per deal, averaged over the stored continuation and the replays
    replayed_at: list[bool]   # per deal: were its continuations replayed (not when its matches played alike)

    @property
    def replayed(self) -> int:
        return sum(self.replayed_at)

    def as_dict(self) -> dict:
        raw, corrected = t_interval(self.raw), t_interval(self.values)
        return {"replays": self.replays, "deals": len(self.values), "replayed_deals": self.replayed,
                "score": corrected.as_dict() if corrected else None, "raw_score": raw.as_dict() if raw else None,
                "sd": _sd(self.values), "raw_sd": _sd(self.raw)}


def _sd(values: Sequence[float]) -> float | None:
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def unavailable(plan: "ComparePlan") -> str | None:
    """Why the comparison `plan` (arena.compare.compare.ComparePlan) cannot be corrected; None when it can."""
    return refusal(plan.config.seeding, plan.time_control, [plan.candidate, plan.baseline, *plan.field])


def refusal(seeding: str | None, time_control: object, agents: Sequence[AgentSpec]) -> str | None:
    """Why a comparison with this seeding (None: coupled), time control and agents cannot be
    corrected; None when it can."""
    if seeding not in (None, "coupled"):
        return "the corrected score needs coupled seeds"
    if time_control is not None:
        return "the corrected score needs agents without a clock (no --time-control)"
    outside = [a.label for a in agents if a.kind != "builtin"]
    if outside:
        return f"the corrected score replays built-in agents only, not {', '.join(outside)}"
    return None


def continuation(spec: MatchSpec, prefix: Sequence[int], replay: int) -> dict:
    """The match `spec` played on from its first `len(prefix)` moves (`prefix`) with the seeds of
    replay `replay` (1, 2, ...): {"seats", "placements", "returns", "faults", "actions"}, as a stored match
    gives them to the observation. Built-in agents only (trusted: an exception is the arena's)."""
    params = spec.params_dict()
    state = engines.make(spec.game_id, seed=spec.seed, **params)
    for action in prefix:
        state.apply_action(action)
    seeds = derive_seed(spec.seed, "replay", replay)
    players = []
    for seat, agent in enumerate(spec.seats):
        player = referee.LocalAgent(agent)
        player.reset(spec.game_id, dict(params), seat, derive_seed(seeds, "agent", seat))
        players.append(player)
    views, move = view_base(seeds), len(prefix)
    while not state.is_terminal():
        referee.play_move(state, players[state.current_player()], views, move, trusted=True)
        move += 1
    return {"seats": [{"label": a.label} for a in spec.seats], "placements": [int(p) for p in state.placements()],
            "returns": [float(r) for r in state.returns()], "faults": [], "actions": list(state.history())}


def corrected_value(plan: "ComparePlan", deal: int, first: dict, second: dict, replays: int) -> tuple[float, float, bool]:
    """(y, corrected y, replayed) of deal `deal` from its two stored matches."""
    raw = plan.values[compare.observation(plan, deal, first, second)[0]]
    parted = divergence(first["actions"], second["actions"])
    if parted.first is None or replays == 0 or first["faults"] or second["faults"]:
        return raw, raw, False
    start = parted.first + 1
    specs = plan.deal_specs(deal)
    total = raw
    for k in range(1, replays + 1):
        a, b = (continuation(s, m["actions"][:start], k) for s, m in zip(specs, (first, second)))
        total += plan.values[compare.observation(plan, deal, a, b)[0]]
    return raw, total / (replays + 1), True


def correct(plan: "ComparePlan", matches: Sequence[dict], deals: int, replays: int, start: int = 0) -> Corrected:
    """Deals `start` to `deals` - 1 of the comparison `plan` (both matches stored), raw and corrected
    with `replays` replays per deal that parted (ValueError when `unavailable`)."""
    reason = unavailable(plan)
    if reason:
        raise ValueError(reason)
    by_id = {m["match_id"]: m for m in matches}
    raw: list[float] = []
    values: list[float] = []
    replayed: list[bool] = []
    for d in range(start, deals):
        y, corrected, did = corrected_value(plan, d, by_id[2 * d], by_id[2 * d + 1], replays)
        raw.append(y)
        values.append(corrected)
        replayed.append(did)
    return Corrected(replays, raw, values, replayed)


def grid(values: Sequence[float], replays: int) -> tuple:
    """The grid of corrected observations: means of replays + 1 values of the evenly spaced grid
    `values`, which take every point between its ends at a step of step / (replays + 1)."""
    steps = (len(values) - 1) * (replays + 1)
    return tuple(values[0] + (values[-1] - values[0]) * i / steps for i in range(steps + 1))


def grid_index(values: Sequence[float], y: float) -> int:
    """The index of the point of the evenly spaced grid `values` nearest to `y` (a corrected mean
    lies on it up to rounding)."""
    return round((y - values[0]) / (values[-1] - values[0]) * (len(values) - 1))


@dataclass
class CorrectedOutcome:
    """A comparison whose SPRT counted corrected observations (on `grid`), deal by deal in deal order."""
    decision: str | None   # as arena.compare.compare.Outcome's
    deals: int
    llr: float
    corrected: Corrected


def play(store: "Store", plan: "ComparePlan", replays: int, jobs: int = 1, batch: int = 4) -> CorrectedOutcome:
    """Plays the comparison `plan` on `store` (its matches as `arena compare` plays them, `batch`
    deals at a time) with the SPRT on the corrected observations, until it decides or reaches
    --max-deals. KeyboardInterrupt when the play is interrupted."""
    reason = unavailable(plan)
    if reason:
        raise ValueError(reason)
    values = grid(plan.values, replays)
    s0, s1 = sprt.logistic(plan.test.elo0), sprt.logistic(plan.test.elo1)
    counts = [0] * len(values)
    raw: list[float] = []
    corrected: list[float] = []
    replayed: list[bool] = []
    decision: str | None = None
    llr, deal, alike, by_id = 0.0, 0, True, {}
    while decision is None and deal < plan.max_deals:
        if deal % batch == 0:
            done = store.finished_ids(plan.run_id)
            todo = [s for d in range(deal, min(deal + batch, plan.max_deals)) for s in plan.deal_specs(d)
                    if s.match_id not in done]
            if coordinator.play_specs(store, todo, jobs=jobs) == "interrupted":
                raise KeyboardInterrupt
            by_id = {m["match_id"]: m for m in store.matches(plan.run_id)}
        first, second = by_id[2 * deal], by_id[2 * deal + 1]
        y, mean, did = corrected_value(plan, deal, first, second, replays)
        raw.append(y)
        corrected.append(mean)
        replayed.append(did)
        counts[grid_index(values, mean)] += 1
        llr = float(sprt.llr(counts, values, s0, s1))
        deal += 1
        alike = alike and divergence(first["actions"], second["actions"]).identical
        decision = compare.decide(alike, deal, llr, plan.test)
    return CorrectedOutcome(decision, deal, llr, Corrected(replays, raw, corrected, replayed))

