"""The `--agents` mini-language: `name`, `name[k=v,...]`, `FILE.py:Class`, `package.module:Class`, an
installed entry point, `exec:PATH` (a program in any language), each optionally followed by `as LABEL`, as
AgentSpecs."""
import ast
import dataclasses
import importlib.util
import os
import re
from collections.abc import Mapping
from typing import Any

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


def entry_points() -> dict[str, str]:
    """Installed agents: entry point name -> "module:attr" in the `tabletop_arena.agents` group."""
    import importlib.metadata  # here: reading the installed packages' metadata is slow to import
    return {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _classify(source):
    """(kind, source, target) for an agent source: builtin, file, module or entrypoint; a bot file
    given without its class ("./bot.py") is its only Agent class ("./bot.py:MyBot")."""
    if source.endswith(".py") and ":" not in source:
        path = _bot_file(source, source)
        cls = _only_agent_class(source, path)
        return "file", f"{source}:{cls}", f"{path}:{cls}"
    if ":" in source:
        where, _, cls = source.rpartition(":")
        if not where or not cls.isidentifier():
            raise ScheduleError(f"agent {source!r}: expected FILE.py:Class or package.module:Class")
        if where.endswith(".py") or "/" in where or os.sep in where:
            path = _bot_file(source, where)
            _check_class_named(source, where, path, cls)
            return "file", source, f"{path}:{cls}"
        if not all(p.isidentifier() for p in where.split(".")):
            raise ScheduleError(f"agent {source!r}: {where!r} is not a module name")
        try:
            # Only the top-level name: finding a submodule would run its package's code here.
            found = importlib.util.find_spec(where.split(".")[0])
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise ScheduleError(f"agent {source!r}: no module {where} (is it installed, or on the path?)")
        return "module", source, source
    if source in agent_registry.agent_names():
        return "builtin", source, source
    installed = entry_points()
    if source in installed:
        return "entrypoint", source, installed[source]
    known = agent_registry.agent_names() + sorted(installed)
    raise ScheduleError(f"unknown agent {source!r}; built-in and installed agents: {', '.join(known)}; "
                        f"or give FILE.py:Class or package.module:Class")


def _bot_file(source, where):
    path = os.path.abspath(os.path.expanduser(where))
    if not os.path.isfile(path):
        raise ScheduleError(f"agent {source!r}: no file {where}")
    return path


# ---------------------------------------------------------------- a bot file, read and never run

def parse_file(path: str, name: str | None = None) -> ast.Module:
    """A Python file's syntax tree, parsed and never run. ValueError naming the file (as `name`, by
    default its own), the line and Python's message when it cannot be parsed ("SyntaxError: bot.py,
    line 5: expected ':'", as the sandbox says it when it loads the file)."""
    name = name or os.path.basename(path)
    with open(path, "rb") as f:
        source = f.read()
    try:
        return ast.parse(source, name)
    except SyntaxError as e:
        raise ValueError(f"{type(e).__name__}: {name}, line {e.lineno}: {e.msg}" if e.lineno
                         else f"{type(e).__name__}: {name}: {e.msg}") from None
    except (RecursionError, MemoryError):   # what Python's parser raises for code nested too deep
        raise ValueError(f"{name} is nested too deep for Python's parser") from None
    except ValueError as e:   # a null byte, in the Pythons that do not call it a SyntaxError
        raise ValueError(f"{name}: {e}") from None


def _base_names(node: ast.ClassDef) -> list[str]:
    return [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases]


def _agent_class_nodes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """The top-level classes of a file that derive from an Agent class (by name: agents.Agent, any
    `...Agent` class, or another such class of the file)."""
    known: dict[str, ast.ClassDef] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(b.endswith("Agent") or b in known for b in _base_names(node)):
            known[node.name] = node
    return known


def agent_classes(path: str, name: str | None = None) -> list[str]:
    """The public top-level Agent classes of a Python file (see `_agent_class_nodes`); the file is
    parsed, never run (ValueError when it cannot be, naming it `name`: see `parse_file`)."""
    return [c for c in _agent_class_nodes(parse_file(path, name)) if not c.startswith("_")]


def _only_agent_class(source, path):
    """The class a bot file given alone stands for: its only Agent class."""
    name = os.path.basename(path)
    try:
        classes = agent_classes(path)
    except ValueError as e:
        raise ScheduleError(f"agent {source!r}: {e}") from None
    if not classes:
        raise ScheduleError(f"agent {source!r}: {name} has no Agent class (class MyBot(Agent) at its top level)")
    if len(classes) > 1:
        raise ScheduleError(f"agent {source!r}: {name} has several Agent classes ({', '.join(classes)}): "
                            f"give {source}:{classes[0]}")
    return classes[0]


def _bound_names(tree):
    """Every name the file may bind (more, never fewer: a function's locals too), or None when it
    cannot be known (a star import, a module __getattr__)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" for alias in node.names):
                return None
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    return None if "__getattr__" in names else names


def _check_class_named(source, where, path, cls):
    """A class the file does not define is refused, with the closest of its Agent classes. A file
    that cannot be parsed is left to the sandbox, which names the file and the line when it loads it."""
    try:
        tree = parse_file(path)
    except ValueError:
        return
    names = _bound_names(tree)
    if names is None or cls in names:
        return
    import difflib
    classes = [name for name in _agent_class_nodes(tree) if not name.startswith("_")]
    close = [c for c in classes if c.lower() == cls.lower()] or difflib.get_close_matches(cls, classes, n=1)
    hint = (f"did you mean {where}:{close[0]}?" if close else
            f"its Agent classes: {', '.join(classes)}" if classes else "it has no Agent class")
    raise ScheduleError(f"agent {source!r}: {os.path.basename(path)} has no class {cls}; {hint}")


_DECLARED = ("name", "PARAMS", "LIMITS", "CHOICES")   # what Agent.__init__ reads of a class


def _declared(classes, cls):
    """The `_DECLARED` attributes of class `cls`, read as literals through its bases in the file down
    to agents' Agent; None when that cannot be known here (a value that is not a literal, an
    __init__ of its own, a base from elsewhere)."""
    out: dict = {}
    node, seen = classes.get(cls), set()
    while node is not None and node.name not in seen:
        seen.add(node.name)
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
                return None
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
                if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                if not isinstance(target, ast.Name) or target.id not in _DECLARED or target.id in out:
                    continue
                if len(targets) > 1 or isinstance(stmt, ast.AugAssign) or stmt.value is None:
                    return None
                try:
                    out[target.id] = ast.literal_eval(stmt.value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    return None
        bases = _base_names(node)
        if bases == ["Agent"]:
            return out
        node = classes.get(bases[0]) if len(bases) == 1 else None
    return None


def _check_file_params(source, target, params):
    """The parameters of a file agent, checked as its class will check them (Agent.__init__), when
    the file declares them as literals: a bad one is refused here, before the agent is loaded."""
    path, _, cls = target.rpartition(":")
    try:
        declared = _declared(_agent_class_nodes(parse_file(path)), cls)
    except ValueError:
        return
    if declared is None:
        return
    from agents.base import Agent
    try:
        type(cls, (Agent,), declared)(**dict(params))
    except ValueError as e:
        raise ScheduleError(f"agent {source!r}: {e}") from None
    except Exception:   # declarations Agent cannot read (PARAMS not a dict): the load will say so
        return


def file_param(source: str, params: Mapping[str, Any]) -> str | None:
    """The parameter through which a built-in agent would read a file named by whoever lists it
    (pimc's bid_model), or None: also where each such parameter names none (its values in
    FILE_PARAMS: none, or the shipped model)."""
    try:
        cls = agent_registry.agent_class(source)
    except ValueError:
        return None
    return next(iter(cls.files_read(params)), None)


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
    return agent_spec(source, parse_params(m["params"] or "", f"agent {source!r}"), m["label"], run_code)


def agent_spec(source: str, params: tuple[tuple[str, str], ...] = (), label: str | None = None,
               run_code: bool = False) -> AgentSpec:
    """The agent of an item's parts (its source, its parameters as text, its label: None for the
    default), checked as `parse_agent` checks an item; ScheduleError otherwise."""
    if source.startswith("exec:"):   # a program in any language (docs/protocol.md)
        from arena.sandbox.exec_host import parse_exec
        try:
            spec = parse_exec(source, label, params)
        except ValueError as e:
            raise ScheduleError(str(e)) from None
        return spec if label else dataclasses.replace(spec, label=with_params(spec.label, params))
    kind, source, target = _classify(source)
    if kind == "file":
        _check_file_params(source, target, params)
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
    return AgentSpec(label or with_params(name, params), source, params, kind, target)


def with_params(name: str, params: tuple[tuple[str, str], ...]) -> str:
    """An agent's default label: its name with its parameters as given, "ismcts[iterations=50]"."""
    return name + (f"[{','.join(f'{k}={v}' for k, v in params)}]" if params else "")


def item_text(spec: AgentSpec) -> str:
    """The agent as an agent list writes it: `parse_agent` of the text gives the spec back."""
    params = ",".join(f"{k}={v}" for k, v in spec.params)
    text = spec.source + (f"[{params}]" if params else "")
    default = text if spec.kind == "builtin" else (spec.target.rpartition(":")[2] if spec.kind != "entrypoint"
                                                    else spec.source)
    return text + (f" as {spec.label}" if spec.label != default else "")


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


def default_agents() -> list[AgentSpec]:
    """The agents of a run that names none (DEFAULT_AGENTS)."""
    return parse_agents(DEFAULT_AGENTS)

