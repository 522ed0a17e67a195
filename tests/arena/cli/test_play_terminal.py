"""`arena play` in a real terminal (tmux, 80x24): a whole game to its end screen, and `q` mid-game;
the drawings of every game (at most 80 columns, with a key); the seat help and the first mover."""
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import engines
from agents.human import describe_view
from arena.cli import main
from paths import ROOT

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
PROMPT = "your move:"


class Terminal:
    """A command in a detached 80x24 tmux session on a server of its own (at `socket`); the pane
    stays open after the command, with its exit code printed as "EXIT=<code>"."""

    def __init__(self, args, cwd, socket):
        self.socket = str(socket)
        command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "arena", *args])
        script = f"cd {shlex.quote(str(cwd))} && {command}; echo EXIT=$?; sleep 600"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
        self.tmux("new-session", "-d", "-x", "80", "-y", "24", "sh", "-c", script, env=env)

    def tmux(self, *args, env=None):
        return subprocess.run(["tmux", "-S", self.socket, *args], check=True, capture_output=True, text=True,
                              env=env).stdout

    def screen(self, history=False):
        return self.tmux("capture-pane", "-p", *(["-S", "-"] if history else []))

    def type(self, text):
        self.tmux("send-keys", "-l", text)
        self.tmux("send-keys", "Enter")

    def play(self, answer, until="EXIT=", patience=60):
        """Answers each new move prompt with `answer` until `until` is on the screen; the screen."""
        answered = 0
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            text = self.screen(history=True)
            if until in text:
                return text
            lines = [line for line in text.splitlines() if line.strip()]
            prompts = text.count(PROMPT)
            if answer is not None and lines and lines[-1].rstrip().endswith(PROMPT) and prompts > answered:
                answered = prompts
                self.type(answer)
            time.sleep(0.05)
        raise AssertionError(f"{until!r} never came; the screen:\n{self.screen()}")

    def close(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def terminal(tmp_path, tmp_path_factory):
    """Opens Terminals in tmp_path, each on a tmux server of its own (its socket elsewhere)."""
    opened = []
    sockets = tmp_path_factory.mktemp("tmux")

    def open_terminal(*args):
        opened.append(Terminal(args, tmp_path, sockets / f"s{len(opened)}"))
        return opened[-1]

    yield open_terminal
    for t in opened:
        t.close()


@needs_tmux
def test_a_whole_game_in_a_terminal_ends_naming_the_winner(terminal):
    """The shortest game: Wizard of one round of one card, three players; the person always takes
    the first move listed. The end screen (the 24 visible rows) names the winner by seat and agent."""
    t = terminal("play", "wizard", "--vs", "random,greedy", "--param", "hands=1", "--seed", "2")
    t.play("1")
    end = t.screen()
    assert "EXIT=0" in end and "Error" not in end, end
    assert "seat 1 (random) wins" in end, end
    assert "final scores: seat 1 (random) 30 (place 1)" in end
    assert all(len(line) <= 80 for line in t.screen(history=True).splitlines())
    opening = t.screen(history=True).splitlines()[0]
    assert opening == "wizard, seed 2: you are seat 0; seat 2 (greedy) moves first"


@needs_tmux
def test_q_quits_a_game_cleanly_in_one_line(terminal, tmp_path):
    t = terminal("play", "insert", "--vs", "greedy", "--seed", "0")
    t.play(None, until=PROMPT)
    t.type("q")
    text = t.play(None)
    assert "EXIT=0" in text and "Error" not in text and "not one of your moves" not in text, text
    after = text[text.rindex(PROMPT):].splitlines()
    assert after[0].endswith("q") and after[1] == "you left the game; arena play stores nothing (--seed 0 deals " \
                                                  "it again)" and after[2] == "EXIT=0", after
    assert os.listdir(tmp_path) == []   # no store, no file


def test_quit_also_quits(tmp_path):
    result = CliRunner().invoke(main, ["play", "insert", "--vs", "greedy", "--seed", "1"], input="quit\n")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].endswith("you left the game; arena play stores nothing (--seed 1 "
                                                   "deals it again)")


