"""Terminal output: colour or not, one-line errors, prose and tables that fit the terminal.

Everything reads well without colour; colour is only added when stdout is a terminal, the
user did not ask for `--plain`, and `NO_COLOR` is not set (https://no-color.org).

Width: every line `say` prints fits the terminal (`COLUMNS`, else the terminal's own width,
else 80 in a pipe), counted in the columns a terminal gives each character (`display_width`:
a combining accent takes none, a wide character two), so that tables in any language align.
Tables use the width there is: their widest columns are cut with `…` only when they would
not fit, and a column that can go (a deadline's moment) goes first.
Sentences are broken between words, and a `cafe …` command they end with moves whole to a
line of its own (continued with `\\` where even that is too long), so it can be copied.
What is for programs (JSON, game records) and the board's picture are printed as they are.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
import unicodedata
from collections.abc import Iterable, Sequence

import typer

#: The width prose is joined to where it is pasted into mails and forums (league texts).
NARROW = 80
#: The first column of a row about the reader (their line of a table, their game).
YOU = "→"
PROG = "cafe"
#: A `cafe …` command that ends a line, after `: ` or `· ` or alone on it
#: (`Sign in with: cafe login ann@example.com`).
_COMMAND = re.compile(r"(?:^\s*|(?<=: )|(?<=· ))cafe \S.*$")
#: The fewest columns a cut column keeps (its header may ask for more).
SHORTEST = 6
#: The columns a cut column keeps before a column that may go is left out: a whole name.
ROOMY = 24
_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def command(*words: object) -> str:
    """A `cafe` command as a message shows it (`cafe show 12`): never translated, so that it
    can be copied whatever language the sentence around it is in."""
    return " ".join((PROG, *map(str, words)))


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def color_wanted(plain: bool = False) -> bool:
    """Whether to colour what goes to stdout."""
    return not plain and not os.environ.get("NO_COLOR") and stdout_is_terminal()


def say(text: str = "", *, color: bool = False, fit: bool = True) -> None:
    """A line (or lines) on stdout, each fitted to the terminal (`fitted`) unless `fit` is
    off (JSON, records, a board drawn wider on purpose); ANSI codes survive only when
    `color` is on."""
    if fit:
        width = terminal_width()
        text = "\n".join(part for line in text.split("\n") for part in fitted(line, width))
    typer.echo(text, color=color)


def confirm(question: str) -> None:
    """Ask a yes-or-no `question`, fitted to the terminal like what `say` prints (its last
    line carries the `[y/N]`); no ends the command (`typer.Abort`)."""
    *before, last = fitted(question, terminal_width() - display_width(" [y/N]: "))
    if before:
        say("\n".join(before), fit=False)
    typer.confirm(last, abort=True)


def display_width(text: str) -> int:
    """The columns `text` takes on a terminal: none for a combining mark or a zero-width
    character, two for a wide (East Asian) one, one for any other."""
    return sum(_columns(char) for char in text)


def _columns(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def padded(text: str, width: int, *, right: bool = False) -> str:
    """`text` padded with spaces to `width` columns (`display_width`), on the left if `right`."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def fitted(line: str, width: int) -> list[str]:
    """`line` as lines of at most `width` columns: as it is if it fits, else broken between
    words, each part indented as the line was; a `cafe …` command at its end goes whole on
    a line of its own, two columns further in (`command_lines`). A coloured line (a table
    row, the board) is left as it is: what draws it fits it."""
    if display_width(line) <= width or _ESCAPE.search(line):
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    found = _COMMAND.search(line)
    ending = found.group().strip() if found else ""
    words = line[: found.start()].strip() if found else line.strip()
    if not words:
        return command_lines(ending, width, indent)
    lines = textwrap.wrap(words, width, initial_indent=indent, subsequent_indent=indent,
                          break_long_words=False, break_on_hyphens=False)  # fmt: skip
    if not ending:
        return lines
    if display_width(lines[-1]) + 1 + display_width(ending) <= width:
        return [*lines[:-1], f"{lines[-1]} {ending}"]
    return [*lines, *command_lines(ending, width, indent + "  ")]


def command_lines(command: str, width: int, indent: str = "") -> list[str]:
    """A shell command in lines of at most `width` columns where its words allow: broken
    between words, each line but the last ending in ` \\`, so that it pastes as one."""
    lines = [indent]
    for word in command.split(" "):
        if lines[-1].strip() and len(lines[-1]) + 1 + len(word) + 2 > width:
            lines[-1] += " \\"
            lines.append(indent + "  ")
        lines[-1] += word if not lines[-1].strip() else f" {word}"
    return lines


