"""A Tabletop Bot Protocol v1 bot (docs/protocol.md): plays a random legal move.

Reads one JSON message a line on stdin, writes one a line on stdout; logs go to stderr.
"""
import json
import random
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "start":
            rng.seed(message["seed"])
            print(f"playing {message['game']} in seat {message['seat']}", file=sys.stderr)
            send({"type": "hello", "name": "python-starter", "protocol": 1})
        elif kind == "request":
            choice = rng.choice(message["legal"])
            send({"type": "action", "id": choice["id"]})
        elif kind == "end":
            return


if __name__ == "__main__":
    main()
