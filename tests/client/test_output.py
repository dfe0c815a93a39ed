"""`client.output`: tables that use the width there is, cutting and leaving out only what
does not fit, and sentences fitted to the terminal with their commands kept whole."""

from __future__ import annotations

import pytest

from client import output
from client.output import command_lines, fitted, table

NAMES = ("annabel-longname", "bob")
HEADERS = ("id", "players", "deadline")
ROWS = [("7", " ".join(NAMES * 3), "Thu 5 Mar 14:00 CET"), ("12", "cid", "-")]


def test_a_table_that_fits_is_not_touched() -> None:
    text = table(HEADERS, ROWS, right={0}, width=100, cut={1}, drop=(2,))
    assert text.splitlines()[1] == f" 7  {ROWS[0][1]}  {ROWS[0][2]}"


def test_a_column_that_may_go_goes_before_a_name_is_cut_below_a_whole_name() -> None:
    text = table(HEADERS, ROWS, right={0}, width=30, cut={1}, drop=(2,))
    lines = text.splitlines()
    assert lines[0].split() == ["id", "players"]  # the moment went: the names keep 26 columns
    assert lines[1] == f" 7  {ROWS[0][1][:25]}…"
    assert max(len(line) for line in lines) == 30


def test_a_column_that_may_go_stays_while_the_rest_fits_and_names_are_cut_for_it() -> None:
    rows = [("7", "annabel-longname bob annabel-longname", "Thu 5 Mar 14:00 CET")]
    text = table(HEADERS, rows, width=49, cut={1}, drop=(2,))
    assert text.splitlines()[1] == "7   annabel-longname bob an…  Thu 5 Mar 14:00 CET"
    short = [("7", "annabel-longname bob", "Thu 5 Mar 14:00 CET")]
    assert table(HEADERS, short, width=44, cut={1}, drop=(2,)).splitlines() == [
        "id  players",
        "7   annabel-longname bob",
    ]


def test_the_widest_cut_column_gives_way_first_and_none_below_its_header() -> None:
    headers = ("organiser", "name", "n")
    rows = [("x" * 30, "y" * 12, "4")]
    assert table(headers, rows, width=34, cut={0, 1}).splitlines()[1] == (
        f"{'x' * 16}…  {'y' * 12}  4"
    )
    assert table(headers, rows, width=26, cut={0, 1}).splitlines()[1] == (
        f"{'x' * 9}…  {'y' * 10}…  4"
    )
    squeezed = table(headers, rows, width=10, cut={0, 1}).splitlines()
    assert squeezed[1].startswith(f"{'x' * 8}…")  # the header's 9 columns, then the line cut
    assert all(len(line) <= 10 for line in squeezed)


def test_tables_take_the_terminals_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    assert max(len(line) for line in table(HEADERS, ROWS, cut={1}).splitlines()) == 40
    monkeypatch.setenv("COLUMNS", "120")
    assert "…" not in table(HEADERS, ROWS, cut={1})


def test_a_sentence_breaks_between_words_keeping_its_indent() -> None:
    names = ", ".join(["x" * 20] * 4)
    assert fitted(f"  Verified: 12 turns by {names}.", 50) == [
        f"  Verified: 12 turns by {'x' * 20},",
        f"  {'x' * 20}, {'x' * 20},",
        f"  {'x' * 20}.",
    ]


def test_a_command_ending_a_sentence_moves_whole_to_its_own_line() -> None:
    line = "Sign in with: cafe --profile annabel-longname login annabel-longname@example.com"
    assert fitted(line, 70) == [
        "Sign in with:",
        "  cafe --profile annabel-longname login annabel-longname@example.com",
    ]
    assert fitted(line, 50) == [
        "Sign in with:",
        "  cafe --profile annabel-longname login \\",
        "    annabel-longname@example.com",
    ]
    assert fitted("▶ your turn in games 4, 7: cafe show ID", 30) == [
        "▶ your turn in games 4, 7:",
        "  cafe show ID",
    ]
    assert fitted("You: rank 61, rating 3.2 · cafe rating --page 4", 30) == [
        "You: rank 61, rating 3.2 ·",
        "  cafe rating --page 4",
    ]
    assert fitted("    cafe move 12 USm@US1-US2 USf@DE2-US1", 30) == [
        "    cafe move 12 USm@US1-US2 \\",
        "      USf@DE2-US1",
    ]


def test_a_sentence_that_names_cafe_is_not_a_command() -> None:
    line = "the café is full: the cafe we know closes at eight tonight"
    assert fitted(line, 30) == ["the café is full: the cafe we", "know closes at eight tonight"]


def test_what_fits_and_coloured_lines_are_left_as_they_are() -> None:
    assert fitted("short line", 80) == ["short line"]
    bold = "\x1b[1m" + "x " * 60 + "\x1b[0m"
    assert fitted(bold, 80) == [bold]


def test_a_long_command_is_continued_so_that_it_pastes_as_one() -> None:
    lines = command_lines("cafe move 12 USm@US1-US2 USf@DE2-US1 noshrink", 24)
    assert lines == ["cafe move 12 \\", "  USm@US1-US2 \\", "  USf@DE2-US1 noshrink"]
    assert all(len(line) <= 24 for line in lines)


def test_say_fits_every_line_unless_told_not_to(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "20")
    output.say("one two three four five six")
    output.say('{"key": "a value that must not break"}', fit=False)
    assert capsys.readouterr().out == (
        'one two three four\nfive six\n{"key": "a value that must not break"}\n'
    )