def note(text: str) -> None:
    """Progress for the person watching, on stderr, so that stdout stays the result."""
    typer.echo(text, err=True)


def fail_line(message: str) -> None:
    """The one line of an error or warning on stderr."""
    typer.echo(f"{PROG}: {message}", err=True)


def terminal_width() -> int:
    """The terminal's width in columns (`COLUMNS` if set; 80 when it cannot be told)."""
    return shutil.get_terminal_size((80, 24)).columns


def shorten(text: str, width: int) -> str:
    """`text` cut to `width` columns (`display_width`) with `…`."""
    if display_width(text) <= width:
        return text
    kept = ""
    for char in text:
        if display_width(kept + char) > width - 1:
            break
        kept += char
    return kept + "…"


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    right: Iterable[int] = (),
    width: int | None = None,
    *,
    cut: Iterable[int] = (),
    drop: Sequence[int] = (),
) -> str:
    """Rows under their headers in aligned columns (those in `right` aligned right) within
    `width` columns (the terminal's by default). Columns too wide together lose those in
    `drop`, in that order, while they would not fit even with the columns in `cut` cut to
    `ROOMY`; then the widest of those in `cut` loses a column at a time, never narrower
    than its header nor than `SHORTEST`, its cells cut with `…`. A line still too long
    (nothing more may go) is cut at the end."""
    width = terminal_width() if width is None else width
    grid = [list(headers), *(list(row) for row in rows)]
    widths = {i: max(display_width(row[i]) for row in grid) for i in range(len(headers))}
    narrowest = {
        i: min(widths[i], max(display_width(headers[i]), SHORTEST)) for i in cut if i in widths
    }

    def total(cap: int | None = None) -> int:
        shown = [w if cap is None or i not in narrowest else min(w, cap) for i, w in widths.items()]
        return sum(shown) + 2 * (len(shown) - 1)

    for column in drop:
        if total(cap=ROOMY) <= width:
            break
        del widths[column]
    while total() > width:
        cuttable = [i for i in narrowest if i in widths and widths[i] > narrowest[i]]
        if not cuttable:
            break
        widest = max(cuttable, key=lambda i: (widths[i], -i))
        widths[widest] -= 1
    flush_right = set(right)
    lines = []
    for row in grid:
        cells = [padded(shorten(row[i], w), w, right=i in flush_right) for i, w in widths.items()]
        lines.append(shorten("  ".join(cells).rstrip(), width))
    return "\n".join(lines)


def marked_table(
    headers: Sequence[str],
    rows: Sequence[tuple[bool, Sequence[str]]],
    right: Iterable[int] = (),
    *,
    color: bool = False,
    cut: Iterable[int] = (),
    drop: Sequence[int] = (),
) -> str:
    """A `table` whose rows flagged true are the reader's: marked `→` in a first column
    (readable without colour, in a pipe or a mail), and bold too when `color` is on.
    `right`, `cut` and `drop` count the columns of `headers`; no row of the reader's, no
    marker column."""
    if not any(mine for mine, _ in rows):
        return table(headers, [cells for _, cells in rows], right, cut=cut, drop=drop)
    text = table(
        ("", *headers),
        [(YOU if mine else "", *cells) for mine, cells in rows],
        right={i + 1 for i in right},
        cut={i + 1 for i in cut},
        drop=[i + 1 for i in drop],
    )
    lines = text.split("\n")
    for index, (mine, _) in enumerate(rows, 1):
        if mine and color:
            lines[index] = typer.style(lines[index], bold=True)
    return "\n".join(lines)


def joined(parts: Sequence[str], sep: str = " · ", width: int | None = None) -> str:
    """Phrases joined by `sep` into lines of at most `width` columns (the terminal's by
    default; a phrase is not split)."""
    width = terminal_width() if width is None else width
    lines = [parts[0]]
    for part in parts[1:]:
        if display_width(lines[-1] + sep + part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return "\n".join(lines)


def scores_text(players: Sequence[str], scores: Sequence[int]) -> str:
    """`ann 17 · bob 4 · cid 0`."""
    return " · ".join(f"{name} {score}" for name, score in zip(players, scores, strict=True))
