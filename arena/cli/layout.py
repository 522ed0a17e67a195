"""The one place that fits a terminal table to the console's width: every table `arena` prints goes
through `print_table`, which never cuts a number or a label into "…".

A table that is too wide first takes its columns' short headings, then leaves out its least
important columns; a dim line under it names the short headings and the columns left out. Text that
may wrap (descriptions, details, labels) wraps, and a word too long for its column is folded onto
the next line, never cut."""
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

TEXT = 20    # the least width a column of wrapping text (descriptions, details) is given
LABEL = 30   # the least width a column of agent labels is given: shorter labels never wrap


@dataclass(frozen=True)
class Column:
    """One column of a terminal table.

    wrap: 0 for a column shown whole or not at all (numbers, intervals, codes); otherwise its text
    may wrap onto more lines, down to this width (or its own width, if less). short: its heading
    when the table does not fit. importance: None for a column always shown; otherwise, when the
    table does not fit, the most important columns that fit are shown and the others left out."""
    header: str
    justify: str = "left"
    wrap: int = 0
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


def _needs(console, columns, rows):
    """needs(i, short): the columns column i needs, with its short heading or not: its widest cell or
    heading, or for wrapping text at most its `wrap` width."""
    from arena.cli.common import literal

    def widest(cells):
        return max((_measure(console, c).maximum for c in cells), default=0)
    cells = [widest(row[i] for row in rows) for i in range(len(columns))]
    heading = [widest([literal(c.header)]) for c in columns]
    short_heading = [widest([literal(c.short or c.header)]) for c in columns]

    def needs(i, short):
        whole = max(cells[i], short_heading[i] if short else heading[i])
        return min(whole, columns[i].wrap) if columns[i].wrap else whole
    return needs


def _headers(columns, short):
    return [c.short if short and c.short else c.header for c in columns]


def _fits(console, columns, widths, short, options):
    table = _table(columns, _headers(columns, short), widths, None, options, True)
    return console.measure(table, options=console.options.update_width(10 ** 6)).maximum <= console.width


def fits(console: "Console", columns: Sequence["Column"], rows: Sequence[Sequence[Any]], **options: Any) -> bool:
    """Whether the whole table, with its full headings, fits the console's width."""
    needs = _needs(console, columns, rows)
    return _fits(console, columns, [needs(i, False) for i in range(len(columns))], False, options)


def print_table(console: "Console", columns: Sequence["Column"], rows: Sequence[Sequence[Any]],
                title: Union[str, "Text"] | None = None, **options: Any) -> list[str]:
    """Print the rows (cells: text, rich markup or Text) under the columns, fitted to the console's
    width, and under the table a dim line naming the short headings used and the columns left out.
    Returns the headers (full) of the columns shown."""
    from arena.cli.common import literal
    needs = _needs(console, columns, rows)

    def fit(shown, short):
        return _fits(console, [columns[i] for i in shown], [needs(i, short) for i in shown], short, options)

    shown, short = list(range(len(columns))), False
    if not fit(shown, short):
        # Short headings, then the most important columns that fit.
        short = any(c.short for c in columns)
        shown = [i for i, c in enumerate(columns) if c.importance is None]
        for i in sorted((i for i, c in enumerate(columns) if c.importance is not None),
                        key=lambda i: -(columns[i].importance or 0)):
            if fit(sorted(shown + [i]), short):
                shown = sorted(shown + [i])
    used = [columns[i] for i in shown]
    table = _table(used, _headers(used, short), [needs(i, short) for i in shown], title, options, False)
    for row in rows:
        table.add_row(*[row[i] for i in shown])
    console.print(table)
    notes = [f"short headings: {', '.join(f'{c.short} = {c.header}' for c in used if c.short)}"] \
        if short and any(c.short for c in used) else []
    left_out = [c.header for i, c in enumerate(columns) if i not in shown]
    if left_out:
        notes.append(f"left out to fit {console.width} columns: {', '.join(left_out)} (a wider terminal or "
                     f"--json shows {'it' if len(left_out) == 1 else 'them'})")
    if notes:
        console.print(literal("; ".join(notes)), style="dim")
    return [c.header for c in used]
