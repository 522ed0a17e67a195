"""What the browser is sent: a position as one seat sees it (the drawing contract of
`static/games/<game_id>.js`), the moves as a seat saw them, and a run's live summary.

Every view of a position is built here, by `position_view`, from `state.observation(seat)`: a seat's
view holds only what that seat may know.
"""
from collections.abc import Sequence
from typing import Any

import engines
from arena.human_game import public_name
from arena.reports import graphs, report
from arena.reports.sections import run_sections
from arena.reports.tables import leaderboard_columns
from arena.results.outcome import faulty_seats
from arena.store import Run, Store
from arena.text import jsonable
from engines.core import GameState


def position_view(state: GameState, viewer: int | None, names: Sequence[str],
                  last_move: dict[str, Any] | None = None, notes: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The position as `viewer` sees it (None: everything, for a finished match or a
    perfect-information game); `last_move` is a `move_label` of the move that led to it, `notes`
    the `step_notes` of every move so far (the last one's exchange, and every round's summary)."""
    terminal = state.is_terminal()
    last = notes[-1] if notes else {}
    return {
        "game_id": state.game_id,
        "params": jsonable(state.params),
        "players": state.num_players,
        "names": list(names),
        "viewer": viewer,
        "observation": jsonable(state.observation(0 if viewer is None else viewer)),
        "observations": None if viewer is not None else
        [jsonable(state.observation(p)) for p in range(state.num_players)],
        "to_move": state.current_player(),
        "last_move": last_move,
        "terminal": terminal,
        "returns": jsonable(state.returns()) if terminal else None,
        "placements": jsonable(state.placements()) if terminal else None,
        "exchange": last.get("exchange"),
        "rounds": [n["round_end"] for n in notes if "round_end" in n],
    }


def marks(notes: Sequence[dict[str, Any]]) -> dict[str, list[int]]:
    """The steps at which a trick and a round ended (a round's end is the next one's start), for
    the replay's navigation."""
    return {"tricks": [k + 1 for k, n in enumerate(notes) if "exchange" in n],
            "rounds": [k + 1 for k, n in enumerate(notes) if "round_end" in n]}


def move_label(state: GameState, action: int, viewer: int | None, names: Sequence[str]) -> dict[str, Any]:
    """{"seat", "name", "text"}: `action`, about to be played in `state`, as `viewer` saw it (None:
    as it was). `state` is left as it was."""
    seat = state.current_player()
    text = state.action_to_string(action) if viewer is None else public_name(state, action, viewer)
    return {"seat": seat, "name": names[seat], "text": text}


def step_notes(before: GameState, action: int, after: GameState, viewer: int | None) -> dict[str, Any]:
    """What the move `action` (from `before` to `after`) ended, as `viewer` sees it (None: everything):
    {"exchange": {"cards": [[seat, card]...], "winner": seat}} when it completed a trick (Belladone
    Bluff: {"row": index, "points": [each seat's gain]} when it completed a row), and
    {"round_end": {"round", "bids", "tricks", "points", "totals"}} when it ended a round (the keys the
    game has). The drawings show them until the next move: the position after the move has already
    cleared the table."""
    seat = before.current_player()
    see = 0 if viewer is None else viewer
    was, now = before.observation(see), after.observation(see)
    notes: dict[str, Any] = {}
    tricks = None
    if was.get("phase") == "play" and "trick" in was and len(now.get("trick", ())) != len(was["trick"]) + 1:
        cards = [list(x) for x in was["trick"]] + [[seat, before.action_to_string(action)]]
        won = [p for p in range(after.num_players) if now["tricks"][p] > was["tricks"][p]]
        winner = won[0] if len(won) == 1 else _trick_winner(before, cards)
        notes["exchange"] = {"cards": cards, "winner": winner}
        if winner is not None:
            tricks = [t + (p == winner) for p, t in enumerate(was["tricks"])]
    rows = was.get("preparations")
    if rows is not None:   # Belladone Bluff: a row completed is scored and a new one started
        won = [i for i, (a, b) in enumerate(zip(rows, now["preparations"])) if len(b) < len(a)]
        if won:
            notes["exchange"] = {"row": won[0], "points": [b - a for a, b in zip(was["scores"], now["scores"])]}
    if "round" in was and (now["round"] != was["round"] or after.is_terminal()):
        totals = now.get("scores", now.get("favours"))
        before_totals = was.get("scores", was.get("favours"))
        end: dict[str, Any] = {"round": was["round"] + 1}
        if "bids" in was:
            end["bids"] = jsonable(now["bids"] if after.is_terminal() else was["bids"])
        if "tricks" in was:
            end["tricks"] = tricks or was["tricks"]
        if totals is not None and before_totals is not None:
            end["points"] = [a - b for a, b in zip(totals, before_totals)]
            end["totals"] = jsonable(totals)
        notes["round_end"] = end
    return notes


def _trick_winner(before: GameState, cards: list[list[Any]]) -> int | None:
    """The winner of the trick `cards` ([[seat, card]...], in play order) under `before`'s trump,
    asked of the engine itself: a one-card round with these cards, played out. Needed for a round's
    last trick, after which the real state has dealt the next round (None: the engine cannot
    deal it, e.g. five jesters)."""
    from engines.wizard import WizardState
    if not isinstance(before, WizardState):
        return None
    n, trump = before.num_players, before.trump()
    used = {c for _, c in cards}
    turn_up = next(f"{v}{trump}" for v in range(1, 14) if f"{v}{trump}" not in used) if trump else "J"
    hands: list[list[str]] = [[] for _ in range(n)]
    for p, c in cards:
        hands[p] = [c]
    try:
        state = WizardState.from_deal(n, hands, turn_up=turn_up, dealer=(cards[0][0] - 1) % n, rounds=[1])
    except ValueError:
        return None
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])   # each bid, then each seat's only card
    return state.tricks().index(1)


