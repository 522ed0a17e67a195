"""A run as a portable file (`arena export`) and back into a store (`arena import`).

The JSONL form is one header line (the run: its config, status, code digests) and one line per
match (game, deal, seats, every action with its mover, faults, returns, placements); docs/export.md
describes it and export_line.schema.json (docs/export/line.schema.json) is its schema. Importing
checks every line against the schema and replays every match through the engine, a line at a time,
and refuses the whole file when one is not what it says; a file's run is stored as an imported run,
read only, and a run played here takes only matches proved to be its own (`import_export`).
"""
import contextlib
import functools
import json
import os
import re
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

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
    from arena.store import origin_kind
    run = store.run(run_id)
    config = {k: v for k, v in run["config"].items() if k != "imported"}
    out = {"format": FORMAT, "version": VERSION, "type": "run", "run_id": run_id,
           "kind": origin_kind(run),
           "status": run["status"], "created": run["created"], "total": run["total"], "config": config,
           "code": config.get("code", ""),
           "agent_code": {a["label"]: a.get("code", "") for a in config.get("agents", [])},
           "sandbox": config.get("sandbox"), "time_limit": config.get("time_limit"),
           "time_control": config.get("time_control"), "matches": store.count(run_id)}
    if with_deal_key:
        out["deal_key"] = run["deal_key"]
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


@functools.lru_cache(maxsize=None)
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


def import_export(store_path: str, f: IO[str], name: str) -> tuple[str, int, int]:
    """Merges a JSONL export into the store (created if need be), line by line in one transaction,
    all or nothing; (run id, matches added, matches the run now has).

    A run the store does not hold is stored as an imported run (kind "imported", read only: never
    played on); its matches are checked by replaying them, their faults are the file's word. A
    match joins a run this store played only when it is proved to be that run's: the file carries
    the run's deal key, the match is dealt and seated as the run's schedule deals its id under the
    store's key, it replays, and each of its faults shows in the replay (an illegal action).
    :raises ValueError: one line naming the file's line, field or match at fault; nothing written.
    """
    from arena.results.tallies import Checkpoint
    from arena.store import Store
    lines = read_lines(f, name)
    first = next(lines, None)
    if first is None:
        raise ValueError(f"{name} is empty: not an arena export")
    head = first[1]
    run_id = head["run_id"]
    fresh = not os.path.exists(store_path)
    store = Store(store_path)
    try:
        admit = _admission(store, head, name)
        run = {"run_id": run_id, "created": head["created"], "config": _stored_config(store, head),
               "total": head["total"], "status": head["status"], "deal_key": head.get("deal_key", "")}
        added = store.import_run(run, _counted(head, (admit(number, line) for number, line in lines), name))
        Checkpoint(store, run_id).save()   # the imported matches folded into the run's tallies
        total = store.count(run_id)
    except BaseException:
        store.close()
        if fresh:   # the file was refused: the store it would have made goes too
            for path in (store_path, store_path + "-wal", store_path + "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(path)
        raise
    store.close()
    return run_id, added, total


def _stored_config(store: "Store", head: dict[str, Any]) -> dict[str, Any]:
    """The config the run has in the store: the file's, marked imported unless the store played it."""
    from arena.store import run_kind
    if store.deal_key(head["run_id"]) is not None and run_kind(store.run(head["run_id"])) != "imported":
        return head["config"]
    return {**head["config"], "imported": True}


def _counted(head: dict[str, Any], rows: Iterable[dict[str, Any]], name: str) -> Iterator[dict[str, Any]]:
    """`rows`, then ValueError when there were not as many as the header says."""
    count = 0
    for row in rows:
        count += 1
        yield row
    if count != head["matches"]:
        raise ValueError(f"{name} holds {count} matches where its header says {head['matches']}: a truncated file?")


def _admission(store: "Store", head: dict[str, Any], name: str) -> Callable[[int, dict[str, Any]], dict[str, Any]]:
    """The check each match line of the file passes on its way into the store (see import_export):
    a function of (line number, line) to the store row, ValueError naming the match otherwise."""
    from arena.store import run_kind, origin_kind
    from arena.tournament.config import TournamentConfig
    from arena.tournament.schedule import schedule_from_config
    run_id = head["run_id"]
    stored = store.run(run_id) if store.deal_key(run_id) is not None else None
    local = stored if stored is not None and run_kind(stored) != "imported" else None   # a run played here
    kind = origin_kind(stored) if stored is not None else origin_kind({"config": head["config"], "deal_key": ""})
    key = stored["deal_key"] if stored is not None and stored["deal_key"] else head.get("deal_key")
    if local is not None:
        if local["status"] == "running":   # its coordinator holds it (arena.store: an interrupted run is not)
            raise ValueError(f"run {run_id} is being played in {store.path}: import when it has stopped")
        if head["config"] != local["config"]:
            raise ValueError(f"{store.path} holds another run {run_id} (another config): not imported")
    schedule = None
    if key is not None and kind in ("tournament", "analyze"):
        try:
            schedule = schedule_from_config(run_id, TournamentConfig.from_json(head["config"]), key)
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"{name}: its run's config cannot be read ({e})") from None

    def admit(number: int, line: dict[str, Any]) -> dict[str, Any]:
        what = f"{name} line {number}, match {line['match_id']}"
        try:
            verify(line, head["version"])
            row = stored_match(line)
        except ValueError as e:
            raise ValueError(f"{name} line {number}, {e}") from None
        new = not store.db.execute("SELECT 1 FROM matches WHERE run_id = ? AND match_id = ?",
                                   (run_id, line["match_id"])).fetchone()
        if local is not None and new:
            if kind != "tournament":   # an analyze run's key is public: no credential
                raise ValueError(f"{what}: run {run_id} is a {kind} run of {store.path}, which takes matches "
                                 f"only from its own play: not imported")
            if head.get("deal_key", "") != local["deal_key"]:
                raise ValueError(f"{what}: a match joins run {run_id} of {store.path} only from a file with "
                                 f"the run's deal key (`arena export --with-deal-key`): not imported")
            _proved_faults(what, line)
        if schedule is not None:
            _dealt_as_scheduled(what, row, schedule)
        return row
    return admit


