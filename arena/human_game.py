"""A person at the table with bots, whatever the face (the terminal's `arena play` and `arena
replay`, the browser's games): the game itself (`play`, every move the referee's), the seats'
names, what each seat saw of each move, and the states of a stored match. Nothing here reads or
prints: the faces do (arena.cli.play, arena.serve)."""
from collections.abc import Callable, Sequence
from typing import Any

import engines
from agents.human import HumanAgent
from arena import referee
from arena.match import AgentSpec, SandboxPolicy
from arena.seeds import derive_seed, view_base
from engines.core import GameState


def public_name(state: GameState, action: int, viewer: int) -> str:
    """How `action`, about to be played in `state`, appears to `viewer`: its name, or "?" when the
    viewer could not tell it apart from another legal action (a hidden bid, a face-down card)."""
    if viewer == state.current_player():
        return state.action_to_string(action)
    seen: dict[int, list[int]] = {}
    for a in state.legal_actions():
        state.apply_action(a)
        seen.setdefault(state.information_state_key(viewer), []).append(a)
        state.undo_action()
    return next(state.action_to_string(action) if len(group) == 1 else "?"
                for group in seen.values() if action in group)


class MoveLog:
    """Each seat's record of the moves so far, as that seat saw them."""

    def __init__(self, players: int, names: list[str]) -> None:
        self.names = names
        self.lines: dict[int, list[str]] = {p: [] for p in range(players)}

    def record(self, state: GameState, action: int) -> None:
        mover = self.names[state.current_player()]
        for viewer, lines in self.lines.items():
            lines.append(f"{mover}: {public_name(state, action, viewer)}")


def seat_names(players: int, human_seat: int, labels: Sequence[str]) -> list[str]:
    bots = iter(labels)
    return [f"seat {p} (you)" if p == human_seat else f"seat {p} ({next(bots)})" for p in range(players)]


def play(game_id: str, params: dict[str, Any], bot_specs: Sequence[AgentSpec], human: HumanAgent, human_seat: int,
         seed: int, policy: SandboxPolicy | None = None,
         on_start: Callable[[GameState, list[str]], None] | None = None) -> tuple[GameState, list[str], list[str]]:
    """A game with the person `human` (an agent: agents.human.HumanAgent with the face's input and
    output) at `human_seat` and the bots (AgentSpecs) in the other seats, in order; returns (the
    final state, the seats' names, the moves as the person saw them). `on_start(state, names)` is
    called once the deal is made, before the first move (to say who moves first). Every move is the referee's:
    the bots get only determinized copies of the state, as in a tournament, and a bot's fault is
    an AgentFault (the game cannot go on); the person's own errors (an abort) go through unchanged.
    ValueError for a seat the game does not have."""
    state = engines.make(game_id, seed=seed, **params)
    n = state.num_players
    if not 0 <= human_seat < n:
        raise ValueError(f"--seat must be between 0 and {n - 1}")
    names = seat_names(n, human_seat, [b.label for b in bot_specs])
    log = MoveLog(n, names)
    human.log = log.lines[human_seat]
    human.names = names
    views = view_base(seed, "play")
    bots = iter(bot_specs)
    agents = []

    def apply(action):
        log.record(state, action)
        state.apply_action(action)

    try:
        for p in range(n):   # started inside the try: a bot that fails to start is a fault like any other
            agents.append(human if p == human_seat else referee.make_player(next(bots), 0.0, policy))
        for p, agent in enumerate(agents):
            agent.reset(game_id, state.params, p, derive_seed(seed, "play", p))
        if on_start:
            on_start(state, names)
        while not state.is_terminal():
            p = state.current_player()
            referee.play_move(state, agents[p], views, len(state.history()), trusted=p == human_seat, apply=apply)
    finally:
        for agent in agents:
            if not isinstance(agent, HumanAgent):   # the bots; the person has nothing to close
                agent.close()
    return state, names, log.lines[human_seat]


def first_mover(state: GameState, names: Sequence[str]) -> str:
    """Who moves first in a fresh game, as a line: in every game it comes from the deal."""
    return f"{names[state.current_player()]} moves first"


def winner(state: GameState, names: Sequence[str]) -> str:
    """Who won a finished game, by seat and agent: "seat 1 (greedy) wins", or the seats that share
    first place."""
    first = [p for p, place in enumerate(state.placements()) if place == 1]
    if len(first) == 1:
        return f"{names[first[0]]} wins"
    tied = [names[p] for p in first]
    return f"a draw: {', '.join(tied[:-1])} and {tied[-1]} share first place"


def final_scores(state: GameState, names: Sequence[str]) -> str:
    """The winner, then every seat's score and place, best first."""
    places = state.placements()
    rows = sorted(range(state.num_players), key=lambda p: places[p])
    return (f"{winner(state, names)}\nfinal scores: "
            + ", ".join(f"{names[p]} {state.returns()[p]:g} (place {places[p]})" for p in rows))


def replay_states(match: dict[str, Any]) -> list[GameState]:
    """The stored match's states from the start, one per action, rebuilt from its seed and actions."""
    params = dict(match["game_params"])
    state = engines.make(match["game_id"], seed=match["seed"], **params)
    states = [state.clone()]
    for action in match["actions"]:
        state.apply_action(action)
        states.append(state.clone())
    return states


def stored_match(match: dict[str, Any], seat: int | None = None
                 ) -> tuple[list[GameState], list[str], list[str] | None]:
    """A stored match to step through: (its states from the start, one per action; its seats'
    names; with `seat`, that seat's record of the moves, else None)."""
    states = replay_states(match)
    names = [f"seat {p} ({s['label']})" for p, s in enumerate(match["seats"])]
    if seat is None:
        return states, names, None
    logs = MoveLog(len(names), names)
    for before, action in zip(states, match["actions"]):
        logs.record(before.clone(), action)
    return states, names, logs.lines[seat]


def full_log(states: Sequence[GameState], actions: Sequence[int], names: Sequence[str], i: int) -> list[str]:
    """The last moves before move `i`, as a seat that sees everything saw them."""
    return [f"{names[states[k].current_player()]}: {states[k].action_to_string(actions[k])}"
            for k in range(max(0, i - 8), i)]


def end_summary(state: GameState, match: dict[str, Any], names: Sequence[str]) -> str:
    lines = []
    if match["faults"]:
        lines += [f"ended by a fault: {names[f['seat']]} {f['kind']}: {f['message']}" for f in match["faults"]]
        lines.append("stored placements: " + ", ".join(f"{names[p]} place {pl}"
                                                       for p, pl in enumerate(match["placements"])))
    elif state.is_terminal():
        lines.append(final_scores(state, names))
        if state.returns() != list(match["returns"]):
            lines.append(f"warning: the stored scores were {match['returns']}")
    return "\n".join(lines)
