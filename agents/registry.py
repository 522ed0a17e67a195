"""Built-in agents by name."""
import importlib
from collections.abc import Container
from typing import Any

from agents.base import Agent, UnknownAgent

# name -> "module:Class"; an agent is listed once it plays every registered game (or says, through
# `cannot_play`, which it cannot).
BUILTIN = {
    "random": "agents.simple:RandomAgent",
    "greedy": "agents.simple:GreedyAgent",
    "ismcts": "agents.ismcts:ISMCTSAgent",
    "alphabeta": "agents.minimax:AlphaBetaAgent",
    "minimax": "agents.minimax:MinimaxAgent",
    "pimc": "agents.pimc:PIMCAgent",
    "human": "agents.human:HumanAgent",
    "openspiel_mcts": "agents.openspiel_bots:OpenSpielMCTSAgent",
    "openspiel_ismcts": "agents.openspiel_bots:OpenSpielISMCTSAgent",
    "openspiel_bot": "agents.openspiel_bots:OpenSpielFactoryAgent",
}


def agent_names() -> list[str]:
    return sorted(BUILTIN)


def agent_class(name: str) -> type[Agent]:
    try:
        module, cls = BUILTIN[name].split(":")
    except KeyError:
        raise UnknownAgent(f"unknown agent {name!r}; built-in agents: {', '.join(agent_names())}") from None
    return getattr(importlib.import_module(module), cls)


def code_param(name: str, params: Container[str]) -> str | None:
    """The parameter through which built-in agent `name` would load the user's own code into the
    arena's process (openspiel_bot's factory: its CODE_PARAMS), or None (also for an unknown name)."""
    try:
        given = agent_class(name).CODE_PARAMS
    except ValueError:
        return None
    return next((p for p in given if p in params), None)


def make(name: str, **params: Any) -> Agent:
    return agent_class(name)(**params)
