"""Bots in any language: the adapter that speaks the Tabletop Bot Protocol v1 (docs/protocol.md),
JSON lines over the bot program's stdin and stdout, in the bot's box.

`ExecBot` is an agent class like any submitted Python class: the match process loads it
(arena.sandbox.fork_server.load_class, kind "exec"), so the box, the deadlines, the freezer and the fault
rules are the same as for a Python bot. It starts the bot's command as its child, turns each
request into a protocol message and the bot's reply into an action id. It holds the determinized
state the arena sends (with every hidden card resampled), and sends the bot only
`observation(seat)`, the legal actions with their names, and the public actions the arena passes
it, each as `action_view` shows it to the seat; never anything else of the state.

The bot's faults are its own: a line that is not a JSON object, an unknown or unexpected message,
a line longer than 64 KiB, a line written when no request was pending, or an action that is not
legal is "illegal"; a bot that exits, or closes its output, is a "crash" (the match process ends
with the bot's own exit status, so the arena reports it as for a Python bot); a late reply is the
arena's "timeout". Every read and write of the adapter has a deadline, and it reads at most one
line's worth beyond what it needs, so no output of the bot can hang it or fill its memory.

The host's side of exec agents (`exec:PATH`, the manifest, staging and the build, the public
actions) is arena.sandbox.exec_host. This module imports nothing of the project.
"""
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from engines.core import GameState

PROTOCOL = 1
MAX_LINE = 64 * 1024          # bytes in one line, either way, newline not counted
HELLO_LIMIT = 10.0            # seconds for the bot's hello (or the per-move limit, if longer)
EXIT_WAIT = 2.0               # seconds a bot that closed its output gets to exit
SEED_BITS = 53                # the seed in `start` is exact in every language's JSON numbers


class ExecFault(Exception):
    """The bot broke the protocol: `kind` is illegal or timeout, `what` what it sent (a noun phrase),
    `due` the protocol message that was due (hello or action), which the fault's message names first.
    `reply` is the match process's answer to the arena: no action, as from a Python bot that
    returned nonsense (the arena's "illegal: returned WHAT, not a legal action"), and the fault."""

    def __init__(self, kind: str, what: str, due: str = "action") -> None:
        super().__init__(what)
        self.kind, self.what, self.due = kind, what, due

    @property
    def reply(self) -> dict[str, Any]:
        message = f"{self.due}: " + (self.what if self.kind == "timeout" else f"sent {self.what}")
        return {"action": None, "returned": self.what, "fault": {"kind": self.kind, "message": message}}


class BotExited(Exception):
    """The bot's process ended (or closed its output); `status` is its exit code, -N for signal N."""

    def __init__(self, status):
        super().__init__(f"status {status}")
        self.status = status


def _wait(fd, events, deadline):
    """Waits for `events` on `fd` until `deadline` (time.monotonic(); None: no limit)."""
    poller = select.poll()
    poller.register(fd, events | select.POLLHUP | select.POLLERR)
    while True:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if poller.poll(None if left is None else left * 1000):
            return
        if left is not None and deadline - time.monotonic() <= 0:
            raise ExecFault("timeout", "no answer in time")


