"""The process a submitted bot runs in (inside the sandbox): `python -I -m arena.bot_server LIMITS`.

It sets its resource limits before any of the bot's code runs, then answers the arena's requests
(load, reset, act) one at a time on the frames of arena.wire: requests come from the arena
(pickled states it built), replies go back as JSON plain data. Everything the bot prints goes
to stderr, so a chatty bot cannot corrupt the protocol.
"""
import json
import operator
import os
import pickle
import resource
import signal
import sys
import time
import traceback

from arena.wire import WireError, read_frame, send_json

RLIMITS = {"memory": (resource.RLIMIT_AS, 1 << 20), "cpu": (resource.RLIMIT_CPU, 1),
           "processes": (resource.RLIMIT_NPROC, 1), "file_size": (resource.RLIMIT_FSIZE, 1 << 20),
           "open_files": (resource.RLIMIT_NOFILE, 1)}


def apply_limits(limits):
    """Soft and hard limits at once: the bot cannot raise them again."""
    for name, value in limits.items():
        which, unit = RLIMITS[name]
        resource.setrlimit(which, (int(value * unit), int(value * unit)))


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
    if isinstance(exc, SyntaxError):
        return "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1][:300]
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


def _action_reply(action):
    # Any integer type counts (a numpy integer too); a float, a string or a bool never does.
    if not isinstance(action, bool):
        try:
            return {"action": operator.index(action)}
        except TypeError:
            pass
    return {"action": None, "returned": repr(action)[:100]}


def serve(code_dir):
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the arena's to handle
    requests, replies = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if code_dir:
        sys.path.insert(0, code_dir)
    agent = None
    while True:
        try:
            message = pickle.loads(read_frame(requests))
        except WireError:
            return
        try:
            if message[0] == "load":
                _, kind, target, params = message
                agent = load_class(kind, target)(**params)
                reply = {"ok": True}
            elif message[0] == "reset":
                if hasattr(agent, "reset"):
                    agent.reset(*message[1:])
                reply = {"ok": True, "cpu": time.process_time()}
            else:
                _, state, check = message
                before = (state.snapshot(), state.history()) if check else None
                reply = _action_reply(agent.act(state))
                if check:
                    reply["modified"] = (state.snapshot(), state.history()) != before
        except Exception as e:
            reply = {"error": describe(e)}
        send_json(replies, reply)


if __name__ == "__main__":
    settings = json.loads(sys.argv[1])
    apply_limits(settings["limits"])
    serve(settings["code_dir"])
