"""The arena: tournaments between agents, their storage, ratings and reports.

Its public face is the few names below (docs/python.md shows them at work, docs/api.md is their
reference):

    import arena
    store = arena.Store("results/arena.sqlite")
    plan = arena.plan(store, game_id="insert", agents="random, greedy", deals=4)
    arena.play(store, plan, jobs=1)
    table = arena.standings(store, plan.run_id).to_records()   # pandas.DataFrame(table)

Each is imported on first use, so `import arena` loads none of the arena's modules (nor click,
Dask, Starlette or matplotlib).

It may import `engines` and `agents`; neither imports it. Inside it, only `arena.cli` imports click,
and no module imports `arena.cli`. docs/architecture.md ("Layout") lists the subpackages by role."""
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # what type checkers and the API reference read; at run time, __getattr__ below
    from arena.edge import plan
    from arena.records import (
        Comparison,
        MatchSeat,
        Records,
        Standing,
        Verdict,
        matches,
        plan_comparison,
        play_comparison,
        standings,
        verdicts,
    )
    from arena.store import Store
    from arena.tournament.coordinator import play

__all__ = ["Store", "plan", "play", "plan_comparison", "play_comparison", "standings", "matches", "verdicts",
           "Records", "Standing", "MatchSeat", "Verdict", "Comparison"]

_HOMES = {"Store": "arena.store", "plan": "arena.edge", "play": "arena.tournament.coordinator",
          "plan_comparison": "arena.records", "play_comparison": "arena.records", "standings": "arena.records",
          "matches": "arena.records", "verdicts": "arena.records", "Records": "arena.records",
          "Standing": "arena.records", "MatchSeat": "arena.records", "Verdict": "arena.records",
          "Comparison": "arena.records"}   # where each name of __all__ lives


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