def _dealt_as_scheduled(what: str, row: dict[str, Any], schedule: Sequence[Any]) -> None:
    """ValueError unless the match is dealt and seated as the run's schedule (its deal key) deals its id."""
    if row["match_id"] >= len(schedule):
        raise ValueError(f"{what}: the run has no such match (its schedule has {len(schedule)})")
    spec = schedule[row["match_id"]]
    planned = {"game_id": spec.game_id, "game_params": spec.params_dict(), "deal": spec.deal, "seed": spec.seed,
               "seats": [s.as_dict() for s in spec.seats]}
    for field, value in json.loads(json.dumps(planned)).items():
        if row[field] != value:
            said = "the seed its deal key gives it" if field == "seed" else f"the run's {field.replace('_', ' ')}"
            raise ValueError(f"{what}: its {field.replace('_', ' ')} is not {said}: not a match of this run")


def _proved_faults(what: str, line: dict[str, Any]) -> None:
    """ValueError unless every fault of the match shows in its replay: an illegal action, at a move
    of the faulty seat, that is not legal there, and from then on every move of that agent's seats
    the one its stand-in (the runner's seeded `random`) plays. A timeout, a crash or an exception is
    the word of whoever wrote the file."""
    from arena import referee
    from arena.match import MatchSpec
    from arena.seeds import view_base
    from arena.tournament.runner import stand_in
    at = {}        # seat -> the move from which its stand-in plays
    illegal = {}   # (seat, move) -> the action it is said to have returned
    for fault in line["faults"]:
        said = ILLEGAL.fullmatch(fault["message"]) if fault["kind"] == "illegal" else None
        if said is None or not 0 <= fault.get("move", -1) < len(line["moves"]) \
                or line["seats"][fault["seat"]]["label"] != fault["label"]:
            raise ValueError(f"{what}: its {printable(fault['kind'], 40)} fault of seat {fault['seat']} cannot be "
                             f"proved by replaying the match, so it joins no run it did not come from")
        at.update({s: fault["move"] for s, seat in enumerate(line["seats"])
                   if seat["label"] == fault["label"] and s not in at})
        illegal[fault["seat"], fault["move"]] = int(said[1])
    spec = MatchSpec("", line["match_id"], line["game_id"], tuple(sorted(line["game_params"].items())), line["seed"],
                     ())
    stand_ins = {seat: stand_in(spec, seat) for seat in at}
    views = view_base(line["seed"], line["match_id"])
    state = engines.make(line["game_id"], seed=line["seed"], **line["game_params"])
    for move, m in enumerate(line["moves"]):
        seat = state.current_player()
        if (seat, move) in illegal:
            if illegal.pop((seat, move)) in state.legal_actions():
                raise ValueError(f"{what}: its illegal-action fault of seat {seat} at move {move} names a legal "
                                 f"action")
        if seat in at and move >= at[seat]:
            played = referee.play_move(state, stand_ins[seat], views, move, trusted=True, apply=lambda action: None)
            if played != m["action"]:
                raise ValueError(f"{what}: move {move} is not the one the stand-in of seat {seat}'s faulty agent "
                                 f"plays in the replay")
        state.apply_action(m["action"])
    for seat, move in illegal:
        raise ValueError(f"{what}: its fault of seat {seat} at move {move} is not at a move of that seat")
