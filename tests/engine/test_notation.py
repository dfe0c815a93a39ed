"""Rulebook §13 (notation) and docs/rules.md's decisions on ``#N``, ``swap X@DE1`` and modifiers."""

from __future__ import annotations

import pytest
from rules_helpers import IDLE_HAND, game_at, refuse_notation

from cafe import NotationError, Turn, TurnKind


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("USm@US1-US2 USf@DE2-US1", "USm@US1-US2 USf@DE2-US1"),
        ("usm@us1-us2 usf@de2-us1", "USm@US1-US2 USf@DE2-US1"),
        ("USm@US2-US1", "USm@US1-US2"),
        ("DEf@FR1-DE1", "DEf@DE1-FR1"),
        ("USm@US1,USf@US1", "USm@US1 USf@US1"),
        ("  USm@US1 ,  USf@US1  ", "USm@US1 USf@US1"),
        ("jf=fr@fr1-de1", "Jf=FR@DE1-FR1"),
        ("JM@TR1", "Jm@TR1"),
        ("FRf@#6", "FRf@FR1"),
        ("DEf@#7", "DEf@DE1-FR1"),
        ("BAR itm", "bar ITm"),
        ("bar JF", "bar Jf"),
        ("Swap def@fr1-de1", "swap DEf@DE1-FR1"),
        ("DEf@DE2 DEm@DE2 NOSHRINK", "DEf@DE2 DEm@DE2 noshrink"),
        ("DEf@DE2 Birthday=it", "DEf@DE2 birthday=IT"),
        ("bar DEf birthday=fr", "bar DEf birthday=FR"),
        ("swap DEf@DE1-FR1 birthday=DE", "swap DEf@DE1-FR1 birthday=DE"),
    ],
)
def test_13_parse_then_format_gives_the_canonical_text(text: str, canonical: str) -> None:
    turn = Turn.parse(text)
    assert str(turn) == canonical
    assert Turn.parse(canonical) == turn
    assert str(Turn.parse(canonical)) == canonical


def test_13_turn_kinds_and_parts() -> None:
    seating = Turn.parse("Jf=FR@DE1-FR1 DEm@DE1")
    assert seating.kind is TurnKind.SEAT
    assert [(p.tile, p.chair.tables, p.nation) for p in seating.placements] == [
        ("Jf", ("DE1", "FR1"), "FR"),
        ("DEm", ("DE1",), None),
    ]
    bar = Turn.parse("bar ITm")
    assert (bar.kind, bar.tile) == (TurnKind.BAR, "ITm")
    swap = Turn.parse("swap DEf@DE1-FR1")
    assert swap.kind is TurnKind.SWAP
    assert [(p.tile, p.chair.tables) for p in swap.placements] == [("DEf", ("DE1", "FR1"))]


def test_13_shared_chair_may_be_written_in_either_order() -> None:
    assert Turn.parse("DEf@FR1-DE1") == Turn.parse("DEf@DE1-FR1")
    assert Turn.parse("DEf@FR1-DE1").placements[0].chair.number == 7


def test_13_placements_keep_the_written_order() -> None:
    first = Turn.parse("USm@US1-US2 USf@DE2-US1")
    second = Turn.parse("USf@DE2-US1 USm@US1-US2")
    assert first != second
    assert [p.tile for p in second.placements] == ["USf", "USm"]


def test_13_modifiers_are_read() -> None:
    turn = Turn.parse("DEf@DE2 DEm@DE2 noshrink birthday=IT")
    assert turn.noshrink
    assert turn.birthday == "IT"
    assert Turn.parse("DEf@DE2 DEm@DE2 birthday=IT noshrink") == turn


def test_15_hash_n_names_that_exact_chair_and_formats_as_the_table() -> None:
    turn = Turn.parse("FRf@#6")
    assert turn.placements[0].chair.number == 6
    assert turn.placements[0].chair.tables == ("FR1",)
    assert str(turn) == "FRf@FR1"


def test_15_hash_n_seats_on_that_chair_not_the_lowest_free_one() -> None:
    game = game_at([["FRf", "FRm"], IDLE_HAND], chairs={4: "TRm"})
    result = game.play("FRf@#6")
    assert result.turn.placements[0].chair.number == 6
    assert game.chair_tiles == {4: "TRm", 6: "FRf"}


def test_13_private_chair_resolves_to_the_lowest_free_chair_of_the_table() -> None:
    game = game_at([["FRf", "FRm"], IDLE_HAND], chairs={4: "TRm"})
    result = game.play("FRf@FR1 FRm@FR1")
    assert [p.chair.number for p in result.turn.placements] == [5, 6]
    assert game.chair_tiles == {4: "TRm", 5: "FRf", 6: "FRm"}


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("noshrink DEf@DE2", "noshrink"),
        ("DEf@DE2 noshrink DEm@DE2", "noshrink"),
        ("birthday=IT DEf@DE2", "birthday=IT"),
        ("bar DEf noshrink", "noshrink"),
        ("swap DEf@DE1-FR1 noshrink", "noshrink"),
        ("DEf@DE2 noshrink noshrink", "noshrink"),
    ],
)
def test_15_modifiers_come_last_and_noshrink_only_on_a_seating_turn(text: str, token: str) -> None:
    with pytest.raises(NotationError) as caught:
        Turn.parse(text)
    assert token.lower() in caught.value.token.lower()


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("XXf@DE1", "XXf"),
        ("DEx@DE1", "DEx"),
        ("Jx@DE1", "Jx"),
        ("DEf@XX1", "XX1"),
        ("DEf@DE3", "DE3"),
        ("DEf@DE1-US2", "DE1-US2"),
        ("DEf@DE1-DE2-US1", "DE1-DE2-US1"),
        ("DEf@#0", "#0"),
        ("DEf@#69", "#69"),
        ("DEf@#x", "#x"),
        ("DEf", "DEf"),
        ("pass", "pass"),
        ("DEf@", "DEf@"),
        ("@DE1", "@DE1"),
        ("DEf=FR@DE1-FR1", "DEf=FR"),
        ("Jf=XX@DE1-FR1", "XX"),
        ("DEf@DE2 birthday=XX", "birthday=XX"),
        ("bar XXm", "XXm"),
        ("bar DEf DEm", "DEm"),
        ("swap DEf", "DEf"),
        ("DEf@DE2 DEf@DE2 DEf@DE2 DEf@DE2 DEm@DE1", "DEm@DE1"),
    ],
)
def test_13_unreadable_text_raises_notation_error_naming_the_token(text: str, token: str) -> None:
    with pytest.raises(NotationError) as caught:
        Turn.parse(text)
    assert token.lower() in caught.value.token.lower(), caught.value.token
    assert caught.value.token.lower() in text.lower()


@pytest.mark.parametrize("text", ["", "   ", ",", "noshrink", "birthday=IT"])
def test_13_a_turn_needs_an_action(text: str) -> None:
    with pytest.raises(NotationError):
        Turn.parse(text)


def test_13_unreadable_turn_played_changes_nothing() -> None:
    game = game_at([["DEf", "DEm"], IDLE_HAND], chairs={13: "DEm"})
    refuse_notation(game, "DEf@DE9", "DE9")
    refuse_notation(game, "bar DEf noshrink", "noshrink")
