"""Training data: what a teacher's bids were made from and how many tricks each hand then took
(target `bid`), or the teacher's whole games (targets `value` and `playout`, which share them: each
game replayed at fit time into its positions and each seat's final score share, arena/learn/fit.py
`value_table`, or into its moves and their patterns, `move_table`).

The teacher (any agent `--agents` accepts: built in, or submitted and sandboxed) plays every seat of
whole games, each through the tournament's own runner (`play_match`, the referee's views, seeds and
faults). Each game is replayed to read, at every bid, the bidder's own view (`state.observation`:
its hand, the trump, the bids it can see) with the bid made, and at the end of the round the
tricks that hand took. Views are kept, not features, so a new feature set needs no new play.

Games are played in chunks of CHUNK_GAMES, each a file `chunk-NNNNN.json` written whole (a temporary
file renamed), in a folder beside the store named by the digest of the data's config (game and
parameters, teacher, seed): an interrupted run resumes at its first missing chunk, and two configs
never share a folder. Chunk k plays the games of seeds derived from (seed, k), so asking for more
games later adds chunks to the same folder. Every fifth chunk (k % 5 == 4) is held out for
validation: those deals are never trained on.
"""
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import engines
from arena import seeds
from arena.defaults import TIME_LIMIT
from arena.match import AgentSpec, MatchSpec, SandboxPolicy
from arena.tournament.runner import play_match

CHUNK_GAMES = 2
DATA_VERSION = 1


@dataclass(frozen=True)
class DataConfig:
    """What a set of training data is: the same config is the same data."""
    game_id: str
    params: tuple          # ((name, value), ...) complete, players included
    teacher: AgentSpec
    seed: int
    sandbox: SandboxPolicy | None = None   # how a submitted teacher is confined (not part of the data)
    target: str = "bid"    # "bid": Wizard's bids and tricks; "value" and "playout": whole games' actions

    @property
    def whole_games(self) -> bool:
        """Whether the data are whole games (a seed and the actions of each)."""
        return self.target != "bid"

    def to_json(self) -> dict[str, Any]:
        out = {"version": DATA_VERSION, "game": self.game_id, "params": json.loads(json.dumps(dict(self.params))),
               "teacher": self.teacher.as_dict(), "seed": self.seed}
        # the bids' data keeps the digest it had before there were targets; whole games serve both
        # the leaf value and the playout policy, so the two share one folder
        return dict(out, target="value") if self.whole_games else out

    @property
    def digest(self) -> str:
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def data_folder(store_path: str, config: DataConfig) -> str:
    """Where the data of `config` lives: `training/DIGEST/` beside the store."""
    return os.path.join(os.path.dirname(os.path.abspath(store_path)), "training", config.digest)


def chunk_path(folder: str, k: int) -> str:
    return os.path.join(folder, f"chunk-{k:05d}.json")


def is_validation(k: int) -> bool:
    return k % 5 == 4


def chunk_specs(config: DataConfig, k: int) -> list[MatchSpec]:
    seats = (config.teacher,) * dict(config.params)["players"]
    return [MatchSpec(f"train-{config.digest}", k * CHUNK_GAMES + j, config.game_id, config.params,
                      seeds.derive_seed(config.seed, "train", k, j), seats, deal=k * CHUNK_GAMES + j,
                      time_limit=TIME_LIMIT, sandbox=config.sandbox)
            for j in range(CHUNK_GAMES)]


def bid_rows(game_id: str, params: dict[str, Any], seed: int, actions: list[int]) -> list[dict[str, Any]]:
    """The match replayed: per bid, the bidder's view, its bid and the tricks its hand then took."""
    state: Any = engines.make(game_id, seed=seed, **params)   # a WizardState (phase, observation)
    rows: list[dict[str, Any]] = []
    open_rows: list[dict[str, Any]] = []
    for action in actions:
        if state.phase() == "bid":
            seat = state.current_player()
            view = state.observation(seat)
            obs = {k: view[k] for k in ("player", "dealer", "cards", "trump", "hand", "bids")}
            open_rows.append({"obs": obs, "bid": action - state.string_to_action("bid 0"), "tricks": 0})
        for event in state.apply_with_events(action):
            if event.kind == "trick_won":
                for row in open_rows:
                    row["tricks"] += row["obs"]["player"] == event.seat
            elif event.kind == "round_scored" and open_rows:
                rows += open_rows
                open_rows = []
    return rows


