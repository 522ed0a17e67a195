"""The faults of a run with what the faulty bots printed: `arena faults`, the report's faults, and
`arena check-agent`'s failures.

What a bot printed is its own text: shown with every control character escaped (no escape sequence
reaches a terminal), each of its lines behind a bar (`quoted`), so that nothing it prints can pass
for the arena's own lines or for another seat's output, and with a last line saying how much of it
was cut (the arena keeps the first 64 KiB per seat and match: arena.sandbox.wire.OUTPUT_LIMIT).
"""
from collections.abc import Iterator
from typing import Any

from arena.store import Store
from arena.text import printable

BAR = "| "
SHORT_OUTPUT = 1000   # characters of each seat's output in a list of matches: its end, the rest on demand


def output_text(text: str, cut: int, last: int | None = None) -> str:
    """What a bot printed, safe to show: control characters escaped ("\\x1b"), but newlines and
    tabs; with `last`, only its last `last` characters, after a line saying how many came before;
    then, if the arena cut some of it, a line that says how much."""
    shown = printable(text)
    if last is not None and len(shown) > last:
        shown = f"[{len(shown) - last} characters before these]\n" + shown[-last:]
    if cut:
        shown += ("\n" if shown and not shown.endswith("\n") else "") + \
            f"[output cut here: {cut} more bytes were printed and not kept]"
    return shown


def quoted(text: str, cut: int, last: int | None = None) -> list[str]:
    """`output_text` as lines, each behind the bar."""
    return [BAR + line for line in output_text(text, cut, last).splitlines()]


def faulted_matches(store: Store, run_id: str, limit: int = -1) -> Iterator[dict[str, Any]]:
    """The run's matches with faults (the first `limit`), in match order, one at a time: {match_id,
    game_id, faults: [{seat, label, kind, message, move}], output: [{seat, label, text, cut}]}."""
    matches: dict[int, dict[str, Any]] = {}
    for f in store.faults(run_id, limit=limit):
        match = matches.setdefault(f["match_id"], {"match_id": f["match_id"], "game_id": f["game_id"],
                                                   "faults": [], "output": []})
        match["faults"].append({k: v for k, v in f.items() if k not in ("match_id", "game_id")})
    outputs = store.outputs(run_id, faulted=True, until=max(matches, default=-1))
    pending = next(outputs, None)
    for match_id in list(matches):
        match = matches.pop(match_id)   # its output is the caller's now: none piles up here
        while pending is not None and pending["match_id"] <= match_id:
            if pending["match_id"] == match_id:
                match["output"].append(_seat_output(pending))
            pending = next(outputs, None)
        yield match


def _seat_output(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "match_id"}


def match_output(store: Store, run_id: str, match_id: int) -> dict[str, Any]:
    """One stored match's faults and output, as `faulted_matches` gives them (StoreError when the
    run has no such finished match)."""
    match = store.match(run_id, match_id)
    return {"match_id": match_id, "game_id": match["game_id"], "faults": match["faults"],
            "output": [_seat_output(o) for o in store.outputs(run_id, match_id)]}


def fault_line(fault: dict[str, Any]) -> str:
    """One fault as a line: "seat 1 (MyBot): exception at move 4: ValueError: oops"."""
    move = fault.get("move", -1)
    when = f" at move {move}" if move >= 0 else " while starting"
    return printable(f"seat {fault['seat']} ({fault['label']}): {fault['kind']}{when}: {fault['message']}", keep="")


def output_heading(output: dict[str, Any]) -> str:
    return printable(f"printed by seat {output['seat']} ({output['label']}):", keep="")
