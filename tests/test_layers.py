"""The import layers of the project, checked on the source (nothing is imported):

* `engines` imports nothing of `agents` or `arena`; `agents` imports nothing of `arena`;
* only `arena.cli` and the modules under it import click;
* inside `arena`, no subpackage imports one above it in the order docs/architecture.md gives (read
  from that page, so the page and the test cannot disagree), and every subpackage has its place;
* no import cycle among the project's modules.

Every .py file under engines/, agents/ and arena/ is parsed with `ast` (every import statement
counts, also one inside a function or under `if TYPE_CHECKING`); .pyx and .pxd files have their
`import`, `from ... import` and `cimport` lines read with a regular expression. An import names the
module it loads: `import a.b` and `from a.b import name` import `a.b` (for a package, its
__init__), `from a import b` imports `a.b` when that is a module. Importing `a.b.c` also runs the
__init__ of `a` and of `a.b`, so it imports those packages too (unless the importer is inside them:
they have run already): `from arena.sandbox.exec_host import x` runs arena/sandbox/__init__.py.

Each rule is its own test, and a failure names every violating import with its file and line.

`python tests/test_layers.py` prints every violation with the file and line of each import.
"""
import ast
import functools
import os
import re
import sys
from collections import defaultdict

import networkx as nx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("engines", "agents", "arena")
# A module may import the packages listed after it, never those before: engines < agents < arena.
FORBIDDEN = {"engines": ("agents", "arena"), "agents": ("arena",)}
CLICK_HOME = "arena.cli"


# ---------------------------------------------------------------- reading the imports

def module_files():
    """{module name: [its source files]} for every .py, .pyx and .pxd file of the three packages
    (core.pyx and core.pxd are both `engines.core`)."""
    out = defaultdict(list)
    for package in PACKAGES:
        for folder, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(files):
                stem, ext = os.path.splitext(name)
                if ext not in (".py", ".pyx", ".pxd"):
                    continue
                parts = os.path.relpath(os.path.join(folder, stem), ROOT).split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                out[".".join(parts)].append(os.path.join(folder, name))
    return dict(out)


def _is_package(module, files):
    return any(os.path.basename(f).startswith("__init__.") for f in files[module])


def _absolute(importer, is_package, level, base):
    """The absolute module of `from <level dots><base> import ...` in `importer`."""
    if not level:
        return base
    parts = importer.split(".") if is_package else importer.split(".")[:-1]
    parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([base] if base else []))


