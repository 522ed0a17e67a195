"""A run's tallies (one arena.results.standings.GroupTally per game and rule variant), checkpointed in the store.

Ratings and totals are a fold over the matches in match-id order. While a run is played, its
coordinator keeps the fold of the run's contiguous prefix of stored matches (a result that arrives
out of order waits until the gap before it fills) and saves it in the store every SAVE_SECONDS and
when it stops. A view reads that checkpoint and folds only the matches stored after it, so a
leaderboard costs the same for a thousand matches as for a million, and gives the same figures, bit
for bit, as folding every match. A checkpoint that cannot be read (another version, a damaged row) is
ignored: the view then folds every match, slower, to the same figures.
"""
import json
import os
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from arena.results.standings import TALLY_VERSION, GroupTally, group_key

if TYPE_CHECKING:
    from arena.store import Store

SAVE_SECONDS = 2.0


class RunTallies:
    """The run's checkpoint as read from the store (or none, with `checkpoint=False`): `upto`
    (every match id below it is folded in) and {group_key: GroupTally}."""

    def __init__(self, store: "Store", run_id: str, checkpoint: bool = True) -> None:
        self.store, self.run_id = store, run_id
        self.upto, self.groups = 0, {}
        self._seen: tuple[Any, Any, Any] = (None, None, None)   # (game id, game_params dict, group key) of the last match
        upto, rows = store.tallies(run_id) if checkpoint else (0, [])
        try:
            groups = {}
            for game_id, params, state in rows:
                state = json.loads(state)
                if not isinstance(state, dict) or state.get("version") != TALLY_VERSION:
                    return
                groups[game_id, params] = GroupTally(game_id, json.loads(params), state)
                groups[game_id, params].summary()   # a state that cannot make a view is not used
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, ZeroDivisionError):
            return
        self.upto, self.groups = upto, groups

    def add(self, match: dict[str, Any]) -> None:
        game_id, params, key = self._seen
        if match["game_params"] is not params or match["game_id"] != game_id:
            # a run's matches share one parameters dict when they come from Store.record_many
            key = group_key(match)
            self._seen = (match["game_id"], match["game_params"], key)
        if key not in self.groups:
            self.groups[key] = GroupTally(match["game_id"], match["game_params"])
        self.groups[key].add(match)

    def ordered(self, game_id: str | None = None) -> list[GroupTally]:
        """The tallies (of one game, or all), in the order their games were played."""
        return sorted((t for t in self.groups.values() if game_id in (None, t.game_id)),
                      key=lambda t: t.state()["first"])


def _caught_up(store, run_id, game_id, checkpoint):
    """The run's tallies (of one game) from the checkpoint (or from nothing), the later matches folded in."""
    tallies = RunTallies(store, run_id, checkpoint)
    for match in store.results(run_id, tallies.upto, game_id=game_id):
        tallies.add(match)
    return tallies


def read(store: "Store", run_id: str, game_id: str | None = None) -> list[GroupTally]:
    """[GroupTally] of the run (or of one game), up to its last stored match, in game order: the
    checkpoint, and the matches stored after it folded in (nothing is written).

    With ARENA_CHECK_TALLIES=1 (as in the tests), every read also folds every match afresh and
    raises RuntimeError when the two differ in any bit."""
    tallies = _caught_up(store, run_id, game_id, checkpoint=True)
    out = tallies.ordered(game_id)
    if os.environ.get("ARENA_CHECK_TALLIES") and tallies.upto:
        fresh = _caught_up(store, run_id, game_id, checkpoint=False).ordered(game_id)
        if [json.dumps(t.state()) for t in out] != [json.dumps(t.state()) for t in fresh]:
            raise RuntimeError(f"run {run_id}: the checkpointed tallies differ from a replay of every match")
    return out


class Checkpoint(RunTallies):
    """The coordinator's side: `recorded(matches)` after a batch is recorded (the matches as
    `Store.record_many` returns them; `stored(match_id)`: read back from the store) advances the
    fold over the contiguous prefix; `save()` writes it (also every SAVE_SECONDS)."""

    def __init__(self, store: "Store", run_id: str) -> None:
        super().__init__(store, run_id)
        self.waiting: dict[int, dict[str, Any] | None] = {}   # stored matches beyond a gap (None: not in memory)
        for match in store.results(run_id, self.upto):   # a resumed run: what was stored after the checkpoint
            if match["match_id"] == self.upto:
                self.add(match)
                self.upto += 1
            else:
                self.waiting[match["match_id"]] = None
        self.saved = time.monotonic()

    def stored(self, match_id: int) -> None:
        """After a match is recorded: folds whatever prefix it completes, read back from the store."""
        self._advance({match_id: None})

    def recorded(self, matches: Iterable[dict[str, Any]]) -> None:
        """After a batch is recorded, with its matches as the store reads them back
        (`Store.record_many` gives them): folds whatever prefix they complete, reading nothing."""
        self._advance({m["match_id"]: m for m in matches})

    def _advance(self, matches: dict[int, dict[str, Any] | None]) -> None:
        self.waiting.update(matches)
        stop = self.upto
        while stop in self.waiting:
            stop += 1
        if stop > self.upto:
            prefix = [self.waiting.pop(i) for i in range(self.upto, stop)]
            if any(m is None for m in prefix):
                # Read back as stored (through JSON), so the fold sees exactly what a later view reads.
                prefix = self.store.results(self.run_id, self.upto, stop)   # type: ignore[assignment]
            for match in prefix:
                self.add(match)   # type: ignore[arg-type]
            self.upto = stop
        if time.monotonic() - self.saved >= SAVE_SECONDS:
            self.save()

    def save(self) -> None:
        self.store.save_tallies(self.run_id, self.upto, [(key[0], key[1], json.dumps(t.state()))
                                                          for key, t in self.groups.items()])
        self.saved = time.monotonic()
