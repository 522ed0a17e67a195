"""What a request to `arena serve` sends, checked the same way by every route: its query parameters
(none but those the address takes), its body (at most so many bytes, counted as it arrives) and
the client's address (what the server can trust of it)."""
import ipaddress

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


def client_address(request: Request, behind_proxy: bool) -> str:
    """The client's address as far as the server can trust it: the socket's peer (uvicorn is started
    with its proxy headers off, so that is what `request.client` holds); with `behind_proxy`, the
    last address of X-Forwarded-For, the one the reverse proxy in front added (those before it are
    the client's to write), when it is an IP address."""
    peer = request.client.host if request.client else ""
    if behind_proxy:
        forwarded = request.headers.getlist("x-forwarded-for")
        last = forwarded[-1].rsplit(",", 1)[-1].strip() if forwarded else ""
        try:
            return str(ipaddress.ip_address(last))
        except ValueError:
            pass
    return peer
