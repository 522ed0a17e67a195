"""Ladders in the store: the tables, and the functions every face of a ladder uses (the command
line, the web pages and uploads).

    from arena.store import Store
    from arena.ladder import store as ladders
    store = Store("results/arena.sqlite")
    ladders.create(store, "insert", game=edge.game("insert", None), seed=1)   # from arena import edge
    ladders.add(store, "insert", edge.agent("ismcts[iterations=200] as mcts"))           # from the command line
    ladders.add(store, "insert", edge.agent("./bot.py:MyBot as mine"), entrant="alice")  # an upload: alice owns it
    ladders.retire(store, "insert", "mine", entrant="alice")                  # only alice may
    ladders.entries(store, "insert")       # [standing.Entry] in the order added
    ladders.standings(store, "insert")     # [dict] rows of `arena ladder show`, best first
    ladders.history(store, "insert", "mcts")

A ladder is one open-ended run in the `runs` table (run id `ladder-NAME`, kind "ladder"), so its
matches are ordinary rows of `matches` that `arena replay`, `arena export`, `arena faults` and
`arena matches` read as they read any run's. Beside it the store keeps these tables (part of its
schema, read and written through `Store.ladders`, arena.store_ladders):

* `ladders`: one row per ladder: its run, its config (a TournamentConfig's JSON: game, seed,
  sandbox, time rules, the engines' code digest), the next deal and match id to plan.
* `ladder_entries`: one row per entry, a version of a bot: its agent spec (submitted code staged,
  with its digest), label and version, the entry it replaced (lineage), the entrant who owns it,
  its status, and its standing kept incrementally (arena.ladder.standing): TrueSkill's exact
  state, counts, score moments, recent form. `show` reads these rows and nothing else, so it costs
  the same after a million matches as after ten.
* `ladder_pairs`: how many deals each pair of entries has played together (matchmaking).
* `ladder_meetings`: each entry's games, wins, draws and losses against each opponent, kept as
  batches are folded (the head-to-heads of an entry's page).
* `ladder_plan`: the batch of matches chosen but not yet folded into the standings
  (arena.ladder.play): a resumed ladder finishes it first.
* `ladder_history`: each entry's rating after each deal it played (`arena ladder history`).

A new version of a bot (the same label, other code) is a new entry whose `parent` is the previous
version's; the previous version is retired unless kept. Every function raises ValueError (one line)
on bad input: an unknown ladder or entry, a name taken, an agent that cannot play the game, a
retirement by someone who does not own the entry.
"""
import hashlib
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Optional

from arena import agent_list, seeds
from arena.ladder import standing
from arena.ladder.standing import Entry, version_name
from arena.match import AgentSpec, SandboxPolicy, TimeControl
from arena.run_config import GameSetting, TournamentConfig, _agent
from arena.sandbox import DEFAULT_POLICY
from arena.store import Store
from arena.store_ladders import STANDING_COLUMNS
from arena.tournament import schedule as sched

if TYPE_CHECKING:
    from arena.tournament.books import Book

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class Ladder:
    name: str
    run_id: str
    config: TournamentConfig     # one game; agents empty (they are the entries)
    deal_key: str
    created: float
    next_deal: int
    next_match: int
    batches: int

    @property
    def game_id(self) -> str:
        return self.config.games[0].game_id

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.config.games[0].params)

    @property
    def players(self) -> int:
        return self.config.games[0].players


def count_meetings(store: Store) -> None:
    """Counts once, from their matches, the head-to-heads of the ladders whose matches were folded
    before the store kept them (a store migrated from before `ladder_meetings`)."""
    for row in store.ladders.ladder_rows():
        if store.ladders.meetings(row["name"]) is None and store.run(row["run_id"]).total:
            numbers = {e.name: e.entry for e in entries(store, row["name"])}
            with store.db:
                store.ladders.add_meetings(row["name"], meeting_rows(
                    numbers, standing.meetings(store.results(row["run_id"]))))


def meeting_rows(numbers: dict[str, int], counts: dict[tuple[str, str], list[int]]
                 ) -> list[tuple[int, int, int, int, int, int]]:
    """Head-to-head counts ({(label, opponent): [games, wins, draws, losses]}, labels as played) as
    rows of entry numbers (`numbers`: {label: entry})."""
    return [(numbers[a], numbers[b], *c) for (a, b), c in counts.items()]  # type: ignore[misc]


def run_id_of(name: str) -> str:
    return f"ladder-{name}"


# ---------------------------------------------------------------- ladders

