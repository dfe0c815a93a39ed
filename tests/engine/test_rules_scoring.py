"""Rulebook §6: scoring a seating turn placement by placement, in written order, with
single-nation doubling and jokers counting as one nation; docs/rules.md's decisions on doubling,
the order of placements and jokers on two-nation chairs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from rules_helpers import IDLE_HAND, assert_listed_turns_play, game_at, placement_points

from cafe import Game, Turn

#: Rulebook §6 worked example: US1 holds USf on 16 and USm on 17; US2 holds INf on 19 and
#: USm on 23; DE2 is empty.
WORKED_EXAMPLE = {16: "USf", 17: "USm", 19: "INf", 23: "USm"}


def scoring_game(hand: Sequence[str], chairs: Mapping[int, str]) -> Game:
    return game_at([hand, IDLE_HAND], chairs=chairs)


def worked_example_game() -> Game:
    return scoring_game(["USm", "USf", "ITf", "ITm", "GBf"], WORKED_EXAMPLE)


# --- the worked example -----------------------------------------------------------------


def test_6_worked_example_scores_17() -> None:
    game = worked_example_game()
    result = game.play("USm@US1-US2 USf@DE2-US1")
    assert result.points == 17
    assert placement_points(result) == [{"US1": 6, "US2": 3}, {"US1": 8, "DE2": 0}]
    assert game.scores == [17, 0]
    assert game.chair_tiles == {**WORKED_EXAMPLE, 18: "USm", 15: "USf"}


def test_6_worked_example_table_scores_name_tile_chair_guests_and_nation() -> None:
    result = worked_example_game().play("USm@US1-US2 USf@DE2-US1")
    assert sorted(
        (s.tile, s.chair, s.table, s.guests, s.single_nation, s.points) for s in result.tables
    ) == [
        ("USf", 15, "DE2", 1, True, 0),
        ("USf", 15, "US1", 4, True, 8),
        ("USm", 18, "US1", 3, True, 6),
        ("USm", 18, "US2", 3, False, 3),
    ]
    assert [s.tile for s in result.tables] == ["USm", "USm", "USf", "USf"]
    assert not any(s.birthday for s in result.tables)


def test_6_worked_example_in_the_other_order() -> None:
    # The other order scores 17 too (rulebook §6): both tiles are American, so US1
    # scores 6 then 8 either way.
    result = worked_example_game().play("USf@DE2-US1 USm@US1-US2")
    assert placement_points(result) == [{"DE2": 0, "US1": 6}, {"US1": 8, "US2": 3}]
    assert result.points == 17


def test_6_002_examples_1_to_4_played_on_this_board() -> None:
    game = game_at(
        [["USf", "USm", "USf"], ["USm"], ["INm", "INf"], ["USm"]],
    )
    turns = [
        ("USf@US1", 0),  # the empty board: one guest alone, for nothing
        ("USm@US1", 4),  # example 1: an American couple
        ("INm@IN2 INf@IN2-US2", 4),  # example 2: INf alone at US2, with company at IN2
        ("USm@US2", 2),  # example 3: a mixed couple at US2
        ("USm@US1-US2 USf@DE2-US1", 17),  # example 4
    ]
    for turn, points in turns:
        assert game.play(turn).points == points, turn
    assert game.scores == [17, 4, 4, 2]
    assert game.chair_tiles == {
        16: "USf",
        17: "USm",
        21: "INm",
        19: "INf",
        23: "USm",
        18: "USm",
        15: "USf",
    }


# --- order of placements ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("turn", "points", "tables"),
    [
        ("USm@DE2-US1 DEm@DE2", 11, [{"DE2": 2, "US1": 6}, {"DE2": 3}]),
        ("DEm@DE2 USm@DE2-US1", 13, [{"DE2": 4}, {"DE2": 3, "US1": 6}]),
    ],
)
def test_6_15_placements_score_in_written_order(
    turn: str, points: int, tables: list[dict[str, int]]
) -> None:
    # DE2 holds DEf: seating the German first scores a German couple (4) before the
    # American makes the table mixed.
    game = scoring_game(["USm", "DEm"], {13: "DEf", 16: "USf", 17: "USm"})
    result = game.play(turn)
    assert placement_points(result) == tables
    assert result.points == points


def test_6_legal_turns_list_both_orders_when_they_score_differently() -> None:
    game = scoring_game(["USm", "DEm"], {13: "DEf", 16: "USf", 17: "USm"})
    listed = {str(turn): points for turn, points in game.scored_turns()}
    assert listed["USm@DE2-US1 DEm@DE2"] == 11
    assert listed["DEm@DE2 USm@DE2-US1"] == 13


# --- n points, doubled when all are of one nation ---------------------------------------


@pytest.mark.parametrize(
    ("guests", "tile", "points"),
    [
        ({13: "DEf"}, "DEm", 4),
        ({15: "USf"}, "DEm", 2),
        ({13: "DEf", 12: "DEm"}, "DEf", 6),
        ({15: "USf", 12: "DEm"}, "DEf", 3),
        ({13: "DEf", 12: "DEm", 15: "DEf"}, "DEm", 8),
        ({13: "DEf", 12: "DEm", 15: "USf"}, "DEm", 4),
        ({13: "DEf", 12: "DEm", 15: "Jf=DE"}, "DEm", 8),
        ({13: "DEf", 12: "DEm", 15: "Jf=US"}, "DEm", 4),
        ({13: "Jf", 12: "Jm"}, "DEf", 6),
    ],
)
def test_6_15_n_guests_score_n_doubled_when_all_share_one_nation(
    guests: dict[int, str], tile: str, points: int
) -> None:
    # Chair 14 touches DE2 only: DE2 alone scores the placement.
    result = scoring_game([tile], guests).play(f"{tile}@#14")
    assert placement_points(result) == [{"DE2": points}]


def test_6_first_guest_at_a_table_scores_nothing() -> None:
    result = scoring_game(["DEf"], {16: "USm"}).play("DEf@DE2-US1")
    assert placement_points(result) == [{"DE2": 0, "US1": 2}]


def test_6_shared_chair_scores_at_both_tables() -> None:
    result = scoring_game(["DEm"], {11: "DEf", 13: "DEf"}).play("DEm@DE1-DE2")
    assert placement_points(result) == [{"DE1": 4, "DE2": 4}]


# --- jokers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turn", "tables"),
    [
        ("Jf=FR@DE1-FR1", {"DE1": 2, "FR1": 6}),
        ("Jf=DE@DE1-FR1", {"DE1": 4, "FR1": 3}),
    ],
)
def test_6_15_joker_counts_as_its_declared_nation_at_both_tables(
    turn: str, tables: dict[str, int]
) -> None:
    game = scoring_game(["Jf"], {5: "FRm", 6: "FRf", 11: "DEm"})
    result = game.play(turn)
    assert placement_points(result) == [tables]
    assert game.chair_tiles[7] == turn.partition("@")[0]


@pytest.mark.parametrize(("declared", "points"), [("FR", 3), ("DE", 6)])
def test_6_joker_keeps_its_declared_nation_in_later_turns(declared: str, points: int) -> None:
    game = scoring_game(["Jf", "DEf"], {5: "FRm", 6: "FRf", 11: "DEm"})
    game.play(f"Jf={declared}@DE1-FR1")
    game.play("CNf@CN1 CNm@CN1")
    result = game.play("DEf@DE1-DE2")
    assert placement_points(result) == [{"DE1": points, "DE2": 0}]


def test_6_joker_on_a_private_chair_is_the_nation_of_its_table() -> None:
    result = scoring_game(["Jm"], {13: "DEf"}).play("Jm@DE2")
    assert placement_points(result) == [{"DE2": 4}]


def test_6_joker_on_a_chair_of_two_tables_of_one_nation_is_that_nation() -> None:
    result = scoring_game(["Jm"], {11: "DEf", 13: "DEf"}).play("Jm@DE1-DE2")
    assert placement_points(result) == [{"DE1": 4, "DE2": 4}]


# --- what one guest can earn (000 r14–15) -----------------------------------------------


@pytest.mark.parametrize(
    ("guests", "tables"),
    [
        # Both tables mixed and full: 4 + 4.
        ({10: "TRm", 11: "DEf", 12: "DEm", 4: "TRm", 5: "FRm", 6: "FRf"}, {"DE1": 4, "FR1": 4}),
        # DE1 full of Germans, FR1 mixed: 8 + 4.
        ({10: "DEm", 11: "DEf", 12: "DEm", 4: "TRm", 5: "FRm", 6: "FRf"}, {"DE1": 8, "FR1": 4}),
    ],
)
def test_6_one_guest_on_a_shared_chair_earns_8_or_12(
    guests: dict[int, str], tables: dict[str, int]
) -> None:
    result = scoring_game(["DEf"], guests).play("DEf@DE1-FR1")
    assert placement_points(result) == [tables]


def test_6_one_guest_completing_two_tables_of_one_nation_earns_16() -> None:
    guests = {7: "DEf", 10: "DEm", 11: "DEf", 13: "DEf", 14: "DEm", 15: "DEf"}
    result = scoring_game(["DEm"], guests).play("DEm@DE1-DE2")
    assert placement_points(result) == [{"DE1": 8, "DE2": 8}]
    assert result.points == 16


# --- every listed turn --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "chairs"),
    [
        (["USm", "USf", "ITf", "ITm", "GBf"], WORKED_EXAMPLE),
        (["USm", "DEm", "USf", "DEf", "Jm"], {13: "DEf", 16: "USf", 17: "USm"}),
        (["Jf", "DEf", "FRm", "TRf", "DEm"], {5: "FRm", 6: "FRf", 11: "DEm"}),
        (["DEm", "DEf", "FRf"], {7: "DEf", 10: "DEm", 11: "DEf", 13: "DEf", 14: "DEm"}),
    ],
)
def test_every_listed_turn_plays_with_its_listed_points(
    hand: list[str], chairs: dict[int, str]
) -> None:
    assert_listed_turns_play(scoring_game(hand, chairs))


def test_worked_example_is_listed_with_17_points() -> None:
    # Both orders score 17, so the list need hold only one of them.
    listed = dict(worked_example_game().scored_turns())
    orders = [Turn.parse("USm@US1-US2 USf@DE2-US1"), Turn.parse("USf@DE2-US1 USm@US1-US2")]
    assert {listed[turn] for turn in orders if turn in listed} == {17}
