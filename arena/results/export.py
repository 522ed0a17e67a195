"""A run as a portable file (`arena export`) and back into a store (`arena import`).

The JSONL form is one header line (the run: its config, status, code digests) and one line per
match (game, deal, seats, every action with its mover, faults, returns, placements); docs/export.md
describes it and export_line.schema.json (docs/export/line.schema.json) is its schema. Importing
checks every line against the schema and replays every match through the engine, a line at a time,
and refuses the whole file when one is not what it says; a file's run is stored as an imported run,
read only, and a run played here takes only matches proved to be its own
(arena.tournament.imports, which holds the import's side that needs the run's schedule and the runner).
"""
import functools
import json
import os
import re
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

import jsonschema

import engines
from arena.results.outcome import placements_seen_by
from arena.text import jsonable, printable

if TYPE_CHECKING:
    from arena.store import Store

FORMAT = "tabletop-arena-export"
VERSION = 2
# Version 1 stored a faulty match's placements with the faulty seats moved last; version 2 stores
# the played-out game's (the fault rule reads them: arena.results.outcome). A version-1 file is read,
# its faulty matches' placements taken from their replay.
READS = (1, 2)
CSV_COLUMNS = ("run_id", "match_id", "game_id", "game_params", "deal", "seed", "seat", "label", "agent_code",
               "return", "placement", "moves", "faults")


def header(store: "Store", run_id: str, with_deal_key: bool = False) -> dict[str, Any]:
    """The export's first line: what the run is. An imported run is written as the file it came
    from said (its kind where it was played; importing it anywhere makes it an imported run again)."""
    run = store.run(run_id)
    config = run.config
    if config is None:
        raise ValueError(f"run {run_id} cannot be exported: {run.problem}")
    tournament = run.tournament
    out = {"format": FORMAT, "version": VERSION, "type": "run", "run_id": run_id, "kind": run.origin,
           "status": run.status, "created": run.created, "total": run.total, "config": config.to_json(),
           "code": config.code, "agent_code": {a.label: a.code for a in config.agents},
           "sandbox": tournament and {"mode": tournament.sandbox.mode, "limits": tournament.sandbox.limits_dict()},
           "time_limit": tournament and tournament.time_limit,
           "time_control": tournament and tournament.time_control and tournament.time_control.to_json(),
           "matches": store.count(run_id)}
    if with_deal_key:
        out["deal_key"] = run.deal_key
    return out


def match_line(match: dict[str, Any]) -> dict[str, Any]:
    """One stored match as an export line; the movers come from replaying its actions."""
    state = engines.make(match["game_id"], seed=match["seed"], **match["game_params"])
    moves = []
    for action in match["actions"]:
        moves.append({"mover": int(state.current_player()), "action": action})
        state.apply_action(action)
    return {"type": "match", "match_id": match["match_id"], "game_id": match["game_id"],
            "game_params": match["game_params"], "deal": match["deal"], "seed": match["seed"],
            "seats": [{"seat": i, "label": s["label"], "source": s["source"], "params": s["params"],
                       "kind": s["kind"], "target": s["target"], "code": s.get("code", "")}
                      for i, s in enumerate(match["seats"])],
            "moves": moves, "faults": match["faults"], "returns": match["returns"],
            "placements": match["placements"], "metrics": match["metrics"], "duration": match["duration"]}


def export_lines(store: "Store", run_id: str, with_deal_key: bool = False) -> Iterator[dict[str, Any]]:
    yield header(store, run_id, with_deal_key)
    for m in store.matches(run_id):
        yield match_line(m)


def csv_rows(store: "Store", run_id: str) -> Iterator[dict[str, Any]]:
    """One row per match and seat (without the actions: their number only); a seat's placement is
    its agent's result by the fault rule (arena.results.outcome), its return the played-out game's."""
    for m in store.listing(run_id, 0, -1):
        params = json.dumps(m["game_params"], sort_keys=True)
        for seat, s in enumerate(m["seats"]):
            yield {"run_id": run_id, "match_id": m["match_id"], "game_id": m["game_id"], "game_params": params,
                   "deal": m["deal"], "seed": m["seed"], "seat": seat, "label": s["label"],
                   "agent_code": s.get("code", ""), "return": m["returns"][seat],
                   "placement": placements_seen_by(m, s["label"])[seat], "moves": m["moves"],
                   "faults": "; ".join(f"{f['kind']}: {f['message']}" for f in m["faults"] if f["seat"] == seat)}


