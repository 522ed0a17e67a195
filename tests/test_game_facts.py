"""A game's facts are declared once, with the game (engines/registry.py's GameSpec): outside engines/,
no code compares a value with a game's id ("wizard", "insert", ...) to decide what to do.

Every .py file under agents/ and arena/ is parsed with `ast`: a comparison (==, !=, in, not in) one
of whose sides is a game id, or a tuple, list or set holding one, is a branch on the game. .pyx files
are read with a regular expression for `== "<id>"`, `!= "<id>"` and `in (...)` with a quoted id.
A table keyed by game id (a dict looked up with the game's id) is not a branch.

`python tests/test_game_facts.py` lists each branch with its file and line."""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)   # as a script, tests/engines would be found first

import engines  # noqa: E402

FOLDERS = ("agents", "arena")


def _is_game_id(node, games):
    if isinstance(node, ast.Constant):
        return node.value in games
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_game_id(e, games) for e in node.elts)
    return False


def _python_branches(path, text, games):
    out = []
    for node in ast.walk(ast.parse(text, path)):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                 for op in node.ops):
            if any(_is_game_id(side, games) for side in [node.left, *node.comparators]):
                out.append(node.lineno)
    return out


def _cython_branches(text, games):
    ids = "|".join(map(re.escape, games))
    pattern = re.compile(rf"""(==|!=)\s*["']({ids})["']|["']({ids})["']\s*(==|!=)|\bin\s*[(\[{{][^)\]}}]*["']({ids})["']""")
    return [text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)]


def game_branches():
    """["file:line"] of every comparison with a game id outside engines/."""
    games = set(engines.game_ids())
    out = []
    for folder in FOLDERS:
        for where, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(files):
                path = os.path.join(where, name)
                if not name.endswith((".py", ".pyx")):
                    continue
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                lines = _python_branches(path, text, games) if name.endswith(".py") else _cython_branches(text, games)
                out += [f"{os.path.relpath(path, ROOT)}:{line}" for line in lines]
    return out


def test_the_count_sees_a_branch_on_a_game():
    games = {"wizard", "insert"}
    source = 'a = game_id == "wizard"\nb = "insert" != g\nc = g in ("insert", "x")\nd = {"wizard": 1}[g]\ne = g == h\n'
    assert _python_branches("x.py", source, games) == [1, 2, 3]
    assert _cython_branches('    if gid == "wizard" and x:\n\n    y = g in ("a", "insert")\n', games) == [1, 3]
    assert _cython_branches('SPANS = {"wizard": 1}\nSPANS.get(gid)\n', games) == []


def test_no_branch_on_a_game_outside_engines():
    found = game_branches()
    assert not found, f"{len(found)} comparisons with a game id outside engines/ (declare the fact in " \
                      f"engines/registry.py's GameSpec): {', '.join(found)}"


def test_every_component_a_collector_names_is_declared_with_its_game():
    import random

    from arena.gamestats import components
    for game_id in engines.game_ids():
        spec = engines.spec(game_id)
        declared = set(spec.components)
        params = engines.registry.resolve(game_id)
        assert {(c.family, c.how) for c in components.expected(game_id, params)} <= declared
        state = engines.make(game_id, seed=5, **({"match": "single_round"} if "match" in spec.params else {}))
        collector, rng = components.Collector(state), random.Random(5)
        while not state.is_terminal():
            collector.before(state)
            collector.add(state.apply_with_events(rng.choice(state.legal_actions())))
        named = {(c.family, c.how) for seat in collector.result(state) for c in seat}
        assert named and named <= declared, (game_id, named - declared)


if __name__ == "__main__":
    found = game_branches()
    print("\n".join(found) or "none")
    sys.exit(1 if found else 0)
