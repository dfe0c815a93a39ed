"""Rulebook §4–§5: what a seating turn may do — nation, gender balance, no one alone, the
empty board — and docs/rules.md's decisions on when the conditions are checked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from rules_helpers import (
    IDLE_HAND,
    NATION_CODES,
    assert_listed_turns_play,
    game_at,
    placement_points,
    refuse,
)

from cafe import Game
from cafe.board import CHAIRS, TABLES

#: An American couple at US1 (chairs 16, 17): the board is not empty, and chair 15 (DE2-US1)
#: has company at US1.
US_PAIR = {16: "USf", 17: "USm"}


def table_game(hand: Sequence[str], chairs: Mapping[int, str] | None = None) -> Game:
    """The player to move holds ``hand``; the American couple and ``chairs`` are seated."""
    return game_at([hand, IDLE_HAND], chairs={**US_PAIR, **(chairs or {})})


def empty_board_game(hand: Sequence[str]) -> Game:
    return game_at([hand, IDLE_HAND])


# --- §5.1 nation ------------------------------------------------------------------------


@pytest.mark.parametrize("turn", ["FRf@DE2", "FRf@#14", "FRf@DE2-US1", "FRf@DE1-DE2"])
def test_5_1_nation_refuses_a_guest_on_a_chair_of_other_nations(turn: str) -> None:
    game = table_game(["FRf", "DEf"], {13: "DEm"})
    refuse(game, turn, "nation")


@pytest.mark.parametrize("tile", ["DEf", "FRf"])
def test_5_1_shared_chair_takes_a_guest_of_either_of_its_nations(tile: str) -> None:
    game = table_game(["DEf", "FRf"], {11: "DEm", 12: "DEf", 5: "FRm", 6: "FRf"})
    result = game.play(f"{tile}@DE1-FR1")
    assert game.chair_tiles[7] == tile
    assert result.points == 9  # three of one nation at one table (6), mixed three at the other


@pytest.mark.parametrize(
    ("turn", "chair", "seated"),
    [
        ("Jf@DE2", 14, "Jf=DE"),
        ("Jf@DE1-DE2", 12, "Jf=DE"),
        ("Jf=US@DE2-US1", 15, "Jf=US"),
        ("Jf=DE@US1-DE2", 15, "Jf=DE"),
        ("Jf@#14", 14, "Jf=DE"),
    ],
)
def test_5_1_joker_may_sit_on_any_chair(turn: str, chair: int, seated: str) -> None:
    game = table_game(["Jf"], {13: "DEm"})
    game.play(turn)
    assert game.chair_tiles[chair] == seated


def company_game(chair: int, hand: Sequence[str]) -> Game:
    """A gentleman of ``chair``'s first table sits at another chair of it: company (and
    balance) for a lady seated on ``chair``."""
    table = CHAIRS[chair].tables[0]
    other = next(c for c in TABLES[table].chairs if c != chair)
    return game_at([hand, IDLE_HAND], chairs={other: f"{table[:2]}m"})


@pytest.mark.parametrize("chair", range(1, 69))
def test_5_1_guest_sits_only_where_a_table_of_the_chair_has_its_nation(chair: int) -> None:
    nations = {table[:2] for table in CHAIRS[chair].tables}
    for nation in NATION_CODES:
        game = company_game(chair, [f"{nation}f"])
        if nation in nations:
            game.play(f"{nation}f@#{chair}")
            assert game.chair_tiles[chair] == f"{nation}f"
        else:
            refuse(game, f"{nation}f@#{chair}", "nation")


@pytest.mark.parametrize("chair", range(1, 69))
def test_5_1_joker_may_sit_on_every_chair(chair: int) -> None:
    nations = sorted({table[:2] for table in CHAIRS[chair].tables})
    for nation in nations:
        declared = f"={nation}" if len(nations) == 2 else ""
        game = company_game(chair, ["Jf"])
        game.play(f"Jf{declared}@#{chair}")
        assert game.chair_tiles[chair] == f"Jf={nation}"


def test_5_1_joker_on_a_chair_of_two_nations_must_declare_its_nation() -> None:
    game = table_game(["Jf"], {13: "DEm"})
    error = refuse(game, "Jf@DE2-US1", "joker-nation")
    assert "15" in str(error)


@pytest.mark.parametrize("turn", ["Jf=FR@DE2-US1", "Jf=FR@DE2", "Jf=US@DE1-DE2"])
def test_5_1_joker_declaring_a_nation_of_neither_table_is_refused(turn: str) -> None:
    game = table_game(["Jf"], {13: "DEm"})
    refuse(game, turn, "joker-nation")


# --- §5.2 gender balance ----------------------------------------------------------------


def test_5_2_gender_balance_refuses_two_gentlemen_alone() -> None:
    game = table_game(["DEm", "DEm"])
    error = refuse(game, "DEm@DE2 DEm@DE2", "gender-balance")
    assert "DE2" in str(error)


@pytest.mark.parametrize(
    ("guests", "tile"),
    [
        ({13: "DEm", 14: "DEf", 12: "DEm"}, "DEm"),
        ({13: "DEf", 14: "DEm", 12: "DEf"}, "DEf"),
    ],
)
def test_5_2_gender_balance_refuses_three_of_one_gender_with_one_of_the_other(
    guests: dict[int, str], tile: str
) -> None:
    # Chair 15 would be fine at US1 (USf, USm + one): only DE2 breaks the balance.
    game = table_game([tile], guests)
    error = refuse(game, f"{tile}@DE2-US1", "gender-balance")
    assert "DE2" in str(error)


def test_5_2_gender_balance_is_checked_at_both_tables_of_a_shared_chair() -> None:
    # Chair 18: a third guest is fine at US1 (USf, USm), a second gentleman is not at US2.
    game = table_game(["USm"], {23: "USm"})
    error = refuse(game, "USm@US1-US2", "gender-balance")
    assert "US2" in str(error)


@pytest.mark.parametrize("turn", ["DEm@DE2 DEf@DE1-DE2", "DEf@DE1-DE2 DEm@DE2"])
def test_5_2_15_gender_balance_is_checked_at_the_end_of_the_turn(turn: str) -> None:
    # DE2 holds one gentleman: either order passes through two gentlemen or is balanced.
    game = table_game(["DEm", "DEf"], {13: "DEm"})
    result = game.play(turn)
    assert result.points == 10  # a German pair (4), then three Germans (6)


@pytest.mark.parametrize(("joker", "seated"), [("Jm", "DEm"), ("Jf", "DEf")])
def test_5_2_jokers_count_by_their_gender(joker: str, seated: str) -> None:
    game = table_game([joker], {13: seated})
    refuse(game, f"{joker}@DE2", "gender-balance")


def test_5_2_joker_of_the_other_gender_makes_a_couple() -> None:
    game = table_game(["Jf"], {13: "DEm"})
    assert game.play("Jf@DE2").points == 4


# --- §5.3 no one alone ------------------------------------------------------------------


def test_5_3_single_guest_at_an_empty_table_is_refused() -> None:
    game = table_game(["DEf"])
    error = refuse(game, "DEf@DE2", "alone")
    assert "DEf" in str(error)


def test_5_3_two_guests_at_an_empty_table_keep_each_other_company() -> None:
    game = table_game(["DEf", "DEm"])
    result = game.play("DEf@DE2 DEm@DE2")
    assert placement_points(result) == [{"DE2": 0}, {"DE2": 4}]


def test_5_3_guest_on_a_shared_chair_has_company_at_the_other_table() -> None:
    # 002 example 2: alone at DE2 but with the American couple at US1.
    game = table_game(["DEf"])
    result = game.play("DEf@DE2-US1")
    assert placement_points(result) == [{"DE2": 0, "US1": 3}]


def test_5_3_guest_on_a_shared_chair_gives_company_to_a_later_guest() -> None:
    game = table_game(["DEf", "DEm"])
    result = game.play("DEf@DE1-DE2 DEm@DE2")
    assert placement_points(result) == [{"DE1": 0, "DE2": 0}, {"DE2": 4}]


def test_5_3_every_guest_seated_this_turn_needs_company() -> None:
    game = table_game(["USf", "DEf"])
    refuse(game, "USf@US1-US2 DEf@DE2", "alone")
    refuse(game, "DEf@DE2 USf@US1-US2", "alone")


def test_5_3_two_guests_at_different_empty_tables_are_refused() -> None:
    game = table_game(["DEf", "DEm"])
    refuse(game, "DEf@DE2 DEm@DE1", "alone")


def test_5_3_guests_seated_in_earlier_turns_are_not_checked_again() -> None:
    # The opening guest AFm still sits alone at AF1, and the Indian lady of 002 example 2
    # alone at US2: neither stops a later turn.
    game = table_game(["USm"], {57: "AFm", 19: "INf", 21: "INm"})
    result = game.play("USm@US1-US2")
    assert placement_points(result) == [{"US1": 6, "US2": 2}]


# --- §5.4 the empty board ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("turn", "tables"),
    [("DEf@DE2", {"DE2": 0}), ("DEf@DE1-DE2", {"DE1": 0, "DE2": 0}), ("Jm@FR1", {"FR1": 0})],
)
def test_5_4_15_empty_board_may_seat_a_single_guest_alone_for_nothing(
    turn: str, tables: dict[str, int]
) -> None:
    game = empty_board_game(["DEf", "Jm"])
    result = game.play(turn)
    assert result.points == 0
    assert placement_points(result) == [tables]
    assert len(game.chair_tiles) == 1


def test_5_4_empty_board_two_guests_must_keep_company() -> None:
    game = empty_board_game(["DEf", "DEm"])
    refuse(game, "DEf@DE2 DEm@DE1", "alone")
    assert game.play("DEf@DE2 DEm@DE2").points == 4


def test_5_4_single_guest_alone_is_refused_once_a_guest_sits() -> None:
    game = empty_board_game(["DEf", "DEm"])
    game.play("DEf@DE2")
    refuse(game, "CNf@CN1", "alone")
    assert game.play("CNf@CN1 CNm@CN1").points == 4


# --- §4 a seating turn: hand, chairs, the turn passing on --------------------------------


def test_4_tile_not_in_hand_is_refused() -> None:
    game = table_game(["DEf", "DEm"], {13: "DEm"})
    refuse(game, "FRf@DE1-FR1", "hand")
    refuse(game, "DEf@DE2 DEf@DE1-DE2", "hand")


@pytest.mark.parametrize("turn", ["DEf@#13", "DEf@DE2", "USf@US1", "DEf@US1-DE2"])
def test_4_taken_chair_is_refused(turn: str) -> None:
    game = table_game(["DEf", "DEm", "USf"], {13: "DEm", 14: "DEf", 15: "USm"})
    refuse(game, turn, "chair-taken")


def test_4_two_guests_on_one_chair_are_refused() -> None:
    game = table_game(["DEf", "DEm"], {13: "DEm"})
    refuse(game, "DEf@DE1-DE2 DEm@DE1-DE2", "chair-taken")


def test_4_seating_turn_moves_tiles_from_hand_to_chairs_and_passes_the_turn() -> None:
    game = table_game(["DEf", "DEm", "ITf"], {13: "DEm"})
    game.play("DEf@DE2 DEm@DE1-DE2")
    assert game.chair_tiles == {**US_PAIR, 13: "DEm", 14: "DEf", 12: "DEm"}
    assert game.hands[0][0] == "ITf"
    assert len(game.hands[0]) == 5
    assert game.to_move == 1


# --- every listed turn --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "chairs"),
    [
        (["DEf", "DEm", "FRf", "USm", "Jf"], {13: "DEm"}),
        (["DEf", "FRf", "FRm", "TRm", "Jm"], {11: "DEm", 12: "DEf", 5: "FRm", 6: "FRf"}),
        (["USm", "USf", "INm", "DEf", "DEm"], {57: "AFm", 19: "INf"}),
    ],
)
def test_every_listed_turn_plays_with_its_listed_points(
    hand: list[str], chairs: dict[int, str]
) -> None:
    assert_listed_turns_play(table_game(hand, chairs))


def test_every_listed_turn_on_the_empty_board_plays_with_its_listed_points() -> None:
    assert_listed_turns_play(empty_board_game(["DEf", "DEm", "FRf", "USm", "Jf"]))