def play_chunk(config: DataConfig, k: int) -> dict[str, Any]:
    """Chunk k: its games played by the teacher, as rows. :raises ValueError: the teacher faulted
    (its data would be a stand-in's play)."""
    rows = []
    for spec in chunk_specs(config, k):
        result = play_match(spec)
        if result.faults:
            f = result.faults[0]
            raise ValueError(f"the teacher {f.label} faulted ({f.kind}: {f.message}) in game {spec.match_id}; "
                             f"no data is kept from it")
        if config.whole_games:
            rows.append({"deal": spec.match_id, "seed": spec.seed, "actions": list(result.actions)})
        else:
            rows += [dict(r, deal=spec.match_id) for r in bid_rows(spec.game_id, spec.params_dict(), spec.seed,
                                                                    result.actions)]
    return {"config": config.digest, "chunk": k, "games": CHUNK_GAMES, "rows": rows}


def write_chunk(folder: str, chunk: dict[str, Any]) -> None:
    path = chunk_path(folder, chunk["chunk"])
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(chunk, f, separators=(",", ":"))
    os.replace(tmp, path)


def read_chunk(folder: str, config: DataConfig, k: int) -> dict[str, Any] | None:
    """Chunk k if it is there whole, of this config, and every row one the fit can read, else None
    (to be played again)."""
    try:
        with open(chunk_path(folder, k)) as f:
            chunk = json.load(f)
    except (OSError, ValueError, RecursionError):   # nested too deep: the decoder's stack
        return None
    ok = isinstance(chunk, dict) and chunk.get("config") == config.digest and chunk.get("chunk") == k
    return chunk if ok and isinstance(chunk.get("rows"), list) and _readable(config, chunk["rows"]) else None


def _readable(config: DataConfig, rows: list) -> bool:
    """Whether the fit can read every row: a game that replays to its end (whole games), or a view
    whose features can be computed with a bid and tricks the hand could make. A chunk damaged or
    written by hand is played again, where it would have stopped the fit half-way."""
    from agents.learned import bid_features
    try:
        for row in rows:
            if type(row["deal"]) is not int:
                return False
            if config.whole_games:
                if type(row["seed"]) is not int or any(type(a) is not int for a in row["actions"]):
                    return False
                state = engines.make(config.game_id, seed=row["seed"], **dict(config.params))
                for action in row["actions"]:
                    state.apply_action(action)
                if not state.is_terminal():
                    return False
            else:
                bid_features(row["obs"])
                cards = row["obs"]["cards"]
                if not all(type(row[key]) is int and 0 <= row[key] <= cards for key in ("bid", "tricks")):
                    return False
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError):
        return False
    return True


def chunks_for(games: int) -> int:
    return -(-games // CHUNK_GAMES)


def prepare(store_path: str, config: DataConfig) -> str:
    """The data folder of `config`, made, with the config written beside its chunks."""
    folder = data_folder(store_path, config)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config.to_json(), f, indent=1, sort_keys=True)
    return folder


def missing_chunks(folder: str, config: DataConfig, games: int) -> list[int]:
    return [k for k in range(chunks_for(games)) if read_chunk(folder, config, k) is None]


def generate(folder: str, config: DataConfig, todo: list[int], jobs: int | None = None,
             on_chunk: Callable[[int], None] = lambda games: None) -> None:
    """Plays the chunks `todo` on worker processes, each written as it finishes; `on_chunk(games)`
    after each. An interruption loses only the chunks being played."""
    import concurrent.futures as cf
    import itertools

    from arena.tournament.backends import SerialExecutor, executor
    with executor("local", jobs) as (pool, slots):
        # Submitted a few at a time: in this process (-j 1) a chunk is played as it is submitted,
        # and each must be written before the next is played.
        window = 1 if isinstance(pool, SerialExecutor) else 2 * slots
        queue = iter(todo)
        pending: set[cf.Future] = set()
        while True:
            pending |= {pool.submit(play_chunk, config, k) for k in itertools.islice(queue, window - len(pending))}
            if not pending:
                return
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                write_chunk(folder, future.result())
                on_chunk(CHUNK_GAMES)


def load_rows(folder: str, config: DataConfig, games: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(chunk, row) of every row of the first `games` games' chunks, in chunk order.
    :raises ValueError: a chunk is missing."""
    for k in range(chunks_for(games)):
        chunk = read_chunk(folder, config, k)
        if chunk is None:
            raise ValueError(f"training data chunk {k} is missing from {folder}")
        for row in chunk["rows"]:
            yield k, row
