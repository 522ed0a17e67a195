"""From a command line to a list of matches: the agent list, the line-ups, the seating, the seeds.

How a tournament is laid out (quoted in the README):

* **Line-ups.** With at least as many agents as seats, every combination of agents meets (for two
  seats: every pair). With fewer agents than seats, the agents fill the seats in turn, once
  starting from each agent (two agents at four seats: A B A B; three agents: A B C A, B C A B and
  C A B C), so an agent may hold several seats in one match, and every agent holds every seat
  equally often.
* **Seat rotation and duplicate deals.** Every line-up plays each deal once per rotation of the
  agents through the seats, all rotations sharing the deal's seed: in card games this is the
  duplicate format (the luck of the deal cancels out), in board games it cancels the first-move
  advantage and the starting layout. Deals are shared by every line-up of a game, so every
  combination meets on the same deals. `--games N` is the number of deals per line-up.
* **Seeds** (arena.seeds). Deal seeds are a keyed hash of the tournament seed, the game and the deal number under
  the run's deal key: 128 random bits made when the run is created, kept in the store and never
  shown to a bot, so no bot can compute a deal from what it sees (its own seed, the parameters, a
  guessable tournament seed). Each agent's seed derives from the match's deal seed and its seat
  (coupled seeding: the same in every match of the deal; see arena.seeds).
  The schedule, and so every result, is a pure function of the command line and the deal key: the
  run id is a digest of the tournament's config (arena.run_config), which is why running the
  same command again on the same store resumes (or reprints) the same tournament, with the same deals.
"""
import glob
import hashlib
import importlib.util
import itertools
import operator
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import agents as agent_registry
import engines
from arena.agent_list import ScheduleError
from arena.match import AgentSpec, MatchSpec, SandboxPolicy, TimeControl
from arena.results.settle import StoppingRule, looks
from arena.results.standings import group_key
from arena.run_config import GameSetting, TournamentConfig
from arena.seeds import derive_seed

if TYPE_CHECKING:
    from arena.store import Store

T = TypeVar("T")


# ---------------------------------------------------------------- line-ups and matches

def lineups(agent_specs: Sequence[T], seats: int) -> list[tuple[T, ...]]:
    """Every group of agents (AgentSpecs, or anything comparable: a ladder's entry numbers) that
    meets at one table, in a fixed order."""
    if len(agent_specs) >= seats:
        return [tuple(c) for c in itertools.combinations(agent_specs, seats)]
    # Fewer agents than seats: the agents fill the seats in turn, once starting from each agent, so
    # every agent holds the extra seats equally often (A B C A, B C A B, C A B C).
    k = len(agent_specs)
    out: list[tuple] = []
    for start in range(k):
        lineup = tuple(agent_specs[(start + i) % k] for i in range(seats))
        if not any(lineup in rotations(other) for other in out):
            out.append(lineup)
    return out


def rotations(lineup: tuple[T, ...]) -> list[tuple[T, ...]]:
    """The distinct seatings of a line-up rotated through the seats (A B A B has only two)."""
    out = []
    for r in range(len(lineup)):
        seating = lineup[r:] + lineup[:r]
        if seating not in out:
            out.append(seating)
    return out


def game_schedule(run_id: str, game_id: str, game_params: Mapping[str, Any], agent_specs: Sequence[AgentSpec],
                  deals: int, seed: int, time_limit: float, first_id: int = 0, deal_key: str = "",
                  sandbox: SandboxPolicy | None = None, time_control: TimeControl | None = None,
                  seeding: str = "coupled") -> list[MatchSpec]:
    """The matches of one game: for each deal, each line-up in each rotation."""
    return list(GameMatches(run_id, game_id, game_params, agent_specs, deals, seed, time_limit, first_id, deal_key,
                            sandbox, time_control, seeding))


