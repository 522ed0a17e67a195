"""Games a person plays in the browser against bots: one `PlaySession` per game, kept in server
memory under a random id (`Sessions`, which closes the bots of a session it drops).

As in a tournament, a bot gets only `state.determinize(seat, seed)`, never the real state, and
the person only what `views.position_view` shows their seat. The deal's seed is not shown before
the end: it would give away every hand.
"""
import random
import secrets
import threading
import time
from collections import OrderedDict

import engines
from arena.agent_list import ScheduleError, parse_agent, split_list
from arena.match import AgentSpec, MatchResult, MatchSpec
from arena.play import seat_names
from arena.runner import make_player
from arena.sandbox import AgentFault, validate_all
from arena.schedule import check_can_play, code_digest
from arena.seeds import derive_seed
from arena.serve.views import legal_moves, move_label, position_view
from arena.store import Store
from arena.tournament import DEFAULT_TIME_LIMIT

HUMAN = AgentSpec("you", "human", (), "builtin", "human")
MAX_SESSIONS = 16   # games kept in memory; starting one more ends the least recently used
MAX_IDLE = 3600     # seconds: a game nobody has touched for this long is ended when another starts


class SessionError(ValueError):
    """A move or request this game cannot take (not your turn, an illegal move, a failed bot)."""


class UnknownSession(ValueError):
    """No game in progress under this id."""


def bot_specs(text, run_code=False):
    """The AgentSpecs of an agent list, one per seat other than the person's."""
    specs = [parse_agent(item, run_code) for item in split_list(text)]
    if not specs:
        raise ScheduleError("give at least one agent to play against, e.g. random")
    if any(spec.source == "human" for spec in specs):
        raise ScheduleError("the human agent plays in a terminal: here you are the human; give bots")
    return specs


class PlaySession:
    """One game: the real state, the bots in the other seats and the person's record of the moves."""

    def __init__(self, game_id, params, bot_text, seat, seed=None, policy=None):
        seed = random.SystemRandom().getrandbits(63) if seed is None else seed
        specs = bot_specs(bot_text, run_code=policy is not None and policy.mode == "none")
        players = len(specs) + 1
        if "players" in params:
            raise ScheduleError("the number of players is one more than the agents you play against")
        self.state = engines.make(game_id, players=players, seed=seed, **params)
        if not 0 <= seat < players:
            raise ScheduleError(f"your seat must be between 0 and {players - 1}")
        check_can_play(specs, game_id, players)
        validate_all(specs, policy)
        self.game_id, self.params, self.seed, self.seat = game_id, dict(self.state.params), seed, seat
        others = iter(specs)
        self.seats = [HUMAN if p == seat else next(others) for p in range(players)]
        self.names = seat_names(players, seat, [s.label for s in specs])
        self.moves = []           # the moves as the person saw them
        self.last_move = None
        self.saved = None         # the run id once saved
        self.failure = None       # why the game cannot go on (a bot failed)
        self.started = time.time()
        self.rng = random.Random(seed)
        self.lock = threading.Lock()       # held briefly, whenever the state is read or changed
        self.thinking = threading.Lock()   # one bot move at a time; the page may read meanwhile
        self.used = time.monotonic()
        self.bots = {}
        try:
            for p, spec in enumerate(self.seats):
                if p != seat:
                    self.bots[p] = make_player(spec, DEFAULT_TIME_LIMIT, policy)
                    self.bots[p].reset(game_id, dict(self.params), p, derive_seed(seed, "play", p))
        except AgentFault as fault:
            self.close()
            raise SessionError(f"a bot failed to start ({fault.kind}): {fault.message}") from None

    def view(self, session_id):
        """What the person sees now: the position, the moves, their legal moves when it is their turn."""
        with self.lock:
            return self._view(session_id)

    def _view(self, session_id):
        state = self.state
        over = state.is_terminal()
        return {
            "session": session_id,
            "seat": self.seat,
            "view": position_view(state, self.seat, self.names, self.last_move),
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
        self.state.apply_action(action)

    def human_move(self, action):
        with self.lock:
            state = self.state
            if state.is_terminal():
                raise SessionError("the game is over")
            if state.current_player() != self.seat:
                raise SessionError(f"it is not your turn: {self.names[state.current_player()]} is to move")
            if isinstance(action, bool) or not isinstance(action, int) or action not in state.legal_actions():
                raise SessionError(f"{action!r} is not one of your legal moves")
            self._apply(action)

    def bot_move(self):
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
                view, bot = state.determinize(seat, seed=self.rng.getrandbits(63)), self.bots[seat]
            try:
                action = bot.act(view)
                if isinstance(action, bool) or action not in state.legal_actions():
                    raise AgentFault("illegal", f"returned {action!r}, not a legal action")
            except AgentFault as fault:
                self.failure = f"{self.names[seat]} failed ({fault.kind}): {fault.message}; the game cannot go on"
                raise SessionError(self.failure) from None
            with self.lock:
                self._apply(int(action))

    def save(self, store_path):
        """Writes the finished game to the store as the one match of a run of its own (config kind
        "play"), which every reporting command and the replay page read; returns the run id."""
        with self.lock:
            if not self.state.is_terminal():
                raise SessionError("the game is not over yet: finish it before saving it")
            if self.saved:
                return self.saved
            run_id = "play-" + secrets.token_hex(5)
            params = tuple(sorted(self.params.items()))
            config = {"kind": "play", "games": [{"game_id": self.game_id, "params": self.params}],
                      "agents": [s.as_dict() for s in self.seats], "human_seat": self.seat, "seed": self.seed,
                      "code": code_digest()}
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

    def close(self):
        for bot in self.bots.values():
            bot.close()
        self.bots = {}


class Sessions:
    """The games in progress, by random id: at most `limit`, the least recently used ended first, and
    none left alone for more than `MAX_IDLE` seconds."""

    def __init__(self, limit=MAX_SESSIONS):
        self.limit = limit
        self.games: OrderedDict[str, PlaySession] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, session):
        session_id = secrets.token_urlsafe(16)
        with self.lock:
            self.games[session_id] = session
            dropped = [self.games.popitem(last=False)[1] for _ in range(len(self.games) - self.limit)]
            while self.games and time.monotonic() - next(iter(self.games.values())).used > MAX_IDLE:
                dropped.append(self.games.popitem(last=False)[1])
        for old in dropped:
            old.close()
        return session_id

    def get(self, session_id):
        with self.lock:
            session = self.games.get(session_id)
            if session is None:
                raise UnknownSession(f"no game {session_id!r} in progress (it ended, or the server restarted)")
            self.games.move_to_end(session_id)
            session.used = time.monotonic()
            return session

    def end(self, session_id):
        with self.lock:
            session = self.games.pop(session_id, None)
        if session is None:
            raise UnknownSession(f"no game {session_id!r} in progress")
        session.close()

    def close(self):
        with self.lock:
            games, self.games = list(self.games.values()), OrderedDict()
        for session in games:
            session.close()