def create(store: Store, name: str, *, game: GameSetting, seed: int = 0, time_limit: float | None = None,
           time_control: TimeControl | None = None, sandbox: SandboxPolicy = DEFAULT_POLICY,
           deal_key: str | None = None, book: Optional["Book"] = None) -> Ladder:
    """Starts an empty ladder of one game (a GameSetting, as `arena.edge.game` reads --game,
    --players and --param). With `book` (a deal book, arena.tournament.books) the ladder plays the
    book's deals in order, its game and parameters, and stops when they are all played
    (`book_left`); its config keeps the book's name and digest, and `deals` the number of deals it
    holds. `deal_key` (32 hexadecimal digits; None: a new secret key) chooses the deals without a book.
    :raises ValueError: a bad name, a name taken, a time limit out of range, a game other than the
        deal book's."""
    from arena.tournament import books
    from arena.tournament.coordinator import DEFAULT_TIME_LIMIT, check_time_limit
    if not _NAME.fullmatch(name or ""):
        raise ValueError(f"ladder name {name!r}: use letters, digits, '_', '.' and '-' (at most 64, starting "
                         f"with a letter or digit)")
    count_meetings(store)
    if store.ladders.ladder(name) is not None:
        raise ValueError(f"ladder {name} already exists in {store.path}: add entries to it, or choose another name")
    if book:
        books.check_games(book, [game])
    limit = check_time_limit(DEFAULT_TIME_LIMIT if time_limit is None else time_limit)
    config = replace(TournamentConfig.create([game], [], None, seed, limit, sandbox, agent_defaults={},
                                             code=sched.code_digest(), time_control=time_control), kind="ladder")
    if book:
        config = replace(config, book=book.ref(), deals=len(book.deals))
    run_id = run_id_of(name)
    key = book.key if book else deal_key or seeds.new_deal_key()
    if store.deal_key(run_id) is not None:
        raise ValueError(f"{store.path} already holds a run {run_id}: choose another ladder name")
    store.ladders.add_ladder(name, run_id, time.time(), config.to_json())
    store.create_run(run_id, config, 0, key)
    return get(store, name)


def get(store: Store, name: str) -> Ladder:
    """The ladder NAME; ValueError naming the store's ladders when there is none."""
    row = store.ladders.ladder(name)
    if row is None:
        known = ", ".join(l["name"] for l in ladders(store)) or "none"
        raise ValueError(f"no ladder {name!r} in {store.path} (ladders: {known}); start one with `arena ladder new`")
    config = TournamentConfig.from_json(row["config"])
    return Ladder(row["name"], row["run_id"], config, store.deal_key(row["run_id"]) or "", row["created"],
                  row["next_deal"], row["next_match"], row["batches"])


def book_left(ladder: Ladder) -> int | None:
    """How many of its deal book's deals the ladder has not planned yet (None: no book, no end)."""
    if ladder.config.book is None:
        return None
    return (ladder.config.deals or 0) - ladder.next_deal


def active_names(store: Store) -> dict[str, list[str]]:
    """{run id: its active entries' names, in the order added} for every ladder of the store (the
    agents `arena runs` lists for a ladder's run)."""
    return store.ladders.active_names()


def folded(store: Store, ladder: Ladder) -> int:
    """The matches folded into the ladder's standings (read from its run's row, not counted)."""
    return store.run(ladder.run_id).total


def ladders(store: Store) -> list[dict[str, Any]]:
    """[{name, run_id, game_id, params, created, entries, active, matches, status}] oldest first."""
    out = []
    for row in store.ladders.ladder_rows():
        game = TournamentConfig.from_json(row["config"]).games[0]
        run = store.run(row["run_id"])
        out.append({"name": row["name"], "run_id": row["run_id"], "game_id": game.game_id,
                    "params": game.params, "created": row["created"], "entries": row["entries"],
                    "active": row["active"], "matches": run.total, "status": run.status})
    return out


# ---------------------------------------------------------------- entries

