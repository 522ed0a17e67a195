"""What the browser is sent: a position as one seat sees it (the drawing contract of
`static/games/<game_id>.js`), the moves as a seat saw them, and a run's live summary.

Every view of a position is built here, by `position_view`, from `state.observation(seat)`: a seat's
view holds only what that seat may know.
"""
from typing import Any, Optional, Sequence

from arena.reports import graphs, report
from arena.results import tallies
from arena.store import run_kind
from arena.table import public_name
from arena.reports.tables import leaderboard_columns
from arena.store import Store
from arena.text import jsonable
from engines.core import GameState


def position_view(state: GameState, viewer: Optional[int], names: Sequence[str],
                  last_move: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The position as `viewer` sees it (None: everything, for a finished match or a
    perfect-information game); `last_move` is a `move_label` of the move that led to it."""
    terminal = state.is_terminal()
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
    }


def move_label(state: GameState, action: int, viewer: Optional[int], names: Sequence[str]) -> dict[str, Any]:
    """{"seat", "name", "text"}: `action`, about to be played in `state`, as `viewer` saw it (None:
    as it was). `state` is left as it was."""
    seat = state.current_player()
    text = state.action_to_string(action) if viewer is None else public_name(state, action, viewer)
    return {"seat": seat, "name": names[seat], "text": text}


def legal_moves(state: GameState) -> list[dict[str, Any]]:
    """[{"action", "text"}] for the seat to move (only sent to that seat)."""
    return [{"action": a, "text": state.action_to_string(a)} for a in state.legal_actions()]


def run_row(run: dict[str, Any]) -> dict[str, Any]:
    """A run as the runs list shows it (the config is left out: it can be long)."""
    return {"run_id": run["run_id"], "status": run["status"], "created": run["created"], "total": run["total"],
            "kind": run_kind(run),
            "games": [g["game_id"] for g in run["config"].get("games", [])]}


def run_summary(store: Store, run_id: str) -> dict[str, Any]:
    """The run page's data: per game its leaderboard (with the terminal's columns), head-to-head
    matrix, verdict, cycles and matchup graph, as the report has them (`tallies.sections`)."""
    game_sections, summaries = tallies.sections(store, run_id)
    data = report.run_data(store, run_id, game_sections, summaries)
    sections = []
    for section, summ in zip(game_sections, summaries):
        sections.append({
            "game_id": section["game_id"], "game_params": section["game_params"], "title": section["title"],
            "matches": section["matches"], "leaderboard": section["leaderboard"],
            "columns": dict(zip(("head", "cells"), leaderboard_columns(section["game_id"], section["leaderboard"]))),
            "order": summ["order"], "head_to_head": section["head_to_head"], "verdict": section["verdict"],
            "cycles": section["cycles"],
            "graph": jsonable(graphs.graph_json(section["title"], graphs.matchup_graph(summ))),
        })
    return {key: data[key] for key in ("run_id", "status", "created", "finished", "total", "agents", "faults")} \
        | {"sections": sections}
