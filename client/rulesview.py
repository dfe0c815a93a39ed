"""The rulebook (`cafe.rulebook`) as terminal text: headings underlined, paragraphs and
lists broken between words to the width, tables drawn by `client.output.table`, examples
as written and indented. Code keeps its backticks in sentences, as in every message of
`cafe` (a table's columns need none); bold is left out: the words read the same without."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from cafe import rulebook
from cafe.i18n import gettext as _
from cafe.rulebook import Block, Example, Grid, Items, Paragraph, Rulebook, Section, spans
from client.output import joined, table

#: The widest the rules are set, however wide the terminal: lines stay easy to read.
MEASURE = 100


def book_text(book: Rulebook, width: int) -> str:
    """The whole rulebook: title, introduction, the sections' words, every section."""
    width = min(width, MEASURE)
    words = [f"{s.number} {s.word}" for s in book.sections]
    lines = [*_heading(book.title, "═"), *_blocks(book.intro, width), ""]
    lines += [
        _(
            "The sections (one alone: `%(by_word)s` or `%(by_number)s`):",
            by_word="cafe rules WORD",
            by_number="cafe rules NUMBER",
        )
    ]
    lines += joined(words, width=width).split("\n")
    for section in book.sections:
        lines += ["", *section_lines(section, width)]
    return "\n".join(lines)


def section_text(section: Section, width: int) -> str:
    return "\n".join(section_lines(section, min(width, MEASURE)))


def section_lines(section: Section, width: int) -> list[str]:
    return [*_heading(section.heading, "─"), *_blocks(section.blocks, width)]


def _heading(text: str, rule: str) -> list[str]:
    return [text, rule * len(text)]


def _blocks(blocks: Iterable[Block], width: int) -> list[str]:
    lines: list[str] = []
    for block in blocks:
        lines += ["", *block_lines(block, width)]
    return lines


def block_lines(block: Block, width: int) -> list[str]:
    """One block's lines, at most `width` columns wide (an example as it is written)."""
    if isinstance(block, Paragraph):
        return _wrap(plain(block.text), width)
    if isinstance(block, Items):
        lines = []
        for number, item in enumerate(block.texts, 1):
            mark = f"{number}. " if block.numbered else "- "
            lines += _wrap(plain(item), width, first=f"  {mark}", rest=" " * (2 + len(mark)))
        return lines
    if isinstance(block, Grid):
        rows = [[rulebook.plain(cell) for cell in row] for row in block.rows]
        headers = [rulebook.plain(header) for header in block.headers]
        drawn = table(headers, rows, right=block.numeric, width=width - 2)
        return ["  " + line for line in drawn.split("\n")]
    assert isinstance(block, Example)
    return ["  " + line if line else "" for line in block.lines]


#: Holds the words of a piece of code together while a paragraph is broken into lines.
_NBSP = "\N{NO-BREAK SPACE}"


def plain(text: str) -> str:
    """A text of the rulebook as the terminal shows it: `code` kept (its words held
    together by no-break spaces until `_wrap`), bold dropped."""
    return "".join(
        f"`{run.replace(' ', _NBSP)}`" if kind == "code" else run for kind, run in spans(text)
    )


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    lines = textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest,
                          break_long_words=False, break_on_hyphens=False)  # fmt: skip
    return [line.replace(_NBSP, " ") for line in lines]
