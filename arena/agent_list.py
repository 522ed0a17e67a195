"""The `--agents` mini-language: `name`, `name[k=v,...]`, `FILE.py:Class`, `package.module:Class`, an
installed entry point, `exec:PATH` (a program in any language), each optionally followed by `as LABEL`, as
AgentSpecs."""
import ast
import dataclasses
import importlib.util
import os
import re
from typing import Iterable

import agents as agent_registry
from arena.match import AgentSpec

ENTRY_POINT_GROUP = "tabletop_arena.agents"
DEFAULT_AGENTS = "greedy,random"


class ScheduleError(ValueError):
    """A user error in the tournament's description (agent list, parameters)."""


_ITEM = re.compile(r"^(?P<source>[^\[\]\s]+)\s*(?:\[(?P<params>[^\[\]]*)\])?(?:\s+as\s+(?P<label>\S+))?$")


def split_list(text: str) -> list[str]:
    """Splits on commas outside brackets: "a, b[x=1,y=2] as c" -> ["a", "b[x=1,y=2] as c"]."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ScheduleError(f"unbalanced ']' in agent list {text!r}")
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if depth:
        raise ScheduleError(f"unbalanced '[' in agent list {text!r}")
    items.append("".join(current).strip())
    return [i for i in items if i]


def parse_params(text: str, where: str) -> tuple[tuple[str, str], ...]:
    """"k=v, k2=v2" -> (("k", "v"), ("k2", "v2")); values stay strings (the receiver coerces).

    A part without "=" continues the previous value, so list values need no quoting:
    "hands=10,9, plus_minus_one=true" -> (("hands", "10,9"), ("plus_minus_one", "true")).
    """
    out: list[tuple[str, str]] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, eq, value = part.partition("=")
        if not eq and out and part:
            out[-1] = (out[-1][0], f"{out[-1][1]},{part}")
            continue
        if not eq or not name.strip() or not value.strip():
            raise ScheduleError(f"malformed parameter {part!r} in {where}: expected name=value")
        out.append((name.strip(), value.strip()))
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise ScheduleError(f"a parameter is given twice in {where}")
    return tuple(out)


def param_options(values: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The repeated `--param NAME=VALUE` options as ((name, value), ...)."""
    return parse_params(",".join(values), "--param")


def entry_points() -> dict[str, str]:
    """Installed agents: entry point name -> "module:attr" in the `tabletop_arena.agents` group."""
    import importlib.metadata   # here: reading the installed packages' metadata is slow to import
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _classify(source):
    """(kind, target) for an agent source: builtin, file, module or entrypoint."""
    if ":" in source:
        where, _, cls = source.rpartition(":")
        if not where or not cls.isidentifier():
            raise ScheduleError(f"agent {source!r}: expected FILE.py:Class or package.module:Class")
        if where.endswith(".py") or "/" in where or os.sep in where:
            path = os.path.abspath(os.path.expanduser(where))
            if not os.path.isfile(path):
                raise ScheduleError(f"agent {source!r}: no file {where}")
            return "file", f"{path}:{cls}"
        if not all(p.isidentifier() for p in where.split(".")):
            raise ScheduleError(f"agent {source!r}: {where!r} is not a module name")
        try:
            # Only the top-level name: finding a submodule would run its package's code here.
            found = importlib.util.find_spec(where.split(".")[0])
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise ScheduleError(f"agent {source!r}: no module {where} (is it installed, or on the path?)")
        return "module", source
    if source in agent_registry.agent_names():
        return "builtin", source
    installed = entry_points()
    if source in installed:
        return "entrypoint", installed[source]
    known = agent_registry.agent_names() + sorted(installed)
    raise ScheduleError(f"unknown agent {source!r}; built-in and installed agents: {', '.join(known)}; "
                        f"or give FILE.py:Class or package.module:Class")


def parse_agent(item: str, run_code: bool = False) -> AgentSpec:
    """One item of the agent list as an AgentSpec (see parse_agents). A built-in agent told to load
    code of the user's (`agents.code_param`) is refused, before anything is loaded, unless `run_code`:
    that code would run in the arena's own process, where no sandbox confines it."""
    m = _ITEM.match(item.strip())
    if not m:
        raise ScheduleError(f"cannot read agent {item!r}: expected NAME[k=v,...] [as LABEL]")
    source = m["source"]
    if not item.strip().isprintable():
        raise ScheduleError(f"agent {item.strip()!r}: names, parameters and labels must be printable text")
    params = parse_params(m["params"] or "", f"agent {source!r}")
    if source.startswith("exec:"):   # a program in any language (docs/protocol.md)
        from arena.sandbox.exec_host import parse_exec
        try:
            spec = parse_exec(source, m["label"], params)
        except ValueError as e:
            raise ScheduleError(str(e)) from None
        return spec if m["label"] else dataclasses.replace(spec, label=with_params(spec.label, params))
    kind, target = _classify(source)
    if kind == "builtin":
        param = agent_registry.code_param(source, dict(params))
        if param and not run_code:
            raise ScheduleError(f"agent {source}: its {param} is code of yours that would run in the arena's own "
                                f"process, outside the sandbox: only with --sandbox none (every view of a run "
                                f"then says it ran unconfined)")
        try:
            agent_registry.make(source, **dict(params))
        except ValueError as e:
            raise ScheduleError(str(e)) from None
        name = source
    else:
        name = target.rpartition(":")[2] if kind != "entrypoint" else source
    return AgentSpec(m["label"] or with_params(name, params), source, params, kind, target)


def with_params(name: str, params: tuple[tuple[str, str], ...]) -> str:
    """An agent's default label: its name with its parameters as given, "ismcts[iterations=50]"."""
    return name + (f"[{','.join(f'{k}={v}' for k, v in params)}]" if params else "")


def parse_agents(text: str, run_code: bool = False) -> list[AgentSpec]:
    """The `--agents` list as AgentSpecs with unique labels; built-in parameters are validated here.

    Items: `name`, `name[k=v,...]`, `FILE.py:Class`, `package.module:Class`, an installed entry point
    name, each optionally followed by `as LABEL`. Submitted classes are validated separately (in
    their own process: see arena.sandbox.validate).
    """
    specs = [parse_agent(item, run_code) for item in split_list(text)]
    if len(specs) < 2:
        raise ScheduleError("a tournament needs at least two agents (give --agents A,B)")
    seen = set()
    for s in specs:
        if s.label in seen:
            raise ScheduleError(f"agent label {s.label!r} appears twice; rename one with 'as LABEL'")
        seen.add(s.label)
    return specs


def agent_classes(path: str) -> list[str]:
    """The public top-level classes of a Python file that derive from an Agent class (by name: agents.Agent,
    any `...Agent` class, or another such class of the file); the file is parsed, never run."""
    with open(path, "rb") as f:
        source = f.read()
    try:
        tree = ast.parse(source, path)
    except (RecursionError, MemoryError):   # what Python's parser raises for code nested too deep
        raise ValueError(f"{path} cannot be parsed: it is nested too deep") from None
    known, found = set(), []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                     for b in node.bases]
            if any(b.endswith("Agent") or b in known for b in bases):
                known.add(node.name)
                if not node.name.startswith("_"):
                    found.append(node.name)
    return found
