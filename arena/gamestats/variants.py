"""`arena analyze`'s games: one seeded run per variant of a game, played (or found, when the same
command ran before on the store) between the given agents."""
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from arena import defaults, seeds

if TYPE_CHECKING:
    from arena.match import AgentSpec
    from arena.run_config import GameSetting
    from arena.store import Store
    from arena.tournament.coordinator import Plan


def seeded_deal_key(seed: int, agents: Sequence["AgentSpec"]) -> str | None:
    """The deal key: derived from the seed when every agent is built in (the same command gives the
    same games anywhere), None (a new secret key) when a submitted agent plays."""
    if any(a.submitted for a in agents):
        return None
    return seeds.analyze_deal_key(seed)


DEFAULT_DEALS = defaults.ANALYZE_DEALS


def play_variants(store: "Store", games: Sequence["GameSetting"], agents: Sequence["AgentSpec"],
                  deals: int = DEFAULT_DEALS, seed: int = 0, jobs: int | None = None,
                  on_plan: Callable[["Plan"], None] | None = None,
                  on_match: Callable[..., None] | None = None) -> list[str]:
    """Plays (or finds, when the same command ran before on this store) one run per variant of the
    game (`games`, as `arena.edge.game_variants` reads --param) between `agents` (as
    `arena.edge.self_play` reads them); returns the run ids. ValueError for anything that cannot be
    played; an interrupted run raises KeyboardInterrupt."""
    from arena.tournament import coordinator as tournament
    key = seeded_deal_key(seed, agents)
    plans = [tournament.plan(store, games=[game], agents=agents, deals=deals, seed=seed, deal_key=key, kind="analyze")
             for game in games]
    for p in plans:
        if on_plan:
            on_plan(p)
        if tournament.play(store, p, jobs=jobs, on_match=on_match) != "finished":
            raise KeyboardInterrupt
    return [p.run_id for p in plans]