def played(game_id, moves, seed=3, **params):
    state = engines.make(game_id, seed=seed, **params)
    rng = random.Random(seed)
    while not state.is_terminal() and (moves is None or len(state.history()) < moves):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_the_wizard_drawing_shows_the_trick_bids_trump_and_hands():
    state = engines.make("wizard", seed=3, players=4, hands=(3,))
    rng = random.Random(3)
    while len(state.observation(0)["trick"]) < 2:
        state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    o = state.observation(seat)
    text = describe_view(state, seat)
    trick = ", ".join(f"seat {p}{' (you)' if p == seat else ''} {card}" for p, card in o["trick"])
    assert f"on the table: {trick}" in text
    for p in range(4):
        row = next(line for line in text.splitlines() if line[2:].startswith(f"seat {p}"))
        assert f"bid {o['bids'][p]}  tricks {o['tricks'][p]}" in row
        assert (f"hand: {' '.join(o['hand'])}" if p == seat else f"hand: {o['hand_sizes'][p]} cards, face down") in row
    assert f"trump {o['trump']}" in text and f"turn-up {o['turn_up']}" in text
    assert "key: 12h = 12 of humans" in text and "W Wizard" in text and "J Jester" in text
    everything = describe_view(state, None)   # a replay's full view: every hand face up
    for p in range(4):
        assert f"hand: {' '.join(state.observation(p)['hand'])}" in everything


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_every_game_is_drawn_within_80_columns_with_a_key(game_id):
    for moves in (0, 30, None):
        state = played(game_id, moves)
        for viewer in (None, 0):
            text = describe_view(state, viewer, [f"a long agent name, seat {p}" for p in range(state.num_players)])
            assert max(len(line) for line in text.splitlines()) <= 80, text
            assert "\nkey: " in text, text


def test_the_seat_help_says_who_moves_first_truly():
    help_text = " ".join(CliRunner().invoke(main, ["play", "--help"]).output.split())
    assert "0 moves first" not in help_text
    assert ("Who moves first is drawn from the deal (--seed) in every game, so it may be any seat (in Wizard "
            "the seat after the dealer, or the dealer when a Wizard turned up has them pick trump; in Royal Ball "
            "the seat after the marker)") in help_text
    for seed in range(40):
        wizard, royal = engines.make("wizard", seed=seed), engines.make("royal_ball", seed=seed)
        o = wizard.observation(0)
        assert wizard.current_player() == (o["dealer"] if o["phase"] == "trump" else (o["dealer"] + 1) % 4)
        assert royal.current_player() == (royal.observation(0)["active"] + 1) % 4


@pytest.mark.parametrize("game_id", engines.game_ids())
def test_the_first_line_says_who_moves_first(game_id):
    first = set()
    players = engines.spec(game_id).default_players
    for seed in range(4):
        result = CliRunner().invoke(main, ["play", game_id, "--vs", ",".join(["random"] * (players - 1)),
                                           "--seed", str(seed)], input="q\n")
        assert result.exit_code == 0, result.output
        said = re.search(r"; seat (\d) \((you|random)\) moves first$", result.output.splitlines()[0])
        mover = int(said.group(1))
        assert mover == engines.make(game_id, seed=seed).current_player()
        if mover != 0:   # the bots' moves came before the person's first prompt
            assert f"last moves: seat {mover} (random):" in result.output
        first.add(mover)
    assert first != {0}


def test_insert_says_which_colour_is_whose():
    result = CliRunner().invoke(main, ["play", "insert", "--vs", "greedy", "--seed", "1", "--seat", "1"],
                                input="1\n" * 30)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("insert, seed 1: you are seat 1, white rings (W); ")
    assert "key: R red ring = seat 0 (greedy); W white ring = seat 1 (you)" in result.output
    assert not re.search(r"^[RW] wins", result.output, re.MULTILINE)
    assert re.search(r"^(seat [01] \((you|greedy)\) wins|a draw: .* share first place)$", result.output,
                     re.MULTILINE)


@pytest.mark.parametrize("seat", [None, 1])
def test_a_wizard_replay_is_drawn_not_dumped(seat, capsys):
    from arena.cli.play import replay_match
    state = played("wizard", None, players=3, hands=(2,))
    match = {"game_id": "wizard", "game_params": dict(state.params), "seed": 3, "actions": state.history(),
             "seats": [{"label": label} for label in ("random", "greedy", "ismcts")], "faults": [],
             "placements": state.placements(), "returns": state.returns()}
    replay_match(match, seat=seat, to_end=True)
    shown = capsys.readouterr().out
    assert "plays:" not in shown and "trick:" not in shown.replace("last trick:", "")
    last = state.observation(0)["plays"][-3:]
    trick = ", ".join(f"seat {p} ({match['seats'][p]['label']}) {card}" for p, card in last)
    assert f"last trick: {trick}" in shown.replace("\n    ", " ")
    assert "bid " in shown and "key: 12h = 12 of humans" in shown
    assert max(len(line) for line in shown.splitlines()) <= 80
