"""The fault rule: what a stored match's result is for each agent at its table.

A match's stored `placements` are where the played-out game put each seat (the engine's placements,
1 = best): when an agent faults, the built-in `random` agent plays its seats to the end
(arena.tournament.runner). The rule then reads that game for each agent as follows:

* An agent that did not fault gets the played-out game's result: every seat, the faulter's
  included, where the played-out game put it. A fault neither lifts it nor drops it.
* An agent that faulted gets last place: its seats come after every other seat (all of them, other
  faulty agents included), and the other seats keep the played-out game's order among themselves.

So a fault can only lower the faulter's own result, never raise another agent's: an agent that
faults on purpose while above its accomplice leaves the accomplice exactly where the game put it.
The price is that a faulty match is not one ranking read by everyone: the faulter is last for
itself, while for the others it may still be above them (the place its stand-in played to), and
nobody takes over the place it vacated. Every figure of an agent (score share, head to head,
placement, wins, draws and losses, its TrueSkill update) comes from `placements_seen_by` that agent.

Matches stored before this rule (arena store migrate recomputes them from their actions where the
replay reaches the stored end) or before matches were played out (they ended at the fault, the other
seats sharing first place) are read by the same rule from what is stored.
"""
from collections.abc import Mapping
from typing import Any


def faulty_labels(match: Mapping[str, Any]) -> set[str]:
    """The labels of the agents that faulted in the match (every seat of such an agent is faulty)."""
    return {f["label"] for f in match["faults"]}


def faulty_seats(match: Mapping[str, Any]) -> list[int]:
    """The seats of the agents that faulted in the match, in seat order."""
    faulty = faulty_labels(match)
    return [seat for seat, s in enumerate(match["seats"]) if s["label"] in faulty]


def placements_seen_by(match: Mapping[str, Any], label: str) -> list[int]:
    """Each seat's place (1 = best; equal places tie) as agent `label`'s result reads them: the
    played-out game's placements; when `label` faulted, its seats come after every other seat,
    which keep their order (competition ranking: 1 + how many seats rank strictly above)."""
    places = match["placements"]
    if label not in faulty_labels(match):
        return list(places)
    labels = [s["label"] for s in match["seats"]]
    key = [(1, 0) if labels[s] == label else (0, places[s]) for s in range(len(places))]
    return [1 + sum(k < mine for k in key) for mine in key]
