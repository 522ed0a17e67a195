"""A run as a portable file (`arena export`) and back into a store (`arena import`).

The JSONL form is one header line (the run: its config, status, code digests) and one line per
match (game, deal, seats, every action with its mover, faults, returns, placements); docs/export.md
describes it and docs/export/*.schema.json is its schema. Importing replays every match through the
engine and refuses the whole file when one does not end as it says.
"""
import json
from typing import IO, TYPE_CHECKING, Any, Iterable, Iterator

import engines

from arena.results.outcome import placements_seen_by
from arena.text import jsonable

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
    """The export's first line: what the run is."""
    from arena.store import run_kind
    run = store.run(run_id)
    config = run["config"]
    out = {"format": FORMAT, "version": VERSION, "type": "run", "run_id": run_id,
           "kind": run_kind(run),
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


def read_export(lines: Iterable[str], name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, [match line]) of a JSONL export; ValueError naming the line when one is not JSON or
    the file is not an export of this version, or is cut short."""
    head, matches = None, []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except ValueError:
            raise ValueError(f"{name} line {number} is not JSON: not an arena export, or a truncated one") from None
        if not isinstance(line, dict):
            raise ValueError(f"{name} line {number} is not a JSON object: not an arena export")
        if head is None:
            if line.get("format") != FORMAT or line.get("type") != "run":
                raise ValueError(f"{name} is not an arena export (its first line is no {FORMAT} run header)")
            if line.get("version") not in READS:
                raise ValueError(f"{name} is export format version {line.get('version')!r}; this arena reads "
                                 f"versions {', '.join(map(str, READS))}")
            head = line
        elif line.get("type") != "match":
            raise ValueError(f"{name} line {number} is not a match line")
        else:
            matches.append(line)
    if head is None:
        raise ValueError(f"{name} is empty: not an arena export")
    if len(matches) != head.get("matches"):
        raise ValueError(f"{name} holds {len(matches)} matches where its header says {head.get('matches')}: "
                         f"a truncated file?")
    return head, matches


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


def import_export(store_path: str, lines: IO[str], name: str) -> tuple[str, int, int]:
    """Merges a JSONL export into the store (created if need be, once the file is checked), all or
    nothing; (run id, matches added, matches the run now has)."""
    from arena.results.tallies import Checkpoint
    from arena.store import Store
    head, matches = read_export(lines, name)
    rows = []
    for line in matches:
        try:
            verify(line, head["version"])
            rows.append(stored_match(line))
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            raise ValueError(f"{name}: match {line.get('match_id', '?')} is malformed ({type(e).__name__}: "
                             f"{e}): not written by `arena export`?") from None
    try:
        run_id = str(head["run_id"])
        run = {"run_id": run_id, "created": float(head["created"]), "config": dict(head["config"]),
               "total": int(head["total"]), "status": str(head["status"]), "deal_key": str(head.get("deal_key", ""))}
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{name}: its run header is malformed ({type(e).__name__}: {e})") from None
    store = Store(store_path)
    try:
        added = store.import_run(run, rows)
        Checkpoint(store, run_id).save()   # the imported matches folded into the run's tallies
        return run_id, added, store.count(run_id)
    finally:
        store.close()