def verify(line: dict[str, Any], version: int = VERSION) -> None:
    """Replays a match line (of an export of format `version`) through the engine: every action
    legal and played by its mover, and the returns, placements and metrics as stored; ValueError
    naming the match otherwise. A version-1 faulty match's placements are set to its replay's."""
    what = f"match {line['match_id']}"
    try:
        state = engines.make(line["game_id"], seed=line["seed"], **line["game_params"])
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"{what}: its game cannot be set up ({e})") from None
    if len(line["seats"]) != state.num_players:
        raise ValueError(f"{what}: {len(line['seats'])} seats for a game of {state.num_players}")
    for i, move in enumerate(line["moves"]):
        if state.is_terminal():
            raise ValueError(f"{what}: move {i} comes after the end of the game")
        if move["mover"] != state.current_player():
            raise ValueError(f"{what}: move {i} is said to be seat {move['mover']}'s, but seat "
                             f"{state.current_player()} is to move")
        if move["action"] not in state.legal_actions():
            raise ValueError(f"{what}: move {i} ({move['action']}) is not a legal action")
        state.apply_action(move["action"])
    if not state.is_terminal():
        raise ValueError(f"{what}: the game is not over after its moves")
    returns = [float(x) for x in state.returns()]
    if returns != line["returns"]:
        raise ValueError(f"{what}: replayed, it returns {returns}, not {line['returns']}")
    places = [int(p) for p in state.placements()]
    if version == 1 and line["faults"]:
        line["placements"] = places   # moved by the old fault rule: the played-out game's instead
    if places != line["placements"]:
        raise ValueError(f"{what}: replayed, its placements are {places}, not {line['placements']}")
    metrics = {} if line["faults"] else json.loads(json.dumps(jsonable(state.metrics())))
    if metrics != line["metrics"]:
        raise ValueError(f"{what}: replayed, its metrics differ from the file's")


def stored_match(line: dict[str, Any]) -> dict[str, Any]:
    """A verified match line as a store row's values (Store.import_run)."""
    return {"match_id": line["match_id"], "game_id": line["game_id"], "game_params": line["game_params"],
            "seed": line["seed"], "deal": line["deal"],
            "seats": [{k: s[k] for k in ("label", "source", "params", "kind", "target")} |
                      ({"code": s["code"]} if s["code"] else {}) for s in line["seats"]],
            "returns": line["returns"], "placements": line["placements"],
            "actions": [m["action"] for m in line["moves"]], "faults": line["faults"],
            "metrics": line["metrics"], "duration": line["duration"]}


# ---------------------------------------------------------------- importing

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "export_line.schema.json")
MAX_LINE = 8 << 20   # characters in one line: a match of 100,000 moves (the schema's most) is some 3 MB
ILLEGAL = re.compile(r"returned (\d+), not a legal action")   # arena.referee.checked_action's words


@functools.cache
def line_validator(part: str) -> Any:
    """A validator of one kind of line ("run" or "match") against the export's JSON Schema, whose
    integers are JSON integers only (1.0 is no match id, true no seed). The schema's references
    (to its own $defs, none recursive) are put in place once: resolving them line by line took
    two fifths of the time."""
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    defs = schema["$defs"]

    def inline(node):
        if isinstance(node, list):
            return [inline(x) for x in node]
        if not isinstance(node, dict):
            return node
        out = {k: inline(v) for k, v in node.items() if k != "$ref"}
        return {**inline(defs[node["$ref"].removeprefix("#/$defs/")]), **out} if "$ref" in node else out
    base = jsonschema.validators.validator_for(schema)
    strict = jsonschema.validators.extend(
        base, type_checker=base.TYPE_CHECKER.redefine("integer", lambda _, value: type(value) is int))
    return strict(inline(defs[part]))


def _no_constant(text: str) -> None:
    raise ValueError(f"{text} is not a JSON number")


def read_lines(f: IO[str], name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, line) of a JSONL export, one at a time, each checked against the schema: the
    header first, then match lines; ValueError naming the line (and the field) at the first that is
    not. Never holds more than one line (at most MAX_LINE characters) in memory."""
    number = 0
    while True:
        text = f.readline(MAX_LINE + 1)
        if not text:
            return
        number += 1
        if len(text) > MAX_LINE:
            raise ValueError(f"{name} line {number} is longer than {MAX_LINE:,} characters: not an arena export")
        if not text.strip():
            continue
        try:
            line = json.loads(text, parse_constant=_no_constant)
        except RecursionError:
            raise ValueError(f"{name} line {number} is JSON nested too deep: not an arena export") from None
        except ValueError:
            raise ValueError(f"{name} line {number} is not JSON: not an arena export, or a truncated one") from None
        if number == 1:
            if not isinstance(line, dict) or line.get("format") != FORMAT or line.get("type") != "run":
                raise ValueError(f"{name} is not an arena export (its first line is no {FORMAT} run header)")
            if line.get("version") not in READS:
                raise ValueError(f"{name} is export format version {printable(repr(line.get('version')), 40)}; "
                                 f"this arena reads versions {', '.join(map(str, READS))}")
        part = "run" if number == 1 else "match"
        try:
            error = jsonschema.exceptions.best_match(line_validator(part).iter_errors(line))
        except RecursionError:
            raise ValueError(f"{name} line {number} is JSON nested too deep: not an arena export") from None
        if error is not None:
            what = f"match {line['match_id']}, " if part == "match" and type(line.get("match_id")) is int else ""
            reason = error.message if len(error.message) <= 160 else \
                f"fails the schema's {error.validator} {json.dumps(error.validator_value)[:60]}"
            raise ValueError(f"{name} line {number} ({what}{error.json_path}): {printable(reason)} "
                             f"(docs/export/line.schema.json)")
        yield number, line
