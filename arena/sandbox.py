"""Submitted agents run in a process of their own, one per seat and match.

The parent talks to the child through pickled messages on its stdin/stdout pipes (the child moves
the agent's own prints to stderr, so a chatty bot cannot corrupt the protocol). Every request waits
at most its time limit: a child that does not answer in time is killed and the agent faults with
"timeout"; a child that dies faults with "crash"; an exception in the agent's code is "exception".

This is isolation from faults, not a security boundary: the agent's code runs with the user's rights.
"""
import os
import pickle
import signal
import subprocess
import sys
import time
import traceback
from multiprocessing.connection import Connection

STARTUP_LIMIT = 60.0   # seconds to start the interpreter and load the agent's class


class AgentFault(Exception):
    """An agent misbehaved: kind is exception, illegal, timeout or crash."""

    def __init__(self, kind, message):
        super().__init__(f"{kind}: {message}")
        self.kind, self.message = kind, message


def load_class(kind, target):
    """The agent class named by a submitted agent's target (file path or module, then ':Class')."""
    import importlib
    import importlib.util
    where, _, name = target.rpartition(":")
    if kind == "file":
        module_name = "arena_submitted_" + os.path.splitext(os.path.basename(where))[0]
        spec = importlib.util.spec_from_file_location(module_name, where)
        if spec is None:
            raise ImportError(f"cannot load {where}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part)
    if not callable(getattr(obj, "act", None)):
        raise TypeError(f"{name} has no act(state) method")
    return obj


def describe(exc):
    """An exception as one line: "Type: message", at most 300 characters."""
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


class RemoteAgent:
    """An agent in its own process, with the `reset`/`act` interface of agents.Agent."""

    def __init__(self, spec, time_limit=0.0):
        self.spec = spec
        self.time_limit = time_limit or None
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in [os.getcwd()] + sys.path if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena.sandbox"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        self._out = Connection(os.dup(self.proc.stdin.fileno()), readable=False)
        self._in = Connection(os.dup(self.proc.stdout.fileno()), writable=False)
        self.proc.stdin.close()
        self.proc.stdout.close()
        try:
            self._call(("load", self.spec.kind, self.spec.target, dict(self.spec.params), os.getcwd()),
                       STARTUP_LIMIT)
        except AgentFault:
            self.close()
            raise

    def _call(self, message, limit):
        if self.proc.poll() is not None:
            raise AgentFault("crash", self._death())
        try:
            self._out.send(message)
        except (BrokenPipeError, OSError):
            raise AgentFault("crash", self._death()) from None
        try:
            ready = self._in.poll(limit)
        except (EOFError, OSError):
            ready = True
        if not ready:
            self.close()
            raise AgentFault("timeout", f"no answer within {limit:g} s")
        try:
            status, value = self._in.recv()
        except (EOFError, OSError, pickle.UnpicklingError):
            raise AgentFault("crash", self._death()) from None
        if status == "error":
            raise AgentFault("exception", value)
        return value

    def _death(self):
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.close()
            return "the agent's process stopped answering"
        if code < 0:
            try:
                return f"the agent's process was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"the agent's process was killed by signal {-code}"
        return f"the agent's process exited with code {code}"

    def reset(self, game_id, game_params, seat, seed):
        limit = max(self.time_limit or 0.0, 10.0)
        self._call(("reset", game_id, game_params, seat, seed), limit)

    def act(self, state, check=False):
        """The agent's action for `state`; with check=True, (action, whether it modified the state)."""
        action, modified = self._call(("act", state, check), self.time_limit)
        return (action, modified) if check else action

    def close(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for c in (self._out, self._in):
            try:
                c.close()
            except OSError:
                pass


def validate(spec):
    """None if a submitted agent loads and instantiates with its parameters, else the error text."""
    try:
        agent = RemoteAgent(spec)
    except AgentFault as f:
        return f.message
    agent.close()
    return None


def validate_all(specs):
    """Raises ValueError (one line) for the first submitted agent that does not load and instantiate."""
    for spec in specs:
        if spec.submitted:
            problem = validate(spec)
            if problem:
                raise ValueError(f"agent {spec.label} ({spec.source}): {problem}")


def check_agent(spec, game_id, game_params, games=2, seed=0, time_limit=10.0):
    """Checks an agent before a tournament; returns [{"check", "ok", "detail"}].

    The agent plays `games` matches against random agents, taking each seat in turn, in its own
    process; each match is then replayed with the same seeds. Checked: it loads, it returns legal
    actions, it leaves the state it is given unmodified, it keeps to the per-move time limit (and
    neither raises nor crashes), and it plays the same actions under the same seeds.
    """
    import random
    import engines
    from arena.schedule import derive_seed

    if not spec.submitted:
        import agents.registry
        spec = type(spec)(spec.label, spec.source, spec.params, "module", agents.registry.BUILTIN[spec.source])
    problems = {"loads": [], "runs": [], "legal": [], "unmodified": [], "budget": [], "deterministic": []}
    times, moves, phase = [], 0, ["loads"]

    def play(g):
        nonlocal moves
        match_seed = derive_seed(seed, "check", g)
        state = engines.make(game_id, seed=match_seed, **game_params)
        me = g % state.num_players
        others = random.Random(match_seed)
        phase[0] = "loads"
        agent = RemoteAgent(spec, time_limit)
        actions = []
        try:
            agent.reset(game_id, dict(game_params), me, derive_seed(match_seed, "agent"))
            phase[0] = "runs"
            while not state.is_terminal():
                legal = state.legal_actions()
                if state.current_player() != me:
                    state.apply_action(others.choice(legal))
                    continue
                view = state.determinize(me, derive_seed(match_seed, len(state.history())))
                started = time.perf_counter()
                action, modified = agent.act(view, check=True)
                times.append(time.perf_counter() - started)
                moves += 1
                if modified:
                    problems["unmodified"].append(f"match {g}, move {len(actions)}: the state was modified")
                if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                    problems["legal"].append(f"match {g}, move {len(actions)}: returned {action!r}")
                    break
                actions.append(action)
                state.apply_action(action)
        finally:
            agent.close()
        return actions

    for g in range(games):
        try:
            first = play(g)
            if play(g) != first:
                problems["deterministic"].append(f"match {g}: different actions under the same seeds")
        except AgentFault as f:
            key = "budget" if f.kind == "timeout" and phase[0] == "runs" else phase[0]
            problems[key].append(f"match {g}: {f.kind}: {f.message}")
            break
    timing = (f"{moves} moves, longest {max(times):.3f} s, mean {sum(times) / len(times):.3f} s "
              f"(limit {time_limit:g} s)") if times else "no move played"
    detail = {"loads": f"{spec.target}", "runs": "no exception, no crash", "legal": f"{moves} moves checked", "unmodified": f"{moves} moves checked",
              "budget": timing, "deterministic": f"{games} matches replayed with the same seeds"}
    names = {"loads": "loads and resets", "runs": "plays without raising or crashing", "legal": "returns legal actions",
             "unmodified": "does not modify the state it is given", "budget": "keeps to its time budget",
             "deterministic": "deterministic under a seed"}
    return [{"check": names[k], "ok": not problems[k], "detail": problems[k][0] if problems[k] else detail[k]}
            for k in names]


def _serve():
    # The protocol owns the original stdout; everything the agent prints goes to stderr.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = Connection(os.dup(1), readable=False)
    inp = Connection(os.dup(0), writable=False)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    agent = None
    while True:
        try:
            message = inp.recv()
        except EOFError:
            return
        try:
            if message[0] == "load":
                _, kind, target, params, cwd = message
                if cwd not in sys.path:
                    sys.path.insert(0, cwd)
                agent = load_class(kind, target)(**params)
                reply = None
            elif message[0] == "reset":
                if hasattr(agent, "reset"):
                    agent.reset(*message[1:])
                reply = None
            else:
                _, state, check = message
                before = (state.snapshot(), state.history()) if check else None
                action = agent.act(state)
                try:
                    action = int(action) if not isinstance(action, bool) else action
                except (TypeError, ValueError):
                    pass
                reply = (action, check and (state.snapshot(), state.history()) != before)
            out.send(("ok", reply))
        except Exception as e:
            out.send(("error", describe(e) if not isinstance(e, SyntaxError) else
                      "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()[-1]))


if __name__ == "__main__":
    _serve()
