"""`arena play` (a person against bots in the terminal) and `arena replay` (a stored match, move by
move): the terminal player, its input and output; the game itself is arena.human_game's, the drawing of a
position agents.drawing's."""
import sys
from typing import TYPE_CHECKING, Any

import click

from arena.cli.common import open_run, out_option, sandbox_option, store_option, user_errors, writing
from arena.text import printable

if TYPE_CHECKING:
    from arena.store import Store
    from engines.core import GameState

REPLAY_HELP = "Enter/n next, b back, s start, e end, a number jumps to that move, q quits"
SEAT_HELP = ("Your seat, 0 to the number of bots. Who moves first is drawn from the deal (--seed) in every "
             "game, so it may be any seat (in Wizard the seat after the dealer, or the dealer when a Wizard "
             "turned up has them pick trump; in Royal Ball the seat after the marker); the first line says who.")


def ask(text: str) -> str:
    """The person's answer to a prompt, read from the terminal (an empty line is "")."""
    return click.prompt(text, default="", show_default=False)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--vs", "vs", required=True, metavar="AGENT[,AGENT...]",
              help='The bots, one per other seat, e.g. "ismcts,ismcts[iterations=500]" or "./bot.py:MyBot".')
@click.option("--seat", type=int, default=0, show_default=True, help=SEAT_HELP)
@click.option("--seed", type=click.IntRange(0, 2 ** 64 - 1), default=None, help="The deal (default: a random one).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter.")
@sandbox_option
@user_errors
def play(game_id: str, vs: str, seat: int, seed: int | None, params: tuple[str, ...], sandbox: str) -> None:
    """Play GAME against bots in the terminal: moves by number or by name, q quits. Nothing is
    stored: a game played here, finished or left, is in no run."""
    import random

    import engines
    from agents.drawing import fit, side
    from agents.human import HumanAgent, QuitGame, describe_view
    from arena import edge
    from arena.human_game import final_scores, first_mover
    from arena.human_game import play as play_game
    from arena.sandbox import AgentFault, validate_all
    from arena.tournament.schedule import check_can_play

    policy = edge.sandbox_policy(sandbox)
    bots = list(edge.agent_items(vs, "--vs", policy))
    validate_all(bots, policy)
    pairs = dict(edge.params(params))
    if "players" in pairs:
        raise click.UsageError("the number of players is one more than the bots in --vs")
    # The game, its parameters and the seat are checked before the first line is printed.
    check_can_play(bots, game_id, engines.registry.resolve(game_id, players=len(bots) + 1, **pairs))
    if not 0 <= seat <= len(bots):
        raise click.UsageError(f"--seat must be between 0 and {len(bots)}")
    seed = random.SystemRandom().getrandbits(31) if seed is None else seed
    human = HumanAgent(ask=ask, tell=click.echo)

    def opening(state, names):
        played = side(state, seat)
        click.echo(f"{game_id}, seed {seed}: you are seat {seat}{', ' + played if played else ''}; "
                   f"{first_mover(state, names)}")

    try:
        state, names, log = play_game(game_id, dict(pairs, players=len(bots) + 1), bots, human, seat, seed,
                                      policy, on_start=opening)
    except AgentFault as fault:
        raise click.ClickException(f"a bot failed ({fault.kind}): {fault}") from None
    except QuitGame:
        click.echo(f"you left the game; arena play stores nothing (--seed {seed} deals it again)")
        return
    click.echo("")
    click.echo(describe_view(state, None, log, names))   # the game is over: every hand face up
    click.echo(fit(final_scores(state, names).splitlines()))


@click.command()
@click.argument("args", nargs=-1, metavar="[RUN] MATCH")
@click.option("--seat", type=int, default=None, help="Show only what this seat could see.")
@click.option("--to-end", is_flag=True, help="Print the final position and scores without stepping.")
@out_option("Write the match as one self-contained HTML page to FILE (in a folder that exists), to open in "
            "any browser; with a RUN and no MATCH, FILE is an index of the run's matches and a folder beside "
            "it (run.html: run_files/) holds one such page per match.", flag="--html")
@store_option
@user_errors
def replay(args: tuple[str, ...], seat: int | None, to_end: bool, out: str | None, store_path: str) -> None:
    """Step through a stored match (RUN defaults to the latest tournament): forward, back, jump, end.
    With --html, write it (or a whole RUN) as HTML pages instead."""
    number = args[-1] if args else ""
    if out is not None and len(args) == 1 and not (number.isascii() and number.isdigit()):   # a whole run
        if seat is not None or to_end:
            raise click.UsageError("--seat and --to-end are for one match, not a whole run")
        store, run_id = open_run(store_path, args[0])
        with writing(out):
            replay_run_html(store, run_id, out)
        store.close()
        return
    if len(args) not in (1, 2) or not (number.isascii() and number.isdigit()) or int(number) >= 2 ** 63:
        raise click.UsageError("give the match as [RUN] MATCH, MATCH being its number (arena matches [RUN] lists them)")
    store, run_id = open_run(store_path, args[0] if len(args) == 2 else None)
    match = store.match(run_id, int(args[-1]))
    if out is not None:
        if to_end:
            raise click.UsageError("--to-end is for the terminal, not --html")
        from arena.serve.replay_html import match_page
        text = match_page(run_id, match, seat)
        with writing(out), open(out, "w", encoding="utf-8") as f:
            f.write(text)
        click.echo(printable(f"wrote {out}: {_size(len(text.encode()))}, {len(match['actions'])} moves of "
                             f"{match['game_id']} match {match['match_id']} of run {run_id}"
                             + ("" if seat is None else f", seat {seat}'s view")))
        store.close()
        return
    if seat is not None and not 0 <= seat < len(match["seats"]):
        raise click.UsageError(f"--seat must be between 0 and {len(match['seats']) - 1}")
    replay_match(match, seat=seat, to_end=to_end)
    store.close()


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def replay_run_html(store: "Store", run_id: str, out: str) -> None:
    """Writes the run's index to `out` and its matches' HTML replays beside it, with a progress line
    on a terminal."""
    from arena.serve.replay_html import files_folder, write_run

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            click.echo(f"\rmatches {done}/{total}", nl=done == total, err=True)

    matches, size = write_run(store, run_id, out, progress)
    click.echo(printable(f"wrote {out} and {matches} match replays in {files_folder(out)}/: {_size(size)} in all"))


def replay_match(match: dict[str, Any], seat: int | None = None, to_end: bool = False) -> "GameState":
    """Steps through a stored match on the terminal; with `seat`, shows only that seat's view."""
    from agents.drawing import fit
    from agents.human import describe_view
    from arena.human_game import end_summary, full_log, stored_match

    states, names, seen = stored_match(match, seat)
    last = len(states) - 1
    i = last if to_end else 0
    while True:
        state = states[i]
        click.echo(f"\nmove {i} of {last}")
        log = full_log(states, match["actions"], names, i) if seen is None else seen[:i]
        click.echo(describe_view(state, seat, log, names))
        if i == last:
            click.echo(fit(end_summary(states[-1], match, names).splitlines()))
            if to_end:
                return states[-1]
        command = click.prompt(REPLAY_HELP, default="n", show_default=False).strip().lower()
        if command in ("q", "quit"):
            return states[i]
        if command in ("", "n"):
            i = min(i + 1, last)
        elif command == "b":
            i = max(i - 1, 0)
        elif command == "s":
            i = 0
        elif command == "e":
            i = last
        elif command.isdigit():
            i = min(int(command), last)
        else:
            click.echo(f"unknown command {command!r}: {REPLAY_HELP}")