class Lines:
    """The bot's output as lines of at most MAX_LINE bytes, read without blocking past a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.closed = fd, bytearray(), False
        os.set_blocking(fd, False)

    def _fill(self):
        try:
            chunk = os.read(self.fd, MAX_LINE + 1)
        except BlockingIOError:
            return
        if not chunk:
            self.closed = True
        self.buffer += chunk

    def waiting(self) -> bool:
        """Whether the bot has written something nobody asked for."""
        if not self.buffer and not self.closed:
            self._fill()
        return bool(self.buffer)

    def line(self, deadline: float | None) -> bytes:
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                raise ExecFault("illegal", f"a line longer than {MAX_LINE} bytes")
            if self.closed:
                raise BotExited(None)
            _wait(self.fd, select.POLLIN, deadline)
            self._fill()
        line, _, rest = bytes(self.buffer).partition(b"\n")
        if len(line) > MAX_LINE:
            raise ExecFault("illegal", f"a line longer than {MAX_LINE} bytes")
        self.buffer = bytearray(rest)
        return line


def _decode(line):
    """One line of the bot's as a JSON object with a string "type", else ExecFault."""
    shown = repr(line[:40])[2:-1] + ("..." if len(line) > 40 else "")
    try:
        value = json.loads(line.decode("utf-8"))
    except RecursionError:
        raise ExecFault("illegal", "a line nested too deep") from None
    except (UnicodeDecodeError, ValueError):
        raise ExecFault("illegal", f"a line that is not JSON ({shown})") from None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise ExecFault("illegal", f"a line that is not a message, a JSON object with a type ({shown})")
    return value


def _exit_as(status):
    """Ends this match process as the bot's process ended, so that the arena reports the bot's own
    exit code or signal as this process's ("crash")."""
    sys.stdout.flush()
    if status is not None and status < 0:
        try:
            signal.signal(-status, signal.SIG_DFL)
            os.kill(os.getpid(), -status)
        except (OSError, ValueError):
            pass
    os._exit(status if status is not None and 0 <= status < 256 else 1)


