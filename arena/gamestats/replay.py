"""A stored match replayed for `arena analyze`: per decision the seat to move, its legal moves and
the round, the scores after every ply, Wizard's hands and bids, and the components each seat played
and held (arena.gamestats.components), from `engines.make(game_id, seed=stored seed, **params)`.
"""
from dataclasses import dataclass
from typing import Any

import engines
from arena.gamestats import components
from arena.gamestats.balance import Component
from engines.wizard import WizardState


@dataclass
class Trace:
    """What the replay of one match shows: per decision the seat to move, its number of legal moves
    and the round; `scores` after 0, 1, ..., plies actions (plies + 1 rows); `hand_sizes` the cards
    dealt in each round, where the game deals hands by round (Wizard), else None; `bid_outcomes`
    (Wizard) per finished round (bids, tricks taken), per seat, where the scores tell the tricks; `components` what each seat
    played and held (arena.gamestats.components)."""
    players: list[int]
    legal: list[int]
    rounds: list[int]
    scores: list[list[float]]
    hand_sizes: list[int] | None = None
    bid_outcomes: list[tuple[list[int], list[int]]] | None = None
    components: list[set[Component]] | None = None

    @property
    def plies(self) -> int:
        return len(self.players)


def trace(match: dict[str, Any]) -> Trace:
    """Replays a stored match from its seed and actions. ValueError when an action is not legal in
    the replay (the engine changed since the match was played)."""
    state = engines.make(match["game_id"], seed=match["seed"], **match["game_params"])
    wizard = isinstance(state, WizardState)
    players, legal, rounds, scores, outcomes = [], [], [], [[float(x) for x in state.scores()]], []
    collector = components.Collector(state)
    for k, action in enumerate(match["actions"]):
        moves = state.legal_actions()
        if action not in moves:
            raise ValueError(f"match {match['match_id']} does not replay: action {k} ({action}) is not legal "
                             f"with this engine (it changed since the run was played)")
        players.append(state.current_player())
        legal.append(len(moves))
        rounds.append(state.round())
        playing = isinstance(state, WizardState) and state.phase() == "play"
        if isinstance(state, WizardState) and playing:
            bids = [b for b in state.bids() if b is not None]   # every bid is made once the play starts
            tricks = list(state.tricks())
        collector.before(state)
        collector.add(state.apply_with_events(action))
        scores.append([float(x) for x in state.scores()])
        if playing and (state.is_terminal() or state.round() != rounds[-1]):
            final = round_tricks(bids, tricks, [a - b for a, b in zip(scores[-1], scores[-2])])
            if final is not None:
                outcomes.append((bids, final))
    return Trace(players, legal, rounds, scores, list(state.rounds()) if isinstance(state, WizardState) else None,
                 outcomes if wizard else None, collector.result(state))


def round_tricks(bids: list[int], tricks: list[int], points: list[float]) -> list[int] | None:
    """Wizard: each seat's tricks at the end of a round, from its bid, its tricks before the round's
    last card and the points it scored in the round (RULES.md 1.5: 20 + 10 a trick for a bid met,
    -10 a trick off otherwise): exactly one seat took the last trick. None when the points fit no
    such count (a variant that scores otherwise)."""
    final = []
    for b, t, d in zip(bids, tricks, points):
        fits = [x for x in (t, t + 1) if d == (20 + 10 * x if x == b else -10 * abs(x - b))]
        if len(fits) != 1:
            return None
        final.append(fits[0])
    return final if sum(final) == sum(tricks) + 1 else None


def bids_made(tr: Trace) -> list[tuple[int, list[bool]]]:
    """Wizard: (hand size, [bid met exactly, per seat]) for every round the trace finishes. A met bid
    scores 20 + 10 per trick and a missed one loses 10 per trick off (RULES.md 1.5), so a round's
    points say which. The trace is of a finished match (faulted ones are never analysed)."""
    out, start = [], 0
    for i in range(1, tr.plies + 1):
        if i == tr.plies or tr.rounds[i] != tr.rounds[i - 1]:
            met = [a > b for a, b in zip(tr.scores[i], tr.scores[start])]
            assert tr.hand_sizes is not None, "a Wizard trace"
            out.append((tr.hand_sizes[tr.rounds[start]], met))
            start = i
    return out
