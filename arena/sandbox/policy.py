"""How submitted agents are confined: the sandbox mode, the limits, and what a bot's fault is."""
from collections.abc import Iterable, Sequence
from typing import Any

from agents import code_param
from arena.match import LIMITS, SANDBOXES, AgentSpec, SandboxPolicy
from arena.text import printable


class AgentFault(Exception):
    """An agent misbehaved: kind is exception, illegal, timeout or crash. A submitted agent that
    faults while it loads carries what it printed, as `RemoteAgent.captured` gives it."""

    def __init__(self, kind, message):
        message = printable(message, 300, keep="")
        super().__init__(f"{kind}: {message}")
        self.kind, self.message = kind, message
        self.output = None


def make_policy(mode: str = "bwrap", limits: Iterable[tuple[str, Any]] = ()) -> SandboxPolicy:
    """A SandboxPolicy from --sandbox and --bot-limit NAME=VALUE pairs; ValueError on a bad one."""
    if mode not in SANDBOXES:
        raise ValueError(f"unknown sandbox {mode!r}; choose {' or '.join(SANDBOXES)}")
    values: dict[str, int] = {}
    for name, value in limits:
        if name not in LIMITS:
            raise ValueError(f"unknown bot limit {name!r}; limits: {', '.join(LIMITS)}")
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = 0
        if not 1 <= number <= 1 << 30:
            raise ValueError(f"bot limit {name} must be a whole number from 1 to {1 << 30}, not {value!r}")
        values[name] = number
    return SandboxPolicy.with_defaults(mode, values)


DEFAULT_POLICY = SandboxPolicy.with_defaults()


def policy_options(policy: SandboxPolicy) -> list[str]:
    """The command-line words that give `policy`: --sandbox and --bot-limit, each only when not the default."""
    words = ["--sandbox", policy.mode] if policy.mode != "bwrap" else []
    for name, value in policy.limits:
        if value != LIMITS[name][0]:
            words += ["--bot-limit", f"{name}={value}"]
    return words


def unconfined_note(sandbox: SandboxPolicy | None, agents: Sequence[AgentSpec]) -> str | None:
    """The warning every view of a run shows when agents' code ran without the sandbox (`sandbox`:
    the run's policy, None for a run that has none, a game played in `arena serve`)."""
    if sandbox is not None and sandbox.mode == "none" and any(
            a.kind != "builtin" or code_param(a.source, dict(a.params)) for a in agents):
        return ("sandbox: none - the submitted agents ran unconfined (--sandbox none), so nothing "
                "stopped them from reading hidden cards or forging results")
    return None
