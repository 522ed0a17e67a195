"""A run's text is read once, at the edge (arena.edge and the --agents language it uses,
arena.agent_list), and a stored run's config only by the store, which gives it typed: no other
module of the arena calls a text reader or reads a config as a raw dict. The source is read as text
(nothing is imported), as `grep` would."""
import os
import re

from paths import ROOT

TEXT_READERS = re.compile(r"\b(parse_agents?|split_list|parse_params|TimeControl\.parse|make_policy|parse_seeding|"
                          r"parse_deal_key|parse_sprt|load_for)\(")
READER_HOMES = ("arena/edge.py", "arena/agent_list.py")
RAW_CONFIG = re.compile(r"config\[|config\.get\(")
CONFIG_HOME = "arena/store.py"


def arena_sources():
    """(path from the checkout, its lines) of every .py file under arena/."""
    for folder, dirs, files in os.walk(os.path.join(ROOT, "arena")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, ROOT).replace(os.sep, "/"), f.read().splitlines()


def found(pattern, homes):
    """"path:line: text" of every line outside `homes` that matches `pattern` (a definition does not count)."""
    return [f"{path}:{n}: {line.strip()}" for path, lines in arena_sources() if path not in homes
            for n, line in enumerate(lines, 1) if pattern.search(line) and not line.lstrip().startswith("def ")]


def test_no_module_but_the_edge_reads_a_runs_text():
    calls = found(TEXT_READERS, READER_HOMES)
    assert not calls, "text read outside arena.edge:\n" + "\n".join(calls)


def test_no_module_but_the_store_reads_a_stored_config_as_a_dict():
    reads = found(RAW_CONFIG, (CONFIG_HOME,))
    assert not reads, "a stored config read as a dict outside arena.store:\n" + "\n".join(reads)
