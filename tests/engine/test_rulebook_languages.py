"""The rulebook in Czech, German and Russian (`cafe/rulebook.<code>.md`): each is the English
book's translation, section for section and block for block — the same numbers, words,
lists, tables, turns and figures, so that a translation cannot drop or change a rule
unnoticed —, the nations named as CLDR names them, no mojibake; `load()` gives the book of
the language in use, and English for a section a book lacks."""

from __future__ import annotations

import re
from collections import Counter
from importlib import resources

import pytest
from babel import Locale
from mojibake_support import MOJIBAKE

from cafe import Turn, i18n, rulebook
from cafe.board import BAR_VALUES, NATIONS
from cafe.rulebook import Block, Example, Grid, Items, Paragraph, Rulebook, Section

ENGLISH = rulebook.load(i18n.DEFAULT)
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]


def own_book(code: str) -> Rulebook:
    """The book exactly as its file has it, no English filled in."""
    text = resources.files("cafe").joinpath(rulebook.source(code)).read_text(encoding="utf-8")
    with i18n.speaking(code):
        return rulebook.parse(text)


def texts(blocks: tuple[Block, ...]) -> list[str]:
    """Every text of `blocks`: paragraphs, list items, tables' headers and cells."""
    found: list[str] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            found.append(block.text)
        elif isinstance(block, Items):
            found.extend(block.texts)
        elif isinstance(block, Grid):
            found.extend(cell for row in (block.headers, *block.rows) for cell in row)
    return found


def shape(block: Block) -> tuple[object, ...]:
    """What a translation keeps of a block: its kind and size, and an example's lines."""
    if isinstance(block, Items):
        return ("items", len(block.texts), block.numbered)
    if isinstance(block, Grid):
        return ("grid", len(block.headers), len(block.rows), block.numeric)
    if isinstance(block, Example):
        return ("example", block.lines)
    return ("paragraph",)


def codes(section: Section) -> Counter[str]:
    return Counter(run for text in texts(section.blocks) for kind, run in rulebook.spans(text)
                   if kind == "code")  # fmt: skip


def numbers(section: Section) -> Counter[str]:
    return Counter(re.findall(r"\d+", " ".join(rulebook.plain(t) for t in texts(section.blocks))))


def pairs(book: Rulebook) -> list[tuple[Section, Section]]:
    return list(zip(ENGLISH.sections, book.sections, strict=True))


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_language_has_every_section_of_its_own(code: str) -> None:
    book = own_book(code)
    assert [(s.number, s.word) for s in book.sections] == [
        (s.number, s.word) for s in ENGLISH.sections
    ]
    assert all(section.blocks for section in book.sections)
    assert book.title != ENGLISH.title and "Café International" in book.title
    for english, translated in pairs(book):
        assert translated.title != english.title, translated.heading


@pytest.mark.parametrize("code", TRANSLATED)
def test_each_section_translates_the_english_block_for_block(code: str) -> None:
    """Same lists, tables and pictures in the same order; the same pieces of code (every
    turn, chair and command) and the same figures (chairs, points, stools) in each section."""
    book = own_book(code)
    assert [shape(b) for b in book.intro] == [shape(b) for b in ENGLISH.intro]
    for english, translated in pairs(book):
        assert [shape(b) for b in translated.blocks] == [shape(b) for b in english.blocks]
        assert codes(translated) == codes(english), translated.heading
        assert numbers(translated) == numbers(english), translated.heading


def grids(book: Rulebook, word: str) -> list[Grid]:
    section = book.find(word)
    assert section is not None
    return [block for block in section.blocks if isinstance(block, Grid)]


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_the_bar_values_and_the_example_turns_are_the_engines_in_every_language(
    code: str,
) -> None:
    book = rulebook.load(code)
    (bar,) = grids(book, "bar")
    values = [int(v.replace("−", "-")) for row in bar.rows for v in row[1].split()]
    assert tuple(values) == BAR_VALUES
    (turns,) = grids(book, "notation")
    for row in turns.rows:
        Turn.parse(rulebook.plain(row[0]))


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_nations_are_named_as_cldr_names_them(code: str) -> None:
    """Babel's country names (Africa is CLDR's region 002), the engine's codes, every one."""
    (legend, *_) = grids(rulebook.load(code), "components")
    names = {row[i]: row[i + 1] for row in legend.rows for i in range(0, len(row), 2)}
    territories = Locale.parse(code).territories
    assert names == {nation: territories["002" if nation == "AF" else nation] for nation in NATIONS}
    assert legend.headers[0] != "code" and len(set(names.values())) == len(NATIONS)


def test_english_names_the_nations_as_the_engine_does() -> None:
    (legend, *_) = grids(ENGLISH, "components")
    assert {row[i]: row[i + 1] for row in legend.rows for i in range(0, len(row), 2)} == NATIONS


@pytest.mark.parametrize("code", TRANSLATED)
def test_no_book_holds_mojibake(code: str) -> None:
    text = resources.files("cafe").joinpath(rulebook.source(code)).read_text(encoding="utf-8")
    assert not MOJIBAKE.findall(text)
    assert "\ufffd" not in text


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_load_gives_the_book_of_the_language_in_use(code: str) -> None:
    with i18n.speaking(code):
        book = rulebook.load()
    assert book == rulebook.load(code)
    assert (book == ENGLISH) == (code == i18n.DEFAULT)
    found = book.find("notation")
    assert found is not None and found.number == 13  # the words are every language's


def test_a_language_without_a_book_reads_english() -> None:
    assert rulebook.load("fr") == ENGLISH
    with i18n.speaking("fr"):
        assert rulebook.load() == ENGLISH


def test_a_section_missing_from_a_translation_is_the_english_one() -> None:
    book = rulebook.completed(
        rulebook.parse("# Pravidla\n\n## 4. Tah <!-- turn -->\n\nJedna věc.\n"), ENGLISH
    )
    assert book.title == "Pravidla"
    assert [s.word for s in book.sections] == [s.word for s in ENGLISH.sections]
    assert [s.title for s in book.sections if s.title != "Tah"] == [
        s.title for s in ENGLISH.sections if s.word != "turn"
    ]
    turn = book.find("turn")
    assert turn is not None and turn.blocks == (Paragraph("Jedna věc."),)


def test_a_title_word_finds_a_section_in_its_language() -> None:
    found = rulebook.load("cs").find("žolík")
    assert found is not None and found.word == "jokers"
