"""The players' rulebook: `rulebook.md` beside this module, the one text that the web page
`/rules` and `cafe rules` both show, read into numbered sections of blocks; in each of the
other languages `rulebook.<code>.md` (`rulebook.cs.md`), the same sections translated.

The text is Markdown restricted to what both of them draw: a `#` title and paragraphs
before the first section, `## N. Title <!-- word -->` sections (the word names the section
in `cafe rules WORD` and in the page's links, the same word in every language), paragraphs,
`-` and `1.` lists, tables, fenced examples, and inline `code` and **bold**. The line
`::: board CAPTION` stands for the board's layout, drawn from `cafe.board`, so that the
picture cannot disagree with the engine; `::: nations CODE | NATION` for the legend of the
nations, their codes and their names in the book's language (`cafe.i18n.nation_name`:
CLDR's, through Babel), the two words its columns are headed with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import ClassVar

from cafe import i18n
from cafe.board import CHAIRS, GRID_SIZE, NATIONS, TABLES


@dataclass(frozen=True)
class Paragraph:
    kind: ClassVar[str] = "paragraph"  # each block names its kind for the templates
    text: str


@dataclass(frozen=True)
class Items:
    """A list: bulleted, or numbered from 1."""

    kind: ClassVar[str] = "items"
    texts: tuple[str, ...]
    numbered: bool


@dataclass(frozen=True)
class Grid:
    """A table of text: its headers and rows."""

    kind: ClassVar[str] = "grid"
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    @property
    def numeric(self) -> frozenset[int]:
        """The columns whose every cell is a number (`4`, `+1 +2`, `−10`): aligned right."""
        return frozenset(
            i
            for i in range(len(self.headers))
            if all(re.fullmatch(r"[+−-]?\d+( [+−-]?\d+)*", row[i]) for row in self.rows)
        )


@dataclass(frozen=True)
class Example:
    """Lines shown exactly as written, in a fixed-width font; a picture (the board) says
    what it shows in `caption`."""

    kind: ClassVar[str] = "example"
    lines: tuple[str, ...]
    caption: str = ""


Block = Paragraph | Items | Grid | Example


@dataclass(frozen=True)
class Section:
    number: int
    title: str
    word: str  # `cafe rules WORD`, and the web page's anchor
    blocks: tuple[Block, ...]

    @property
    def heading(self) -> str:
        return f"{self.number}. {self.title}"


@dataclass(frozen=True)
class Rulebook:
    title: str
    intro: tuple[Block, ...]
    sections: tuple[Section, ...]

    def find(self, topic: str) -> Section | None:
        """The section `topic` names: its number, its word, or (three letters or more) the
        start of a word of its title (`6`, `scoring`, `joker`)."""
        wanted = topic.strip().lower()
        for section in self.sections:
            if wanted in (str(section.number), section.word):
                return section
        if len(wanted) < 3:
            return None
        for section in self.sections:
            if any(word.startswith(wanted) for word in re.findall(r"\w+", section.title.lower())):
                return section
        return None


#: Inline markup: `code` and **bold**.
_SPAN = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")
_SECTION = re.compile(r"^## (\d+)\. (.+?) <!-- ([a-z-]+) -->$")
_ITEM = re.compile(r"^(-|\d+\.) ")
_BOARD = re.compile(r"^::: board (\S.*)$")
_NATIONS = re.compile(r"^::: nations ([^|]*\S) *\| *(\S.*)$")


def spans(text: str) -> list[tuple[str, str]]:
    """`text` as runs of (kind, text): kind `""` for plain text, `"code"` or `"strong"`."""
    runs: list[tuple[str, str]] = []
    at = 0
    for found in _SPAN.finditer(text):
        if found.start() > at:
            runs.append(("", text[at : found.start()]))
        runs.append(("code", found.group(1)) if found.group(1) else ("strong", found.group(2)))
        at = found.end()
    if at < len(text):
        runs.append(("", text[at:]))
    return runs


def plain(text: str) -> str:
    """`text` without its inline markup."""
    return "".join(run for _, run in spans(text))


def board_layout(caption: str) -> Example:
    """The café seen from above, `caption` naming it: every table as its id, every chair as
    its number, rows from the top of the board down."""
    cells: dict[tuple[int, int], str] = {table.at: table.id for table in TABLES.values()}
    cells |= {chair.at: str(chair.number) for chair in CHAIRS.values()}
    middle = GRID_SIZE // 2
    cells[(middle, middle)] = "BAR"
    lines = [
        "".join(f"{cells.get((column, row), ''):>4}" for column in range(GRID_SIZE)).rstrip()
        for row in reversed(range(GRID_SIZE))
    ]
    return Example(tuple(lines), caption=caption)


#: How many rows the legend of the nations has: twelve nations in three pairs of columns.
_LEGEND_ROWS = 4


def nations_legend(code: str, nation: str) -> Grid:
    """The nations in columns of code and name (in the language in use), headed `code` and
    `nation`, in the order of their codes, down each pair of columns and then across."""
    codes = sorted(NATIONS)
    columns = [codes[at : at + _LEGEND_ROWS] for at in range(0, len(codes), _LEGEND_ROWS)]
    rows = tuple(
        tuple(cell for column in columns for cell in (column[row], i18n.nation_name(column[row])))
        for row in range(_LEGEND_ROWS)
    )
    return Grid((code, nation) * len(columns), rows)


def parse(text: str) -> Rulebook:
    """The rulebook in `text` (the format above); a `ValueError` names a line it cannot
    read."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# "):
        raise ValueError("line 1: the rulebook starts with its `# title`")
    title = lines[0][2:].strip()
    intro: list[Block] = []
    sections: list[Section] = []
    current: tuple[int, str, str] | None = None
    blocks: list[Block] = []
    number = 1
    while number < len(lines):
        line = lines[number]
        if line.startswith("## "):
            found = _SECTION.match(line)
            if found is None:
                raise ValueError(
                    f"line {number + 1}: write a section as `## N. Title <!-- word -->`"
                )
            if current is None:
                intro = blocks
            else:
                sections.append(Section(*current, tuple(blocks)))
            current, blocks = (int(found.group(1)), found.group(2), found.group(3)), []
            number += 1
        elif not line.strip():
            number += 1
        else:
            block, number = _block(lines, number)
            blocks.append(block)
    if current is not None:
        sections.append(Section(*current, tuple(blocks)))
    return Rulebook(title, tuple(intro), tuple(sections))


