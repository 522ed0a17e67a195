"""Parameters given as text (the command line) or as values, read to the type of their default: the
one reading used for game parameters (engines.registry) and agent parameters (agents.base)."""
import math
from collections.abc import Collection
from typing import Any

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def coerce(value: Any, default: Any, where: str, error: type[Exception] = ValueError,
           choices: Collection[Any] | None = None, limits: tuple[float, float] | None = None) -> Any:
    """`value` as the type of `default` (bool, int, float, tuple of ints, str, or None for an
    optional number), checked against `choices` and inclusive `limits`; raises `error` with one line
    naming `where` ("parameter 'c' of agent ismcts") otherwise. Floats must be finite."""
    try:
        out = _read(value, default)
    except (TypeError, ValueError):
        out = _WRONG
    if out is _WRONG:
        raise error(f"{where} must be {_kind(default, limits)}, not {value!r}")
    if isinstance(out, float) and not math.isfinite(out) or (
            limits and isinstance(out, (int, float)) and not limits[0] <= out <= limits[1]):
        raise error(f"{where} must be {_kind(default, limits)}, not {value!r}")
    if choices and out not in choices:
        raise error(f"{where} must be one of {', '.join(choices)}, not {value!r}")
    return out


_WRONG = object()


def _read(value, default):
    if isinstance(default, bool):
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        return bool(value) if isinstance(value, (bool, int)) else _WRONG
    if isinstance(default, int):
        if isinstance(value, float):
            return int(value) if value.is_integer() else _WRONG
        if isinstance(value, bool):
            return _WRONG
        return int(value) if isinstance(value, (int, str)) else _WRONG
    if isinstance(default, float) or default is None:
        if default is None and value in (None, "", "none"):
            return None
        return _float(value)
    if isinstance(default, tuple):
        if isinstance(value, str):
            return tuple(int(p) for p in value.replace(";", ",").split(",") if p.strip())
        if isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return tuple(value)
        return _WRONG
    if isinstance(default, str):
        return value if isinstance(value, str) else _WRONG
    return value


def _float(value):
    """float(value); an integer too large for a float is an infinity (refused as not finite)."""
    if isinstance(value, bool):
        raise TypeError
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _kind(default, limits):
    if limits:
        return "from {} to {}".format(*(f"{x:,}" if isinstance(x, int) else f"{x:,g}" for x in limits))
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "an integer"
    if isinstance(default, float) or default is None:
        return "a finite number"
    if isinstance(default, tuple):
        return "a list of integers"
    return "text"