class GameMatches(Sequence[MatchSpec]):
    """The matches of one game (`game_schedule`) as a sequence that makes each MatchSpec when it is
    asked for: for each deal, each line-up in each rotation, match ids from `first_id` on. A run of
    a million matches so holds none of them in memory."""

    def __init__(self, run_id: str, game_id: str, game_params: Mapping[str, Any], agent_specs: Sequence[AgentSpec],
                 deals: int, seed: int, time_limit: float, first_id: int = 0, deal_key: str = "",
                 sandbox: SandboxPolicy | None = None, time_control: TimeControl | None = None,
                 seeding: str = "coupled") -> None:
        self.run_id, self.game_id, self.deals, self.seed, self.first_id = run_id, game_id, deals, seed, first_id
        self.params = tuple(sorted(game_params.items()))
        self.game_params, self.deal_key = game_params, deal_key
        self.seatings = [seating for lineup in lineups(agent_specs, game_params["players"])
                         for seating in rotations(lineup)]
        self.limits = (time_limit, sandbox, time_control, seeding)

    def deal_seed(self, deal: int) -> int:
        return deal_seed(self.seed, self.game_id, self.game_params, deal, self.deal_key)

    def __len__(self) -> int:
        return self.deals * len(self.seatings)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = operator.index(index)
        i += len(self) if i < 0 else 0
        if not 0 <= i < len(self):
            raise IndexError("match index out of range")
        deal, k = divmod(i, len(self.seatings))
        return MatchSpec(self.run_id, self.first_id + i, self.game_id, self.params, self.deal_seed(deal),
                         self.seatings[k], deal, *self.limits)

    def __iter__(self) -> Iterator[MatchSpec]:
        match_id = self.first_id
        for deal in range(self.deals):
            deal_seed = self.deal_seed(deal)
            for seating in self.seatings:
                yield MatchSpec(self.run_id, match_id, self.game_id, self.params, deal_seed, seating, deal,
                                *self.limits)
                match_id += 1


class Schedule(Sequence[MatchSpec]):
    """A run's whole schedule (`schedule_from_config`): its games' GameMatches one after the other,
    each MatchSpec made when it is asked for; `games` lists them. Equal to any sequence of the same
    MatchSpecs."""

    def __init__(self, games: Sequence[GameMatches]) -> None:
        self.games = list(games)

    def __len__(self) -> int:
        return sum(len(g) for g in self.games)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = operator.index(index)
        i += len(self) if i < 0 else 0
        for g in self.games:
            if 0 <= i < len(g):
                return g[i]
            i -= len(g)
        raise IndexError("match index out of range")

    def __iter__(self) -> Iterator[MatchSpec]:
        return itertools.chain.from_iterable(self.games)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and all(a == b for a, b in zip(self, other))

    __hash__ = None   # type: ignore[assignment]


def deal_seed(seed: int, game_id: str, game_params: Mapping[str, Any], deal: int, deal_key: str) -> int:
    """The seed of deal `deal` of a game in a run of tournament seed `seed` under `deal_key` (hex)."""
    return derive_seed(seed, game_id, tuple(sorted(game_params.items())), deal, key=bytes.fromhex(deal_key))


def tournament_config(games: Sequence[GameSetting], agent_specs: Sequence[AgentSpec],
                      deals: int | None, seed: int, time_limit: float, sandbox: SandboxPolicy,
                      time_control: TimeControl | None = None,
                      stop: StoppingRule | None = None, seeding: str = "coupled") -> TournamentConfig:
    """The config of a tournament of these checked pieces, with what else determines its results:
    the built-in agents' defaults and the digest of the engines' and agents' code. A run played
    until settled has its stopping rule `stop` (arena.results.settle), and `deals` its cap."""
    return TournamentConfig.create(
        games, agent_specs, deals, seed, time_limit, sandbox, stop=stop,
        # Built-in defaults are part of the tournament: a new default budget makes a new run.
        agent_defaults={a.label: agent_registry.agent_class(a.source).PARAMS for a in agent_specs if a.kind == "builtin"},
        # Changed rules or agents make a new run: the same command never resumes with stale code.
        code=code_digest(), time_control=time_control, seeding=seeding)


