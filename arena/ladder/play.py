"""Playing a ladder: batch after batch, each chosen, recorded, played, then folded in.

    status = play.run(store, "insert", jobs=2, matches=100)

One batch at a time (the coordinator never holds more than one batch of matches):

1. **Plan.** At a batch boundary the line-ups are chosen from the store's standings
   (arena.ladder.matchmaking), each a new deal played in every seat rotation, and written to
   `ladder_plan` with their match ids in one transaction, before any is played.
2. **Play.** The batch's matches not stored yet are played on the chosen backend, exactly as
   `arena run` plays (arena.tournament.coordinator.play_specs: the runner, the sandbox policy of
   the ladder, submitted bots in their boxes); each is stored as it arrives.
3. **Fold.** When every match of the batch is stored, its deals are folded into the entries'
   standings in deal order (arena.ladder.standing), with their history and pair counts, and the
   plan is cleared, in one transaction.

A kill -9 anywhere leaves either a recorded plan (the same command plays its missing matches, then
folds it) or none (the next batch is chosen from the same state): no match is lost or played twice,
and a resumed ladder plays the very matches an uninterrupted one would. An entry added or retired
meanwhile joins or leaves at the next batch boundary; a recorded batch is always played out.
"""
import itertools
import resource
from collections.abc import Callable
from typing import Any

from arena.ladder import matchmaking, standing
from arena.ladder import store as ladders
from arena.ladder.standing import Entry
from arena.match import MatchResult, MatchSpec
from arena.store import Store
from arena.text import book_text
from arena.tournament import schedule as sched


def plan_batch(store: Store, ladder: ladders.Ladder) -> int:
    """Chooses and records the next batch; returns its number of matches (0: fewer than two
    active entries, or its deal book's deals all played). A ladder of a deal book plays the book's
    deals in order; its last batch is cut to the deals the book has left."""
    if store.finished_ids(ladder.run_id, ladder.next_match):
        # a batch's matches are played after it is planned: these were not (an older arena's import
        # let a file's matches in at the next batch's ids), and folding them would rate unplayed games
        raise ValueError(f"{store.path} holds matches of ladder {ladder.name} from match {ladder.next_match} on, "
                         f"which it never planned: they were not played by it; use another store")
    env = standing.environment()
    active = ladders.entries(store, ladder.name, active=True)
    ups = matchmaking.choose(active, ladders.pairs(store, ladder.name), ladder.players, matchmaking.BATCH,
                             ladder.config.seed, ladder.batches, env)
    left = ladders.book_left(ladder)
    if left is not None:
        ups = ups[:left]
    if not ups:
        return 0
    rows, deal, match_id = [], ladder.next_deal, ladder.next_match
    for lineup in ups:
        for seating in sched.rotations(tuple(lineup)):
            rows.append((match_id, deal, seating))
            match_id += 1
        deal += 1
    store.ladders.plan(ladder.name, rows, deal, match_id)
    return len(rows)


def planned(store: Store, ladder: ladders.Ladder) -> list[MatchSpec]:
    """The recorded batch's matches (all of them, stored or not), in match-id order."""
    rows = store.ladders.planned(ladder.name)
    if not rows:
        return []
    specs = {e.entry: e.spec for e in ladders.entries(store, ladder.name)}
    params = tuple(sorted(ladder.params.items()))
    c = ladder.config
    return [MatchSpec(ladder.run_id, match_id, ladder.game_id, params,
                      sched.deal_seed(c.seed, ladder.game_id, ladder.params, deal, ladder.deal_key),
                      tuple(specs[e] for e in seats), deal, c.time_limit, c.sandbox, c.time_control,
                      c.seeding)
            for match_id, deal, seats in rows]


