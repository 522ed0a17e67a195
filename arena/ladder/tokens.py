"""Entrant tokens: what lets a person add and retire their own bots of a ladder over HTTP.

A token is `ID.SECRET`: ID (public, random) selects its row, SECRET (secrets.token_urlsafe) is kept
only as a salted scrypt hash, compared with hmac.compare_digest. A token whose ID has no row is
hashed against a dummy row all the same, so the time of a refusal says nothing of which tokens or
entrants exist. A token is for one entrant of one ladder, may expire, and is revoked with
`arena ladder revoke` (every live token of that entrant).
"""
import hashlib
import hmac
import secrets
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.store import Store

# scrypt's cost: 16 MiB and a few tens of milliseconds a check (the secret has 256 random bits: the
# hash keeps a copied table from being a list of tokens, it does not need to resist guessing)
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1, "maxmem": 64 << 20, "dklen": 32}
MAX_DAYS = 3650
_DUMMY = (b"\0" * 16, b"\0" * 32)


class TokenRefused(ValueError):
    """No valid token: none, malformed, unknown, wrong, expired or revoked (HTTP 401)."""


def _hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, **SCRYPT)


def issue(store: "Store", ladder: str, entrant: str, days: float | None = None,
          now: float | None = None) -> str:
    """A new token for `entrant` of `ladder`, valid for `days` (None: until revoked); only its hash
    is stored. The caller checks that the ladder and the entrant exist."""
    if days is not None and not 0 < days <= MAX_DAYS:
        raise ValueError(f"--expires takes a number of days from more than 0 to {MAX_DAYS}, not {days:g}")
    now = time.time() if now is None else now
    token_id, secret, salt = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_bytes(16)
    store.ladders.add_token(token_id, ladder, entrant, salt, _hash(secret, salt), now,
                            None if days is None else now + days * 86400)
    return f"{token_id}.{secret}"


def revoke(store: "Store", ladder: str, entrant: str, now: float | None = None) -> int:
    """Revokes every live token of `entrant` of `ladder`; how many."""
    return store.ladders.revoke_tokens(ladder, entrant, time.time() if now is None else now)


def tokens(store: "Store", ladder: str) -> list[dict[str, Any]]:
    """The tokens of `ladder` (never their secrets): id, entrant, created, expires, revoked."""
    return store.ladders.tokens(ladder)


def entrant_of(store: "Store", ladder: str, token: str | None, now: float | None = None) -> str:
    """The entrant a token of `ladder` is for; TokenRefused when it is missing, malformed, unknown,
    wrong, for another ladder, expired or revoked (one message for all, and the same work)."""
    token_id, _, secret = (token or "").partition(".")
    row = None
    if token_id and secret and token_id.isascii():
        row = store.ladders.token(token_id)
    salt, digest = (row[2], row[3]) if row else _DUMMY
    matches = hmac.compare_digest(_hash(secret, salt), digest)
    now = time.time() if now is None else now
    if not (row and matches and row[0] == ladder and row[5] is None and (row[4] is None or now < row[4])):
        raise TokenRefused("no valid entrant token: send Authorization: Bearer TOKEN, a token of this ladder "
                           "that has not expired nor been revoked (arena ladder token)")
    return row[1]