class ExecBot:
    """The agent that speaks protocol v1 to a bot program; `target` is `load_target`'s JSON.

    A protocol fault in the handshake is booked at the bot's first move (the arena's reset takes
    no action); a bot that exits ends this process as it ended (`mirror_exit`; a test that runs
    the adapter in its own process sets it False and gets BotExited instead).
    """

    mirror_exit = True
    clock = None   # the bot's clock (remaining, increment) before each request, under a time control

    def __init__(self, target: str, params: dict[str, Any] | None = None) -> None:
        where = json.loads(target)
        self.params = {str(k): str(v) for k, v in (params or {}).items()}
        self.per_move: float | None = None    # seconds per move, once the arena says (see `configure`)
        self.public: list[Any] = []        # the public actions since this seat's last request
        self.failed: Exception | None = None      # a fault of the handshake, booked at the first move
        command = where["command"]
        try:
            self.process = subprocess.Popen(command, cwd=where["folder"], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, close_fds=True, bufsize=0)
        except OSError as e:
            raise RuntimeError(f"cannot run its command {command[0]}: {e.strerror}") from None
        assert self.process.stdin is not None and self.process.stdout is not None   # both are pipes
        self.to_bot = self.process.stdin.fileno()
        os.set_blocking(self.to_bot, False)
        self.lines = Lines(self.process.stdout.fileno())

    def configure(self, options: dict[str, Any]) -> None:
        """What the arena says of the match's limits: {"time_limit": seconds per move or None}."""
        limit = options.get("time_limit")
        self.per_move = float(limit) if isinstance(limit, (int, float)) and limit > 0 else None

    # ------------------------------------------------------------ the bot's pipes

    def _gone(self):
        """The bot closed its pipes: waits briefly for its exit status, then ends as it ended."""
        try:
            status = self.process.wait(timeout=EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = None
        if self.mirror_exit:
            _exit_as(status)
        raise BotExited(status)

    def _send(self, message, deadline):
        data = memoryview((json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode())
        try:
            while data:
                _wait(self.to_bot, select.POLLOUT, deadline)
                try:
                    data = data[os.write(self.to_bot, data):]
                except BlockingIOError:
                    continue
        except (BrokenPipeError, ConnectionResetError):
            raise BotExited(None) from None
        except ExecFault:
            raise ExecFault("timeout", "no read of its request in time") from None

    def _exchange(self, message, expected, deadline):
        """Sends `message`, returns the bot's reply, a message of type `expected`."""
        try:
            self._send(message, deadline)
            reply = _decode(self.lines.line(deadline))
        except BotExited:
            self._gone()
        if reply["type"] != expected:
            raise ExecFault("illegal", f"a {printable_type(reply['type'])} message where an {expected} "
                                       f"message was due" if expected == "action" else
                                       f"a {printable_type(reply['type'])} message where its {expected} was due")
        return reply

    def _deadline(self, limit):
        """Just after the arena's own deadline: the arena reports a late bot itself, and the
        adapter never waits longer than the arena does."""
        return None if limit is None else time.monotonic() + limit + 1.0

    # ------------------------------------------------------------ the agent

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        self.public = []
        params = dict(game_params)
        start = {"type": "start", "protocol": PROTOCOL, "game": game_id, "params": params, "seat": int(seat),
                 "players": int(params["players"]) if "players" in params else None,
                 "time": {"per_move": self.per_move}, "seed": int(seed) % (1 << SEED_BITS),
                 "agent_params": self.params}
        limit = max(self.per_move or 0.0, HELLO_LIMIT) if self.per_move else None
        try:
            hello = self._exchange(start, "hello", self._deadline(limit))
            version = hello.get("protocol")
            if version != PROTOCOL or isinstance(version, bool):
                raise ExecFault("illegal", f"a hello in protocol version {printable_type(version)}, expected {PROTOCOL}")
            name = hello.get("name")
            if not isinstance(name, str) or not 0 < len(name) <= 64:
                raise ExecFault("illegal", "a hello without a name (a string of 1 to 64 characters)")
        except ExecFault as f:
            f.due = "hello"
            self.failed = f

    def observe(self, public: list[Any]) -> None:
        """The public actions since the last request, from the arena (see `public_action`)."""
        self.public.extend(public)

    def act(self, state: GameState) -> int | str:
        received = time.monotonic()
        if self.failed is not None:
            raise self.failed
        if self.lines.waiting():
            raise ExecFault("illegal", "a line when no request was pending")
        seat = state.current_player()
        legal = state.legal_actions()
        names = [state.action_to_string(a) for a in legal]
        limit = self.per_move   # this reply's limit: the smaller of the per-move limit and the clock
        if self.clock is not None and (limit is None or self.clock.remaining < limit):
            limit = self.clock.remaining
        spent = time.monotonic() - received
        clock = {"left": None if limit is None else max(0.0, limit - spent),
                 "remaining": None if self.clock is None else max(0.0, self.clock.remaining - spent),
                 "increment": None if self.clock is None else self.clock.increment}
        request = {"type": "request", "observation": state.observation(seat),
                   "legal": [{"id": int(a), "text": t} for a, t in zip(legal, names)],
                   "public_actions": self.public, "clock": clock}
        self.public = []
        reply = self._exchange(request, "action", self._deadline(limit))
        has_id, has_text = "id" in reply, "text" in reply
        if has_id == has_text:
            raise ExecFault("illegal", "an action with neither or both of id and text")
        if has_id:
            action = reply["id"]
            if not isinstance(action, int) or isinstance(action, bool):
                raise ExecFault("illegal", f"the id {printable_type(action)}, not an integer")
            return action   # the referee checks that it is legal, as for a Python bot
        text = reply["text"]
        if not isinstance(text, str):
            raise ExecFault("illegal", "a text that is not a string")
        if text in names:
            return legal[names.index(text)]
        return text[:100]   # not a legal action's name: the referee's "illegal" (returned '...')

    def end(self, returns: Sequence[float]) -> None:
        """The match is over: tells the bot its returns (it then exits)."""
        try:
            self._send({"type": "end", "returns": [float(r) for r in returns]}, time.monotonic() + 1.0)
        except (ExecFault, BotExited):
            pass


def printable_type(value: object) -> str:
    """A value of the bot's, short and printable, for a fault message."""
    text = repr(value)
    return "".join(c if c.isprintable() else "?" for c in text[:40]) + ("..." if len(text) > 40 else "")


def adapter(target: str) -> Callable[..., ExecBot]:
    """The agent class the match process instantiates with the agent's parameters."""
    return lambda **params: ExecBot(target, params)
