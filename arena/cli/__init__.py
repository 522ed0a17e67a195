"""The `arena` command line, the only importer of click. Each command reads its options, calls the
packages that do the work (arena.tournament, arena.results, arena.reports, arena.compare,
arena.gamestats, arena.bench, arena.serve) and prints; `play` is also the terminal player.

The group turns every error into one line: a usage error or a user error (ValueError) exits 2, an
interrupt 130, and an unexpected error prints one line too (ARENA_DEBUG=1 shows its traceback). A
reader of the output that stops early (`arena games | head -1`) ends the command quietly, exit 0.
"""
import os
import signal

import click

from arena.cli.common import ArenaError, first_line, stdout_is_closed


class Interrupted(click.ClickException):
    """Ctrl-C or SIGTERM outside a tournament's own handling: one line, exit code 130."""
    exit_code = 130


def _interrupted():
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # a second Ctrl-C must not interrupt the exit
    return Interrupted("interrupted")


class _Group(click.Group):
    """The command group: a usage error prints one line (not click's usage block), and an unexpected
    error prints one line, not a traceback (ARENA_DEBUG=1 shows it). A Ctrl-C while click reads the
    command line is an interrupt like one during the command (click alone says "Aborted!", exit 1)."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:
            raise _interrupted() from None

    def parse_args(self, ctx, args):
        # `arena --nosuch`: one line too (`arena` alone still shows the help).
        try:
            return super().parse_args(ctx, args)
        except getattr(click.exceptions, "NoArgsIsHelpError", ()):   # click >= 8.2
            raise
        except click.UsageError as e:
            raise ArenaError(e.format_message() + " (arena -h for help)") from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            names: list[str] = []
            level = e.ctx
            while level is not None and level.parent is not None:   # `arena ladder run`: the whole path
                names.insert(0, level.info_name or "")
                level = level.parent
            command = f" (arena {' '.join(names)} -h for help)" if names else ""
            raise ArenaError(e.format_message() + command) from None
        except (KeyboardInterrupt, click.Abort):
            raise _interrupted() from None
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as e:
            if isinstance(e, BrokenPipeError) and stdout_is_closed():
                raise click.exceptions.Exit(0) from None
            if os.environ.get("ARENA_DEBUG"):
                raise
            raise click.ClickException(f"internal error: {type(e).__name__}: {first_line(e)} "
                                       f"(ARENA_DEBUG=1 shows the traceback)") from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tabletop-arena")
def main() -> None:
    """Tabletop Arena: fast game engines, search agents and rated bot tournaments."""


from arena.cli import (  # noqa: E402  (the
    analyze,
    compare,
    deals,
    export,
    faults,
    info,
    ladder,
    ladder_tokens,
    learn,
    play,  # command modules, which import this one)
    reports,
    run,
    runs,
    serve,
    store,
)

for _command in (run.run, run.leaderboard, runs.runs, runs.matches, faults.faults, info.games, info.agents,
                 info.check_agent, info.bench, reports.matchups, reports.graph, reports.report, play.play, play.replay,
                 analyze.analyze,
                 compare.compare, serve.serve, export.export, export.import_, store.store,
                 deals.deals, ladder.ladder, ladder.ladders, learn.train, learn.models):
    main.add_command(_command)
for _command in ladder_tokens.COMMANDS:
    ladder.ladder.add_command(_command)
