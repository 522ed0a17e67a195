"""What counts as a component in each game, for the balance section of `arena analyze`
(arena.gamestats.balance): from the replay of one match, the components each seat played or held.

    collector = components.Collector(state)      # state: the match's first position
    for action in actions:
        collector.before(state)
        collector.add(state.apply_with_events(action))
    per_seat = collector.result(state)           # [set of balance.Component] per seat
    components.expected(game_id, params)         # what the game always lists, seen or not

arena.gamestats.replay.trace does this in the one replay of each match that analyze makes
(arena.gamestats.events.match_events would replay it a second time).

Per game (the designers' questions; docs/game-balance.md):
- Belle of the Ball: every Belle, played (from the hand, in any mode) and held at the end (still in
  the hand); each interest tier (A, B, C of the guest deck), scored the most (of the matched icons
  in the groups the seat scored, the tier's are the most, alone) and held at the end (an unscored
  group of the seat's party has two guests sharing an interest of the tier). Every seat scores
  matches in every tier in nearly every game, so "scored a match in the tier" would not vary.
- Royal Ball: each animal and food, given to the King (on the table as active player or as a gift)
  and held the most at the end (the seat holds strictly more of it than every other seat).
- Belladone Bluff: each special (Eye, Jar, Reverse, Target), played face up (active) and played face
  down (a bluff: no effect), and held at the end.
- Insert: the first player; the first player with each tile at each position (so the deal's layout
  shows whom it favours); the first ring in the centre (the inner 4x4) or on the edge; and the
  majority at the end (more rings than the other seat) of each tile and of the centre and edge.
- Wizard: each trump suit named by the dealer (when a Wizard is turned up) and each seat.
"""
import functools
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import engines
from arena.gamestats.balance import Component

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "engines", "data")
SPECIALS = {"eye": "Eye", "jar": "Jar", "rev": "Reverse", "target": "Target"}
ROYAL_TYPES = {"Dog": "animal", "Horse": "animal", "Cake": "food", "Carrot": "food", "Apple": "food",
               "Salami": "food", "Chicken": "food"}
INSERT_POSITIONS = ("top left", "top right", "bottom left", "bottom right")


@functools.cache
def _json(name: str) -> dict[str, Any]:
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return json.load(f)


def belle_names() -> list[str]:
    return [b["name"] for b in _json("belle_belles.json")["belles"]]


def guest_tiers() -> dict[str, dict[str, str]]:
    """{guest name: {interest: tier}} of the guest deck."""
    tier_of = {icon: tier for tier, icons in _json("belle_guests.json")["interests"].items() for icon in icons}
    return {g["name"]: {i: tier_of[i] for i in g["interests"]} for g in _json("belle_guests.json")["guests"]}


def expected(game_id: str, params: dict[str, Any]) -> list[Component]:
    """The components a game's section always lists, seen in the games or not: for each (family, how)
    its GameSpec declares, the items its collector names in advance."""
    items = COLLECTORS.get(game_id, Collector).items
    return [Component(family, item, how) for family, how in engines.spec(game_id).components
            for item in items(family, how, params)]


@functools.cache
def _insert_tiles() -> dict[str, Any]:
    return _json("insert_tiles.json")["tiles"]


class Collector:
    """Follows one match's replay, which reports each action's events (`state.apply_with_events`,
    the vocabulary in engines/events.py): `before(state)` before each action, `add(events)` with its
    events, then `result()`: the set of components of each seat. `Collector(state)` is the collector
    of the state's game (COLLECTORS; this class, which finds none, for a game without components).
    The (family, how) of each component is one its GameSpec declares in `components`."""

    def __new__(cls, state: Any) -> "Collector":
        return super().__new__(COLLECTORS.get(state.game_id, cls) if cls is Collector else cls)

    def __init__(self, state: Any) -> None:
        self.n = state.num_players
        self.seats: list[set[Component]] = [set() for _ in range(self.n)]

    @classmethod
    def items(cls, family: str, how: str, params: dict[str, Any]) -> list[str]:
        """The items of (family, how) that the section lists even when no match has them."""
        return []

    def before(self, state: Any) -> None:
        pass

    def add(self, events: Sequence[Any]) -> None:
        seated: dict[tuple[int, str], list[str]] = {}   # Belle: guests seated by this action, by (owner, group)
        for e in events:
            self.event(e, seated)

    def event(self, e: Any, seated: dict[tuple[int, str], list[str]]) -> None:
        pass

    def result(self, state: Any) -> list[set[Component]]:
        """The components of each seat, once every action is added; `state` is the final position."""
        return self.seats


