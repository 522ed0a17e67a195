"""Seeds: every random choice of a tournament derives from a few numbers by one keyed hash.

Deal seeds are a keyed hash (BLAKE2b as a MAC) of the tournament seed, the game, its parameters and
the deal number under the run's deal key, 128 random bits made when the run is created and kept in
the store, never shown to a bot; each agent's seed and each view's seed derive from the deal's seed.
So nothing a bot sees (its own seed, the parameters, a guessable tournament seed) lets it compute a
deal, and a run is exactly reproducible from its store.

A run's seeding (SEEDINGS) says what else an agent's, a view's and a stand-in's seed derive from:

* `coupled` (common random numbers; new runs): the deal's seed, the seat and the move, nothing
  else. Every match of one deal gives the agent in a seat the same seed and the mover of move m the
  same view, whoever plays the other seats: two matches of a deal with the same agents in the same
  seats are identical, and two that differ in one seat's agent stay identical until that agent first
  decides otherwise. The seeds follow the seat, not the agent: in the rotations of a deal each agent
  plays every seat with that seat's seed, so equal agents play every rotation alike.
* `independent` (runs stored before coupling; `--seeding independent`): the match id too, so the
  matches of a deal share the cards and nothing else.
"""
import hashlib
import re
import secrets

WEYL = 0x9E3779B97F4A7C15   # the golden-ratio increment of a Weyl sequence
SEEDINGS = ("coupled", "independent")


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


def parse_seeding(text: str) -> str:
    """A seeding as --seeding takes it; ValueError naming the choices otherwise."""
    if text not in SEEDINGS:
        raise ValueError(f"--seeding must be one of {', '.join(SEEDINGS)}, not {text!r}")
    return text


def match_parts(seeding: str, match_id: int) -> tuple:
    """What a match's seeds derive from besides its deal's seed: nothing when coupled, its id when
    independent."""
    return () if seeding == "coupled" else (match_id,)


def view_base(deal_seed: int, *match: object) -> int:
    """The base of one match's view seeds, from its deal's seed and whatever tells its matches
    apart (`match_parts`: nothing under coupled seeding, the match id under independent): one hash
    per match."""
    return derive_seed(deal_seed, *match, "view")


def view_seed(base: int, move: int) -> int:
    """The seed of the view given to the mover of move `move` (0, 1, ...) of the match whose
    `view_base` is `base` (arena.referee.view_for): the one derivation of a view's seed."""
    return step(base, move)