def match_view(run_id: str, match: dict[str, Any], names: Sequence[str], moves: Sequence[dict[str, Any]],
               notes: Sequence[dict[str, Any]], viewer: int | None) -> dict[str, Any]:
    """A stored match as its replay reads it for `viewer`; `moves` are its `move_label`s and `notes`
    its `step_notes` as that viewer saw them. A seat's view holds no move: it reads those up to the
    step it shows from `step_view`, never one it had not seen yet."""
    return {
        "run_id": run_id, "match_id": match["match_id"], "game_id": match["game_id"], "params": match["game_params"],
        "names": list(names), "steps": len(match["actions"]), "moves": list(moves) if viewer is None else None,
        "marks": marks(notes),
        "returns": match["returns"], "placements": match["placements"], "faults": match["faults"],
        "lost_by_fault": faulty_seats(match),
        "perfect_information": engines.spec(match["game_id"]).perfect_information
        if match["game_id"] in engines.game_ids() else False}


def step_view(state: GameState, viewer: int | None, names: Sequence[str], moves: Sequence[dict[str, Any]],
              notes: Sequence[dict[str, Any]], step: int) -> dict[str, Any]:
    """The replay's position at `step` (`state`) with the moves and notes up to it (see match_view)."""
    return position_view(state, viewer, names, moves[step - 1] if step else None, notes[:step]) \
        | {"moves": list(moves[:step])}


def legal_moves(state: GameState) -> list[dict[str, Any]]:
    """[{"action", "text"}] for the seat to move (only sent to that seat)."""
    return [{"action": a, "text": state.action_to_string(a)} for a in state.legal_actions()]


def run_row(run: Run) -> dict[str, Any]:
    """A run as the runs list shows it (the config is left out: it can be long)."""
    return {"run_id": run.run_id, "status": run.status, "created": run.created, "total": run.total,
            "kind": run.kind, "games": list(run.game_ids)}


def run_summary(store: Store, run_id: str) -> dict[str, Any]:
    """The run page's data: per game its leaderboard (with the terminal's columns), head-to-head
    matrix, verdict, cycles and matchup graph, as the report has them (`run_sections`)."""
    game_sections, summaries = run_sections(store, run_id)
    data = report.run_data(store, run_id, game_sections, summaries)
    kind = store.run(run_id).kind
    sections = []
    for section, summ in zip(game_sections, summaries):
        sections.append({
            "game_id": section["game_id"], "game_params": section["game_params"], "title": section["title"],
            "matches": section["matches"], "leaderboard": section["leaderboard"],
            "columns": dict(zip(("head", "cells"), leaderboard_columns(section["game_id"], section["leaderboard"]))),
            "order": summ["order"], "head_to_head": section["head_to_head"],
            # a game played in the browser is one deal: no verdict, nor advice to play more of it
            "verdict": None if kind == "play" else section["verdict"],
            "cycles": section["cycles"], "identical_play": section["identical_play"],
            "graph": jsonable(graphs.graph_json(section["title"], graphs.matchup_graph(summ))),
        })
    return {key: data[key] for key in ("run_id", "status", "created", "finished", "total", "agents", "faults")} \
        | {"kind": kind, "sections": sections}
