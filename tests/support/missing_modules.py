"""Modules made missing, as on a plain install without an extra: `block` in this process (the tests
undo it with monkeypatch), `environment` for a subprocess (a sitecustomize that blocks them at start)."""
import os
import sys

from paths import ROOT


class Blocker:
    """A meta path finder that refuses `modules` and their submodules as if they were not installed."""

    def __init__(self, modules):
        self.modules = set(modules)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.modules:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def block(monkeypatch, *modules):
    """Makes `modules` unimportable in this process until the test ends."""
    monkeypatch.setattr(sys, "meta_path", [Blocker(modules), *sys.meta_path])
    for name in list(sys.modules):
        if name.split(".")[0] in modules:
            monkeypatch.delitem(sys.modules, name)


def environment(folder, *modules):
    """os.environ for a subprocess (run from the checkout) in which `modules` are not importable."""
    with open(os.path.join(folder, "sitecustomize.py"), "w") as f:
        f.write(f"import sys\nfrom missing_modules import Blocker\nsys.meta_path.insert(0, Blocker({sorted(modules)!r}))\n")
    support = os.path.dirname(os.path.abspath(__file__))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), support, ROOT])}
