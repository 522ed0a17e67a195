"""The optional parts of the package and the extras that install them. A plain `pip install` plays,
rates and reports in the terminal; the heavy parts are extras, each checked when a command first
needs it, so a missing one is a one-line user error that says how to install it:

- `[dask]`: the Dask backend (`--backend dask`),
- `[web]`: the web app (`arena serve`),
- `[charts]`: the drawn charts (`arena report`, `arena graph`, `arena analyze --out`, `arena bench --reports`),
- `[learn]`: the fit of `arena train`.
"""
import importlib.util

# module -> (the extra that installs it, the distribution to name in the message)
EXTRAS = {
    "distributed": ("dask", "dask[distributed]"),
    "starlette": ("web", "starlette"),
    "uvicorn": ("web", "uvicorn"),
    "markdown": ("web", "markdown"),
    "matplotlib": ("charts", "matplotlib"),
    "sklearn": ("learn", "scikit-learn"),
}


def install_hint(extra: str) -> str:
    """How to install an extra, for a released package and for a checkout."""
    return f'pip install "tabletop-arena[{extra}]" (in a checkout: pip install -e ".[{extra}]")'


def require(what: str, *modules: str) -> None:
    """:raises ValueError: one of `modules` (keys of EXTRAS) is not installed; the line names `what`
    needs it and how to install its extra. Looked up, not imported: the command imports it when it
    uses it."""
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            extra, distribution = EXTRAS[module]
            raise ValueError(f"{what} needs {distribution}, which is not installed: {install_hint(extra)}")
