"""Seeds: every random choice of a tournament derives from a few numbers by one keyed hash.

Deal seeds are a keyed hash (BLAKE2b as a MAC) of the tournament seed, the game, its parameters and
the deal number under the run's deal key, 128 random bits made when the run is created and kept in
the store, never shown to a bot; each agent's seed and each view's seed derive from the deal's seed.
So nothing a bot sees (its own seed, the parameters, a guessable tournament seed) lets it compute a
deal, and a run is exactly reproducible from its store.
"""
import hashlib
import re
import secrets

WEYL = 0x9E3779B97F4A7C15   # the golden-ratio increment of a Weyl sequence


def derive_seed(*parts: object, key: bytes = b"") -> int:
    """A stable 63-bit seed from any repr-able parts (independent of PYTHONHASHSEED); with a secret
    `key`, nobody without the key can compute it (BLAKE2b as a MAC)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8, key=key).digest()
    return int.from_bytes(digest, "little") >> 1


def new_deal_key() -> str:
    return secrets.token_hex(16)


def public_deal_key(text: str) -> str:
    """A deal key anyone can compute from `text`: the same games in any store, for runs where no
    submitted bot plays (nothing then needs the deals kept secret)."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def analyze_deal_key(seed: int) -> str:
    """The public deal key of `arena analyze --seed SEED` (when no submitted bot plays)."""
    return public_deal_key(f"arena analyze {seed}")


def parse_deal_key(text: str) -> str:
    """A deal key as --deal-key takes it: 32 hexadecimal digits (128 bits)."""
    if not re.fullmatch(r"[0-9a-fA-F]{32}", text or ""):
        raise ValueError("--deal-key must be 32 hexadecimal digits (as `arena report` shows it)")
    return text.lower()


def step(base: int, k: int) -> int:
    """The k-th seed of a sequence started at `base` (one hash per sequence, then a Weyl step per
    item: the engines' splitmix seeding mixes it well)."""
    return (base + k * WEYL) & 0x7FFFFFFFFFFFFFFF


def view_base(deal_seed: int, *match: object) -> int:
    """The base of one match's view seeds, from its deal's seed and whatever tells its matches
    apart (a tournament: the match id): one hash per match."""
    return derive_seed(deal_seed, *match, "view")


def view_seed(base: int, move: int) -> int:
    """The seed of the view given to the mover of move `move` (0, 1, ...) of the match whose
    `view_base` is `base` (arena.referee.view_for): the one derivation of a view's seed."""
    return step(base, move)

