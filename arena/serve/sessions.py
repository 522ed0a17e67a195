"""Games a person plays in the browser against bots: one `PlaySession` per game, kept in server
memory under a random id (`Sessions`, which stops the bots of a session it drops).

As in a tournament, the referee (arena.referee) asks the bots for their moves: a bot gets only
`state.determinize(seat, seed)`, never the real state, and the person only what
`views.position_view` shows their seat. The deal's seed is not shown before
the end: it would give away every hand.

Whoever reaches the server names the bots, so a request may name only the built-in agents, the
installed ones (entry points) and the bots the operator offered with `arena serve --bots PATH`
(`find_bots`): never a path or a module of its own, and never a built-in agent's parameter that
loads code (`openspiel_bot[factory=...]`). Nothing of what a request names is read or staged unless
it is one of those. Each submitted bot of a game runs in a sandboxed process of its own, killed
(never handed to a pool) when the game ends, fails or is dropped; at most `MAX_LIVE_BOTS` run at
once, and starting a game beyond that stops the bots of the least recently used games.
"""
import os
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import agents as agent_registry
import engines
from arena import defaults, referee
from arena.agent_list import ScheduleError, agent_classes
from arena.human_game import seat_names
from arena.match import AgentSpec, MatchResult, MatchSpec, SandboxPolicy
from arena.referee import LocalAgent
from arena.run_config import GameSetting, PlayConfig
from arena.sandbox import DEFAULT_POLICY, AgentFault, RemoteAgent, check_available
from arena.seeds import derive_seed, view_base
from arena.serve.views import legal_moves, move_label, position_view, step_notes
from arena.store import Store
from arena.text import first_line
from arena.tournament.coordinator import DEFAULT_TIME_LIMIT
from arena.tournament.schedule import check_can_play, code_digest

HUMAN = AgentSpec("you", "human", (), "builtin", "human")
MAX_SESSIONS = 16   # games kept in memory; starting one more ends the least recently used
MAX_IDLE = 3600     # seconds: a game nobody has touched for this long is ended (see Sessions.expire)
MAX_LIVE_BOTS = 8   # sandboxed bot processes at once, over all games; more stops the least recently used
BOT_FILE = re.compile(r"[A-Za-z0-9_.+-]+\.py")   # file names a request can spell (no spaces, brackets, commas)


# A built-in agent's parameters that size its work per move: a web game may ask for at most their
# defaults (tuned to a fraction of a second a move); `time` and `threads` have the operator's caps.
WORK_PARAMS = ("iterations", "depth", "determinizations", "samples", "nodes", "bid_samples", "rollouts", "infer",
               "tt_bits")


@dataclass(frozen=True)
class PlayCaps:
    """What a game in the browser may ask of the server (`arena serve --play-*`): a built-in agent's
    `time` at most `seconds` a move, its `threads` at most `threads`, its work parameters (WORK_PARAMS)
    at most their defaults; and at most `games` games' bots thinking at once."""
    seconds: float = defaults.PLAY_MAX_TIME
    threads: int = defaults.PLAY_MAX_THREADS
    games: int = defaults.PLAY_GAMES

    def check(self, spec: AgentSpec) -> None:
        """ScheduleError naming the parameter and its cap when a built-in agent asks for more."""
        if spec.kind != "builtin" or spec.source not in agent_registry.agent_names():
            return
        defaults = agent_registry.agent_class(spec.source).PARAMS
        caps = {"time": (self.seconds, "--play-max-time"), "threads": (self.threads, "--play-max-threads")}
        caps.update((name, (defaults[name], "its default")) for name in WORK_PARAMS
                    if isinstance(defaults.get(name), (int, float)) and not isinstance(defaults[name], bool))
        for name, text in spec.params:
            cap, why = caps.get(name, (None, ""))
            try:
                value = float(text)   # as written: the agent itself reads and checks it
            except (TypeError, ValueError):
                continue
            if cap is not None and not value <= cap:
                raise ScheduleError(f"agent {spec.source}: {name}={text} is over what a game here may ask: "
                                    f"{name} at most {cap:g} ({why})")


class SessionError(ValueError):
    """A move or request this game cannot take (not your turn, an illegal move, a failed bot)."""


class UnknownSession(ValueError):
    """No game in progress under this id."""