def code_files() -> list[tuple[str, str]]:
    """(package folder, file) of every file `code_digest` reads: the engines' and built-in agents'
    sources, the rules' data and the models the agents ship (which change how they play)."""
    out = []
    for package in ("engines", "agents"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None   # engines and agents are regular packages
        root = os.path.dirname(spec.origin)
        for pattern in ("*.pyx", "*.pxd", "*.py", os.path.join("data", "*.json"), os.path.join("models", "*.json")):
            out += [(root, path) for path in sorted(glob.glob(os.path.join(root, pattern)))]
    return out


def code_digest() -> str:
    """A digest of the files that decide how the engines and built-in agents play (`code_files`)."""
    h = hashlib.sha256()
    for root, path in code_files():
        h.update(os.path.relpath(path, root).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def sits_out(spec: AgentSpec, game_id: str, players: int) -> str | None:
    """Why a built-in agent cannot play this game (it is then left out of it), or None."""
    if spec.kind != "builtin":
        return None
    return agent_registry.agent_class(spec.source).cannot_play(game_id, players)


def check_can_play(specs: Iterable[AgentSpec], game_id: str, game_params: Mapping[str, Any]) -> None:
    """ScheduleError naming the first built-in agent that cannot play this game with these complete
    parameters (where a person chose the agents, nobody may just sit out), or whose model was
    built for another game or other rules (`check_fit`)."""
    specs, game = list(specs), GameSetting(game_id, game_params)
    for spec in specs:
        reason = sits_out(spec, game_id, game.players)
        if reason:
            raise _cannot_play(spec, game, reason)
    check_fit(specs, [game])


def check_fit(specs: Iterable[AgentSpec], games: Iterable[GameSetting]) -> None:
    """ScheduleError naming the first built-in agent that reads a model built for another game or
    other rules than one of `games` it would play (Agent.unfit): refused before a run starts, not
    found out match by match."""
    specs = list(specs)
    for g in games:
        for spec in specs:
            if spec.kind != "builtin" or sits_out(spec, g.game_id, g.players):
                continue
            reason = agent_registry.agent_class(spec.source).unfit(dict(spec.params), g.game_id, g.params)
            if reason:
                raise _cannot_play(spec, g, reason)


def _cannot_play(spec: AgentSpec, game: GameSetting, reason: str) -> ScheduleError:
    return ScheduleError(f"{spec.label} cannot play {game.game_id} with {game.players} players: {reason}")


MAX_MATCHES = 1_000_000   # per run


def check_size(config: TournamentConfig) -> None:
    """ScheduleError when the run would have more than MAX_MATCHES matches (before building it)."""
    total = 0
    for g in config.games:
        playing = [a for a in config.agents if sits_out(a, g.game_id, g.players) is None]
        if len(playing) >= 2:
            seatings = sum(len(rotations(up)) for up in lineups(playing, g.players))
            total += seatings * (config.deals or 0)
    if total > MAX_MATCHES:
        raise ScheduleError(f"this tournament would have {total:,} matches; at most {MAX_MATCHES:,} per run "
                            f"(give fewer --games or agents)")


def stored_looks(store: "Store", run_id: str) -> dict[Any, Any]:
    """{group key: settle.Look, "rule": StoppingRule} of a stored run played until settled, as its
    config and schedule say; {} otherwise."""
    config = store.run(run_id).tournament
    if config is None or config.stop is None:
        return {}
    schedule = schedule_from_config(run_id, config, store.deal_key(run_id) or "")
    out = {group_key({"game_id": now.game_id, "game_params": now.params}): now
           for _, now in looks(store, run_id, schedule, config.stop)}
    return {**out, "rule": config.stop}


def schedule_from_config(run_id: str, config: TournamentConfig, deal_key: str = "") -> Schedule:
    """The full schedule of a run, from its config and deal key (the same for a resumed run), made
    match by match as it is read. Agents that cannot play a game sit it out; a game left with fewer
    than two agents is not played."""
    games, first = [], 0
    for g in config.games:
        playing = [a for a in config.agents if sits_out(a, g.game_id, g.players) is None]
        if len(playing) < 2:
            continue
        games.append(GameMatches(run_id, g.game_id, g.params, playing, config.deals or 0, config.seed,
                                 config.time_limit, first_id=first, deal_key=deal_key, sandbox=config.sandbox,
                                 time_control=config.time_control, seeding=config.seeding))
        first += len(games[-1])
    return Schedule(games)


def resolve_games(game_id: str | None, players: int | None,
                  params: dict[str, Any] | Iterable[tuple[str, Any]]) -> list[GameSetting]:
    """The games of --game/--players/--param (their parameters read from text, as given), each with
    its complete parameters; every registered game without --game."""
    if game_id is None:
        if players is not None or params:
            raise ScheduleError("--players and --param need --game")
        return [GameSetting(g, engines.registry.resolve(g)) for g in engines.game_ids()]
    params = dict(params)
    if "players" in params:   # --param players=N is --players N
        if players is not None:
            raise ScheduleError("give the number of players once: --players or --param players=N")
        players = params.pop("players")
    return [GameSetting(game_id, engines.registry.resolve(game_id, players=players, **params))]
