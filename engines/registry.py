"""The game registry: ids, parameters with their defaults and types, and `make`.

Parameters may arrive as Python values or as strings from the command line ("true", "3", "10,9");
both are validated against the game's declared defaults, and unknown names are refused with the
list of valid ones. `resolve` then sets the engine up once with them, so that what the engine refuses
(values out of range, parameters that exclude each other) is refused before any match is played.
"""
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engines.params import coerce

if TYPE_CHECKING:
    from engines.core import GameState


class UnknownGame(ValueError):
    pass


class BadParameter(ValueError):
    pass


Bounds = Callable[[dict, "GameState"], tuple[float, float, int]]


def fixed_bounds(low: float, high: float, length: int) -> Bounds:
    """Bounds that do not depend on the parameters."""
    return lambda full, proto: (low, high, length)


def _no_bounds(full: dict, proto: "GameState") -> tuple[float, float, int]:
    raise ValueError(f"no OpenSpiel bounds for {proto.game_id}")


@dataclass(frozen=True)
class GameSpec:
    game_id: str
    module: str                      # the compiled engine module
    cls: str                         # the GameState subclass in it
    min_players: int
    max_players: int
    default_players: int
    params: dict = field(default_factory=dict)   # name -> default value (its type is the param's type)
    choices: dict = field(default_factory=dict)  # name -> allowed values, for string-valued params
    card_game: bool = False          # deals are replayed with the seats rotated (duplicate format)
    perfect_information: bool = False
    description: str = ""
    test_variants: tuple = ({},)     # parameter sets the contract tests run on every player count
    # (min_utility, max_utility, max_game_length) for the resolved parameters and a state made with
    # them: OpenSpiel's GameInfo (loose bounds, except where zero_sum)
    bounds: Bounds = _no_bounds
    zero_sum: bool = False           # the returns always sum to 0 (OpenSpiel's ZERO_SUM)
    teams: str = ""                  # the key of a seat's observation that is true when the seats play
                                     # as two teams, even seats against odd ones
    seat_colours: tuple = ()         # the colour each seat plays, where seats play colours
    dealt: Callable[["GameState", list], dict] | None = None   # what a deal book records of a deal
                                     # (the first position and every seat's first view), besides its digest
    double_dummy: bool = False       # agents.wizard_solver solves its hands with every card known (pimc)
    yardstick: bool = False          # arena/bench/yardstick times a plain-C playout of it beside the engine
    components: tuple = ()           # (family, how) of the components `arena analyze` weighs for balance


    def state_class(self) -> type["GameState"]:
        return getattr(importlib.import_module(self.module), self.cls)


def _wizard_bounds(full: dict, proto: "GameState") -> tuple[float, float, int]:
    n = full["players"]
    rounds = int(proto.observation(0)["rounds"])
    cards = max(full["hands"]) if full["hands"] else 60 // n
    # a round: at most one trump choice, n bids, n * cards plays; scores 20 + 10 per trick made, -10
    # per trick off (loose: every round at the largest hand size)
    return -10.0 * cards * rounds, (20.0 + 10.0 * cards) * rounds, rounds * (1 + n + n * cards)


def _wizard_dealt(state: Any, views: list) -> dict:
    return {"dealer": state.dealer(), "turn_up": state.turn_up(),
            "hands": [state.hand(p) for p in range(state.num_players)]}


def _insert_dealt(state: Any, views: list) -> dict:
    return {"lines": views[0]["lines"], "first": state.current_player()}