def add(store: Store, name: str, spec: AgentSpec, keep: bool = False, entrant: str | None = None,
        checked: bool = False, item: str | None = None) -> Entry:
    """Enters the agent `spec` (one item of an agent list as `arena.edge.agent` reads it, under the
    ladder's sandbox: `edge.agent(item, ladder.config.sandbox)`) in the ladder, owned by `entrant`
    (None: from the command line). Submitted code is staged (copied, digested) and checked in its
    sandbox before anything is written. `item` is the text the agent was given as, which the ladder's
    lists show (None: the spec as an agent list writes it).

    The same label with other code is a new version: a new entry whose parent is the label's latest
    entry, which is retired unless `keep`. The same label with the same code as an active entry is
    an error; as a retired one, that entry comes back. Another entrant's label cannot be taken.
    `checked`: the caller has just run check-agent on this very code in its sandbox (an upload), so
    it is not loaded again.
    :returns: the entry added (or brought back).
    """
    from arena.sandbox import stage, validate_all
    ladder = get(store, name)
    policy = ladder.config.sandbox
    if spec.source == "human":
        raise ValueError("a ladder plays unattended: the human agent cannot enter one")
    if "@" in spec.label:
        raise ValueError(f"agent label {spec.label!r}: '@' is kept for versions (label@2); choose another label")
    sched.check_can_play([spec], ladder.game_id, ladder.params)
    spec = stage(spec)
    digest = spec.code if spec.submitted else _builtin_digest(spec)
    versions = [e for e in entries(store, name) if e.label == spec.label]
    latest = versions[-1] if versions else None
    if latest is not None and (latest.entrant or None) != (entrant or None):
        raise ValueError(f"label {spec.label!r} in ladder {name} belongs to another entrant: choose another label")
    same = next((e for e in versions if e.digest == digest), None)
    if same is not None and same.status == "active":
        raise ValueError(f"{same.name} is already in ladder {name} with this code (entry {same.entry})")
    if spec.submitted and not checked:
        validate_all([spec], policy)
    now = time.time()
    with store.db:
        joined = store.count(ladder.run_id)
        if same is not None:   # a retired version comes back, with its standing
            store.ladders.set_status(name, [same.entry], "active")
            back = same
        else:
            version = latest.version + 1 if latest else 1
            played = replace(spec, label=version_name(spec.label, version))
            prior = standing.environment().create_rating()
            store.ladders.add_entry(name, spec.label, version, played.label,
                                    (item or agent_list.item_text(spec)).strip(), played.as_dict(), digest,
                                    latest.entry if latest else None, entrant, now, joined, prior.mu, prior.sigma)
            back = None
        if latest is not None and not keep and latest.status == "active" and latest is not same:
            store.ladders.set_status(name, [latest.entry], "retired")
    if back is not None:
        return entry(store, name, back.name)
    return entries(store, name)[-1]


