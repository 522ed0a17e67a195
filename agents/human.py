"""A person at the table: shows what the seat may see and asks for an action, through the input
and output the face gives it (`arena play` gives the terminal's through click; by default Python's
own input() and print(), as when a person sits in a tournament's seat)."""
from collections.abc import Callable, Sequence
from typing import Any

from agents.base import Agent
from agents.drawing import default_names, draw, fit_items, listed
from engines.core import GameState

QUIT_WORDS = ("q", "quit")


class QuitGame(KeyboardInterrupt):
    """The person typed q or quit: they leave the game. A KeyboardInterrupt, so that whatever runs
    the game stops as it does at a Ctrl-C (a tournament's run is then interrupted, and resumable)."""


def parse_choice(state: GameState, text: str) -> int | None:
    """The legal action the user meant by a number from the list or an action name; None if none."""
    legal = state.legal_actions()
    text = text.strip()
    if text.isdigit() and 1 <= int(text) <= len(legal):
        return legal[int(text) - 1]
    try:
        action = state.string_to_action(text)
    except ValueError:
        return None
    return action if action in legal else None


def describe_view(state: GameState, seat: int | None, log: Sequence[str] = (),
                  names: Sequence[str] | None = None) -> str:
    """The text a player at `seat` (None: a spectator who sees everything) sees: the table drawn
    with its key, and the last moves."""
    text = draw(state, seat, names)
    return text + "\n" + listed("last moves: ", log[-8:]) if log else text


class HumanAgent(Agent):
    """Asks a person for each move: by its number in the list or by its name; q or quit leaves."""

    name = "human"

    def __init__(self, ask: Callable[[str], str] | None = None, tell: Callable[[str], Any] | None = None,
                 **params: Any) -> None:
        """`ask(prompt)`: the person's answer, a line of text; `tell(text)`: shows them a line."""
        super().__init__(**params)
        self.ask = ask or (lambda prompt: input(f"{prompt}: "))
        self.tell = tell or print
        self.log: list[str] = []            # filled by `arena play` with the moves this seat may know about
        self.names: list[str] | None = None        # the seats' names, set by `arena play` ("seat 1 (greedy)")

    def act(self, state: GameState) -> int:
        names = self.names or default_names(state.num_players, self.seat)
        self.tell("")
        self.tell(describe_view(state, self.seat, self.log, names))
        legal = state.legal_actions()
        moves = [f"{i}) {state.action_to_string(a)}" for i, a in enumerate(legal, 1)]
        self.tell(fit_items("your moves: ", moves + ["(q quits)"]))
        while True:
            text = self.ask(f"{names[self.seat]}, your move")
            action = parse_choice(state, text)
            if action is not None:
                return action
            if text.strip().lower() in QUIT_WORDS:
                raise QuitGame(text.strip())
            self.tell(f"'{text}' is not one of your moves: type its number (1-{len(legal)}) or its name, "
                      f"or q to quit.")
