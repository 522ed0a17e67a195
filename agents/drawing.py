"""A position drawn as text for a person at a terminal (`arena play`, `arena replay`, a person's seat
in a tournament), at most 80 columns: what the web app's drawings show (arena/serve/static/games),
from the same observations, with a key to every symbol.

`draw(state, viewer, names)`: the position as `viewer` sees it (None: everything, every hand face
up, as a finished match or a replay shows it). `side(state, seat)`: what a seat plays besides its
number (Insert's ring colour, Belladone Bluff's team).
"""
import json
import os
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

import engines
from engines.core import GameState

WIDTH = 80
INDENT = "    "


def fit(lines: Iterable[str]) -> str:
    """The lines (each may hold several), each wrapped to WIDTH columns (a continued line is
    indented)."""
    out = []
    for line in (part for text in lines for part in text.split("\n")):
        out += textwrap.wrap(line, WIDTH, subsequent_indent=margin(line) + INDENT, break_on_hyphens=False,
                             drop_whitespace=True) or [""]
    return "\n".join(out)


def margin(line: str) -> str:
    """The spaces a line starts with; its continued lines are indented further."""
    return line[:len(line) - len(line.lstrip(" "))]


def fit_items(head: str, items: Iterable[str], sep: str = "  ") -> str:
    """`head` then the items, packed into lines of WIDTH columns without splitting an item."""
    indent = margin(head) + INDENT
    lines, line = [], head
    for item in items:
        gap = "" if line in (head, indent) else sep
        if line not in (head, indent) and len(line) + len(gap) + len(item) > WIDTH:
            lines.append(line)
            line, gap = indent, ""
        line += gap + item
    return fit(lines + [line])


def listed(head: str, items: Iterable[str]) -> str:
    """`head` then the items separated by "; ", packed as fit_items packs them."""
    items = list(items)
    return fit_items(head, [item + ";" for item in items[:-1]] + items[-1:], " ")


def default_names(players: int, viewer: int | None = None) -> list[str]:
    return [f"seat {p} (you)" if p == viewer else f"seat {p}" for p in range(players)]


