"""Submitted agents run in a sandbox: a bubblewrap box of their own, never as host root, with a
seccomp filter, resource limits, and a fresh process for every match (docs/sandbox.md).

- policy: the sandbox mode, the limits, AgentFault
- staging: the bot's code copied read-only at the start of a run
- confine: the command line, the seccomp filter, the bot's host uid, cgroups and the freezer
- remote: the arena's side (Box, RemoteAgent, BotPool)
- fork_server: the sandbox's side (the fork server and the match process)
- wire: the frames between them, with deadlines both ways
- exec_host, exec_build, exec_bot: bots in any language (`exec:PATH`), the host's side, their build
  in a box of its own, and the adapter in the box that speaks the Tabletop Bot Protocol to them
  (docs/protocol.md)
"""
import importlib
from typing import TYPE_CHECKING, Any

from arena.sandbox.policy import (
    DEFAULT_POLICY,
    LIMITS,
    SANDBOXES,
    AgentFault,
    make_policy,
    policy_options,
    unconfined_note,
)
from arena.sandbox.staging import code_dir, source_dir, stage

if TYPE_CHECKING:
    from arena.sandbox.fork_server import describe, load_class
    from arena.sandbox.remote import POOL, BotPool, RemoteAgent, check_available, validate, validate_all

# The arena's and the box's sides load on first use: a command that only reads a run's policy
# (`arena ladder show`, the reports) then starts without them (multiprocessing, ctypes, seccomp).
_LAZY = {"POOL": "remote", "BotPool": "remote", "RemoteAgent": "remote", "check_available": "remote",
         "validate": "remote", "validate_all": "remote", "describe": "fork_server", "load_class": "fork_server"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"arena.sandbox.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DEFAULT_POLICY", "LIMITS", "SANDBOXES", "AgentFault", "make_policy", "policy_options", "unconfined_note",
           "POOL", "BotPool", "RemoteAgent", "check_available", "validate", "validate_all", "describe", "load_class",
           "code_dir", "source_dir", "stage"]
