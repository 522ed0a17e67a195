"""Text shown to people and data written for programs: user and bot text made safe (no control
character reaches a terminal or a page), games and parameter values written as the command line
takes them, and any result as plain JSON data."""
import math


def printable(text, limit=None, keep="\n\t"):
    """`text` with control characters escaped ("\\x1b"), except those in `keep`; at most `limit` long."""
    text = str(text)[:limit]
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


def format_value(value):
    """A parameter value as --param takes it: a list as "10,9"."""
    return ",".join(str(x) for x in value) if isinstance(value, (list, tuple)) else str(value)


def game_title(game_id, params, only_changed=False):
    """"game (name=value, ...)": every parameter that is set, in name order; with only_changed, the
    parameters that differ from the game's defaults (every one, for a game no longer registered)."""
    if only_changed:
        import engines
        try:
            defaults = engines.registry.resolve(game_id)
        except ValueError:
            defaults = {}
        shown = [(k, v) for k, v in params.items()
                 if defaults.get(k) != (tuple(v) if isinstance(v, list) else v)]
    else:
        shown = [(k, v) for k, v in sorted(params.items()) if v not in ("", None, [])]
    text = ", ".join(f"{k}={format_value(v)}" for k, v in shown)
    return f"{game_id} ({text})" if text else game_id


def jsonable(value):
    """Plain JSON data: objects with `as_dict()` (intervals, standings) as their dicts, mappings and
    sequences element by element, numbers of any numeric type as Python numbers (a float that is
    not finite as None), and anything else as its text."""
    if hasattr(value, "as_dict"):
        return jsonable(value.as_dict())
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)
