"""The players' rulebook (`cafe/rulebook.md`, read by `cafe.rulebook`): its thirteen
sections in order, and every fact it states that the engine also knows — the nations, the
chairs, the bar's values, the board's layout, the worked example's points, the example
turns — agrees with the engine."""

from __future__ import annotations

import pytest

from cafe import Game, Turn, rulebook
from cafe.board import BAR_VALUES, CHAIRS, NATIONS, TABLES
from cafe.rulebook import Example, Grid, Items, Paragraph

BOOK = rulebook.load()
WORDS = ["components", "board", "setup", "turn", "seating", "scoring", "bar", "jokers",
         "refill", "end", "variants", "fair-bag", "notation"]  # fmt: skip


def section_text(word: str) -> str:
    """A section's words without markup, examples and tables left out."""
    section = BOOK.find(word)
    assert section is not None
    parts = []
    for block in section.blocks:
        if isinstance(block, Paragraph):
            parts.append(block.text)
        elif isinstance(block, Items):
            parts.extend(block.texts)
    return rulebook.plain(" ".join(parts))


def grid(word: str, first_header: str) -> Grid:
    section = BOOK.find(word)
    assert section is not None
    return next(b for b in section.blocks if isinstance(b, Grid) and b.headers[0] == first_header)


def test_the_sections_are_numbered_in_order_each_with_its_word() -> None:
    assert BOOK.title == "The rules of Café International"
    assert [s.number for s in BOOK.sections] == list(range(1, 14))
    assert [s.word for s in BOOK.sections] == WORDS
    assert all(section.blocks for section in BOOK.sections)


@pytest.mark.parametrize(
    ("topic", "number"),
    [("13", 13), ("notation", 13), ("NOTATION", 13), ("joker", 8), ("scor", 6), ("bar", 7)],
)
def test_a_section_is_found_by_number_word_or_the_start_of_a_word(topic: str, number: int) -> None:
    found = BOOK.find(topic)
    assert found is not None and found.number == number


@pytest.mark.parametrize("topic", ["", "14", "xyz", "th"])
def test_nothing_is_found_for_what_names_no_section(topic: str) -> None:
    assert BOOK.find(topic) is None


def test_the_nations_are_the_engines() -> None:
    table = grid("components", "code")
    pairs = {row[i]: row[i + 1] for row in table.rows for i in range(0, len(row), 2)}
    assert pairs == NATIONS


def test_the_chairs_are_counted_as_the_board_has_them() -> None:
    text = section_text("board")
    private = sum(1 for chair in CHAIRS.values() if not chair.shared)
    assert f"{private} chairs belong to a single table" in text
    assert f"{len(CHAIRS) - private} stand between two tables" in text
    assert f"{len(TABLES)} tables" in section_text("components")


def test_the_board_layout_is_drawn_from_the_engine() -> None:
    section = BOOK.find("board")
    assert section is not None
    layout = next(b for b in section.blocks if isinstance(b, Example))
    assert layout.caption
    rows = list(reversed(layout.lines))  # the bottom row of the board first
    for table in TABLES.values():
        column, row = table.at
        assert rows[row][4 * column : 4 * column + 4].strip() == table.id
    for chair in CHAIRS.values():
        column, row = chair.at
        assert rows[row][4 * column : 4 * column + 4].strip() == str(chair.number)


def test_the_bar_values_are_the_engines() -> None:
    table = grid("bar", "stools")
    values = [int(v.replace("−", "-")) for row in table.rows for v in row[1].split()]
    assert tuple(values) == BAR_VALUES
    assert table.numeric == {1}


def test_the_scoring_table_counts_the_guests_and_doubles_one_nation() -> None:
    """n guests score n (one alone nothing), doubled when all are of one nation; the worked
    example below has the engine score most of its cells (3, 6, 8, 0, 4, 2)."""
    table = grid("scoring", "guests at the table")
    expected = {int(row[0]): (int(row[1]), int(row[2])) for row in table.rows}
    assert expected == {n: (0 if n == 1 else n, 0 if n == 1 else 2 * n) for n in (1, 2, 3, 4)}
    assert table.numeric == {0, 1, 2}


def worked_example(**chairs: str) -> Game:
    position = {
        "players": ["ann", "bob"],
        "to_move": 0,
        "scores": [0, 0],
        "hands": [["USm", "USf", "DEm"], ["DEf"]],
        "hand_limits": [5, 5],
        "eliminated": [False, False],
        "chairs": {"16": "USf", "17": "USm", "19": "INf", "23": "USm", **chairs},
        "bar": [],
    }
    return Game.from_position(position)


