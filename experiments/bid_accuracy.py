"""Where Wizard's bid accuracy is lost, as JSON rows: a field of built-in agents plays whole games,
and any pimc seat may be shown every hand.

Bid accuracy is the share of a player's rounds whose bid equals the tricks it took (the engine's
`metrics()`). It belongs to the whole table, not to one bidder: the card play steers a hand towards
its bid, and the other players' play pushes it off. Two levers tell the parts apart:

- the field: the same agent among stronger or weaker players;
- sight (`--sight`): a pimc seat whose every sampled world is the true deal, so it bids and plays
  with every hand in view. Hidden information then costs it nothing, and what it still misses is
  the card play's. It cheats, so it is a yardstick here and is never an agent of the arena.

Each game is a fresh 4-player game of the default rules, dealt by its own seed (`--seed` plus the
game's number). Seats rotate: the field's i-th agent sits in seat (i + game) mod 4, so with a mixed
field every agent bids from every seat alike. Agents are seeded by the game and the seat.

One row per agent of the field: {"case": "bid_accuracy/<i>/<agent>", "agent", "sees_all",
"accuracy", "low", "high" (the 95% interval over games, normal approximation), "games", and
"by_cards" (the share of rounds bid exactly, by hand size)}.

Run from the checkout: `python -m experiments.bid_accuracy --field "pimc,pimc,pimc,pimc" --sight 0,1,2,3
--games 200 [--seed 0] [-j 2]`.
"""
import argparse
import json
import math
import multiprocessing
import statistics
import sys

import engines
from agents.pimc import PIMCAgent
from agents.registry import make
from arena.agent_list import parse_agent, split_list
from engines.wizard import WizardState

PLAYERS = 4


class SeeingPIMC(PIMCAgent):
    """pimc whose every world is the deal itself: one world, the true one."""

    def _worlds(self, state, count):
        yield state.clone(), 1.0


def _agent(item: str, sees_all: bool):
    """The agent of one item of the field (a built-in's text, as arena's --agents); ValueError if
    it is not one, or is shown every hand without being pimc."""
    spec = parse_agent(item)
    if spec.kind != "builtin":
        raise ValueError(f"{item}: the field is of built-in agents")
    if sees_all and spec.source != "pimc":
        raise ValueError(f"{item}: only a pimc seat can be shown every hand")
    params = dict(spec.params)
    return SeeingPIMC(**params) if sees_all else make(spec.source, **params)


def positions(text: str) -> frozenset:
    """--sight's positions in the field; ValueError unless whole numbers 0 to 3, comma-separated."""
    parts = [x.strip() for x in text.split(",") if x.strip()]
    if not all(x.isdigit() and int(x) < PLAYERS for x in parts):
        raise ValueError(f"--sight takes positions 0 to {PLAYERS - 1} in the field, comma-separated")
    return frozenset(int(x) for x in parts)


def check_field(field: list[str], sight: frozenset) -> None:
    """ValueError, in one line, unless `field` is four built-in agents and `sight` positions in it
    of pimc seats."""
    if len(field) != PLAYERS:
        raise ValueError(f"the field names {len(field)} agents; a game has {PLAYERS} seats")
    for i, item in enumerate(field):
        _agent(item, i in sight)


def play_game(field: list[str], sight: frozenset, seed: int, game: int) -> list[list[tuple[int, bool]]]:
    """One game: for each agent of the field, (the round's cards, whether its bid was met) by round.
    A round's score is positive exactly when the bid was met (20 + 10 a trick; -10 a trick off)."""
    state = engines.make("wizard", players=PLAYERS, seed=seed + game)
    assert isinstance(state, WizardState)
    full = engines.registry.resolve("wizard", players=PLAYERS)
    seat_of = [(i + game) % PLAYERS for i in range(PLAYERS)]
    players: list = [None] * PLAYERS
    for i, item in enumerate(field):
        players[seat_of[i]] = _agent(item, i in sight)
        players[seat_of[i]].reset("wizard", full, seat_of[i], (seed + game) * PLAYERS + seat_of[i])
    met: list[list[tuple[int, bool]]] = [[] for _ in range(PLAYERS)]   # by seat
    while not state.is_terminal():
        cards = state.cards_this_round()
        for event in state.apply_with_events(players[state.current_player()].act(state)):
            if event.kind == "round_scored":
                met[event.seat].append((cards, int(event.item) > 0))
    return [met[seat_of[i]] for i in range(PLAYERS)]


def _interval(shares: list[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(shares)
    half = 1.96 * statistics.stdev(shares) / math.sqrt(len(shares)) if len(shares) > 1 else math.inf
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def accuracy_rows(field: list[str], sight: frozenset = frozenset(), games: int = 200, seed: int = 0,
                  jobs: int = 1):
    args = [(field, sight, seed, g) for g in range(games)]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            played = pool.starmap(play_game, args)
    else:
        played = [play_game(*a) for a in args]
    for i, item in enumerate(field):
        mean, low, high = _interval([sum(hit for _, hit in game[i]) / len(game[i]) for game in played])
        by_cards: dict[int, list[bool]] = {}
        for game in played:
            for cards, hit in game[i]:
                by_cards.setdefault(cards, []).append(hit)
        yield {"case": f"bid_accuracy/{i}/{item}", "agent": item, "sees_all": i in sight,
               "accuracy": round(mean, 3), "low": round(low, 3), "high": round(high, 3), "games": games,
               "by_cards": {c: round(sum(h) / len(h), 3) for c, h in sorted(by_cards.items())}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--field", default="pimc,pimc,pimc,pimc", help="the four agents, as arena's --agents")
    parser.add_argument("--sight", default="", help="positions in the field (0-3) of pimc seats shown every hand")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    a = parser.parse_args(argv)
    field = split_list(a.field)
    try:
        sight = positions(a.sight)
        check_field(field, sight)
    except ValueError as e:
        sys.exit(f"error: {e}")
    if a.games < 1 or a.jobs < 1:
        sys.exit("error: --games and --jobs must be at least 1")
    for row in accuracy_rows(field, sight, a.games, a.seed, a.jobs):
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