class BelleOfTheBall(Collector):
    """Belle of the Ball's tiers also need the groups' guests, which the events do not list: `before`
    keeps the parties as they were."""

    def __init__(self, state: Any) -> None:
        super().__init__(state)
        self.parties: list[list[list[str]]] = []
        self.tier_points: list[dict[str, int]] = [{} for _ in range(self.n)]   # matched icons scored, by tier

    @classmethod
    def items(cls, family: str, how: str, params: dict[str, Any]) -> list[str]:
        return belle_names() if family == "Belle" else sorted(_json("belle_guests.json")["interests"])

    def before(self, state: Any) -> None:
        self.parties = [state.party(p) for p in range(self.n)]

    def event(self, e: Any, seated: dict[tuple[int, str], list[str]]) -> None:
        if e.kind == "belle_played":
            self.seats[e.seat].add(Component("Belle", e.item, "played"))
        elif e.kind == "belle_held_at_end" and e.detail == "hand":
            self.seats[e.seat].add(Component("Belle", e.item, "held at the end"))
        elif e.kind == "guest_seated":
            seated.setdefault((e.seat, e.detail), []).append(e.item)
        elif e.kind == "group_scored":
            g = int(e.item.split()[1]) - 1
            cards = self.parties[e.seat][g] + seated.get((e.seat, e.item), [])
            for tier, icons in _matched_icons(cards).items():
                self.tier_points[e.seat][tier] = self.tier_points[e.seat].get(tier, 0) + icons

    def result(self, state: Any) -> list[set[Component]]:
        out = self.seats
        for p in range(self.n):
            points = self.tier_points[p]
            top = [t for t, v in points.items() if v == max(points.values())]
            if len(top) == 1:
                out[p].add(Component("interest tier", top[0], "scored the most"))
            for cards in state.party(p):
                out[p].update(Component("interest tier", t, "held at the end") for t in _matched_icons(cards))
        return out


class RoyalBall(Collector):
    def __init__(self, state: Any) -> None:
        super().__init__(state)
        self.held: dict[str, list[int]] = {}   # card type -> count per seat

    @classmethod
    def items(cls, family: str, how: str, params: dict[str, Any]) -> list[str]:
        return [t for t, kind in ROYAL_TYPES.items() if kind == family]

    def event(self, e: Any, seated: Any) -> None:
        if e.kind in ("king_given", "gift"):
            self.seats[e.seat].add(Component(ROYAL_TYPES[e.item], e.item, "given to the King"))
        elif e.kind == "hand_scored":
            counts = self.held.setdefault(e.item, [0] * self.n)
            counts[e.seat] = int(e.detail)
        elif e.kind == "round_scored" and self.held:   # the round's holdings are all in
            for name, counts in self.held.items():
                top = max(counts)
                if top and counts.count(top) == 1:
                    self.seats[counts.index(top)].add(Component(ROYAL_TYPES[name], name, "held the most"))
            self.held = {}


class BelladoneBluff(Collector):
    @classmethod
    def items(cls, family: str, how: str, params: dict[str, Any]) -> list[str]:
        return list(SPECIALS.values())

    def event(self, e: Any, seated: Any) -> None:
        if e.kind == "special_played":
            self.seats[e.seat].add(Component("special", e.item, "played " + e.detail))
        elif e.kind == "held_at_end" and e.item.split("-")[-1] in SPECIALS:
            self.seats[e.seat].add(Component("special", SPECIALS[e.item.split("-")[-1]], "held at the end"))