def test_the_worked_example_scores_what_the_rulebook_says() -> None:
    text = section_text("scoring")
    played = worked_example().play("USm@US1-US2 USf@DE2-US1")
    assert [(s.table, s.points) for s in played.tables] == [
        ("US1", 6), ("US2", 3), ("DE2", 0), ("US1", 8)
    ]  # fmt: skip
    assert f"6 + 3 + 8 + 0 = {played.points}" in text and played.points == 17
    first = worked_example(**{"13": "DEf"}).play("DEm@DE2 USf@DE2-US1")
    second = worked_example(**{"13": "DEf"}).play("USf@DE2-US1 DEm@DE2")
    assert [s.points for s in first.tables] == [4, 3, 6]
    assert [s.points for s in second.tables] == [2, 6, 3]
    assert f"DEm@DE2 USf@DE2-US1 would score 4 + 3 + 6 = {first.points}" in text
    assert f"USf@DE2-US1 DEm@DE2 only 2 + 6 + 3 = {second.points}" in text


def example_turns() -> list[str]:
    table = grid("notation", "turn")
    return [rulebook.plain(row[0]) for row in table.rows]


def test_every_example_turn_is_read_by_the_engine() -> None:
    turns = example_turns()
    assert len(turns) >= 8
    for text in turns:
        parsed = Turn.parse(text)
        assert Turn.parse(str(parsed)) == parsed, text
    assert "FRf@#5" in turns and str(Turn.parse("FRf@#5")) == "FRf@FR1"  # as §13 says


def test_every_turn_written_in_the_notation_section_reads() -> None:
    section = BOOK.find("notation")
    assert section is not None
    written = [
        run
        for block in section.blocks
        if isinstance(block, Items)
        for text in block.texts
        for kind, run in rulebook.spans(text)
        if kind == "code" and (("@" in run and run != "@") or run.startswith("bar "))
    ]
    assert {"Jf=FR@DE1-FR1", "swap DEf@DE1-FR1", "bar DEf"} <= set(written)
    for text in written:
        Turn.parse(text)


def test_inline_markup_is_read_into_runs() -> None:
    assert rulebook.spans("a `DEf` and **bold** end") == [
        ("", "a "), ("code", "DEf"), ("", " and "), ("strong", "bold"), ("", " end")
    ]  # fmt: skip
    assert rulebook.plain("a `DEf` and **bold**") == "a DEf and bold"


def test_a_heading_that_breaks_the_format_is_named_by_its_line() -> None:
    with pytest.raises(ValueError, match="line 3: write a section as"):
        rulebook.parse("# Title\n\n## Scoring\n\ntext\n")
    with pytest.raises(ValueError, match="line 1"):
        rulebook.parse("no title\n")


def test_the_blocks_of_a_small_rulebook() -> None:
    book = rulebook.parse(
        "# T\n\nintro\ncontinued\n\n## 1. One <!-- one -->\n\n- a\n  b\n- c\n\n"
        "1. x\n2. y\n\n| h | n |\n|---|---|\n| a | 1 |\n\n```\n  code\n```\n\n::: board The café\n"
        "\n::: nations id | name\n"
    )
    assert book.intro == (Paragraph("intro continued"),)
    (section,) = book.sections
    assert section.heading == "1. One" and section.word == "one"
    items, numbered, table, code, board, legend = section.blocks
    assert items == Items(("a b", "c"), numbered=False)
    assert numbered == Items(("x", "y"), numbered=True)
    assert table == Grid(("h", "n"), (("a", "1"),)) and table.numeric == {1}
    assert code == Example(("  code",))
    assert board == rulebook.board_layout("The café") and board.caption == "The café"
    assert legend == rulebook.nations_legend("id", "name")
    assert legend.headers == ("id", "name") * 3 and legend.rows[0][:2] == ("AF", "Africa")


@pytest.mark.parametrize(
    "line", ["::: board", "::: nations code", "::: nations | nation", "::: map x"]
)
def test_a_picture_that_breaks_the_format_is_named_by_its_line(line: str) -> None:
    with pytest.raises(ValueError, match="line 4: write `::: board CAPTION`"):
        rulebook.parse(f"# T\n\n## 1. One <!-- one -->\n{line}\n")