def _directive(line: str, number: int) -> Block:
    """The picture that the `:::` line numbered `number` stands for."""
    if found := _BOARD.match(line.strip()):
        return board_layout(found.group(1))
    if found := _NATIONS.match(line.strip()):
        return nations_legend(found.group(1), found.group(2))
    raise ValueError(f"line {number}: write `::: board CAPTION` or `::: nations CODE | NATION`")


def _block(lines: list[str], start: int) -> tuple[Block, int]:
    """The block that begins at line `start`, and the line after it."""
    line = lines[start]
    if line.startswith("::: "):
        return _directive(line, start + 1), start + 1
    end = start + 1
    if line.startswith("```"):
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        return Example(tuple(lines[start + 1 : end])), end + 1
    while end < len(lines) and lines[end].strip() and not lines[end].startswith(("## ", "```")):
        end += 1
    chunk = lines[start:end]
    if line.startswith("|"):
        rows = [tuple(cell.strip() for cell in row.strip().strip("|").split("|")) for row in chunk]
        return Grid(rows[0], tuple(rows[2:])), end
    if _ITEM.match(line):
        items: list[str] = []
        for row in chunk:
            if _ITEM.match(row):
                items.append(_ITEM.sub("", row, count=1))
            else:
                items[-1] += " " + row.strip()
        return Items(tuple(items), numbered=line[0].isdigit()), end
    return Paragraph(" ".join(row.strip() for row in chunk)), end


def load(language: str | None = None) -> Rulebook:
    """The rulebook shipped with the package in `language`, by default the one in use
    (`cafe.i18n.current()`): English where that language has no book, or no such section."""
    return _load(language or i18n.current())


def source(language: str) -> str:
    """The file name of the book in `language`: `rulebook.md` is English's."""
    return "rulebook.md" if language == i18n.DEFAULT else f"rulebook.{language}.md"


@cache
def _load(language: str) -> Rulebook:
    english = _read(i18n.DEFAULT)
    if language == i18n.DEFAULT or not resources.files("cafe").joinpath(source(language)).is_file():
        return english
    return completed(_read(language), english)


def completed(book: Rulebook, english: Rulebook) -> Rulebook:
    """`book`, a translation, with `english`'s sections in their order, each the
    translation's where it has one (by its word), else the English one."""
    translated = {section.word: section for section in book.sections}
    sections = tuple(translated.get(section.word, section) for section in english.sections)
    return Rulebook(book.title, book.intro, sections)


def _read(language: str) -> Rulebook:
    """The book in `language` as its file has it, its nations named in that language."""
    text = resources.files("cafe").joinpath(source(language)).read_text(encoding="utf-8")
    with i18n.speaking(language):
        return parse(text)