def draw(state: GameState, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
    """The position as `viewer` (a seat, or None for everything) sees it, with its key."""
    names = names or default_names(state.num_players, viewer)
    drawing = DRAWINGS.get(state.game_id, draw_observation)
    return fit(drawing(state, viewer, names))


class View:
    """What a drawing reads: the public observation (seat 0's when the view shows everything), each
    seat's own observation where this view may see it, whose turn it is."""

    def __init__(self, state: GameState, viewer: int | None, names: Sequence[str]) -> None:
        self.names = names
        self.viewer = viewer
        self.players = state.num_players
        self.obs = state.observation(0 if viewer is None else viewer)
        self.all = None if viewer is not None else [state.observation(p) for p in range(self.players)]
        self.terminal = state.is_terminal()
        self.to_move = -1 if self.terminal else state.current_player()
        self.returns = state.returns() if self.terminal else None

    def private(self, seat: int) -> dict[str, Any] | None:
        """`seat`'s own observation, or None when this view may not show its hidden cards."""
        if self.all is not None:
            return self.all[seat]
        return self.obs if seat == self.viewer else None

    def mark(self, seat: int) -> str:
        return ">" if seat == self.to_move else " "

    def seat_head(self, seat: int, text: str) -> str:
        """A seat's heading: the turn mark, its name (padded so the seats line up), then `text`."""
        width = max(len(n) for n in self.names)
        return f"{self.mark(seat)} {self.names[seat]:<{width}}  {text}"

    def status(self, title: str, extras: Iterable[str] = ()) -> str:
        """The first line: the game, whose view, whose turn or that it is over, then `extras`."""
        parts = [title, "view: " + ("everything" if self.viewer is None else self.names[self.viewer])]
        parts.append("game over" if self.terminal else f"to move: {self.names[self.to_move]}")
        return "; ".join(parts + [e for e in extras if e])


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# ---------------------------------------------------------------- Insert

INSERT_LINES = {"H": "-", "V": "|", "/": "/", "\\": "\\"}


def draw_insert(state: GameState, viewer: int | None, names: Sequence[str]) -> list[str]:
    v = View(state, viewer, names)
    o = v.obs
    legal = set() if v.terminal else set(o["legal"])
    lines = [v.status("Insert", [f"rings placed {o['rings_placed']} of 30"])]
    for row, (rings, marks) in enumerate(zip(o["board"], o["lines"])):
        rank = 6 - row
        cells = []
        for f, (ring, mark) in enumerate(zip(rings, marks)):
            square = "abcdef"[f] + str(rank)
            frame = "[]" if square == o["last"] else "<>" if square in legal else "  "
            cells.append(f"{frame[0]}{ring}{INSERT_LINES[mark]}{frame[1]}")
        lines.append(f"{rank} " + "".join(cells))
    lines.append("    " + "   ".join("abcdef"))
    rings = "".join(o["board"])
    lines.append(f"rings: R {rings.count('R')}, W {rings.count('W')}")
    lines += [f"key: R red ring = {names[0]}; W white ring = {names[1]}; . empty square",
              "     - | / \\ each square's line: the next ring goes on the line through the last ring [ ] "
              "(anywhere when that line is full); < > a square the mover may take"]
    return lines


# ---------------------------------------------------------------- Wizard

WIZARD_SUITS = {"d": "dwarves", "e": "elves", "g": "giants", "h": "humans"}


def draw_wizard(state: GameState, viewer: int | None, names: Sequence[str]) -> list[str]:
    v = View(state, viewer, names)
    o = v.obs
    if o["phase"] == "over":
        title = f"Wizard, over after {plural(o['rounds'], 'round')}"
    else:
        title = f"Wizard, round {o['round'] + 1} of {o['rounds']} ({plural(o['cards'], 'card')} each), {o['phase']}"
    trump = (f"{o['trump']} ({WIZARD_SUITS[o['trump']]})" if o["trump"]
             else "the dealer chooses" if o["phase"] == "trump" else "none")
    extras = [f"turn-up {o['turn_up'] or 'none'}", f"trump {trump}"]
    if o.get("forbidden_bid") is not None:
        extras.append(f"you may not bid {o['forbidden_bid']}")
    lines = [v.status(title, extras)]
    for p in range(v.players):
        own = v.private(p)
        bid = own["bids"][p] if own else o["bids"][p]
        hand = " ".join(own["hand"]) or "-" if own else (f"{plural(o['hand_sizes'][p], 'card')}, face down" if o["hand_sizes"][p] else "-")
        dealer = " D" if p == o["dealer"] else "  "
        lines.append(v.seat_head(p, f"{dealer} bid {'-' if bid is None else bid}  tricks {o['tricks'][p]}  "
                                    f"score {o['scores'][p]:>4}  hand: {hand}"))
    trick = ", ".join(f"{names[p]} {card}" for p, card in o["trick"])
    lines.append("on the table: " + (trick or ("no card yet" if o["phase"] == "play" else "-")))
    done = len(o["plays"]) - len(o["trick"])   # the round's plays so far, the trick on the table last
    if done >= v.players:
        lines.append("last trick: " + ", ".join(f"{names[p]} {card}" for p, card in o["plays"][done - v.players:done]))
    lines += ["key: 12h = 12 of humans; suits d dwarves, e elves, g giants, h humans; W Wizard "
              "(the first one takes the trick), J Jester (never takes it unless all are Jesters); "
              "D dealer; bid ? hidden, - not yet; > to move"]
    return lines


# ---------------------------------------------------------------- Belladone Bluff

BB_COLOURS = {"R": "red", "B": "blue", "G": "green", "Y": "yellow", "P": "purple"}
BB_ROWS = ("I", "II", "III")


def _bb_face_down(v, row, pos):
    """A face-down row card: "[G-4]" where this view knows it (with everything in view, whichever
    seat knows it), else its colour and "?"."""
    entries = [obs["preparations"][row][pos] for obs in (v.all or [v.obs])]
    known = next((e["card"] for e in entries if not e["card"].endswith("?")), None)
    return f"[{known or entries[0]['card']}]"


def _bb_value(card):
    """The value of a card name without its colour: "+5", "-3", "rev", "target"..."""
    rest = card[1:]
    return rest[1:] if rest.startswith("-") and not rest[1:].isdigit() else rest


def draw_belladone_bluff(state: GameState, viewer: int | None, names: Sequence[str]) -> list[str]:
    v = View(state, viewer, names)
    o = v.obs
    turn = o["turn"]
    extras = [f"phase {o['phase']}"]
    if turn["colour"] and o["phase"] != "over":
        extras.append(f"this turn: {BB_COLOURS[turn['colour']]} on {turn['row']}, {turn['placed']} placed")
    if turn["eye_pending"]:
        extras.append("Eye: look and swap pending")
    if o["jar_score"] is not None:
        extras.append(f"Jar row: {o['jar_score']:+d} points to give")
    if turn["discarded"]:
        extras.append(f"discarded this turn: {turn['discarded']}")
    lines = [v.status("Belladone Bluff", extras)]
    target = BB_ROWS[o["target"]] if isinstance(o["target"], int) else o["target"]
    for row, name in enumerate(BB_ROWS):
        cards = [card if pos % 2 == 0 else _bb_face_down(v, row, pos)
                 for pos, card in enumerate(o["preparations"][row])]
        note = "  <- Target: every play goes here" if target == name else ""
        lines.append(f"{name:>3}: {' '.join(cards) or '-'} ({len(cards)} of 7){note}")
    top = BB_COLOURS.get(o["deck_top_colour"])
    deck = ("empty" if not o["deck_size"] else
            f"{plural(o['deck_size'], 'card')}, top {top}" if top else f"{plural(o['deck_size'], 'card')}, top hidden")
    by_colour = [f"{c} " + " ".join(_bb_value(d) for d in o["discards"] if d[0] == c)
                 for c in BB_COLOURS if any(d[0] == c for d in o["discards"])]
    lines.append(f"deck: {deck}; discards ({len(o['discards'])}): {' | '.join(by_colour) or 'none'}")
    for p in range(v.players):
        own = v.private(p)
        if own:
            hand = own["hand"]
        else:
            colours, known = list(o["hands"][p]["colours"]), o["hands"][p]["known"]
            for card in known:
                colours.remove(card[0])
            hand = known + [f"[{c}]" for c in colours]
        team = f", team {'AB'[p % 2]}" if o["teams"] else ""
        lines.append(v.seat_head(p, f"{o['scores'][p]:+d} points{team}  hand: {' '.join(hand) or '-'}"))
    lines += ["key: colours R red, B blue, G green, Y yellow, P purple; +5 -3 values; specials rev "
              "Reverse, target Target, jar Jar, eye Eye; [ ] face down, with its value where this view "
              "knows it, ? where not; a row's odd positions are face up, even ones face down; > to move"]
    return lines


# ---------------------------------------------------------------- Royal Ball

RB_TYPES = ("Cake", "Carrot", "Apple", "Salami", "Chicken", "Dog", "Horse")


def _counts(cards):
    """"Cake, Apple x3" of {type: count}; "none" when empty."""
    return ", ".join(t if cards[t] == 1 else f"{t} x{cards[t]}" for t in RB_TYPES if cards.get(t)) or "none"


def _rb_pile(v):
    """The King's pile, oldest first; a gift shows face up only to its giver (or with everything in view)."""
    out = []
    for i, entry in enumerate(v.obs["king"]):
        mine = next((obs["king"][i] for obs in (v.all or [v.obs]) if obs["king"][i].endswith("(your gift)")), None)
        if mine:
            out.append(mine.replace(" (your gift)", "") + "(gift)")
        elif entry == "face-down":
            out.append("[?]")
        elif entry.startswith("gift by "):
            out.append(f"[gift {entry[8:]}]")
        else:
            out.append(entry)
    return out


def draw_royal_ball(state: GameState, viewer: int | None, names: Sequence[str]) -> list[str]:
    v = View(state, viewer, names)
    o = v.obs
    extras = [f"round {o['round'] + 1}", o["phase"], f"* marker: {names[o['active']]}"]
    if o["removed_animal"]:
        extras.append(f"removed: {o['removed_animal']}")
    lines = [v.status("Royal Ball", extras)]
    table = ", ".join(o["table"]["face_up"] + (["[?]"] if o["table"]["face_down"] else []))
    lines.append(f"table: {table or 'no cards'}; deck {o['deck_left']} left")
    visible = {t: o["king"].count(t) for t in RB_TYPES}
    lines.append(f"King's pile ({len(o['king'])}, oldest first): {' '.join(_rb_pile(v)) or 'empty'}")
    lines.append(f"  face up there: {_counts(visible)}; {sum(visible.values())} of {len(o['king'])}")
    if o["round"] > 0:
        lines.append(f"  last round the King kept: {_counts(o['last_king_counts'])}")
    for p in range(v.players):
        pub, own = o["players"][p], v.private(p)
        last = f", last round {o['last_round_scores'][p]:+d}" if o["round"] > 0 else ""
        marker = "*" if p == o["active"] else " "
        lines.append(v.seat_head(p, f"{marker} favours {o['favours'][p]}{last}; {pub['hand_size']} in hand, "
                                    f"gave {pub['gifts']} to the King"))
        lines.append(f"{INDENT}took face up: {_counts(pub['took_face_up'])}")
        down = _counts(own["my_face_down_takes"]) if own else plural(pub["took_face_down"], "card")
        lines.append(f"{INDENT}took face down: {down}")
        if own:
            lines.append(f"{INDENT}hand: {_counts(own['hand'])}")
    lines += ["key: * holds the marker; [?] a face-down card nobody knows; [gift N] seat N's gift, "
              "face down; Cake(gift) a gift seen by its giver; x3 three cards; > to move"]
    return lines


# ---------------------------------------------------------------- Belle of the Ball

def _belle_cards():
    """{guest name: its interests and honorific}, {Belle name: (mode, effect text)}, from the
    engine's card data (the effect texts are its rule texts with the card's figures put in)."""
    import engines.belle_of_the_ball as belle
    with open(os.path.join(os.path.dirname(belle.__file__), "data", "belle_belles.json"), encoding="utf-8") as f:
        rules = json.load(f)["effects"]
    belles = {}
    for b in belle.BELLES:
        text = rules[b["effect"]].replace("`icon`", b.get("icon", "")).replace("`count`", str(b.get("count", "")))
        if "points" in b:
            text = text.replace("points", f"{b['points']:+d} points", 1)
        belles[b["name"]] = (b["mode"], text)
    return {g["name"]: g for g in belle.GUESTS}, belles


def _guest(card, guests, matched=()):
    """"Lord Ace of Dent (Chat*/Books/Fish)": * an interest another guest of the group shares."""
    icons = "/".join(i + ("*" if i in matched else "") for i in guests[card]["interests"])
    return f"{card} ({icons})"


def _group(cards, guests):
    seen = [i for c in cards if c in guests for i in guests[c]["interests"]]
    matched = {i for i in seen if seen.count(i) > 1}
    return [_guest(c, guests, matched) if c in guests else f"Belle {c}" for c in cards]


def draw_belle_of_the_ball(state: GameState, viewer: int | None, names: Sequence[str]) -> list[str]:
    v = View(state, viewer, names)
    o = v.obs
    guests, belles = _belle_cards()
    extras = [o["phase"]]
    if o["pending_belle"]:
        extras.append(f"Belle being played: {o['pending_belle']}")
    if o["pending_guest"] and not v.terminal:
        extras.append(f"guest to place: {o['pending_guest']}")
    lines = [v.status("Belle of the Ball", extras)]
    for title, line, below, show in (("Guests", o["guest_line"], o["deck_sizes"][0], lambda c: _guest(c, guests)),
                                     ("Belles", o["belle_line"], o["deck_sizes"][1], str)):
        cards = [f"{k + 1}{' (deck top)' if k == 5 else ''} {show(card)}"
                 + (f" [{plural(regrets, 'Regret')}]" if regrets else "") for k, (card, regrets) in enumerate(line)]
        lines.append(listed(f"{title}: ", (cards or ["none"]) + [f"| {below} below"]))
    gone = f" ({', '.join(o['discarded_belles'])})" if o["discarded_belles"] else ""
    lines.append(f"discarded: {plural(len(o['discarded_guests']), 'guest')}, "
                 f"{plural(len(o['discarded_belles']), 'Belle')}{gone}")
    for p in range(v.players):
        # At the end the returns hold the half points (the observation's scores are rounded down).
        score = v.returns[p] if v.returns is not None else o["scores"][p]
        lines.append(v.seat_head(p, f"{score:g} points, {plural(o['regrets'][p], 'Regret')}, "
                                    f"Belles in hand: {', '.join(o['hands'][p]) or 'none'}"))
        for g, cards in enumerate(o["parties"][p]):
            size = "full" if o["full"][p][g] else f"{len(cards)}/4"
            lines.append(listed(f"{INDENT}group {g + 1} ({size}): ", _group(cards, guests) or ["-"]))
    shown = ([c for c, _ in o["belle_line"]] + [c for hand in o["hands"] for c in hand] + [o["pending_belle"]]
             + [c for party in o["parties"] for cards in party for c in cards if c in belles])
    lines.append("key: (Chat/Tea/Moon) a guest's interests, * one another guest of its group shares; "
                 "Lord and Lady are titled guests; a card taken past position 1 leaves a Regret on each "
                 "card skipped; Belles: mirth on your own group, mischief on an opponent's, mayhem at "
                 "once; > to move")
    lines += [f"  {name} ({belles[name][0]}): {belles[name][1]}" for name in dict.fromkeys(shown) if name]
    return lines


# ---------------------------------------------------------------- any other game

def draw_observation(state: GameState, viewer: int | None, names: Sequence[str]) -> list[str]:
    """A game with no drawing of its own: its picture when nothing is hidden, else the observation."""
    from engines.registry import spec
    if viewer is None or spec(state.game_id).perfect_information:
        return str(state).splitlines()
    lines = []
    for key, value in state.observation(viewer).items():
        if isinstance(value, list) and value and isinstance(value[0], list):
            value = " | ".join(" ".join(map(str, v)) for v in value)
        elif isinstance(value, (list, tuple)):
            value = " ".join(map(str, value))
        lines.append(f"{key}: {value}")
    return lines


DRAWINGS = {"insert": draw_insert, "wizard": draw_wizard, "belladone_bluff": draw_belladone_bluff,
            "royal_ball": draw_royal_ball, "belle_of_the_ball": draw_belle_of_the_ball}


def side(state: GameState, seat: int) -> str:
    """What `seat` plays besides its number, "" when nothing: Insert's colour, a team."""
    spec = engines.spec(state.game_id)
    if spec.seat_colours:
        colour = spec.seat_colours[seat]
        return f"{colour} rings ({colour[0].upper()})"
    if spec.teams and state.observation(seat)[spec.teams]:
        mates = [p for p in range(state.num_players) if p % 2 == seat % 2 and p != seat]
        return f"team {'AB'[seat % 2]} with seat {', '.join(map(str, mates))}"
    return ""
