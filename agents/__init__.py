"""Agents: the `Agent` interface, the registry of built-in agents and `agents.make`.

It may import `engines` (search loops cimport `engines.core`), never `arena`."""
from agents.base import Agent, UnknownAgent, BadAgentParameter
from agents.registry import agent_names, make, agent_class, code_param

__all__ = ["Agent", "UnknownAgent", "BadAgentParameter", "agent_names", "make", "agent_class", "code_param"]
