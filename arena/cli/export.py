"""`arena export` (a run as a portable JSONL or CSV file) and `arena import` (a JSONL export merged
into a store, every line checked and every match replayed first)."""
import contextlib
import csv
import json
import sys

import click

from arena.cli.common import ArenaError, open_run, out_option, store_option, user_errors, writing
from arena.text import printable


@click.command("export", short_help="Write a run as JSONL (every move) or CSV (one row per match and seat).")
@click.argument("run_id", metavar="[RUN]", required=False)
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True)
@out_option("Write to FILE instead of stdout.")
@store_option
@click.option("--with-deal-key", is_flag=True,
              help="Include the run's secret deal key (whoever has it can compute the run's future deals).")
@user_errors
def export(run_id: str | None, fmt: str, out: str | None, store_path: str, with_deal_key: bool) -> None:
    """Write a run (RUN defaults to the latest tournament) as a versioned, documented file
    (docs/export.md): JSONL, a header line describing the run then one line per match with every
    action and its mover, which `arena import` merges into another store; or CSV, one row per match
    and seat, for spreadsheets. The deal key is left out unless --with-deal-key."""
    from arena.results import export as ex
    store, run_id = open_run(store_path, run_id)
    if fmt == "csv" and with_deal_key:
        raise ArenaError("--with-deal-key goes with --format jsonl (the CSV has no header line)")
    # stdout is not wrapped: a reader that stops early (`| head`) ends the command quietly
    with writing(out) if out else contextlib.nullcontext():
        f = open(out, "w", newline="") if out else sys.stdout
        try:
            if fmt == "jsonl":
                for line in ex.export_lines(store, run_id, with_deal_key):
                    f.write(json.dumps(line) + "\n")
            else:
                writer = csv.DictWriter(f, fieldnames=ex.CSV_COLUMNS, lineterminator="\n")
                writer.writeheader()
                writer.writerows(ex.csv_rows(store, run_id))
        finally:
            if out:
                f.close()
    store.close()


@click.command("import", short_help="Merge a JSONL export into a store, every line checked and every match replayed.")
@click.argument("file", type=click.Path(dir_okay=False))
@store_option
@user_errors
def import_(file: str, store_path: str) -> None:
    """Merge FILE, written by `arena export`, into the store, a line at a time in one transaction:
    each line is checked against the export's schema and each match replayed through the engine
    (each action legal and played by its mover, the same returns and placements); one line that
    fails refuses the whole file, naming it, and nothing is written. A run the store does not hold
    becomes an imported run, read only (never resumed, extended or dealt from); a run the store
    played takes only matches that prove to be its own (the file has its deal key, the schedule
    deals them so, their faults show in the replay). Importing a file twice changes nothing.
    See docs/export.md."""
    from arena.tournament.imports import import_export
    try:
        f = open(file, encoding="utf-8")
    except OSError as e:
        raise ArenaError(f"cannot read {printable(file)}: {e.strerror}") from None
    with f:
        try:
            run_id, added, total = import_export(store_path, f, printable(file))
        except UnicodeDecodeError:
            raise ArenaError(f"{printable(file)} is not text: not an arena export") from None
    click.echo(f"run {run_id}: {added} matches imported, {total} stored in {store_path}")
