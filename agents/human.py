"""A person at the table: shows what the seat may see and asks for an action, through the input
and output the face gives it (`arena play` gives the terminal's through click; by default Python's
own input() and print(), as when a person sits in a tournament's seat)."""
from typing import Any, Callable, Optional, Sequence

from agents.base import Agent
from engines.core import GameState


def parse_choice(state: GameState, text: str) -> Optional[int]:
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


def describe_view(state: GameState, seat: int, log: Sequence[str] = ()) -> str:
    """The text a player at `seat` sees: the table as that seat sees it and the last moves."""
    from engines.registry import spec
    lines = []
    if spec(state.game_id).perfect_information:
        lines.append(str(state))
    else:
        for key, value in state.observation(seat).items():
            if isinstance(value, list) and value and isinstance(value[0], list):
                value = " | ".join(" ".join(map(str, v)) for v in value)
            elif isinstance(value, (list, tuple)):
                value = " ".join(map(str, value))
            lines.append(f"{key}: {value}")
    if log:
        lines.append("last moves: " + "; ".join(log[-8:]))
    return "\n".join(lines)


class HumanAgent(Agent):
    """Asks a person for each move: by its number in the list or by its name."""

    name = "human"

    def __init__(self, ask: Optional[Callable[[str], str]] = None, tell: Optional[Callable[[str], Any]] = None,
                 **params: Any) -> None:
        """`ask(prompt)`: the person's answer, a line of text; `tell(text)`: shows them a line."""
        super().__init__(**params)
        self.ask = ask or (lambda prompt: input(f"{prompt}: "))
        self.tell = tell or print
        self.log: list[str] = []            # filled by `arena play` with the moves this seat may know about

    def act(self, state: GameState) -> int:
        self.tell("")
        self.tell(describe_view(state, self.seat, self.log))
        legal = state.legal_actions()
        self.tell("your moves: " + "  ".join(f"{i}) {state.action_to_string(a)}" for i, a in enumerate(legal, 1)))
        while True:
            text = self.ask(f"seat {self.seat}, your move")
            action = parse_choice(state, text)
            if action is not None:
                return action
            self.tell(f"'{text}' is not one of your moves: type its number (1-{len(legal)}) or its name.")
