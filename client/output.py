"""Terminal output: colour or not, one-line errors, and plain tables within 100 columns
(80 for the league's tables, which people paste into mails and forums).

Everything reads well without colour; colour is only added when stdout is a terminal, the
user did not ask for `--plain`, and `NO_COLOR` is not set (https://no-color.org).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Sequence

import typer

WIDTH = 100
#: The width of the league and rating tables.
NARROW = 80
#: The first column of a row about the reader (their line of a table, their game).
YOU = "→"
PROG = "cafe"


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def color_wanted(plain: bool = False) -> bool:
    """Whether to colour what goes to stdout."""
    return not plain and not os.environ.get("NO_COLOR") and stdout_is_terminal()


def say(text: str = "", *, color: bool = False) -> None:
    """A line (or lines) on stdout; ANSI codes survive only when `color` is on."""
    typer.echo(text, color=color)


def note(text: str) -> None:
    """Progress for the person watching, on stderr, so that stdout stays the result."""
    typer.echo(text, err=True)


def fail_line(message: str) -> None:
    """The one line of an error or warning on stderr."""
    typer.echo(f"{PROG}: {message}", err=True)


def terminal_width() -> int:
    """The terminal's width in columns (`COLUMNS` if set; 80 when it cannot be told)."""
    return shutil.get_terminal_size((80, 24)).columns


def signed(number: int) -> str:
    """Points as the game writes them: `+3`, `-4`, `0`."""
    return f"{number:+d}" if number else "0"


def shorten(text: str, width: int) -> str:
    """`text` cut to `width` columns with `…`."""
    return text if len(text) <= width else text[: width - 1] + "…"


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    right: Iterable[int] = (),
    width: int = WIDTH,
) -> str:
    """Rows under their headers in aligned columns (those in `right` aligned right), each
    line cut to `width` columns."""
    rows = [list(headers), *(list(row) for row in rows)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(headers))]
    flush_right = set(right)
    lines = []
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if i in flush_right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append(shorten("  ".join(cells).rstrip(), width))
    return "\n".join(lines)


def marked_table(
    headers: Sequence[str],
    rows: Sequence[tuple[bool, Sequence[str]]],
    right: Iterable[int] = (),
    *,
    color: bool = False,
) -> str:
    """A table within `NARROW` columns whose rows flagged true are the reader's: marked
    `→` in a first column (readable without colour, in a pipe or a mail), and bold too
    when `color` is on. `right` counts the columns of `headers`; no row of the reader's,
    no marker column."""
    if not any(mine for mine, _ in rows):
        return table(headers, [cells for _, cells in rows], right, width=NARROW)
    text = table(
        ("", *headers),
        [(YOU if mine else "", *cells) for mine, cells in rows],
        right={i + 1 for i in right},
        width=NARROW,
    )
    lines = text.split("\n")
    for index, (mine, _) in enumerate(rows, 1):
        if mine and color:
            lines[index] = typer.style(lines[index], bold=True)
    return "\n".join(lines)


def joined(parts: Sequence[str], sep: str = " · ", width: int = WIDTH) -> str:
    """Phrases joined by `sep` into lines of at most `width` columns (a phrase is not split)."""
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1] + sep + part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return "\n".join(lines)


def scores_text(players: Sequence[str], scores: Sequence[int]) -> str:
    """`ann 17 · bob 4 · cid 0`."""
    return " · ".join(f"{name} {score}" for name, score in zip(players, scores, strict=True))