_STRINGS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+c?import[ \t]+(\([^)]*\)|[^\n#]*)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*c?import[ \t]+([^\n#]*)", re.MULTILINE)


def _names(text):
    """The names of an import list: "a.b as c, d" -> ["a.b", "d"]."""
    return [n.split()[0] for n in text.strip().strip("()").replace("\n", " ").split(",") if n.strip()]


def raw_imports(path):
    """[(kind, module, names, line)]: kind "import" (names empty) or "from" (level dots kept in module)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    if path.endswith(".py"):
        for node in ast.walk(ast.parse(text, path)):
            if isinstance(node, ast.Import):
                out += [("import", a.name, [], node.lineno) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                out.append(("from", "." * node.level + (node.module or ""), [a.name for a in node.names],
                            node.lineno))
        return out
    # Cython: docstrings blanked (keeping the line numbers), so prose starting with "import" is no import.
    text = _STRINGS.sub(lambda m: "\n" * m.group().count("\n"), text)
    for m in _FROM.finditer(text):
        out.append(("from", m.group(1), _names(m.group(2)), text.count("\n", 0, m.start()) + 1))
    for m in _IMPORT.finditer(text):
        out += [("import", name, [], text.count("\n", 0, m.start()) + 1) for name in _names(m.group(1))]
    return out


@functools.cache
def imports():
    """((importer, imported, "file:line"), ...): `imported` is a project module, or for anything
    else its top-level name ("click", "numpy"); one entry per module named by an import."""
    files = module_files()
    known = set(files)

    def project_module(name):
        """The longest prefix of `name` that is a project module, or None."""
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            if ".".join(parts[:k]) in known:
                return ".".join(parts[:k])
        return None

    out = []
    for importer in sorted(files):
        for path in files[importer]:
            where = os.path.relpath(path, ROOT)
            for kind, module, names, line in raw_imports(path):
                level = len(module) - len(module.lstrip("."))
                base = _absolute(importer, _is_package(importer, files), level, module.lstrip("."))
                targets = [base] if kind == "import" else \
                    [f"{base}.{n}" if f"{base}.{n}" in known else base for n in names if n != "*"] or [base]
                for target in dict.fromkeys(targets):
                    out.append((importer, project_module(target) or target.split(".")[0], f"{where}:{line}"))
    return tuple(dict.fromkeys(out))


def _packages_run(importer, imported):
    """The modules an import of `imported` runs: it, and its parent packages outside the importer's own."""
    parts = imported.split(".")
    parents = (".".join(parts[:k]) for k in range(1, len(parts)))
    return [p for p in parents if not (importer == p or importer.startswith(p + "."))] + [imported]


def graph():
    """The project's modules, with an edge importer -> imported (attribute `where`: the import lines),
    and importer -> each parent package the import runs."""
    g = nx.DiGraph()
    g.add_nodes_from(module_files())
    for importer, imported, where in imports():
        for module in _packages_run(importer, imported) if imported in g else ():
            if module == importer:
                continue
            if g.has_edge(importer, module):
                g.edges[importer, module]["where"].append(where)   # another import line
            else:
                g.add_edge(importer, module, where=[where])
    return g


def _package(module):
    return module.split(".")[0]


# ---------------------------------------------------------------- the violations

def layer_violations(g=None):
    """[(importer, imported, [where])]: engines importing agents or arena, agents importing arena."""
    g = graph() if g is None else g
    return sorted((a, b, w) for a, b, w in g.edges(data="where") if _package(b) in FORBIDDEN.get(_package(a), ()))


def click_violations():
    """[(importer, "click", [where])]: modules outside arena.cli that import click."""
    found = defaultdict(list)
    for importer, imported, where in imports():
        if imported == "click" and not (importer == CLICK_HOME or importer.startswith(CLICK_HOME + ".")):
            found[importer].append(where)
    return [(m, "click", w) for m, w in sorted(found.items())]


def import_cycles(g=None):
    """Every elementary import cycle, each as its list of modules starting at its smallest, sorted."""
    g = graph() if g is None else g
    out = []
    for cycle in nx.simple_cycles(g):
        k = cycle.index(min(cycle))
        out.append(cycle[k:] + cycle[:k])
    return sorted(out, key=lambda c: (len(c), c))


def cycle_edges(cycle, g=None):
    """The edges of a cycle, with their import lines."""
    g = graph() if g is None else g
    return [(a, b, g.edges[a, b]["where"]) for a, b in zip(cycle, cycle[1:] + cycle[:1])]


ARCHITECTURE = os.path.join(ROOT, "docs", "architecture.md")
ENTRY_POINTS = ("arena", "arena.__main__")   # the package and `python -m arena`: above every layer


def subpackage_order():
    """arena's subpackages and top-level modules in the order docs/architecture.md gives them, top
    first: [["arena.cli"], ["arena.serve", "arena.bench"], ...]. Read from the block after "import
    those beneath them in this order": each line starts with the names of its layer."""
    with open(ARCHITECTURE, encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"import those beneath them in this order.*?```\n(.*?)```", text, re.DOTALL)
    assert block, f"{ARCHITECTURE}: no block giving the order of arena's subpackages"
    arena_dir = os.path.join(ROOT, "arena")
    rows = []
    for line in block.group(1).splitlines():
        names = []
        for word in line.split():
            if not (os.path.isdir(os.path.join(arena_dir, word)) or os.path.isfile(os.path.join(arena_dir, word + ".py"))):
                break
            names.append("arena." + word)
        if names:
            rows.append(names)
    return rows


def _subpackage(module):
    """arena.x for a module arena.x or arena.x.y; None outside arena's subpackages."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "arena" and len(parts) > 1 else None


def order_violations(g=None, order=None):
    """[(importer, imported, [where])]: an arena subpackage importing one above it in the order."""
    g = graph() if g is None else g
    rank = {name: i for i, row in enumerate(order or subpackage_order()) for name in row}
    return sorted((a, b, w) for a, b, w in g.edges(data="where")
                  if a not in ENTRY_POINTS and _subpackage(a) in rank and _subpackage(b) in rank
                  and rank[_subpackage(b)] < rank[_subpackage(a)])


def unplaced_subpackages(order=None):
    """arena's subpackages and modules that the order does not place, or places twice."""
    placed = [name for row in (order or subpackage_order()) for name in row]
    present = {_subpackage(m) for m in module_files() if _subpackage(m) and m not in ENTRY_POINTS}
    return sorted(present - set(placed)) + sorted({n for n in placed if placed.count(n) > 1})


def describe(edges):
    return "; ".join(f"{a} -> {b} ({', '.join(w)})" for a, b, w in edges) or "none"


def describe_cycles(cycles, g=None):
    g = graph() if g is None else g
    return "; ".join(" -> ".join(c + c[:1]) + f" [{describe(cycle_edges(c, g))}]" for c in cycles) or "none"


# ---------------------------------------------------------------- the tests

def test_the_graph_sees_every_package_and_the_cython_imports():
    g = graph()
    assert {"engines", "engines.core", "engines.wizard", "agents", "agents.ismcts", "arena", "arena.cli"} <= set(g)
    assert g.has_edge("agents.ismcts", "engines.core")           # a cimport in a .pyx
    assert g.has_edge("engines.wizard", "engines.wizard_rules")  # a cimport of a .pxd
    assert g.has_edge("engines", "engines.registry")             # from engines.registry import ...
    # `from PACKAGE import submodule` is an import of the submodule (arena.cli imports its commands so)
    assert any(b.startswith(a + ".") and a.startswith("arena") for a, b in g.edges)
    assert sum(1 for a, b in g.edges if a.startswith("arena") and b.startswith("engines")) > 5


def test_engines_import_nothing_of_agents_or_arena_and_agents_nothing_of_arena():
    bad = layer_violations()
    assert not bad, f"imports against the layers engines < agents < arena: {describe(bad)}"


def test_only_arena_cli_imports_click():
    bad = click_violations()
    assert not bad, f"modules outside {CLICK_HOME} import click: {describe(bad)}"


def test_the_order_is_read_from_the_architecture_page():
    order = subpackage_order()
    assert order[0] == ["arena.cli"] and "arena.match" in order[-1] and len(order) > 5
    # a run's typed config sits below the store, which gives its runs as typed values
    rank = {name: i for i, row in enumerate(order) for name in row}
    assert rank["arena.store"] < rank["arena.run_config"] < rank["arena.match"]
    assert not unplaced_subpackages(order), f"{ARCHITECTURE} places none or several times: {unplaced_subpackages(order)}"


def test_no_arena_subpackage_imports_one_above_it():
    g = graph()
    # function-level imports count: the CLI's commands import what they use inside their function
    assert g.has_edge("arena.cli.reports", "arena.reports.graphs")
    bad = order_violations(g)
    assert not bad, f"imports against the order of {ARCHITECTURE}: {describe(bad)}"


def test_an_import_runs_its_parent_packages():
    g = graph()
    assert g.has_edge("arena.tournament.coordinator", "arena.sandbox")        # from arena.sandbox import ...
    assert g.has_edge("arena.sandbox.staging", "arena.sandbox.exec_host")      # its own package has run: no edge
    assert not g.has_edge("arena.sandbox.staging", "arena.sandbox")
    assert g.has_edge("arena.serve.ladders", "arena.ladder")   # from arena.ladder import store


def test_no_import_cycle():
    cycles = import_cycles()
    assert not cycles, f"{len(cycles)} import cycles: {describe_cycles(cycles)}"


# arena's subpackages in the order of docs/architecture.md, top first: a ladder and training
# (arena.learn) each import only the layers below theirs, never a sibling; nothing below imports them.
LADDER = "arena.ladder"
LEARN = "arena.learn"
SIBLINGS = ("arena.gamestats", "arena.compare", LADDER, LEARN)
ABOVE_LADDER = ("arena.cli", "arena.serve", "arena.bench")
BELOW_LADDER = ("arena.reports", "arena.tournament", "arena.human_game", "arena.results",
                "arena.referee", "arena.sandbox", "arena.agent_list", "arena.store", "arena.store_ladders",
                "arena.server_address", "arena.run_config", "arena.match", "arena.seeds", "arena.text", "arena.defaults",
                "arena.extras")


def _under(module, packages):
    return any(module == p or module.startswith(p + ".") for p in packages)


def sibling_violations(home, g=None):
    """[(importer, imported, [where])]: `home` (arena.ladder, arena.learn) importing a layer above it
    or a sibling, or a layer below it importing `home`."""
    g = graph() if g is None else g
    return sorted((a, b, w) for a, b, w in g.edges(data="where")
                  if (_under(a, (home,)) and b.startswith("arena.") and not _under(b, (home,) + BELOW_LADDER))
                  or (_under(b, (home,)) and _under(a, BELOW_LADDER + tuple(p for p in SIBLINGS if p != home))))


def test_the_ladder_sits_above_tournament_and_results_and_below_serve_bench_and_cli():
    g = graph()
    assert {"arena.ladder.store", "arena.ladder.play"} <= set(g) and g.has_edge("arena.ladder.play",
                                                                                "arena.tournament.schedule")
    bad = sibling_violations(LADDER, g)
    assert not bad, f"imports against the ladder's layer: {describe(bad)}"


def test_training_sits_above_tournament_and_below_cli():
    g = graph()
    assert g.has_edge("arena.learn.data", "arena.tournament.runner") and g.has_edge("arena.cli.learn", "arena.learn.fit")
    bad = sibling_violations(LEARN, g)
    assert not bad, f"imports against arena.learn's layer: {describe(bad)}"


def report(out=sys.stdout):
    """Prints every violation, each import with its file and line (`python tests/test_layers.py`);
    returns how many there are."""
    g = graph()
    layers, click, cycles = layer_violations(g), click_violations(), import_cycles(g)
    order, unplaced = order_violations(g), unplaced_subpackages()
    print(f"{g.number_of_nodes()} modules, {g.number_of_edges()} imports among them", file=out)
    print(f"\nengines < agents < arena: {len(layers)} violating imports", file=out)
    for a, b, w in layers:
        print(f"  {a} -> {b}    {', '.join(w)}", file=out)
    print(f"\nclick outside {CLICK_HOME}: {len(click)} modules", file=out)
    for a, b, w in click:
        print(f"  {a} -> {b}    {', '.join(w)}", file=out)
    print(f"\narena's subpackages against the order of docs/architecture.md: {len(order)} imports", file=out)
    for a, b, w in order:
        print(f"  {a} -> {b}    {', '.join(w)}", file=out)
    print(f"\narena's subpackages the order does not place (or places twice): {', '.join(unplaced) or 'none'}",
          file=out)
    print(f"\nimport cycles: {len(cycles)}", file=out)
    for c in cycles:
        print("  " + " -> ".join(c + c[:1]), file=out)
        for a, b, w in cycle_edges(c, g):
            print(f"      {a} -> {b}    {', '.join(w)}", file=out)
    return len(layers) + len(click) + len(cycles) + len(order) + len(unplaced)


if __name__ == "__main__":
    sys.exit(1 if report() else 0)
