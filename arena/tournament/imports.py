"""`arena import`: a run's export (arena.results.export reads and checks its lines) merged into a
store. A match joins a run played here only when it is proved to be that run's: dealt and seated as
the run's schedule deals its id, and each fault shown in its replay with the runner's stand-in."""
import contextlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import IO, TYPE_CHECKING, Any, Optional

import engines
from arena import run_config
from arena.results.export import ILLEGAL, read_lines, stored_match, verify
from arena.text import printable

if TYPE_CHECKING:
    from arena.store import Run, Store


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
    from arena.store import Run, Store
    lines = read_lines(f, name)
    first = next(lines, None)
    if first is None:
        raise ValueError(f"{name} is empty: not an arena export")
    head = first[1]
    try:
        config = run_config.read(head["config"])
    except ValueError as e:
        raise ValueError(f"{name}: its run's config cannot be read ({e})") from None
    # The file's run, as a store that did not play it keeps it: imported, read only.
    filed = Run(head["run_id"], head["created"], config, head["total"], head["status"], head.get("deal_key", ""),
                imported=True)
    fresh = not os.path.exists(store_path)
    store = Store(store_path)
    try:
        local = _played_here(store, filed.run_id)
        admit = _admission(store, head, filed, local, name)
        run = replace(filed, imported=False) if local is not None else filed
        added = store.import_run(run, _counted(head, (admit(number, line) for number, line in lines), name))
        Checkpoint(store, filed.run_id).save()   # the imported matches folded into the run's tallies
        total = store.count(filed.run_id)
    except BaseException:
        store.close()
        if fresh:   # the file was refused: the store it would have made goes too
            for path in (store_path, store_path + "-wal", store_path + "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(path)
        raise
    store.close()
    return filed.run_id, added, total


def _played_here(store: "Store", run_id: str) -> Optional["Run"]:
    """The store's run `run_id` when the store played it (not imported), else None."""
    stored = store.run(run_id) if store.deal_key(run_id) is not None else None
    return stored if stored is not None and not stored.imported else None


def _counted(head: dict[str, Any], rows: Iterable[dict[str, Any]], name: str) -> Iterator[dict[str, Any]]:
    """`rows`, then ValueError when there were not as many as the header says."""
    count = 0
    for row in rows:
        count += 1
        yield row
    if count != head["matches"]:
        raise ValueError(f"{name} holds {count} matches where its header says {head['matches']}: a truncated file?")


def _admission(store: "Store", head: dict[str, Any], filed: "Run", local: Optional["Run"],
               name: str) -> Callable[[int, dict[str, Any]], dict[str, Any]]:
    """The check each match line of the file passes on its way into the store (see import_export):
    a function of (line number, line) to the store row, ValueError naming the match otherwise.
    `filed` is the file's run, `local` the store's when the store played it."""
    from arena.tournament.schedule import schedule_from_config
    run_id = filed.run_id
    stored = store.run(run_id) if store.deal_key(run_id) is not None else None
    kind = stored.origin if stored is not None else replace(filed, deal_key="").origin
    key = stored.deal_key if stored is not None and stored.deal_key else head.get("deal_key")
    if local is not None:
        if local.status == "running":   # its coordinator holds it (arena.store: an interrupted run is not)
            raise ValueError(f"run {run_id} is being played in {store.path}: import when it has stopped")
        if filed.config != local.config:
            raise ValueError(f"{store.path} holds another run {run_id} (another config): not imported")
    schedule = None
    if key is not None and kind in ("tournament", "analyze"):
        if filed.tournament is None:
            raise ValueError(f"{name}: its run's config is no tournament's")
        try:
            schedule = schedule_from_config(run_id, filed.tournament, key)
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
            if head.get("deal_key", "") != local.deal_key:
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