# A game is listed here once its engine passes the contract tests.
GAMES = {
    "insert": GameSpec(
        "insert", "engines.insert", "InsertState", 2, 2, 2,
        params={"insert_axes": "all4", "tiebreak": "draw", "tile_rotation": "off", "tiles": ""},
        choices={"insert_axes": ("all4", "orthogonal"), "tiebreak": ("draw", "next_largest"),
                 "tile_rotation": ("off", "random")},
        perfect_information=True,
        description="6x6 ring placement (DONUTS): insert between two rings to flip them",
        bounds=fixed_bounds(-1.0, 1.0, 36), zero_sum=True, seat_colours=("red", "white"), dealt=_insert_dealt,
        components=(("rule", "seat"), ("tile", "first player"), ("first ring", "first player"),
                    ("tile", "majority at the end"), ("squares", "majority at the end")),
    ),
    "belladone_bluff": GameSpec(
        "belladone_bluff", "engines.belladone_bluff", "BelladoneBluffState", 2, 4, 2,
        params={"teams": True, "easy": False, "jar_team_any": False, "deck_top_colour_public": True},
        card_game=True,
        description="bluffing with face-down cards in three rows of 7; specials Reverse, Target, Jar, Eye "
                    "(teams only at 4 players)",
        test_variants=({}, {"easy": True}, {"teams": False, "easy": True, "deck_top_colour_public": False}),
        bounds=fixed_bounds(-480.0, 480.0, 5000),   # 80 cards of value at most 6 each
        teams="teams",
        components=(("special", "played face up"), ("special", "played face down"), ("special", "held at the end")),
    ),
    "belle_of_the_ball": GameSpec(
        "belle_of_the_ball", "engines.belle_of_the_ball", "BelleState", 2, 5, 3,
        params={"match_count": "instances", "score_on_final_turn": False},
        choices={"match_count": ("instances", "pairs")},
        card_game=True,
        description="invite guests from two lines into groups of four with matching interests; "
                    "27 Belles bless or sabotage the groups",
        test_variants=({}, {"match_count": "pairs", "score_on_final_turn": True}),
        bounds=fixed_bounds(-1000.0, 1000.0, 5000),
        components=(("Belle", "played"), ("Belle", "held at the end"), ("interest tier", "scored the most"),
                    ("interest tier", "held at the end")),
    ),
    "royal_ball": GameSpec(
        "royal_ball", "engines.royal_ball", "RoyalBallState", 2, 4, 4,
        params={"removed_animal": "random", "match": "three_favours", "tie_favour": "each",
                "chicken": "packs"},
        choices={"removed_animal": ("random", "dog", "horse"), "match": ("three_favours", "single_round"),
                 "tie_favour": ("each", "none"), "chicken": ("packs", "capped")},
        card_game=True,
        description="draft food and animals, but never have more than the King; feed your dogs and "
                    "horses; first to three favours (removed_animal applies to 2-3 players)",
        test_variants=({"match": "single_round"},
                       {"match": "single_round", "removed_animal": "dog"},
                       {"match": "single_round", "removed_animal": "horse", "tie_favour": "none",
                        "chicken": "capped"},
                       {}),
        bounds=fixed_bounds(0.0, 100.0, 100000),
        components=(("animal", "given to the King"), ("food", "given to the King"), ("animal", "held the most"),
                    ("food", "held the most")),
    ),
    "wizard": GameSpec(
        "wizard", "engines.wizard", "WizardState", 3, 6, 4,
        params={"plus_minus_one": False, "hidden_bids": False, "secret_bids": False,
                "five_rounds": False, "amigo_tournament": False, "hands": ()},
        card_game=True,
        description="trick-taking with exact bids: 60 cards with 4 Wizards and 4 Jesters; "
                    "hands=10,9 plays the listed hand sizes",
        test_variants=({}, {"hands": (3,), "plus_minus_one": True},
                       {"hands": (2, 3), "hidden_bids": True, "plus_minus_one": True},
                       {"hands": (3, 1), "secret_bids": True, "plus_minus_one": True},
                       {"hands": (4,), "secret_bids": True}, {"hands": (5,), "hidden_bids": True},
                       {"five_rounds": True}, {"amigo_tournament": True}),
        bounds=_wizard_bounds, dealt=_wizard_dealt, double_dummy=True, yardstick=True,
        components=(("seat", "seat"), ("trump", "named by the dealer")),
    ),
}


def game_ids() -> list[str]:
    return sorted(GAMES)


