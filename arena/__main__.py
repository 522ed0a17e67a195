"""`arena` and `python -m arena`: the command line, with Ctrl-C handled from the first instant.

While the command's modules load, a Ctrl-C ends the command quietly with exit code 130; once
click runs, Ctrl-C is a KeyboardInterrupt again, which the commands handle (a tournament stops and
keeps what is stored).
"""
import signal
import sys
from typing import Any


def _interrupted_while_loading(signum, frame):
    sys.stderr.write("interrupted\n")
    sys.exit(130)


def main() -> Any:
    signal.signal(signal.SIGINT, _interrupted_while_loading)
    from arena.cli import main as cli
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return cli()


if __name__ == "__main__":
    sys.exit(main())