def find_bots(paths: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """The bots `arena serve --bots PATH...` offers: ({"FILE.py:Class": "/real/path/FILE.py:Class"},
    [why each file of a folder that offers nothing was skipped]). A PATH is a .py file or a folder,
    whose `*.py` files are taken (not those of its subfolders, nor symbolic links); a bot is a public
    top-level class deriving from `Agent` (agents.Agent, any `...Agent` class, or another bot class
    of the same file). The files are parsed, never run, in this process. ValueError (one line) for a
    PATH that is missing, neither a .py file nor a folder, or offers no bot, and for two bot files of
    one name."""
    offered: dict[str, str] = {}
    where: dict[str, str] = {}
    skipped: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            files = [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.endswith(".py")]
            files = [f for f in files if os.path.isfile(f) and not os.path.islink(f)]
        elif os.path.isfile(path) and path.endswith(".py"):
            files = [path]
        else:
            raise ValueError(f"{path} is neither a .py file nor a folder" if os.path.exists(path)
                             else f"{path} does not exist")
        found = 0
        for file in files:
            real, name = os.path.realpath(file), os.path.basename(file)
            classes, why = [], None
            if not BOT_FILE.fullmatch(name):
                why = "its name may hold only letters, digits and _.+-"
            else:
                try:
                    classes = agent_classes(real)
                except ValueError as e:   # "SyntaxError: bot.py, line 3: expected ':'"
                    why = first_line(e)
                except OSError as e:
                    why = first_line(f"{type(e).__name__}: {e}")
            if not classes:
                skipped.append(f"{file}: {why or 'no Agent class in it'}")
                continue
            if where.setdefault(name, real) != real:
                raise ValueError(f"two bot files are named {name} ({where[name]} and {real}): rename one")
            offered.update((f"{name}:{cls}", f"{real}:{cls}") for cls in classes)
            found += 1
        if not found:
            raise ValueError(skipped[-1] if path in files else f"{path}: no Agent class in its .py files")
    return offered, skipped


def check_bots(specs: Sequence[AgentSpec], caps: PlayCaps | None = None) -> None:
    """Each of a request's bots (`arena.edge.web_agents`) within `caps` (PlayCaps() when None)."""
    for spec in specs:
        (caps or PlayCaps()).check(spec)


class PlaySession:
    """One game: the real state, the bots in the other seats and the person's record of the moves."""

    def __init__(self, game_id: str, params: dict[str, Any], bots: Sequence[AgentSpec], seat: int,
                 seed: int | None = None,
                 policy: SandboxPolicy | None = None, caps: PlayCaps | None = None) -> None:
        """Checks the game and the bots (as `arena.edge.web_agents` reads a request's list; `caps`:
        PlayCaps) and starts no process: `start` does."""
        seed = random.SystemRandom().getrandbits(63) if seed is None else seed
        specs = list(bots)
        check_bots(specs, caps)
        players = len(specs) + 1
        if "players" in params:
            raise ScheduleError("the number of players is one more than the agents you play against")
        self.state = engines.make(game_id, players=players, seed=seed, **params)
        if not 0 <= seat < players:
            raise ScheduleError(f"your seat must be between 0 and {players - 1}")
        check_can_play(specs, game_id, self.state.params)
        self.policy = policy or DEFAULT_POLICY
        self.holds = sum(spec.submitted for spec in specs)   # sandboxed processes, until they are stopped
        if self.holds:
            check_available(self.policy)
        self.game_id, self.params, self.seed, self.seat = game_id, dict(self.state.params), seed, seat
        others = iter(specs)
        self.seats = [HUMAN if p == seat else next(others) for p in range(players)]
        self.names = seat_names(players, seat, [s.label for s in specs])
        self.moves: list[dict[str, Any]] = []           # the moves as the person saw them
        self.last_move: dict[str, Any] | None = None
        self.notes: list[dict[str, Any]] = []           # views.step_notes of each move, for the person's seat
        self.saved: str | None = None         # the run id once saved
        self.failure: str | None = None       # why the game cannot go on (a bot failed, or was stopped)
        self.started = time.time()
        self.view_base = view_base(seed, "play")
        self.lock = threading.Lock()       # held briefly, whenever the state is read or changed
        self.thinking = threading.Lock()   # one bot move at a time; the page may read meanwhile
        self.used = time.monotonic()
        self.bots: dict[int, RemoteAgent | LocalAgent] = {}
        self.stopped = False      # the bots are gone (the game ended or was dropped): none starts again

    def start(self) -> "PlaySession":
        """Starts the bots, each submitted one in a sandboxed process of its own; SessionError (and
        every bot stopped) when one fails to start, or when the game is dropped meanwhile."""
        try:
            for p, spec in enumerate(self.seats):
                if p == self.seat:
                    continue
                bot = referee.make_player(spec, DEFAULT_TIME_LIMIT, self.policy)
                with self.lock:
                    kept = not self.stopped
                    if kept:
                        self.bots[p] = bot
                if not kept:
                    _stop([bot])
                    raise SessionError(self.failure or "the game was ended before its bots started")
                bot.reset(self.game_id, dict(self.params), p, derive_seed(self.seed, "play", p))
        except AgentFault as fault:
            self.close()
            raise SessionError(self.failure or f"a bot failed to start ({fault.kind}): {fault.message}") from None
        except BaseException:
            self.close()
            raise
        return self

    def view(self, session_id: str) -> dict[str, Any]:
        """What the person sees now: the position, the moves, their legal moves when it is their turn."""
        with self.lock:
            return self._view(session_id)

    def _view(self, session_id):
        state = self.state
        over = state.is_terminal()
        return {
            "session": session_id,
            "seat": self.seat,
            "view": position_view(state, self.seat, self.names, self.last_move, self.notes),
            "moves": self.moves,
            "legal": legal_moves(state) if state.current_player() == self.seat and not self.failure else [],
            "bot_to_move": not over and not self.failure and state.current_player() != self.seat,
            "failure": self.failure,
            "seed": str(self.seed) if over else None,   # as text: JavaScript numbers stop at 2**53
            "saved": self.saved,
        }

    def _apply(self, action):
        label = move_label(self.state, action, self.seat, self.names)
        self.moves.append(label)
        self.last_move = label
        before = self.state.clone()
        self.state.apply_action(action)
        self.notes.append(step_notes(before, action, self.state, self.seat))

    def human_move(self, action: object) -> None:
        with self.lock:
            state = self.state
            if state.is_terminal():
                raise SessionError("the game is over")
            if state.current_player() != self.seat:
                raise SessionError(f"it is not your turn: {self.names[state.current_player()]} is to move")
            if isinstance(action, bool) or not isinstance(action, int) or action not in state.legal_actions():
                raise SessionError(f"{action!r} is not one of your legal moves")
            self._apply(action)
        if state.is_terminal():
            self.close()

    def bot_move(self) -> None:
        """The bot to move chooses, from a determinized copy of the position (this may take its whole
        budget: call it off the event loop)."""
        with self.thinking:
            with self.lock:
                state = self.state
                seat = state.current_player()
                if self.failure:
                    raise SessionError(self.failure)
                if state.is_terminal() or seat == self.seat or not self.bots:
                    raise SessionError("no bot is to move")
                bot = self.bots[seat]

            def apply(action):
                with self.lock:
                    if self.failure:
                        raise SessionError(self.failure)
                    self._apply(action)

            try:   # only this thread changes the state while a bot is to move: it is read unlocked
                referee.play_move(state, bot, self.view_base, len(state.history()), apply=apply)
            except AgentFault as fault:
                with self.lock:   # a bot stopped meanwhile (the game was dropped) keeps that reason
                    self.failure = self.failure or \
                        f"{self.names[seat]} failed ({fault.kind}): {fault.message}; the game cannot go on"
                self.close()
                raise SessionError(self.failure) from None
        if state.is_terminal():
            self.close()

    def save(self, store_path: str) -> str:
        """Writes the finished game to the store as the one match of a run of its own (config kind
        "play"), which every reporting command and the replay page read; returns the run id."""
        with self.lock:
            if not self.state.is_terminal():
                raise SessionError("the game is not over yet: finish it before saving it")
            if self.saved:
                return self.saved
            run_id = "play-" + secrets.token_hex(5)
            params = tuple(sorted(self.params.items()))
            config = PlayConfig((GameSetting(self.game_id, self.params),), tuple(self.seats), self.seat, self.seed,
                                code_digest())
            state = self.state
            result = MatchResult(0, [float(x) for x in state.returns()], [int(p) for p in state.placements()],
                                 state.history(), [], state.metrics(), time.time() - self.started)
            store = Store(store_path)
            try:
                store.create_run(run_id, config, 1)
                store.record(MatchSpec(run_id, 0, self.game_id, params, self.seed, tuple(self.seats)), result)
                store.set_status(run_id, "finished")
            finally:
                store.close()
            self.saved = run_id
            return run_id

    def release(self, reason: str | None = None) -> list[RemoteAgent | LocalAgent]:
        """Takes the bots away from the game (none starts again; `reason`, when given, is why the
        game cannot go on) and returns them, to be `_stop`ped: quick, so it may run under a lock."""
        with self.lock:
            bots, self.bots, self.stopped, self.holds = list(self.bots.values()), {}, True, 0
            if reason and not self.failure and not self.state.is_terminal():
                self.failure = reason
        return bots

    def close(self, reason: str | None = None) -> None:
        """Stops the bots: the game is over, failed or is dropped."""
        _stop(self.release(reason))


def _stop(bots):
    """Kills the process of each submitted bot (never back to a pool: a bot's process serves one
    game); a built-in bot has no process, and is just closed."""
    for bot in bots:
        getattr(bot, "kill", bot.close)()


class Sessions:
    """The games in progress, by random id: at most `limit`, the least recently used ended first; none
    left alone for more than `MAX_IDLE` seconds; and at most `bot_limit` sandboxed bots running over
    all of them, the least recently used games' bots stopped first (those games then say so)."""

    def __init__(self, limit: int = MAX_SESSIONS, bot_limit: int = MAX_LIVE_BOTS) -> None:
        self.limit, self.bot_limit = limit, bot_limit
        self.games: OrderedDict[str, PlaySession] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, session: PlaySession) -> str:
        """Keeps `session` under a new random id, which it returns, and makes room for it and for the
        bots it is about to start (see the class)."""
        if session.holds > self.bot_limit:
            raise SessionError(f"a game may have at most {self.bot_limit} submitted bots on this server")
        session_id = secrets.token_urlsafe(16)
        with self.lock:
            self.games[session_id] = session
            dropped = [self.games.popitem(last=False)[1] for _ in range(len(self.games) - self.limit)]
            dropped += self._expired()
            live, stopped = sum(game.holds for game in self.games.values()), []
            for old in list(self.games.values()):
                if live <= self.bot_limit:
                    break
                if old is not session and old.holds:
                    live -= old.holds
                    stopped += old.release(f"its bots were stopped to make room for a newer game: at most "
                                           f"{self.bot_limit} submitted bots run at once on this server")
        for old in dropped:
            old.close()
        _stop(stopped)
        return session_id

    def open(self, session: PlaySession) -> str:
        """`add`s the session and starts its bots; returns its id. A game whose bots do not start is
        forgotten."""
        session_id = self.add(session)
        try:
            session.start()
        except BaseException:
            with self.lock:
                self.games.pop(session_id, None)
            raise
        return session_id

    def _expired(self):
        """Takes out the games nobody has touched for MAX_IDLE seconds (under the lock)."""
        now = time.monotonic()
        return [self.games.pop(key) for key, game in list(self.games.items()) if now - game.used > MAX_IDLE]

    def expire(self) -> None:
        """Ends the games nobody has touched for MAX_IDLE seconds (the server calls this every minute)."""
        with self.lock:
            dropped = self._expired()
        for old in dropped:
            old.close()

    def get(self, session_id: str) -> PlaySession:
        with self.lock:
            session = self.games.get(session_id)
            if session is None:
                raise UnknownSession(f"no game {session_id!r} in progress (it ended, or the server restarted)")
            self.games.move_to_end(session_id)
            session.used = time.monotonic()
            return session

    def end(self, session_id: str) -> None:
        with self.lock:
            session = self.games.pop(session_id, None)
        if session is None:
            raise UnknownSession(f"no game {session_id!r} in progress")
        session.close()

    def close(self) -> None:
        with self.lock:
            games, self.games = list(self.games.values()), OrderedDict()
        for session in games:
            session.close()
