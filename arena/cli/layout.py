"""The one place that fits a terminal table to the console's width: every table `arena` prints goes
through `print_table`, which never cuts a number or a label into "…".

A table that is too wide first takes its columns' short headings, then leaves out its least
important columns; a dim line under it names the short headings and the columns left out. Text that
may wrap (descriptions, details, labels) wraps, and a word too long for its column is folded onto
the next line, never cut."""
from dataclasses import dataclass

WRAP_MIN = 20   # columns a column of wrapping text is given at least (or its own width, if less)


@dataclass(frozen=True)
class Column:
    """One column of a terminal table.

    wrap: its text may wrap onto more lines; any other column (numbers, intervals, codes) is shown
    whole or not at all. short: its heading when the table does not fit. importance: None for a
    column always shown; otherwise, when the table does not fit, the most important columns that
    fit are shown and the others left out."""
    header: str
    justify: str = "left"
    wrap: bool = False
    short: "str | None" = None
    importance: "int | None" = None


def _measure(console, renderable):
    from rich.measure import Measurement
    return Measurement.get(console, console.options, renderable)


def _table(columns, headers, widths, title, options, fixed):
    """A rich Table of the columns; `fixed`: each column exactly its width (to measure the table)."""
    from rich.table import Table

    from arena.cli.common import literal
    table = Table(title=title, **options)
    for c, header, width in zip(columns, map(literal, headers), widths):
        if fixed:
            table.add_column(header, width=width)
        elif c.wrap:
            table.add_column(header, justify=c.justify, overflow="fold")
        else:
            # min_width: rich never shrinks the column below its widest cell, so nothing is cut.
            table.add_column(header, justify=c.justify, no_wrap=True, min_width=width)
    return table


def print_table(console, columns, rows, title=None, **options):
    """Print the rows (cells: text, rich markup or Text) under the columns, fitted to the console's
    width, and under the table a dim line naming the short headings used and the columns left out.
    Returns the headers (full) of the columns shown."""
    from arena.cli.common import literal
    # Each column's width whole, with its heading and with its short heading, and the least it
    # needs: its whole width, or for wrapping text at most WRAP_MIN.
    heading = [_measure(console, literal(c.header)).maximum for c in columns]
    short_heading = [_measure(console, literal(c.short or c.header)).maximum for c in columns]
    cells = [max((_measure(console, row[i]).maximum for row in rows), default=0) for i in range(len(columns))]

    def needs(i, short):
        whole = max(cells[i], short_heading[i] if short else heading[i])
        return min(whole, WRAP_MIN) if columns[i].wrap else whole

    def headers(shown, short):
        return [columns[i].short if short and columns[i].short else columns[i].header for i in shown]

    def fits(shown, short):
        table = _table([columns[i] for i in shown], headers(shown, short), [needs(i, short) for i in shown],
                       title, options, True)
        return console.measure(table, options=console.options.update_width(10 ** 6)).maximum <= console.width

    shown, short = list(range(len(columns))), False
    if not fits(shown, short):
        short = any(c.short for c in columns)
        shown = [i for i, c in enumerate(columns) if c.importance is None]
        for i in sorted((i for i, c in enumerate(columns) if c.importance is not None),
                        key=lambda i: -columns[i].importance):
            if fits(sorted(shown + [i]), short):
                shown = sorted(shown + [i])
    used = [columns[i] for i in shown]
    table = _table(used, headers(shown, short), [needs(i, short) for i in shown], title, options, False)
    for row in rows:
        table.add_row(*[row[i] for i in shown])
    console.print(table)
    notes = [f"short headings: {', '.join(f'{c.short} = {c.header}' for c in used if short and c.short)}"] \
        if short and any(c.short for c in used) else []
    left_out = [c.header for i, c in enumerate(columns) if i not in shown]
    if left_out:
        notes.append(f"left out to fit {console.width} columns: {', '.join(left_out)} (a wider terminal or "
                     f"--json shows {'it' if len(left_out) == 1 else 'them'})")
    if notes:
        console.print(literal("; ".join(notes)), style="dim")
    return [c.header for c in used]
