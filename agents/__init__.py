"""Agents: the `Agent` interface, the registry of built-in agents and `agents.make`.

It may import `engines` (search loops cimport `engines.core`), never `arena`."""
from agents.base import Agent, BadAgentParameter, UnknownAgent
from agents.registry import agent_class, agent_names, code_param, make

__all__ = ["Agent", "UnknownAgent", "BadAgentParameter", "agent_names", "make", "agent_class", "code_param"]
