"""Fuzz of the `arena` command line: random bad (and some valid) command lines for every
subcommand never give a traceback, an "internal error", a hang or an exit code other than 0, 2 or
130; an error is one line starting with "Error:"; a real `arena` process leaves no process behind.

Seeded: a failure names its case number and command line, and the same seed gives the same cases.
Valid tournaments are kept tiny (one deal, one job, small search budgets) so that the whole file
runs in well under a minute and a half.
"""
import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from arena.cli import main
from paths import ROOT

SEED = int(os.environ.get("ARENA_FUZZ_SEED", "15"))   # another seed explores other cases
IN_PROCESS_CASES = 520
SUBPROCESS_CASES = 40
COMMAND_TIMEOUT = 30     # seconds for one in-process command line
SUBPROCESS_TIMEOUT = 60  # seconds for one real `arena` process
EXIT_CODES = {0, 2, 130}
REPO = ROOT


def _registry(what):
    result = CliRunner().invoke(main, [what, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


AGENTS = {a["name"]: a["params"] for a in _registry("agents") if a["kind"] == "builtin"}
GAMES = {g["game_id"]: g for g in _registry("games")}
SUBCOMMANDS = ["run", "leaderboard", "matchups", "graph", "report", "play", "replay", "games", "agents",
               "check-agent", "bench", "ladder", "ladders"]
LADDER_NAMES = ["lad", "nosuch", "", " ", "-x", "a" * 70, "../x", "\x1bc", "é", "la d", "lad"]

# Budgets that keep a valid tournament to about a second; a fuzzed budget only takes bad or small values.
CHEAP = {"ismcts": {"iterations": "20"}, "minimax": {"depth": "1", "determinizations": "2"},
         "alphabeta": {"depth": "2", "tt_bits": "10"}, "pimc": {"samples": "2", "nodes": "1000"},
         "openspiel_mcts": {"iterations": "10", "rollout": "engine"},
         "openspiel_ismcts": {"iterations": "10", "rollout": "engine"}}
BUDGETS = {"iterations", "time", "depth", "determinizations", "tt_bits", "threads", "rollouts", "samples",
           "nodes"}
SMALL_BUDGETS = ["1", "2", "0.0", "1e-320", "0.001"]   # for `time`, only the last three are cheap
NON_FINITE = ["nan", "inf", "-inf", "NaN", "Infinity", "-Infinity", "1e308", "-1e308", "1e309", "-1e309"]
BAD_VALUES = NON_FINITE + [
    "-1", "0", "-0", "10" * 20, "-" + "9" * 40, "1e30", "1.5", "0x10", "1_000", "abc", "", " ", "true",
    "False", "None", "[]", "1,2", "1;2", "é", "\u0663", "\x1b[31mred", "\x1bc", "\x07", "\t", "\x00", "'", '"',
    "=", "==", "x=y", "%s", "{}", "\\", "-" * 50, "9" * 400,
]
GAME_VALUES = BAD_VALUES + ["0", "1", "2", "15", "16", "99", "10,9", "1,,2", "3,0", "3,-1", "XYZ", "x" * 200,
                            "all4", "orthogonal", "random", "dog", "pairs", "single_round", "on", "off"]
BAD_NAMES = ["nosuch", "", " ", "ISMCTS", "greedy ", "is mcts", "\x1bc", "a" * 300, "../x", "-x", "--agents",
             "ismcts:", ":Bot", "x.py:Bot", "./missing.py:Bot", "os:not an identifier", "no_such_module:Bot",
             "é", "\x00", "human"]
RUN_IDS = ["nosuch", "", "insert-0000000000", "../x", "\x1b[2J", "1", "-1", "latest", "a" * 500]
COUNTS = ["0", "-1", "1", "2", "10" * 15, "-" + "9" * 30, "abc", "", "1.5", "nan", "inf", "1e3", " 1", "0x2"]
FLOATS = ["nan", "inf", "-inf", "0", "-1", "1e308", "1e-320", "abc", "", "3600", "3600.0001", "0.5", "-0"]


# Bugs the fuzz found in code this test's author may not change: (predicate on the command line, why).
# Such cases are left out of the fuzz runs and kept as a skipped test below.
KNOWN_BUGS: list = []


def known_bug(args):
    return next((why for test, why in KNOWN_BUGS if test(args)), None)


class Hang(BaseException):
    """A command line ran past COMMAND_TIMEOUT (a BaseException: nothing in the arena may swallow it)."""


# ---------------------------------------------------------------- the world the commands see

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A folder with a good store (one tiny finished run), a damaged one, a non-SQLite one, an empty
    one, a directory and bad --out targets; the commands run with it as the current directory."""
    root = tmp_path_factory.mktemp("fuzz")
    good = root / "good.sqlite"
    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, ["run", "--game", "insert", "--games", "1", "--jobs", "1",
                                           "--agents", "greedy,random", "--store", str(good), "--json"])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run_id"]
    for args in (["ladder", "new", "lad", "--game", "insert", "--sandbox", "none"], ["ladder", "add", "lad", "random"],
                 ["ladder", "add", "lad", "greedy"]):   # a ladder of two entries in the good store
        made = CliRunner().invoke(main, args + ["--store", str(good)])
        assert made.exit_code == 0, made.output
    damaged = root / "damaged.sqlite"
    shutil.copy(good, damaged)
    with sqlite3.connect(damaged) as db:
        page = db.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(damaged.read_bytes())
    rng = random.Random(SEED)
    for i in range(page * 2, len(data) - page, 7):   # every middle page garbled, header and last page kept
        data[i] = rng.randrange(256)
    damaged.write_bytes(bytes(data))
    (root / "text.sqlite").write_text("not a database\n" * 100)
    (root / "empty.sqlite").write_bytes(b"")
    (root / "truncated.sqlite").write_bytes(good.read_bytes()[:page + 100])
    with sqlite3.connect(root / "other.sqlite") as db:     # another program's database
        db.execute("CREATE TABLE notes (text)")
    with sqlite3.connect(root / "clash.sqlite") as db:     # a table of the store's name, other columns
        db.execute("CREATE TABLE runs (x)")
    for made in root.glob("*.sqlite"):
        made.chmod(0o600)   # as the arena keeps a store (a loose one is tightened with a line of its own)
    (root / "adir").mkdir()
    (root / "bot.py").write_text("class Bot:\n    pass\n")
    (root / "syntax.py").write_text("class Bot(:\n")
    return {"root": root, "run_id": run_id,
            "stores": [str(good)] * 4 + ["damaged.sqlite", "text.sqlite", "empty.sqlite", "truncated.sqlite",
                                         "adir", "missing/x.sqlite", "new.sqlite", "", "adir/", "\x1b.sqlite",
                                         "other.sqlite", "clash.sqlite", "/dev/null", "/proc/self/status"]}


# ---------------------------------------------------------------- the generator

class Gen:
    """Random command lines: mostly bad, some valid; a valid tournament is always tiny."""

    def __init__(self, rng, world):
        self.r = rng
        self.w = world
        self.n = 0

    def p(self, prob):
        return self.r.random() < prob

    def pick(self, seq):
        return self.r.choice(list(seq))

    def store(self, fresh_prob=0.5):
        self.n += 1
        if self.p(fresh_prob):
            return f"s{self.n}.sqlite"
        return self.pick(self.w["stores"])

    def run_id(self):
        return self.w["run_id"] if self.p(0.4) else self.pick(RUN_IDS)

    # -- agents

    def agent_param(self, name):
        """One "k=v" for a built-in agent: a real parameter with a bad value, mostly."""
        params = AGENTS[name]
        if not params or self.p(0.1):
            return f"{self.pick(['nosuch', '', 'x y', 'seed', 'ITERATIONS', chr(27)])}={self.pick(BAD_VALUES)}"
        k = self.pick(params)
        if k in BUDGETS:
            v = self.pick([v for v in BAD_VALUES + SMALL_BUDGETS if _cheap_enough(name, k, v)])
        elif isinstance(params[k], bool):
            v = self.pick(BAD_VALUES + ["true", "false", "1", "0", "yes"])
        elif isinstance(params[k], str):
            v = self.pick(BAD_VALUES + ["round", "game", "average", "vote", "paranoid", "maxn"])
        else:
            v = self.pick(BAD_VALUES + ["0", "1", "0.5", "18446744073709551615", "18446744073709551616"])
        return f"{k}={v}"

    def agent_item(self, human=True):
        roll = self.r.random()
        if roll < 0.15:
            return self.pick(BAD_NAMES)
        if roll < 0.2:
            return self.pick(["bot.py:Bot", "./bot.py:Bot", "syntax.py:Bot", "./bot.py:Nope", "json:JSONDecoder",
                              "ismcts[", "ismcts]", "ismcts[[iterations=1]]", "[]", "ismcts[]", "ismcts[=]",
                              "ismcts[iterations]", "greedy[,,]", "greedy as", "greedy as a b", "as x",
                              "greedy as \x1bc", "random as random", "greedy[x=1]", "ismcts [iterations=20]"])
        name = self.pick([n for n in AGENTS if n != "human"]) if self.p(0.97) or not human else "human"
        params = dict(CHEAP.get(name, {}))
        for _ in range(self.r.randrange(0, 3) if AGENTS[name] else self.r.randrange(0, 2)):
            k, _, v = self.agent_param(name).partition("=")
            params[k] = v
        text = name + (f"[{','.join(f'{k}={v}' for k, v in params.items())}]" if params else "")
        if self.p(0.2):
            text += " as " + self.pick(["a", "b", "x" * 100, "\x1b[2J", "é", "a,b", "[x]", ""])
        return text

    def agents(self):
        if self.p(0.05):
            return self.pick(["", " ", ",", ",,", "greedy", "greedy,", "[", "]", "greedy,,random", "a" * 5000,
                              ",".join(["random"] * 50), ",".join(f"random as r{i}" for i in range(60))])
        items = [self.agent_item() for _ in range(self.r.choice([1, 2, 2, 2, 3]))]
        if self.p(0.5):
            items.append(self.pick(["random", "greedy"]))
        return self.pick([", ", ",", " , "]).join(items)

    # -- games

    def game(self):
        roll = self.r.random()
        if roll < 0.55:
            return "insert"
        if roll < 0.8:
            return self.pick(GAMES)
        return self.pick(["nosuch", "", "INSERT", "insert ", "\x1bc", "all", "wizard,insert", "x" * 300])

    def game_params(self, game):
        out = []
        for _ in range(self.r.randrange(1, 3)):
            params = GAMES[game]["params"] if game in GAMES else {}
            if params and self.p(0.85):
                k = self.pick(params)
                v = self.pick(GAME_VALUES + list(GAMES[game]["choices"].get(k, [])))
            else:
                k, v = self.pick(["nosuch", "players", "", "hands", "tiles", "x y"]), self.pick(GAME_VALUES)
            out.append(self.pick([f"{k}={v}", f"{k}={v}", k, f"={v}", f"{k}=", f"{k}={v},{k}={v}"]))
        return out

    def option(self, prob, name, values):
        """[name, one of values] with probability prob."""
        return [name, self.pick(values)] if self.p(prob) else []

    def param_options(self, game, prob):
        """--param options for a registered game, with probability prob."""
        return [a for param in self.game_params(game) for a in ("--param", param)] \
            if game in GAMES and self.p(prob) else []

    # -- subcommands

    def cmd_run(self):
        game = self.game() if self.p(0.85) else None
        args = ["run"]
        if game is not None:
            args += ["--game", game]
        if self.p(0.6):
            args += ["--agents", self.agents()]
        args += ["--games", "1" if self.p(0.8) else self.pick(COUNTS)]
        args += ["--jobs", "1" if self.p(0.85) else self.pick(["0", "-1", "abc", "", "2", "10" * 12, "1.5"])]
        args += ["--store", self.store(0.8)]
        if game in GAMES and self.p(0.35):
            args += self.param_options(game, 1)
        elif self.p(0.05):
            args += ["--param", self.pick(GAME_VALUES)]
        options = [
            lambda: ["--players", self.pick(COUNTS + ["3", "4", "5", "6", "7"])],
            lambda: ["--seed", self.pick(COUNTS + ["-5", "9" * 60])],
            lambda: ["--time-limit", self.pick(FLOATS)],
            lambda: ["--backend", self.pick(["dask", "", "LOCAL", "nosuch", "local"])],
            lambda: ["--backend", "dask", "--address", self.pick(["", "foo", "tcp://", "tcp://:x", "x:y:z"])],
            lambda: ["--address", self.pick(["foo", "", "tcp://127.0.0.1:1"])],
            lambda: ["--resume", self.run_id()],
            lambda: ["--deal-key", self.pick(["", "x", "0" * 31, "0" * 33, "g" * 32, "0" * 32, "é" * 32,
                                              "00112233445566778899aabbccddeeff", " " + "0" * 31, "\x1b" * 32])],
            lambda: ["--sandbox", self.pick(["", "nosuch", "BWRAP", "none", "bwrap", "\x1bc"])],
            lambda: ["--bot-limit", self.pick(["memory=abc", "memory=1e308", "memory=-1", "memory=0", "cpu=nan",
                                               "nosuch=1", "memory", "=1", "", "processes=" + "9" * 30,
                                               "open_files=64", "file_size=inf", "memory=1,cpu=2"])],
            lambda: ["--json"],
            lambda: [self.pick(["--nosuch", "-x", "extra", "--games", "--store", "--agents", "-j"])],
        ]
        for _ in range(self.r.choice([0, 1, 1, 2, 3])):
            args += self.pick(options)()
        return args, None

    def cmd_reporting(self, name):
        args = [name]
        if self.p(0.6):
            args.append(self.run_id())
        if name in ("graph", "report") and (name == "graph" or self.p(0.8)):
            self.n += 1
            out = self.pick([f"g{self.n}.svg", f"g{self.n}.html", f"g{self.n}.png", "x.txt", "adir", "adir/",
                             "missing/x.svg", "", "good.sqlite", f"r{self.n}.html"])
            if name == "graph" and self.p(0.9) and out.endswith(".png"):
                out = out[:-4] + ".svg"   # PNG drawing is slow: a few suffice
            args += ["--out", out]
        if name == "leaderboard" and self.p(0.4):
            args += ["--game", self.game()]
        args += ["--store", self.store(0.1)]
        if self.p(0.3):
            args.append("--json")
        if self.p(0.1):
            args.append(self.pick(["extra", "--nosuch", "--out", "--store"]))
        return args, None

    def cmd_play(self):
        game = self.game()
        args = ["play", game] if self.p(0.95) else ["play"]
        if self.p(0.95):
            args += ["--vs", self.agents() if self.p(0.6) else self.pick(["greedy", "random", "random,random",
                                                                        "random,random,random"])]
        args += self.option(0.3, "--seat", ["0", "1", "-1", "5", "99", "abc", "10" * 20])
        args += self.option(0.3, "--seed", COUNTS + ["18446744073709551615", "18446744073709551616"])
        args += self.param_options(game, 0.3)
        args += self.option(0.2, "--sandbox", ["none", "bwrap", "x"])
        # Never a person at the terminal: a few typed lines (good and bad moves), then end of input.
        lines = [self.pick(["1", "2", "0", "-1", "99", "abc", "", "\x1b[2J", "a1", "b3", "q", "help",
                            "9" * 40]) for _ in range(self.r.randrange(0, 6))]
        return args, "\n".join(lines)

    def cmd_replay(self):
        args = ["replay"]
        for _ in range(self.r.choice([0, 1, 1, 2, 3])):
            args.append(self.pick(["0", "1", "2", "99", "-1", "x", self.w["run_id"], "9" * 40, "", "1.5"]))
        if self.p(0.3):
            args += ["--seat", self.pick(["0", "1", "2", "-1", "abc"])]
        if self.p(0.6):
            args.append("--to-end")
        if self.p(0.3):
            self.n += 1
            args += ["--html", self.pick([f"replay{self.n}.html", "missing/x.html", "adir", "", "good.sqlite"])]
        args += ["--store", self.store(0.1)]
        lines = [self.pick(["", "n", "b", "j 3", "j -1", "j x", "e", "q", "\x1b", "9" * 40, "j 99999999"])
                 for _ in range(self.r.randrange(0, 6))]
        return args, "\n".join(lines)

    def cmd_check_agent(self):
        game = self.game() if self.p(0.95) else None
        args = ["check-agent"]
        if self.p(0.95):
            item = self.agent_item(human=False)
            args.append("greedy" if item == "human" else item)   # a person would be asked for moves
        if game is not None:
            args += ["--game", game]
        args += ["--games", "1" if self.p(0.8) else self.pick(COUNTS)]
        args += self.option(0.2, "--players", COUNTS + ["3", "4"])
        args += self.param_options(game, 0.3)
        args += self.option(0.2, "--time-limit", FLOATS)
        args += self.option(0.2, "--seed", COUNTS)
        args += self.option(0.2, "--sandbox", ["none", "bwrap", "x"])
        if self.p(0.2):
            args.append("--json")
        return args, ""

    def cmd_bench(self):
        args = ["bench", "--game", "insert", "--repeats", "1", "--no-search"]
        mutation = self.pick(["game", "repeats", "arena", "extra", "game", "repeats", "extra", "json"])
        if mutation == "game":
            args[2] = self.pick(["nosuch", "", "\x1bc", "INSERT"])
        elif mutation == "repeats":
            args[4] = self.pick(["0", "-1", "abc", "", "nan", "10" * 20])
        elif mutation == "arena":
            args += ["--arena", "--arena-games", self.pick(["0", "-1", "abc", ""])]
        elif mutation == "extra":
            args += [self.pick(["extra", "--nosuch", "--game"])]
        else:
            args.append("--json")
        return args, None

    def cmd_ladder(self):
        """`arena ladder SUB ...`: bad names, agents, counts and options; a run plays one batch."""
        sub = self.pick(["new", "add", "retire", "run", "show", "history", "list", "token", "revoke", "tokens",
                         "nosuch", ""])
        args = ["ladder", sub]
        if sub not in ("list", "") and self.p(0.95):
            args.append("lad" if self.p(0.6) else self.pick(LADDER_NAMES))
        if sub == "new":
            args += self.option(0.9, "--game", [self.game()] * 3 + ["nosuch", ""])
            args += self.option(0.3, "--seed", COUNTS)
            args += self.option(0.2, "--time-limit", FLOATS)
            args += self.option(0.2, "--time-control", ["1+0", "0+0", "x", "-1+1", "1e309+0"])
            args += self.option(0.2, "--deals", ["missing.json", "bot.py", "adir", ""])
            args += self.option(0.2, "--deal-key", ["00112233445566778899aabbccddeeff", "xyz", ""])
            args += self.option(0.3, "--sandbox", ["none", "bwrap", "x"])
        elif sub == "add":
            args.append(self.agent_item(human=self.p(0.3)))
            args += ["--keep"] if self.p(0.2) else []
        elif sub in ("retire", "history"):
            args.append(self.pick(["random", "greedy", "greedy@2", "nosuch", "", "\x1bc", "random@0"]))
        elif sub == "run":
            args += ["--matches", "1" if self.p(0.8) else self.pick(COUNTS), "--jobs", "1"]
            args += ["--until-settled"] if self.p(0.1) else []
            args += self.option(0.1, "--backend", ["local", "dask", "x"])
        elif sub in ("token", "revoke"):
            args.append(self.pick(["alice", "", "a b", "\x1bc", "x" * 100]))
            args += self.option(0.3, "--expires", FLOATS) if sub == "token" else []
        args += ["--store", self.w["stores"][0] if self.p(0.6) else self.store(0.2)]   # mostly the good store's ladder
        if self.p(0.3):
            args.append("--json")
        if self.p(0.1):
            args.append(self.pick(["extra", "--nosuch", "--store", "-h"]))
        return args, None

    def command(self):
        roll = self.r.random()
        if roll < 0.03:
            return self.pick([[], ["nosuch"], ["--nosuch"], ["-x"], ["--version"], ["--help"], ["-h"],
                              ["RUN"], ["\x1bc"], [""], ["run", "--help"], ["play", "-h"], ["--", "run", "--help"]]), None
        sub = self.pick(SUBCOMMANDS) if roll < 0.45 else self.pick(["run"] * 3 + ["play", "check-agent", "replay", "ladder"])
        if sub == "run":
            return self.cmd_run()
        if sub in ("leaderboard", "matchups", "graph", "report"):
            return self.cmd_reporting(sub)
        if sub == "play":
            return self.cmd_play()
        if sub == "replay":
            return self.cmd_replay()
        if sub == "check-agent":
            return self.cmd_check_agent()
        if sub == "bench":
            return self.cmd_bench()
        if sub == "ladder":
            return self.cmd_ladder()
        return [sub] + ([self.pick(["--json", "--json", "extra", "--nosuch", "-h"])] if self.p(0.7) else []), None


def command_lines(seed, count, world):
    """`count` seeded (args, stdin) pairs, leaving out the KNOWN_BUGS."""
    gen = Gen(random.Random(seed), world)
    out = []
    while len(out) < count:
        args, stdin = gen.command()
        if not known_bug(args):
            out.append((args, stdin))
    return out


# ---------------------------------------------------------------- the checks

def check_outcome(args, code, stdout, stderr, where):
    """The promises of issue 15 for one command line's exit code and output."""
    text = stdout + stderr
    # check-agent's exit code 1 is its verdict on a submitted agent (a table of checks, one FAILED)
    failed_checks = args[:1] == ["check-agent"] and ("FAILED" in stdout or '"ok": false' in stdout)
    assert code in EXIT_CODES or code == 1 and failed_checks, f"{where}: exit code {code}\n{text[-3000:]}"
    assert "Traceback" not in text, f"{where}: traceback\n{text[-3000:]}"
    assert "internal error" not in text, f"{where}: internal error\n{text[-3000:]}"
    if code == 1:
        assert not any(line.startswith("Error:") for line in text.splitlines()), \
            f"{where}: an error with the exit code of failed checks\n{text[-3000:]}"
        return
    if code == 2:
        if "Usage:" in text and not [a for a in args if a and not a.startswith("-")]:
            return   # `arena` alone shows its help (click's exit code 2 for a missing command)
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: "), f"{where}: not one error line\n{stderr[-3000:]}"
        if args[:1] != ["replay"] or "--to-end" in args:   # an interactive replay may fail on a typed command
            assert not stdout.strip(), f"{where}: output before the error\n{text[-3000:]}"
    if code == 0:
        assert "Error:" not in stderr, f"{where}: an error with exit code 0\n{text[-3000:]}"


def invoke(args, stdin, timeout=COMMAND_TIMEOUT):
    """One command line in this process, stopped by SIGALRM (as Hang) if it runs past `timeout`."""
    def alarm(signum, frame):
        raise Hang(f"no answer after {timeout} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return CliRunner().invoke(main, args, input=stdin if stdin is not None else "")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        # A command may leave Ctrl-C ignored on its way out (as a real process does before exiting).
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run_in_process(args, stdin, where):
    try:
        result = invoke(args, stdin)
    except Hang as e:
        raise AssertionError(f"{where}: {e}") from None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback
        raise AssertionError(f"{where}: {type(result.exception).__name__} escaped\n"
                             + "".join(traceback.format_exception(result.exception)))
    check_outcome(args, result.exit_code, result.stdout, result.stderr, where)
    return result


# ---------------------------------------------------------------- the tests

@pytest.mark.slow
@pytest.mark.timeout(600)
def test_hundreds_of_random_command_lines_in_process(world, monkeypatch):
    monkeypatch.chdir(world["root"])
    codes, ladder_codes, started = {}, {}, time.monotonic()
    for i, (args, stdin) in enumerate(command_lines(SEED, IN_PROCESS_CASES, world)):
        result = run_in_process(args, stdin, f"case {i}: arena {args!r}")
        codes[result.exit_code] = codes.get(result.exit_code, 0) + 1
        if args[:1] == ["ladder"]:
            ladder_codes[result.exit_code] = ladder_codes.get(result.exit_code, 0) + 1
    # The mix is worth having: mostly refused, some played to the end, the ladder's commands among them.
    assert codes.get(2, 0) > IN_PROCESS_CASES // 3 and codes.get(0, 0) > 30, codes
    assert ladder_codes.get(2, 0) > 10 and ladder_codes.get(0, 0) > 3, ladder_codes
    print(f"{IN_PROCESS_CASES} command lines in {time.monotonic() - started:.1f} s: exit codes {codes}")


def _session_processes(marker, sid):
    """Pids of live processes in session/process group `sid` or carrying `marker` in their environment."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            fields = stat[stat.rindex(")") + 2:].split()
            state, pgrp, session = fields[0], int(fields[2]), int(fields[3])
            if state in ("Z", "X"):
                continue
            if sid in (pgrp, session):
                found.append(int(entry))
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read():
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def run_subprocess(args, stdin, cwd, command=(sys.executable, "-m", "arena")):
    """(exit code, stdout, stderr, processes left 2 s after the exit) of a real `arena` process.
    Its output goes to files, not pipes, so that a process left behind cannot hold up the wait."""
    marker = f"ARENA_FUZZ_MARK={uuid.uuid4().hex}"
    env = dict(os.environ, ARENA_FUZZ_MARK=marker.partition("=")[2], PYTHONPATH=REPO)
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write((stdin or "").encode())
        fin.seek(0)
        proc = subprocess.Popen([*command, *args], cwd=cwd, env=env, stdin=fin, stdout=fout, stderr=ferr,
                                start_new_session=True)
        try:
            proc.wait(timeout=SUBPROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None, "", f"hang: no exit after {SUBPROCESS_TIMEOUT} s", []
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read(), ferr.read()
    deadline = time.monotonic() + 2
    left = _session_processes(marker.encode(), proc.pid)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _session_processes(marker.encode(), proc.pid)
    for pid in left:   # do not let one failure leak into the next cases
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), left


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_random_command_lines_as_real_processes_leave_nothing_behind(world):
    cases = [(a, s) for a, s in command_lines(SEED + 1, SUBPROCESS_CASES * 3, world)
             if not any("\x00" in x for x in a)][:SUBPROCESS_CASES]
    # A few that start the most processes: a pool of workers, the sandbox, a person who never answers.
    cases[:4] = [(["run", "--game", "insert", "--games", "1", "--jobs", "2", "--store", "p.sqlite"], None),
                 (["run", "--game", "insert", "--games", "1", "--jobs", "1", "--agents", "bot.py:Bot,random",
                   "--store", "b.sqlite"], None),
                 (["play", "insert", "--vs", "random"], "1\n"),
                 (["run", "--game", "insert", "--games", "1", "--jobs", "2", "--agents", "human,random",
                   "--store", "h.sqlite"], "")]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda c: run_subprocess(*c, world["root"]), cases))
    codes = sorted(r[0] for r in results if r[0] is not None)
    print(f"{len(cases)} arena processes in {time.monotonic() - started:.1f} s: exit codes "
          f"{ {c: codes.count(c) for c in set(codes)} }")
    for i, ((args, _), (code, out, err, left)) in enumerate(zip(cases, results)):
        where = f"subprocess case {i}: arena {args!r}"
        assert code is not None, f"{where}: {err}"
        check_outcome(args, code, out, err, where)
        assert not left, f"{where}: processes {left} outlived it"


@pytest.mark.slow
@pytest.mark.parametrize("setsid", [False, True])
def test_the_orphan_check_sees_a_process_left_behind(tmp_path, setsid):
    """The check above is worth something: a child that outlives its parent is found, even in a
    session of its own (by the marker in its environment)."""
    code = f"import subprocess, sys; subprocess.Popen(['sleep', '30'], start_new_session={setsid}); sys.exit(0)"
    status, _, _, left = run_subprocess([], None, tmp_path, command=(sys.executable, "-c", code))
    assert status == 0 and len(left) == 1


# -- regression cases the fuzz found

@pytest.mark.parametrize("args", [
    # an internal error (OverflowError), exit code 1
    ["run", "--game", "insert", "--games", "1", "--jobs", "10" * 12, "--store", "s.sqlite"],
    ["replay", "9" * 40, "--store", "GOOD"],
    ["check-agent", "greedy", "--game", "insert", "--games", "1", "--time-limit", "inf"],
    ["check-agent", "greedy", "--game", "insert", "--games", "1", "--time-limit", "1e308"],
    # "Invalid value NaN" from deep inside, after the checks had started
    ["check-agent", "greedy", "--game", "insert", "--games", "1", "--time-limit", "nan"],
    # no end in sight
    ["bench", "--game", "insert", "--repeats", "10" * 20, "--no-search"],
    ["check-agent", "greedy", "--game", "insert", "--games", "10" * 15],
    # click's usage block instead of one line
    ["--nosuch"],
    ["-x", "run"],
    # a built-in agent that cannot play the game: a table of failed checks, exit code 1
    ["check-agent", "alphabeta[depth=1]", "--game", "wizard", "--games", "1"],
    ["play", "wizard", "--vs", "alphabeta,random,random"],
    # "insert, seed N: you are seat 5" printed before the error
    ["play", "insert", "--vs", "greedy", "--seat", "5"],
    ["play", "insert", "--vs", "greedy", "--seat", "-1"],
    ["play", "nosuch", "--vs", "greedy"],
    ["play", "wizard", "--vs", "greedy,random", "--param", "hands=99"],
    # the store overwritten by the HTML page, exit code 0
    ["report", "--out", "GOOD", "--store", "GOOD"],
    ["report", "--out", "GOOD", "--store", "s.sqlite"],
])
def test_regressions_found_by_the_fuzz(args, world, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    good = str(world["root"] / "good.sqlite")
    before = open(good, "rb").read()
    args = [good if a == "GOOD" else a for a in args]
    result = run_in_process(args, "", f"arena {args!r}")
    assert result.exit_code == 2
    assert open(good, "rb").read() == before


@pytest.mark.parametrize("address", ["tcp://", "foo", "x:y:z", "tcp://:x", "tcp://host", "http://h:1"])
def test_a_malformed_dask_address_is_refused_before_the_run(tmp_path, monkeypatch, address):
    monkeypatch.chdir(tmp_path)
    args = ["run", "--game", "insert", "--games", "1", "--backend", "dask", "--address", address,
            "--store", "s.sqlite"]
    result = run_in_process(args, "", f"arena {args!r}")
    assert result.exit_code == 2 and "--address must be like" in result.output
    assert not (tmp_path / "s.sqlite").exists() or "interrupted" not in invoke(
        ["leaderboard", "--store", "s.sqlite", "--json"], "").output


def test_another_programs_sqlite_database_is_not_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = sqlite3.connect("other.sqlite")
    db.execute("CREATE TABLE notes (x)")
    db.commit()
    db.close()
    before = open("other.sqlite", "rb").read()
    args = ["run", "--game", "insert", "--games", "1", "--jobs", "1", "--store", "other.sqlite"]
    result = run_in_process(args, "", f"arena {args!r}")
    assert result.exit_code == 2 and "not a tournament store" in result.output
    assert open("other.sqlite", "rb").read() == before


# ---------------------------------------------------------------- property: parameter strings

def _cheap_enough(name, key, value):
    """False for a budget that parses as a number large enough to make a run slow."""
    if key not in BUDGETS:
        return True
    try:
        number = float(value.strip())
    except ValueError:
        return True
    if not math.isfinite(number):
        return True
    return number <= (0.01 if key == "time" else 12 if key == "tt_bits" else 2 if key == "depth" else 30)


_VALUE_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00,[]"), max_size=12)
_VALUES = st.one_of(
    _VALUE_TEXT,
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(str),
    st.sampled_from(BAD_VALUES + ["1", "2", "true", "false"]).filter(lambda v: "\x00" not in v and "," not in v),
)


_SMALL = {"iterations": (1, 30), "depth": (1, 2), "determinizations": (1, 3), "tt_bits": (1, 12),
          "threads": (1, 2), "rollouts": (1, 2), "samples": (1, 3), "nodes": (100, 2000)}


def _valid_values(key, default, choices=()):
    """Values a parameter accepts (kept cheap for budgets), as command-line text."""
    if choices:
        return st.sampled_from(list(choices))
    if isinstance(default, bool):
        return st.sampled_from(["true", "false", "1", "0", "yes", "off", "TRUE", " on "])
    if key == "time":
        return st.sampled_from(["0", "0.0", "0.001", "1e-320"])
    if key in _SMALL:
        return st.integers(*_SMALL[key]).map(str)
    if isinstance(default, int):
        return st.integers(0, 2 ** 64 - 1).map(str)
    if isinstance(default, float):
        return st.floats(0, 1).map(repr)
    if isinstance(default, (list, tuple)):
        return st.sampled_from(["1", "2", "3,1", "1,2,3"])
    return _VALUE_TEXT


def _param(draw, names, defaults, choices):
    """One name=value: a real name with a valid value, mostly; a bad name or value otherwise."""
    key = draw(st.one_of(st.sampled_from(names), st.sampled_from(names), _VALUE_TEXT.filter(lambda k: "=" not in k))
               if names else _VALUE_TEXT.filter(lambda k: "=" not in k))
    valid = _valid_values(key, defaults.get(key, ""), choices.get(key, ()))
    return key, draw(st.one_of(valid, valid, _VALUES))


@st.composite
def agent_texts(draw):
    name = draw(st.sampled_from(sorted(n for n in AGENTS if n != "human")))
    params = dict(CHEAP.get(name, {}))
    for _ in range(draw(st.integers(0, 3))):
        key, value = _param(draw, sorted(AGENTS[name]), AGENTS[name], {})
        if _cheap_enough(name, key, value):
            params[key] = value
    return name + (f"[{','.join(f'{k}={v}' for k, v in params.items())}]" if params else "")


@pytest.mark.timeout(300)
@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(agent=agent_texts(), game=st.sampled_from(["insert", "insert", "belle_of_the_ball", "royal_ball"]))
def test_any_agent_parameter_string_gives_one_error_line_or_a_finished_run(agent, game, tmp_path):
    store = tmp_path / f"{uuid.uuid4().hex}.sqlite"
    args = ["run", "--game", game, "--games", "1", "--jobs", "1", "--agents", f"{agent},random",
            "--store", str(store), "--time-limit", "5"]
    result = run_in_process(args, "", f"arena {args!r}")
    assert result.exit_code in (0, 2), result.output
    event(f"exit code {result.exit_code}")


@st.composite
def game_params(draw):
    game = draw(st.sampled_from(sorted(GAMES)))
    spec = GAMES[game]
    params = dict(_param(draw, sorted(spec["params"]), spec["params"], spec["choices"])
                  for _ in range(draw(st.integers(1, 3))))
    if game == "wizard":
        params.setdefault("hands", "1")   # a valid Wizard run plays one short round
    return game, [f"{k}={v}" for k, v in params.items()]


@pytest.mark.timeout(300)
@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(game_and_params=game_params())
def test_any_game_parameter_string_gives_one_error_line_or_a_finished_run(game_and_params, tmp_path):
    game, params = game_and_params
    store = tmp_path / f"{uuid.uuid4().hex}.sqlite"
    args = ["run", "--game", game, "--games", "1", "--jobs", "1", "--agents", "greedy,random",
            "--store", str(store)]
    for p in params:
        args += ["--param", p]
    result = run_in_process(args, "", f"arena {args!r}")
    assert result.exit_code in (0, 2), result.output
    event(f"exit code {result.exit_code}")
