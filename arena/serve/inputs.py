"""What a request to `arena serve` sends, checked the same way by every route: its query parameters
(none but those the address takes) and its body (at most so many bytes, counted as it arrives)."""
from starlette.exceptions import HTTPException
from starlette.requests import Request


def only(request: Request, *names: str) -> None:
    """Refuses a query parameter other than `names` (a typo would otherwise be silently ignored)."""
    unknown = sorted(set(request.query_params) - set(names))
    if unknown:
        raise ValueError(f"unknown query parameter {unknown[0]!r}: "
                         + (f"this accepts only {', '.join(names)}" if names else "this takes none"))


async def read_body(request: Request, limit: int, too_big: str) -> bytes:
    """The request's body; 413 (`too_big`) past `limit` bytes, by its Content-Length or counted as
    it arrives (a body without a length, or longer than it said)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, too_big)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPException(413, too_big)
    return bytes(body)