class Insert(Collector):
    def __init__(self, state: Any) -> None:
        super().__init__(state)
        self.owner: dict[str, tuple[int, str, str]] = {}    # square -> (seat, tile, centre/edge)
        self.tiles: list[Component] = []                    # the layout, for the first player

    @classmethod
    def items(cls, family: str, how: str, params: dict[str, Any]) -> list[str]:
        tiles = sorted(_insert_tiles())
        return {("rule", "seat"): ["first player"],
                ("tile", "first player"): [f"{t} at {p}" for t in tiles for p in INSERT_POSITIONS],
                ("tile", "majority at the end"): tiles}.get((family, how), ["centre", "edge"])

    def event(self, e: Any, seated: Any) -> None:
        if e.kind == "tile_laid" and e.item:
            quadrant = e.detail.split()[0].replace("-", " ")
            self.tiles.append(Component("tile", f"{e.item} at {quadrant}", "first player"))
        elif e.kind == "ring_placed":
            square, where = e.detail.split()
            if not self.owner:      # the first ring: the first player and where it went
                first = self.seats[e.seat]
                first.update([Component("rule", "first player", "seat"),
                              Component("first ring", where, "first player"), *self.tiles])
            self.owner[square] = (e.seat, e.item, where)
        elif e.kind == "ring_flipped":
            _, tile, where = self.owner[e.detail]
            self.owner[e.detail] = (e.seat, tile, where)

    def result(self, state: Any) -> list[set[Component]]:
        out = self.seats
        rings: dict[tuple[str, str], list[int]] = {}
        for seat, tile, where in self.owner.values():
            for key in [("tile", tile)] * bool(tile) + [("squares", where)]:
                rings.setdefault(key, [0, 0])[seat] += 1
        for (family, item), (a, b) in rings.items():
            if a != b:
                out[0 if a > b else 1].add(Component(family, item, "majority at the end"))
        return out


class Wizard(Collector):
    def __init__(self, state: Any) -> None:
        super().__init__(state)
        self.chosen = False           # a Wizard turned up, so the dealer names the trump

    @classmethod
    def items(cls, family: str, how: str, params: dict[str, Any]) -> list[str]:
        # the seats; the trumps are listed as they are named
        return [str(s) for s in range(params.get("players", 0))] if family == "seat" else []

    def event(self, e: Any, seated: Any) -> None:
        if e.kind == "turn_up":
            self.chosen = e.item == "W"
        elif e.kind == "trump_suit" and self.chosen and e.item != "none":
            self.seats[e.seat].add(Component("trump", _suit_name(e.item), "named by the dealer"))

    def result(self, state: Any) -> list[set[Component]]:
        for p in range(self.n):
            self.seats[p].add(Component("seat", str(p), "seat"))
        return self.seats


# game id -> its collector; a game not listed has no components
COLLECTORS: dict[str, type[Collector]] = {"belle_of_the_ball": BelleOfTheBall, "royal_ball": RoyalBall,
                                          "belladone_bluff": BelladoneBluff, "insert": Insert, "wizard": Wizard}


def _matched_icons(cards: Iterable[str]) -> dict[str, int]:
    """{tier: icons that match another guest's in the group} (what the group scores, by tier; Belles
    have no icons); tiers without a match are left out."""
    tiers = guest_tiers()
    seen: dict[str, int] = {}
    for c in cards:
        for icon in tiers.get(c, {}):
            seen[icon] = seen.get(icon, 0) + 1
    out: dict[str, int] = {}
    for c in cards:
        for icon, tier in tiers.get(c, {}).items():
            if seen[icon] >= 2:
                out[tier] = out.get(tier, 0) + 1
    return out


def _suit_name(letter: str) -> str:
    return {"d": "dwarves", "e": "elves", "g": "giants", "h": "humans"}.get(letter, letter)
