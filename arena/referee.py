"""The referee: the one place where an agent is asked for a move and the move is applied, whoever
plays (a tournament's matches, `arena play`, `arena serve`'s games, `arena check-agent`, the
experiments and the Gymnasium environment).

One move is `play_move(state, player, view_base, move)`:

1. The view. The mover gets `view_for(state, seat, view_base, move)`: `state.determinize(seat,
   seed)`, a copy with everything its seat cannot see resampled, never the true state (in
   perfect-information games the copy differs only in its future chance). The seed is
   `arena.seeds.view_seed(view_base, move)`, `view_base` the match's own
   (`arena.seeds.view_base`), `move` the number of moves played before this one.
2. The deadline. The player is what `make_player` makes of an AgentSpec: a submitted agent (a
   file, a module, an entry point) is a RemoteAgent in a sandboxed process of its own, which
   enforces the per-move time limit (AgentFault "timeout") and reports a dead process or a
   malformed reply (AgentFault "crash", "illegal"); a built-in agent is a LocalAgent, trusted, in
   this process, untimed. Under a time control the mover also has a `Clock`: before the move the
   player's `clock` is set to its reading (the agent sees it as `Agent.clock`), a submitted agent's
   deadline is then the smaller of the per-move limit and the clock left, and the move's time is
   taken off the clock; a move that takes all of it is AgentFault "timeout", for a built-in agent
   too (once it answers: it runs in this process and is not interrupted).
3. The check. `checked_action(action, legal)`: the action as a plain int, one of `legal`; a
   bool is refused (True is not action 1), a numpy integer is taken as its int; anything else is
   AgentFault "illegal".
4. The fault. Whatever the agent raises becomes AgentFault "exception", unless the player is
   trusted (`trusted=True`: the stand-in a tournament puts in a faulty seat, the person at the
   terminal, the experiments' and the Gymnasium environment's agents, all in this process), whose
   exceptions are the caller's (a bug, a person's abort) and go through unchanged. A trusted
   player's illegal action is an AgentFault "illegal" all the same.
5. The apply. The checked action is applied to the true state (or handed to `apply`, for a
   caller that records the move as its seats saw it first, or applies it under a lock) and
   returned.

What a fault then means is the caller's: a tournament plays the match out with a stand-in
(arena.tournament.runner), a game in the browser ends, check-agent reports the check it failed.
`decide` is steps 2 to 4 alone, for a caller that makes its view itself or applies the move
later.
"""
import operator
import time
from collections.abc import Callable, Sequence
from typing import Any, Optional, Protocol

import agents as agent_registry
from agents.base import ClockReading
from arena.match import AgentSpec, SandboxPolicy, TimeControl
from arena.sandbox import POOL, AgentFault, RemoteAgent, describe
from arena.seeds import view_seed
from engines.core import GameState


class Player(Protocol):
    """What the referee asks for a move: a LocalAgent, a RemoteAgent, or a trusted agent of this process."""
    def act(self, state: GameState) -> Any: ...


class Clock:
    """A seat's clock in a match under a time control (arena.match.TimeControl): it runs only while
    the seat's agent moves, and gains the increment after each move."""

    def __init__(self, control: TimeControl) -> None:
        self.remaining, self.increment = control.base, control.increment

    def reading(self) -> ClockReading:
        return ClockReading(self.remaining, self.increment)

    def spend(self, seconds: float) -> None:
        """Takes a move of `seconds` off the clock; AgentFault "timeout" when it took all that was left."""
        if seconds >= self.remaining:
            raise AgentFault("timeout", f"ran out of its clock: {seconds:.3g} s for a move with "
                                        f"{self.remaining:.3g} s left")
        self.remaining += self.increment - seconds


class LocalAgent:
    """A trusted built-in agent, run in this process, untimed but for its clock; an exception while
    it resets is an AgentFault "exception" (while it moves, `decide` makes it one)."""

    clock: ClockReading | None = None   # the referee's reading of its clock before each move, under a time control

    def __init__(self, spec: AgentSpec) -> None:
        self.agent = agent_registry.make(spec.source, **dict(spec.params))

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        try:
            self.agent.reset(game_id, game_params, seat, seed)
        except Exception as e:
            raise AgentFault("exception", describe(e)) from None

    def act(self, state: GameState) -> int:
        self.agent.clock = self.clock
        return self.agent.act(state)

    def close(self) -> None:
        pass


def make_player(spec: AgentSpec, time_limit: float, policy: SandboxPolicy | None = None
                ) -> RemoteAgent | LocalAgent:
    """The player of an AgentSpec: a submitted agent in its sandbox (from the pool of boxes), timed
    at `time_limit` seconds a move (0: none) under `policy`; a built-in agent in this process."""
    return POOL.get(spec, time_limit, policy) if spec.submitted else LocalAgent(spec)


def view_for(state: GameState, seat: int, view_base: int, move: int) -> GameState:
    """What the agent at `seat` is given for move number `move` of the match whose view seeds start
    at `view_base`: a determinized copy of `state`, never `state` itself."""
    return state.determinize(seat, view_seed(view_base, move))


def checked_action(action: Any, legal: Sequence[int]) -> int:
    """The agent's answer as a plain int, one of `legal`; AgentFault("illegal") otherwise. A bool
    is no action; a numpy integer (a built-in agent may answer with one) is taken as its int."""
    if not isinstance(action, bool):
        try:
            action = operator.index(action)
        except TypeError:
            pass
    if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
        raise AgentFault("illegal", f"returned {action!r}, not a legal action")
    return action


def decide(player: Player, view: GameState, legal: Sequence[int], trusted: bool = False,
           clock: Optional["Clock"] = None) -> int:
    """`player`'s checked action for `view` (its seat to move; `legal`, the true state's legal
    actions), timed by its `clock` if it has one; AgentFault when it faults. A trusted player's
    exceptions go through unchanged."""
    if trusted:
        return checked_action(player.act(view), legal)
    if clock is not None:   # only LocalAgent and RemoteAgent play under a clock; both pass it on
        player.clock = clock.reading()   # type: ignore[attr-defined]
    started = time.monotonic()
    try:
        action = player.act(view)
    except AgentFault:
        raise
    except Exception as e:
        raise AgentFault("exception", describe(e)) from None
    if clock is not None:
        clock.spend(time.monotonic() - started)
    return checked_action(action, legal)


def play_move(state: GameState, player: Player, view_base: int, move: int, trusted: bool = False,
              apply: Callable[[int], None] | None = None, clock: Optional["Clock"] = None) -> int:
    """One move of `state`'s mover, played by `player` (see the module docstring), timed by its
    `clock` if it has one: its checked action, applied to `state` (or passed to `apply`, which
    then applies it) and returned. AgentFault when the player faults; `state` is then unchanged."""
    view = view_for(state, state.current_player(), view_base, move)
    action = decide(player, view, state.legal_actions(), trusted, clock)
    (state.apply_action if apply is None else apply)(action)
    return action
