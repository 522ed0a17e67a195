"""Text from users and bots, made safe to show: no control character reaches a terminal or a page."""


def printable(text, limit=None, keep="\n\t"):
    """`text` with control characters escaped ("\\x1b"), except those in `keep`; at most `limit` long."""
    text = str(text)[:limit]
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)