def _builtin_digest(spec: AgentSpec) -> str:
    """A built-in agent's version: its name, parameters, default parameters and the digest of the
    model files it reads (its `code`, arena.sandbox.staging)."""
    import agents as agent_registry
    text = json.dumps([spec.source, sorted(dict(spec.params).items()),
                       sorted(agent_registry.agent_class(spec.source).PARAMS.items())]
                      + ([spec.code] if spec.code else []), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def retire(store: Store, name: str, label: str, entrant: str | None = None) -> list[Entry]:
    """Takes out the active entries of `label` (every active version), or the one entry named
    `label@N`; with `entrant`, only an entry that entrant owns. Returns the entries retired.
    :raises ValueError: no such active entry, or it belongs to someone else."""
    get(store, name)
    found = [e for e in entries(store, name) if e.status == "active" and (e.label == label or e.name == label)]
    if not found:
        known = ", ".join(e.name for e in entries(store, name) if e.status == "active") or "none"
        raise ValueError(f"ladder {name} has no active entry {label!r} (active: {known})")
    if entrant is not None and any(e.entrant != entrant for e in found):
        raise ValueError(f"entry {label!r} of ladder {name} belongs to another entrant: only its owner may retire it")
    with store.db:
        store.ladders.set_status(name, [e.entry for e in found], "retired")
    return [replace(e, status="retired") for e in found]


def entries(store: Store, name: str, active: bool = False) -> list[Entry]:
    """The ladder's entries (only the active ones with `active`) in the order they were added."""
    return [_entry(r) for r in store.ladders.entry_rows(name, active)]


def entry(store: Store, name: str, label: str) -> Entry:
    """One entry by name (`label@2`), or by label its latest version; ValueError when there is none."""
    found = [e for e in entries(store, name) if e.name == label] or \
        [e for e in entries(store, name) if e.label == label][-1:]
    if not found:
        get(store, name)
        known = ", ".join(e.name for e in entries(store, name)) or "none"
        raise ValueError(f"ladder {name} has no entry {label!r} (entries: {known})")
    return found[0]


def _entry(row: dict[str, Any]) -> Entry:
    return Entry(**(row | {"spec": _agent(row["spec"])}))


def standing_rows(changed: Iterable[Entry]) -> list[tuple[int, tuple[Any, ...]]]:
    """The entries' standings as the store keeps them: [(entry, values of STANDING_COLUMNS)]."""
    return [(e.entry, tuple(getattr(e, c) for c in STANDING_COLUMNS)) for e in changed]


def head_to_head(store: Store, name: str, label: str) -> list[dict[str, Any]]:
    """[{opponent, games, wins, draws, losses}] of one entry (by name, or a label's latest version)
    against each entry it met, most games first: read from `ladder_meetings` (one row per
    opponent), or counted from the matches for a ladder whose store kept no such counts yet (one older
    than that table)."""
    e = entry(store, name, label)
    names = {x.entry: x.name for x in entries(store, name)}
    kept = store.ladders.meetings(name, e.entry)
    if kept is not None:
        rows = [{"opponent": names[r["opponent"]], "games": r["games"], "wins": r["wins"], "draws": r["draws"],
                 "losses": r["losses"]} for r in kept]
    else:
        counts = standing.meetings(store.results(get(store, name).run_id))
        rows = [{"opponent": b, "games": c[0], "wins": c[1], "draws": c[2], "losses": c[3]}
                for (a, b), c in counts.items() if a == e.name]
    return sorted(rows, key=lambda r: (-r["games"], r["opponent"]))


def pairs(store: Store, name: str) -> dict[tuple[int, int], int]:
    """{(a, b): deals played together} for entries a < b."""
    return store.ladders.pairs(name)


# ---------------------------------------------------------------- views

def standings(store: Store, name: str, include_retired: bool = False) -> list[dict[str, Any]]:
    """The rows of `arena ladder show`, best first (by mu; arena.ladder.standing): the active
    entries, and the retired ones after them with `include_retired`. Each row: rank, name,
    label, version, parent (the previous version's name), entrant, status, mu, sigma, low and
    high (mu +- 1.96 sigma), deals, games, wins, draws, losses, faults, score (share, with its 95%
    interval over deals), provisional, settled, form."""
    get(store, name)
    every = entries(store, name)
    names = {e.entry: e.name for e in every}
    active = standing.ordered(e for e in every if e.status == "active")
    shown = active + (standing.ordered(e for e in every if e.status != "active") if include_retired else [])
    out = []
    for k, e in enumerate(shown):
        score = e.score()
        out.append({"rank": k + 1 if e.status == "active" else None, "entry": e.entry, "name": e.name,
                    "label": e.label, "version": e.version, "parent": names.get(e.parent) if e.parent else None,
                    "entrant": e.entrant, "status": e.status, "agent": e.item,
                    "mu": e.mu, "sigma": e.sigma, "low": e.mu - standing.Z95 * e.sigma,
                    "high": e.mu + standing.Z95 * e.sigma, "deals": e.deals, "games": e.games, "wins": e.wins,
                    "draws": e.draws, "losses": e.losses, "faults": e.faults,
                    "score": score.as_dict() if score else None, "provisional": e.provisional,
                    "settled": e.status == "active" and standing.settled(active, e), "form": e.form})
    return out


def history(store: Store, name: str, label: str, most: int | None = None) -> list[dict[str, Any]]:
    """[{deal, deals, mu, sigma}] of one entry (by name, or a label's latest version): its rating
    after each deal it played, from its prior on; with `most`, at most about that many points,
    evenly spread, the first and the last kept (thinned in the query: a long ladder's entry has
    a point per deal)."""
    e = entry(store, name, label)
    prior = standing.environment().create_rating()
    step = max(1, -(-e.deals // (most - 1))) if most and most > 1 else 1
    return [{"deal": None, "deals": 0, "mu": prior.mu, "sigma": prior.sigma}] + \
        store.ladders.history(name, e.entry, step, e.deals)


def stored(store: Store, ladder: Ladder) -> int:
    """The ladder's stored matches: those folded, and those of the recorded batch stored so far
    (counted from the folded ones on, not over the whole run)."""
    done = folded(store, ladder)
    return done + len(store.finished_ids(ladder.run_id, done))


def recent(store: Store, ladder: Ladder, most: int) -> list[dict[str, Any]]:
    """The ladder's last `most` stored matches (without their actions), latest first: read from
    the folded ones' end on, not past every match."""
    start = max(0, folded(store, ladder) - most)
    return list(store.results(ladder.run_id, start))[::-1][:most]