def fold_batch(store: Store, ladder: ladders.Ladder, batch: list[MatchSpec]) -> None:
    """Folds the recorded batch (every match stored) into the standings and clears the plan."""
    env = standing.environment()
    every = ladders.entries(store, ladder.name)
    by_name = {e.name: e for e in every}
    changed: dict[int, Entry] = {}
    history, met = [], []
    results = list(store.results(ladder.run_id, batch[0].match_id, batch[-1].match_id + 1))
    for deal, matches in itertools.groupby(results, key=lambda m: m["deal"]):
        playing = standing.fold_deal(by_name, list(matches), env)
        for e in playing:
            changed[e.entry] = e
            history.append((e.entry, deal, e.deals, e.mu, e.sigma))
        met += [(min(a, b), max(a, b)) for a, b in itertools.combinations({e.entry for e in playing}, 2)]
    store.ladders.fold(ladder.name, ladder.run_id, batch[-1].match_id + 1, ladders.standing_rows(changed.values()),
                       history, met, ladders.meeting_rows({e.name: e.entry for e in every}, standing.meetings(results)))


def all_settled(store: Store, name: str) -> bool:
    rows = ladders.standings(store, name)
    return bool(rows) and all(r["settled"] for r in rows)


def check_playable(store: Store, ladder: ladders.Ladder) -> None:
    """ValueError when the ladder cannot be played here: other engines' code, or submitted
    entries and no sandbox."""
    from arena.sandbox import check_available
    if ladder.config.code != sched.code_digest():
        raise ValueError(f"the engines or built-in agents changed since ladder {ladder.name} started: its ratings "
                         f"would mix two sets of rules; start a new ladder")
    if any(e.spec.submitted for e in ladders.entries(store, ladder.name, active=True)):
        check_available(ladder.config.sandbox)


def run(store: Store, name: str, *, backend: str = "local", jobs: int | None = None,
        address: str | None = None, matches: int | None = None, until_settled: bool = False,
        on_match: Callable[[MatchResult], None] | None = None,
        on_batch: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Plays the ladder batch after batch until stopped (Ctrl-C, SIGTERM), until at least `matches`
    more are stored, or with `until_settled` until every active entry's place is settled; a
    recorded batch is finished first and a batch is always played to its end before stopping.
    A ladder of a deal book stops when the book's deals are all played (`book_done`).
    Calls `on_match(result)` per match and `on_batch(matches played)` after each fold. Returns
    {status: "finished" | "interrupted", played, batches, book_done, peak_rss_mib (this process)}.
    :raises ValueError: an unknown ladder, fewer than two active entries, code changed, no sandbox,
        its deal book's deals all played already.
    :raises StoreError: another process plays this ladder."""
    from arena.sandbox import stage
    from arena.tournament.backends import check_backend
    from arena.tournament.coordinator import play_specs, running
    check_backend(backend, address)
    ladders.count_meetings(store)
    ladder = ladders.get(store, name)
    check_playable(store, ladder)
    if not planned(store, ladder) and len(ladders.entries(store, name, active=True)) < 2:
        raise ValueError(f"ladder {name} needs two active entries to play: add some with `arena ladder add`")
    if not planned(store, ladder) and ladders.book_left(ladder) == 0:
        raise ValueError(f"ladder {name} has played all {ladder.config.deals} deals of its deal book "
                         f"{book_text(ladder.config.book or {})}: start a new ladder with a larger book")
    played, batches = 0, 0

    def count(result):
        nonlocal played
        played += 1
        if on_match:
            on_match(result)
    store.claim(ladder.run_id)
    status = "finished"
    with running(store, ladder.run_id) as ended:
        while True:
            ladder = ladders.get(store, name)
            batch = planned(store, ladder)
            if not batch:
                if (matches is not None and played >= matches) or (until_settled and all_settled(store, name)):
                    break
                if not plan_batch(store, ladder):
                    break   # entries were retired meanwhile, or the deal book is all played
                continue
            for spec in {e.label: e for s in batch for e in s.seats}.values():
                stage(spec)   # the copy staged when it entered (or its unchanged original again)
            done = store.finished_ids(ladder.run_id, batch[0].match_id)
            status = play_specs(store, [s for s in batch if s.match_id not in done], backend, jobs, address,
                                count, checkpoint=False)
            if status != "finished":
                break
            fold_batch(store, ladder, batch)
            batches += 1
            if on_batch:
                on_batch(played)
        ended(status)
    return {"status": status, "played": played, "batches": batches,
            "book_done": ladders.book_left(ladders.get(store, name)) == 0 and not planned(store, ladder),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
