"""Submitted agents run in a sandbox: a bubblewrap box of their own, never as host root, with a
seccomp filter, resource limits, and a fresh process for every match (docs/sandbox.md).

- policy: the sandbox mode, the limits, AgentFault
- staging: the bot's code copied read-only at the start of a run
- confine: the command line, the seccomp filter, the bot's host uid, cgroups and the freezer
- remote: the arena's side (Box, RemoteAgent, BotPool)
- server: the sandbox's side (the fork server and the match process)
- wire: the frames between them, with deadlines both ways
- exec_host, exec_bot: bots in any language (`exec:PATH`), the host's side and the adapter in the
  box that speaks the Tabletop Bot Protocol to them (docs/protocol.md)
"""
from arena.sandbox.policy import DEFAULT_POLICY, LIMITS, SANDBOXES, AgentFault, make_policy, unconfined_note
from arena.sandbox.remote import POOL, BotPool, RemoteAgent, check_available, validate, validate_all
from arena.sandbox.server import describe, load_class
from arena.sandbox.staging import code_dir, stage

__all__ = ["DEFAULT_POLICY", "LIMITS", "SANDBOXES", "AgentFault", "make_policy", "unconfined_note", "POOL",
           "BotPool", "RemoteAgent", "check_available", "validate", "validate_all", "describe", "load_class",
           "code_dir", "stage"]
