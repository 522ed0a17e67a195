"""`arena faults`: a run's faults with what the faulty bots printed, or one match's whole output."""

import click

from arena.cli.common import echo_json, json_option, open_run, store_option, user_errors


@click.command(short_help="A run's faults with what the bots printed (default: the latest run).")
@click.argument("run_id", metavar="[RUN]", required=False)
@click.argument("match_id", metavar="[MATCH]", required=False, type=click.IntRange(min=0, max=2 ** 63 - 1))
@store_option
@json_option
@user_errors
def faults(run_id: str | None, match_id: int | None, store_path: str, as_json: bool) -> None:
    """List the matches of RUN (default: the latest run) in which an agent faulted, each with its
    faults and the end of what each submitted agent printed in it (stdout and stderr; an exec
    bot's stderr). With MATCH, that match's faults and everything its agents printed, also for a
    match without faults. The arena keeps the first 64 KiB a bot prints per match; a last line
    says how much more was cut. Every line a bot printed is shown behind "| ", its control
    characters escaped."""
    from arena.reports.faults import faulted_matches, match_output
    store, run_id = open_run(store_path, run_id)
    try:
        if match_id is not None:
            match = match_output(store, run_id, match_id)
            echo_json({"run_id": run_id, **match}) if as_json else _print_match(match, whole=True)
        elif as_json:
            echo_json({"run_id": run_id, "matches": list(faulted_matches(store, run_id))})
        else:
            count = printed = 0
            for match in faulted_matches(store, run_id):   # one at a time: a run may have many
                _print_match(match, whole=False)
                count, printed = count + 1, printed + bool(match["output"])
            click.echo(f"run {run_id}: {count} matches with faults" if count else f"run {run_id} has no faults")
            if printed:
                click.echo(f"(the end of each output; arena faults {run_id} MATCH shows all of a match's)")
    finally:
        store.close()


def _print_match(match, whole):
    from arena.reports.faults import SHORT_OUTPUT, fault_line, output_heading, quoted
    click.echo(f"match {match['match_id']} ({match['game_id']})")
    for fault in match["faults"]:
        click.echo("  fault: " + fault_line(fault))
    if whole and not match["faults"]:
        click.echo("  no fault")
    for output in match["output"]:
        click.echo("  " + output_heading(output))
        click.echo("\n".join("  " + line for line in quoted(output["text"], output["cut"],
                                                             None if whole else SHORT_OUTPUT)))
    if whole and not match["output"]:
        click.echo("  no submitted agent printed anything in this match")
