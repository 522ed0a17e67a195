"""A Tabletop Bot Protocol v1 bot (docs/protocol.md): on Insert it completes or blocks a line,
in every other game it plays a random legal move.

Reads one JSON message a line on stdin, writes one a line on stdout; logs go to stderr.
Standard library only: in the sandbox it runs on the system's python3.
"""
import json
import random
import sys

DIRECTIONS = [(0, 1), (1, 0), (1, 1), (1, -1)]   # a row, a column, both diagonals


def run_through(board, row, col, colour):
    """The longest line of `colour` through (row, col) along any direction, counting that cell."""
    size, longest = len(board), 0
    for dr, dc in DIRECTIONS:
        length = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < size and 0 <= c < size and board[r][c] == colour:
                length += 1
                r, c = r + sign * dr, c + sign * dc
        longest = max(longest, length)
    return longest


def insert_score(board, text, me, them):
    """A cell `a1`..`f6` (a1 is the bottom left: the board's last string): five of mine wins,
    five of theirs must be blocked, else the longer lines of mine and of theirs the better."""
    row, col = len(board) - int(text[1:]), ord(text[0]) - ord("a")
    mine, theirs = run_through(board, row, col, me), run_through(board, row, col, them)
    return 1000 * (mine >= 5) + 100 * (theirs >= 5) + 3 * mine + 2 * theirs


def choose(game, message, rng):
    legal = message["legal"]
    observation = message["observation"]
    if game == "insert":   # seat 0 plays R, seat 1 plays W
        me = "RW"[observation["to_move"]]
        them = "W" if me == "R" else "R"
        scores = [insert_score(observation["board"], a["text"], me, them) for a in legal]
        legal = [a for a, s in zip(legal, scores) if s == max(scores)]
    return rng.choice(legal)["id"]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    rng, game = random.Random(), None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "start":
            rng.seed(message["seed"])
            game = message["game"]
            print(f"playing {message['game']} in seat {message['seat']}", file=sys.stderr)
            send({"type": "hello", "name": "python-kit", "protocol": 1})
        elif kind == "request":
            send({"type": "action", "id": choose(game, message, rng)})
        elif kind == "end":
            return


if __name__ == "__main__":
    main()
