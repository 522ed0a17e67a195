"""Bots in any language (docs/protocol.md): the starter kits play under the real sandbox, hostile
exec bots are each a one-line fault of their own, a request carries nothing hidden, every message
follows its JSON Schema, and a build runs only in a box.

The fixtures are in tests/fixtures/exec/ (hostile.py breaks the protocol as its `attack` parameter
says; recorder.py writes down what it was sent) and examples/bots/ (the starter kits).
"""
import glob
import json
import os
import random
import shutil
import socket
import sys

import jsonschema
import pytest
from click.testing import CliRunner

import engines
import unprivileged
from arena import seeds
from arena.cli import main
from arena.sandbox import exec_bot, exec_host, stage
from arena.sandbox.staging import code_dir
from paths import FIXTURES, ROOT

# Starts real processes, boxes, browsers or compilers: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = pytest.mark.slow

EXEC_FIXTURES = os.path.join(FIXTURES, "exec")
HOSTILE = os.path.join(EXEC_FIXTURES, "hostile.py")
RECORDER = os.path.join(EXEC_FIXTURES, "recorder.py")
SCHEMAS = os.path.join(ROOT, "docs", "protocol")
KITS = os.path.join(ROOT, "examples", "bots")
LANGUAGES = ["python", "c", "rust", "java", "javascript"]

sandboxed = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def schema(name):
    with open(os.path.join(SCHEMAS, f"{name}.schema.json")) as f:
        return jsonschema.Draft202012Validator(json.load(f))


# ---------------------------------------------------------------- the starter kits

def missing_toolchain(language):
    """Why a starter cannot be built or run here, or None."""
    needs = {"python": ["python3"], "c": ["gcc"], "java": ["javac", "java"], "javascript": ["node"]}
    if language == "rust":
        return None if exec_host.toolchain("rust")[0] or exec_host._host_program("rustc") else "rustc is not installed"
    absent = [p for p in needs[language] if exec_host._host_program(p) is None]
    return f"{', '.join(absent)} not in {', '.join(exec_host.SEARCH_PATH)}" if absent else None