def spec(game_id: str) -> GameSpec:
    """The game's GameSpec. :raises UnknownGame: no such game."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}; valid games: {', '.join(game_ids())}") from None


_checked: dict[Any, tuple[GameSpec, dict[str, Any]]] = {}   # _params' answers (values are immutable), by its arguments
_classes: dict[str, tuple[GameSpec, type]] = {}             # game id -> its GameState class


def _exact(value):
    return value if type(value) in (str, int, bool, type(None)) else repr(value)


def _params(game_id, players, params):
    """The parameters of a game with the defaults filled in, each coerced to its declared type (a
    new dict). Checked once per game and set of parameters (every match makes a state with them)."""
    # with their types: True, 1 and 1.0 are equal keys but not the same parameter value (and the
    # text of others: -0.0 == 0.0, (True,) == (1,)); and the declaration they were checked against
    declared = spec(game_id)
    key = (game_id, type(players), _exact(players), *[(k, type(v), _exact(v)) for k, v in params.items()])
    known = _checked.get(key)
    if known is None or known[0] is not declared:
        known = (declared, _check_params(game_id, players, params))
        if len(_checked) >= 1024:
            _checked.clear()
        _checked[key] = known
    return dict(known[1])


def _check_params(game_id, players, params):
    s = spec(game_id)
    unknown = sorted(set(params) - set(s.params))
    if unknown:
        valid = ", ".join(["players", "seed"] + sorted(s.params))
        raise BadParameter(f"unknown parameter {unknown[0]!r} for {game_id}; valid parameters: {valid}")
    n = s.default_players if players is None else coerce(players, 0, f"parameter 'players' of {game_id}", BadParameter)
    if not s.min_players <= n <= s.max_players:
        raise BadParameter(f"{game_id} is played by {s.min_players} to {s.max_players} players, not {n}")
    full = {"players": n}
    for name, default in s.params.items():
        value = params.get(name, default)
        full[name] = coerce(value, default, f"parameter {name!r} of {game_id}", BadParameter, s.choices.get(name))
    return full


def engine_params(game_id: str, params: dict, capacity: int) -> dict[str, Any]:
    """The parameters an engine sets a state up with: `params` (complete, as `resolve` gives them, or
    not) with this registry's defaults filled in and its player counts and choices checked; names
    the game does not declare stay as they are (`make` and `resolve` refuse them). Every engine's
    constructor reads its parameters through this, so that their defaults and bounds are declared
    here only; what the engine checks itself (ranges that depend on other parameters) stays with it.
    `capacity` is the most players the engine's arrays hold.

    :raises BadParameter: as `resolve`, for what the registry declares, or more players than the
        engine holds.
    """
    names = spec(game_id).params
    declared = {name: value for name, value in params.items() if name in names}
    full = dict(params)
    full.update(_params(game_id, params.get("players"), declared))
    if full["players"] > capacity:
        raise BadParameter(f"{game_id}: the engine holds at most {capacity} players, not {full['players']}")
    return full


def _new_state(game_id, full, seed):
    """The engine's state for complete parameters; what the engine refuses (a value out of its
    range, parameters that conflict) is a BadParameter naming the game."""
    try:
        declared = spec(game_id)
        known = _classes.get(game_id)
        if known is None or known[0] is not declared:
            known = _classes[game_id] = (declared, declared.state_class())
        return known[1](full, seed)
    except ValueError as e:
        raise BadParameter(f"{game_id}: {e}") from None


# game_id is positional only: a parameter of that name (from a command line, a file) is an unknown one
def resolve(game_id: str, /, players: int | None = None, **params: Any) -> dict[str, Any]:
    """The complete, validated parameters of a game (defaults filled in), players included.

    Validated fully: the engine itself is set up once with them, so every rule it checks (ranges,
    parameters that exclude each other) is checked here too, and `make` accepts whatever this
    returns.

    :raises UnknownGame: no such game.
    :raises BadParameter: an unknown parameter, a value of the wrong type or out of range, or
        parameters the engine refuses together (one line naming the game and parameter).
    """
    full = _params(game_id, players, params)
    _new_state(game_id, full, 0)
    return full


def make(game_id: str, /, players: int | None = None, seed: int = 0, **params: Any) -> "GameState":
    """A new game state of `game_id` with the given parameters, its chance seeded by `seed`.

    :raises UnknownGame: no such game.
    :raises BadParameter: as `resolve`, or a seed outside 0 .. 2**64 - 1.
    """
    full = _params(game_id, players, params)
    try:
        valid = 0 <= int(seed) < 2**64
    except (TypeError, ValueError, OverflowError):
        valid = False
    if not valid:
        raise BadParameter(f"seed must be an integer from 0 to 2**64 - 1, not {seed!r}")
    return _new_state(game_id, full, int(seed))
