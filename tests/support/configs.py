"""A typed run config for tests that store a run of their own making (Store.create_run takes one)."""
from collections.abc import Mapping, Sequence
from typing import Any

from arena.match import AgentSpec, SandboxPolicy
from arena.run_config import GameSetting, TournamentConfig


def a_config(game_id: str = "insert", params: Mapping[str, Any] | None = None, agents: Sequence[AgentSpec] = (),
             **fields: Any) -> TournamentConfig:
    """A tournament of `game_id` between `agents` (the other fields as given, or small defaults)."""
    return TournamentConfig(**{"games": (GameSetting(game_id, dict(params or {})),), "agents": tuple(agents),
                               "sandbox": SandboxPolicy.with_defaults(), "seed": 0, "time_limit": 1.0} | fields)