@sandboxed
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_starter_kit_plays_a_short_run_under_the_sandbox(tmp_path, language):
    reason = missing_toolchain(language)
    if reason:
        pytest.skip(f"the {language} starter's toolchain is missing: {reason}")
    starter = os.path.join(KITS, language)
    result = invoke("run", "--game", "insert", "--agents", f"random, exec:{starter}", "--games", 2,
                    "--time-limit", 5, "--store", tmp_path / "s.sqlite", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["status"] == "finished" and out["matches"] == out["total"] == 4
    assert out["faults"] == []
    assert {row["label"] for row in out["leaderboards"][0]["rows"]} == {"random", kit_label(language)}


arena_user = unprivileged.arena_user   # the fixture: a test that takes it runs as root and unprivileged


@sandboxed
def test_exec_bots_play_and_fault_alike_as_root_and_unprivileged(arena_user):
    """The built starter and a hostile exec bot, with the arena as root (an outer box, a uid of the
    box's own) and as an unprivileged user (the inner box alone), the build's box too."""
    if missing_toolchain("c"):
        pytest.skip(f"the c starter's toolchain is missing: {missing_toolchain('c')}")
    agents = f"random, exec:examples/bots/c, exec:{HOSTILE}[attack=garbage] as garbage"
    done = arena_user.arena("run", "--game", "insert", "--agents", agents, "--games", 1, "--time-limit", 2,
                            "--json", "--store", arena_user.path("s.sqlite"), env={"ARENA_SANDBOX": "bwrap"})
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "finished" and out["matches"] == out["total"] == 6
    assert {(f["label"], f["kind"]) for f in out["faults"]} == {("garbage", "illegal")}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_starter_kit_has_a_manifest_and_a_readme(language):
    folder = os.path.join(KITS, language)
    with open(os.path.join(folder, "bot.toml"), "rb") as f:
        manifest = exec_host.read_manifest(f.read(), language)
    assert manifest["name"] == f"{language}-kit"
    assert os.path.isfile(os.path.join(folder, "README.md"))


def kit_label(language):
    with open(os.path.join(KITS, language, "bot.toml"), "rb") as f:
        return exec_host.read_manifest(f.read(), language)["name"]


@sandboxed
@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(engines.game_ids()))
def test_the_five_kits_and_greedy_play_every_game_with_no_fault(tmp_path, game_id):
    missing = {language: missing_toolchain(language) for language in LANGUAGES if missing_toolchain(language)}
    if missing:
        pytest.skip(f"a kit's toolchain is missing: {missing}")
    agents = ", ".join([f"exec:{os.path.join(KITS, language)}" for language in LANGUAGES] + ["greedy"])
    result = invoke("run", "--game", game_id, "--agents", agents, "--games", 1, "--time-limit", 10,
                    "--store", tmp_path / "s.sqlite", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["status"] == "finished" and out["matches"] == out["total"] > 0
    assert out["faults"] == []
    labels = {row["label"] for board in out["leaderboards"] for row in board["rows"]}
    assert labels == {kit_label(language) for language in LANGUAGES} | {"greedy"}


@sandboxed
@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_kit_beats_random_on_insert(tmp_path, language):
    """Its heuristic (complete or block a line) scores above half against random: the lower end of
    the score share's 95% interval over 30 deals, on fixed deals so that the figure is the same each run."""
    reason = missing_toolchain(language)
    if reason:
        pytest.skip(f"the {language} kit's toolchain is missing: {reason}")
    result = invoke("run", "--game", "insert", "--agents", f"exec:{os.path.join(KITS, language)}, random",
                    "--games", 30, "--deal-key", seeds.public_deal_key("a kit against random"),
                    "--store", tmp_path / "s.sqlite", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["status"] == "finished" and out["faults"] == []
    share = {row["label"]: row["score_share"] for row in out["leaderboards"][0]["rows"]}[kit_label(language)]
    assert share["deals"] == 30 and share["low"] > 0.5, share


# ---------------------------------------------------------------- hostile exec bots

ATTACKS = {   # attack -> (kind, words of the message)
    "garbage": ("illegal", "not JSON"),
    "huge": ("illegal", "longer than 65536 bytes"),
    "deep": ("illegal", "nested too deep"),
    "silent": ("timeout", "no answer within 0.5 s"),
    "exits": ("crash", "exited with code 3"),
    "illegal_id": ("illegal", "999999"),
    "bad_text": ("illegal", "not a move"),
    "flood": ("illegal", "no request was pending"),
    "prehello": ("illegal", "not JSON"),
    "wrong_type": ("illegal", "where an action message was due"),
    "wrong_version": ("illegal", "hello: sent a hello in protocol version 2, expected 1"),
    "stall": ("timeout", "no answer within 0.5 s"),   # half a line, then nothing
}


def hostile_run(tmp_path, agents):
    result = invoke("run", "--game", "insert", "--agents", ", ".join(agents), "--games", 1, "--time-limit", 0.5,
                    "--store", tmp_path / "s.sqlite", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    n = len(agents)
    assert out["status"] == "finished" and out["matches"] == out["total"] == n * (n - 1)
    assert all("\n" not in f["message"] for f in out["faults"])
    return out


@sandboxed
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_hostile_exec_bot_is_its_own_one_line_fault_and_the_run_finishes(tmp_path, attack):
    out = hostile_run(tmp_path, ["random", f"exec:{HOSTILE}[attack={attack}] as {attack}"])
    kind, words = ATTACKS[attack]
    assert [(f["label"], f["kind"]) for f in out["faults"]] == [(attack, kind)] * 2, out["faults"]
    assert all(words in f["message"] for f in out["faults"]), out["faults"][0]["message"]


@sandboxed
def test_hostile_exec_bots_leave_an_honest_one_alone(tmp_path):
    attacks = ["garbage", "exits", "silent"]
    out = hostile_run(tmp_path, ["random", f"exec:{os.path.join(KITS, 'python')}"] +
                      [f"exec:{HOSTILE}[attack={a}] as {a}" for a in attacks])
    assert {f["label"] for f in out["faults"]} == set(attacks)
    for f in out["faults"]:
        assert f["kind"] == ATTACKS[f["label"]][0], f


@sandboxed
def test_a_bot_that_never_says_hello_times_out_and_the_run_finishes(tmp_path):
    """Its reset waits as long as the arena's (10 s, or the time limit if longer), no longer."""
    result = invoke("run", "--game", "insert", "--agents", f"random, exec:{HOSTILE}[attack=mute] as mute",
                    "--games", 1, "--time-limit", 0.5, "--store", tmp_path / "s.sqlite", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["status"] == "finished" and out["matches"] == 2
    assert [(f["label"], f["kind"], f["move"]) for f in out["faults"]] == [("mute", "timeout", -1)] * 2
    assert all("no answer within 10 s" in f["message"] for f in out["faults"])


# ---------------------------------------------------------------- what a request carries

def play_recorded(tmp_path, game_id, seat, seed, **params):
    """Plays one game with the adapter, in this process, in `seat` (a random player elsewhere), the
    arena's side as the runner plays it: a determinized view for every request, and the public
    actions from the true state before each action. Returns (the lines the recorder was sent,
    [(the true observation, legal actions, the other seats' true hands) at each request], the true
    state at the end)."""
    log = tmp_path / f"{game_id}-{seat}.jsonl"
    target = json.dumps({"folder": str(tmp_path), "command": [sys.executable, RECORDER, str(log)]})
    bot = exec_bot.ExecBot(target, {"depth": "2"})
    bot.mirror_exit = False
    state = engines.make(game_id, seed=seed, **params)
    bot.reset(game_id, dict(state.params), seat, 1 << 60)
    rng, truths, pending, move = random.Random(seed), [], [], 0
    try:
        while not state.is_terminal():
            mover = state.current_player()
            if mover == seat:
                hands = ({q: state.hand(q) for q in range(state.num_players) if q != seat}
                         if game_id == "wizard" else {})
                truths.append((state.observation(seat), state.legal_actions(), hands))
                bot.observe(pending)
                pending = []
                action = bot.act(state.determinize(seat, seed * 1000 + move))
            else:
                action = rng.choice(state.legal_actions())
            pending.append(exec_host.public_action(state, seat, mover, action))
            state.apply_action(action)
            move += 1
        bot.end(state.returns())
        bot.process.wait(timeout=10)
    finally:
        if bot.process.poll() is None:
            bot.process.kill()
    with open(log) as f:
        return [json.loads(line) for line in f], truths, state


@pytest.mark.parametrize("params", [{}, {"hidden_bids": True}, {"secret_bids": True}])
def test_a_wizard_request_carries_the_true_observation_and_no_hidden_card(tmp_path, params):
    seat = 1
    sent, truths, _ = play_recorded(tmp_path, "wizard", seat, 7, **params)
    requests = [m for m in sent if m["type"] == "request"]
    assert len(requests) == len(truths) > 20
    hidden_bids = []
    for i, (request, (observation, legal, hands)) in enumerate(zip(requests, truths)):
        # the determinized view's observation is the true state's, for this seat
        assert request["observation"] == observation
        assert [a["id"] for a in request["legal"]] == legal
        # a numbered card that another seat holds is nowhere in what the request says of now
        # (Wizards and Jesters are alike; the public actions name cards played, of this deal or,
        # for the first request of a round, of the last)
        text = json.dumps([request["observation"], request["legal"]])
        held = {c for cards in hands.values() for c in cards if c[0].isdigit()}
        assert [c for c in held if f'"{c}"' in text] == [], i
        for a in request["public_actions"]:
            if a["seat"] != seat and a["text"].startswith("bid") and observation["bids"][a["seat"]] == "?":
                hidden_bids.append((a["id"], a["text"]))
    own = [a for r in requests for a in r["public_actions"] if a["seat"] == seat]
    assert len(own) == len(requests) - 1   # its own actions, seen whole, before each later request
    if params:   # another seat's hidden bid is one class of actions, whatever it bid
        assert hidden_bids and len(set(hidden_bids)) == 1, set(hidden_bids)
    else:
        assert hidden_bids == []


def test_public_actions_are_what_the_seat_sees_and_nothing_more():
    """public_action is action_view, for every game: a Royal Ball gift, a hidden Wizard bid and a
    face-down Belladone Bluff card read the same whatever was given, bid or played."""
    for game_id, params in [("wizard", {"hidden_bids": True}), ("royal_ball", {}), ("belladone_bluff", {}),
                            ("insert", {}), ("belle_of_the_ball", {})]:
        for seed in range(5):
            state = engines.make(game_id, seed=seed, **params)
            rng = random.Random(seed)
            while not state.is_terminal():
                mover, action = state.current_player(), rng.choice(state.legal_actions())
                for observer in range(state.num_players):
                    entry = exec_host.public_action(state, observer, mover, action)
                    view = state.action_view(observer, action)
                    assert entry == {"seat": mover, "id": view, "text": state.action_to_string(view)}
                    if observer == mover:
                        assert entry["id"] == action
                state.apply_action(action)


@pytest.mark.parametrize("game_id", sorted(engines.game_ids()))
def test_every_message_follows_its_schema(tmp_path, game_id):
    params = {"players": 3} if game_id in ("wizard", "royal_ball", "belle_of_the_ball") else {}
    sent, _, _ = play_recorded(tmp_path, game_id, 0, 3, **params)
    assert [m["type"] for m in sent[:2]] == ["start", "request"] and sent[-1]["type"] == "end"
    observation = schema(f"{game_id}.observation")
    for message in sent:
        schema(message["type"]).validate(message)
        if message["type"] == "request":
            observation.validate(message["observation"])
    start = sent[0]
    assert start["agent_params"] == {"depth": "2"} and start["seat"] == 0
    assert start["seed"] == (1 << 60) % (1 << 53) and start["game"] == game_id
    for name, reply in [("hello", {"type": "hello", "name": "x", "protocol": 1}),
                        ("action", {"type": "action", "id": 3}), ("action", {"type": "action", "text": "e4"})]:
        schema(name).validate(reply)
    with pytest.raises(jsonschema.ValidationError):
        schema("action").validate({"type": "action", "id": 3, "text": "e4"})


def test_every_schema_is_a_valid_draft_2020_12_schema():
    files = sorted(glob.glob(os.path.join(SCHEMAS, "*.schema.json")))
    names = {os.path.basename(f).split(".")[0] for f in files}
    assert {"start", "hello", "request", "action", "end"} | set(engines.game_ids()) <= names
    for path in files:
        with open(path) as f:
            jsonschema.Draft202012Validator.check_schema(json.load(f))


# ---------------------------------------------------------------- exec:PATH and staging

def parse(text):
    from arena import agent_list
    return agent_list.parse_agents(f"random, {text}")[1]


def test_exec_paths_parse_with_parameters_and_labels(tmp_path):
    spec = parse(f"exec:{KITS}/python[depth=3, style=calm] as mine")
    assert (spec.kind, spec.label, spec.params) == ("exec", "mine", (("depth", "3"), ("style", "calm")))
    assert spec.target == os.path.join(KITS, "python") and spec.submitted
    assert parse(f"exec:{HOSTILE}").label == "hostile.py"
    assert parse(f"exec:{KITS}/c").label == "c-kit"   # built when staged


@pytest.mark.parametrize("manifest, words", [
    (None, "no bot.toml"),
    ('name = "x"\ncommand = "./run"\ncolour = "red"\n', "unknown keys colour"),
    ('name = "x y"\ncommand = "./run"\n', "name must be"),
    ('name = "x"\n', "command must be a command"),
    ('name = "x"\ncommand = "no-such-program-anywhere"\n', "is not in /usr/local/bin"),
    ('name = "x"\ncommand = "./run"\n', "not in its folder"),
    ('name = "x"\ncommand = "../escape"\n', "outside its folder"),
    ('name = "x"\ncommand = "/root/.cargo/bin/rustc"\n', "outside what the sandbox shows"),
    ('name = = "x"\n', "not TOML"),
])
def test_a_bad_exec_folder_is_one_line(tmp_path, manifest, words):
    from arena.agent_list import ScheduleError
    folder = tmp_path / "bot"
    folder.mkdir()
    if manifest is not None:
        (folder / "bot.toml").write_text(manifest)
    with pytest.raises(ScheduleError) as e:
        parse(f"exec:{folder}")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_program_that_is_not_executable_is_refused(tmp_path):
    from arena.agent_list import ScheduleError
    program = tmp_path / "bot.sh"
    program.write_text("#!/bin/sh\n")
    with pytest.raises(ScheduleError, match="not executable"):
        parse(f"exec:{program}")
    with pytest.raises(ScheduleError, match="no folder or program"):
        parse(f"exec:{tmp_path}/nothing")


def test_staging_keeps_executable_bits_and_refuses_links(tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "linked"\ncommand = "./run"\n')
    (folder / "run").write_text("#!/bin/sh\n")
    (folder / "run").chmod(0o755)
    (folder / "data.txt").write_text("data")
    staged = stage(parse(f"exec:{folder}"))
    where = os.path.join(code_dir(staged.code), "bot")
    assert os.stat(os.path.join(where, "run")).st_mode & 0o777 == 0o555
    assert os.stat(os.path.join(where, "data.txt")).st_mode & 0o777 == 0o444
    (folder / "secret").symlink_to("/etc/hostname")
    with pytest.raises(ValueError, match="secret is a link"):
        stage(parse(f"exec:{folder}"))


@sandboxed
def test_a_build_runs_in_a_box_of_its_own(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.1)
    folder = tmp_path / "build_escape"
    shutil.copytree(os.path.join(EXEC_FIXTURES, "build_escape"), folder)
    (folder / "port.txt").write_text(str(listener.getsockname()[1]))
    marker = "/tmp/exec-build-escaped"
    if os.path.exists(marker):
        os.unlink(marker)
    try:
        staged = stage(parse(f"exec:{folder}"))
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()
    with open(os.path.join(code_dir(staged.code), "build_escape", "seen.txt")) as f:
        assert f.read() == ""   # no host file, no network, no write to /usr
    assert not os.path.exists(marker) and not os.path.exists("/usr/exec-build-escaped")   # its /tmp was its own


@sandboxed
def test_a_failed_build_says_the_compilers_own_error(tmp_path):
    if missing_toolchain("c"):
        pytest.skip(f"the c starter's toolchain is missing: {missing_toolchain('c')}")
    folder = tmp_path / "c"
    shutil.copytree(os.path.join(KITS, "c"), folder)
    source = (folder / "bot.c").read_text()
    assert "p = ws(p);" in source
    (folder / "bot.c").write_text(source.replace("p = ws(p);", "p = ws(p)", 1))   # one missing ;
    result = invoke("check-agent", f"exec:{folder}", "--game", "insert")
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1, result.output
    line = source[:source.index("p = ws(p);")].count("\n") + 1
    assert "exited with code 1" in result.output and f"bot.c:{line}:" in result.output, result.output
    assert "error: expected" in result.output, result.output


@sandboxed
def test_a_build_that_leaves_a_link_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not a plain file") as e:
        stage(parse(f"exec:{os.path.join(EXEC_FIXTURES, 'build_link')}"))
    assert "\n" not in str(e.value)
