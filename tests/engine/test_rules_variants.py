"""Rulebook §11: the birthday table and the coffee klatsch / regulars' table."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from rules_helpers import (
    IDLE_HAND,
    assert_listed_turns_play,
    bar_tiles,
    game_at,
    placement_points,
    position,
    refuse,
)

from cafe import Game, InvalidPositionError

THRESHOLD = 10

# --- birthday table ---------------------------------------------------------------------

#: ann can reach the threshold exactly with a German couple at DE2 (4 points); bob can
#: reach it with an American couple at US1.
BIRTHDAY_CHAIRS = {13: "DEf", 16: "USf"}
ANN = ["DEm", "ITf", "ITm", "GBf", "GBm"]
BOB = ["USm", "FRf", "FRm", "INf", "INm"]


def birthday_game(scores: Sequence[int] = (6, 6), **parts: Any) -> Game:
    return game_at(
        [ANN, BOB], chairs=BIRTHDAY_CHAIRS, scores=list(scores), birthday=THRESHOLD, **parts
    )


def test_11_birthday_named_on_the_turn_that_reaches_the_threshold_counts_from_after_it() -> None:
    game = birthday_game()
    result = game.play("DEm@DE2 birthday=DE")
    assert result.points == 4  # the German couple is not doubled yet
    assert not any(score.birthday for score in result.tables)
    assert (game.birthday_nation, game.birthday_player) == ("DE", 0)
    assert game.scores == [10, 6]


def test_11_birthday_named_on_a_later_turn() -> None:
    game = birthday_game()
    game.play("DEm@DE2")
    assert (game.birthday_nation, game.birthday_player) == (None, 0)
    game.play("USm@US1")
    game.play("bar ITf birthday=IT")
    assert game.birthday_nation == "IT"


def test_11_birthday_may_be_named_after_falling_back_below_the_threshold() -> None:
    game = birthday_game(bar=bar_tiles(5))
    game.play("DEm@DE2")
    game.play("USm@US1")
    result = game.play("bar ITf birthday=IT")
    assert result.points == -2
    assert game.scores[0] < THRESHOLD
    assert game.birthday_nation == "IT"


def test_11_a_bar_stool_may_reach_the_threshold() -> None:
    game = birthday_game(scores=(8, 6), bar=bar_tiles(1))
    result = game.play("bar ITf birthday=IT")
    assert result.points == 2
    assert (game.birthday_nation, game.birthday_player) == ("IT", 0)


def test_11_birthday_refused_before_reaching_the_threshold() -> None:
    refuse(birthday_game(scores=(5, 6)), "DEm@DE2 birthday=DE", "birthday")


def test_11_only_the_first_player_to_reach_the_threshold_names_the_birthday() -> None:
    game = birthday_game()
    game.play("DEm@DE2")
    refuse(game, "USm@US1 birthday=US", "birthday")
    game.play("USm@US1")
    assert game.scores == [10, 10]
    assert game.birthday_player == 0


def test_11_only_one_birthday_nation_is_ever_named() -> None:
    game = birthday_game()
    game.play("DEm@DE2 birthday=DE")
    game.play("USm@US1")
    refuse(game, "bar ITf birthday=IT", "birthday")
    assert game.birthday_nation == "DE"


def test_11_birthday_refused_without_the_variant() -> None:
    game = game_at([ANN, BOB], chairs=BIRTHDAY_CHAIRS, scores=[20, 0])
    refuse(game, "DEm@DE2 birthday=DE", "birthday")


def named_birthday_game(hand: Sequence[str], chairs: Mapping[int, str]) -> Game:
    return game_at(
        [hand, IDLE_HAND], chairs=chairs, scores=[12, 0], birthday=THRESHOLD, birthday_nation="DE"
    )


def test_11_birthday_doubles_points_at_both_tables_on_top_of_single_nation_doubling() -> None:
    result = named_birthday_game(["DEm"], {11: "DEf", 13: "DEf"}).play("DEm@DE1-DE2")
    assert placement_points(result) == [{"DE1": 8, "DE2": 8}]
    assert all(score.birthday for score in result.tables)


def test_11_birthday_doubles_a_mixed_table_but_not_the_other_nations_table() -> None:
    result = named_birthday_game(["USm"], {13: "DEf", 16: "USf"}).play("USm@DE2-US1")
    assert placement_points(result) == [{"DE2": 4, "US1": 4}]
    assert [(s.table, s.birthday) for s in sorted(result.tables, key=lambda s: s.table)] == [
        ("DE2", True),
        ("US1", False),
    ]


def test_11_birthday_doubles_the_later_turns_of_every_player() -> None:
    game = birthday_game()
    game.play("DEm@DE2 birthday=DE")
    result = game.play("USm@DE2-US1")  # bob's mixed three at DE2: 3, doubled
    assert placement_points(result) == [{"DE2": 6, "US1": 4}]


# --- coffee klatsch and regulars' table -------------------------------------------------

US_PAIR = {16: "USf", 17: "USm"}
LADIES_AT_DE1 = "FRf@DE1-FR1 TRf@DE1-TR2 DEf@DE1 DEf@DE1-DE2"


def klatsch_game(
    hand: Sequence[str], chairs: Mapping[int, str], *, variant: bool = True, **parts: Any
) -> Game:
    return game_at([hand, IDLE_HAND], chairs={**US_PAIR, **chairs}, coffee_klatsch=variant, **parts)


def test_11_coffee_klatsch_four_ladies_fill_a_table_for_20() -> None:
    game = klatsch_game(["FRf", "TRf", "DEf", "DEf", "ITm"], {})
    result = game.play(LADIES_AT_DE1)
    assert result.points == 20
    klatsch = [score for score in result.tables if score.table == "DE1"]
    assert [(s.points, s.guests, s.single_nation) for s in klatsch] == [(20, 4, False)]
    assert sum(s.points for s in result.tables if s.table != "DE1") == 0
    assert game.chair_tiles == {**US_PAIR, 7: "FRf", 10: "TRf", 11: "DEf", 12: "DEf"}


def test_11_coffee_klatsch_of_one_nation_scores_40_and_other_tables_as_usual() -> None:
    game = klatsch_game(["DEf", "DEf", "DEf", "DEf", "ITm"], {11: "DEm"})
    result = game.play("DEf@DE2 DEf@DE2 DEf@DE1-DE2 DEf@DE2-US1")
    others = {s.table: s.points for s in result.tables if s.table != "DE2"}
    assert others == {"DE1": 4, "US1": 3}  # a German couple at DE1, a mixed three at US1
    assert result.points == 47
    assert result.completed == ("DE2",)
    assert result.hand_limit == 4
    assert len(result.drawn) == 3


def test_11_regulars_table_three_gentlemen_join_one_for_40() -> None:
    game = klatsch_game(["DEm", "DEm", "DEm", "ITf"], {13: "DEm"})
    result = game.play("DEm@DE2 DEm@DE1-DE2 DEm@DE2-US1")
    assert {s.table: s.points for s in result.tables if s.table != "DE2"} == {"DE1": 0, "US1": 3}
    assert result.points == 43
    assert all(game.chair_tiles[chair] == "DEm" for chair in (12, 13, 14, 15))


def test_11_regulars_table_with_a_joker_gentleman() -> None:
    game = klatsch_game(["DEm", "DEm", "Jm", "ITf"], {13: "DEm"})
    result = game.play("DEm@DE2 DEm@DE1-DE2 Jm=DE@DE2-US1")
    assert result.points == 43


def test_11_birthday_doubles_a_coffee_klatsch() -> None:
    game = klatsch_game(
        ["DEm", "DEm", "DEm", "ITf"],
        {13: "DEm"},
        scores=[12, 0],
        birthday=THRESHOLD,
        birthday_nation="DE",
    )
    result = game.play("DEm@DE2 DEm@DE1-DE2 DEm@DE2-US1")
    assert result.points == 80 + 0 + 3


def test_11_coffee_klatsch_refused_without_the_variant() -> None:
    game = klatsch_game(["FRf", "TRf", "DEf", "DEf", "ITm"], {}, variant=False)
    refuse(game, LADIES_AT_DE1, "count")


THREE_LADIES = ["DEf", "DEf", "DEf", "USf", "ITm"]
TWO_COUPLES = ["DEf", "DEf", "DEm", "DEm", "ITm"]


@pytest.mark.parametrize(
    ("hand", "chairs", "turn"),
    [
        pytest.param(THREE_LADIES, {}, "DEf@DE2 DEf@DE2 DEf@DE1-DE2", id="three of four chairs"),
        pytest.param(THREE_LADIES, {}, "DEf@DE2 DEf@DE2 USf@US2", id="two tables"),
        pytest.param(
            TWO_COUPLES, {}, "DEf@DE2 DEm@DE2 DEf@DE1-DE2 DEm@DE2-US1", id="two ladies, two men"
        ),
        pytest.param(
            THREE_LADIES,
            {13: "DEf", 19: "INm"},
            "DEf@DE2 DEf@DE1-DE2 DEf@DE2-US1 USf@US2",
            id="a fourth guest elsewhere",
        ),
    ],
)
def test_11_three_or_four_guests_must_fill_one_table_with_one_gender(
    hand: list[str], chairs: dict[int, str], turn: str
) -> None:
    refuse(klatsch_game(hand, chairs), turn, "klatsch")


def test_11_coffee_klatsch_keeps_the_gender_balance_of_the_other_tables() -> None:
    game = klatsch_game(["FRf", "TRf", "DEf", "DEf", "ITm"], {13: "DEf"})
    refuse(game, LADIES_AT_DE1, "gender-balance")


def test_11_coffee_klatsch_keeps_the_nation_rule() -> None:
    game = klatsch_game(["FRf", "TRf", "DEf", "USf", "ITm"], {})
    refuse(game, "FRf@DE1-FR1 TRf@DE1-TR2 USf@DE1 DEf@DE1-DE2", "nation")


@pytest.mark.parametrize(("variant", "loads"), [(True, True), (False, False)])
def test_11_position_with_a_coffee_klatsch_needs_the_variant(variant: bool, loads: bool) -> None:
    start = position(
        [["ITf"], IDLE_HAND],
        chairs={12: "DEf", 13: "DEf", 14: "DEf", 15: "DEf", 11: "DEm"},
        coffee_klatsch=variant,
    )
    if loads:
        assert Game.from_position(start).chair_tiles[14] == "DEf"
    else:
        with pytest.raises(InvalidPositionError, match="DE2"):
            Game.from_position(start)


# --- every listed turn --------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_game",
    [
        pytest.param(lambda: klatsch_game(["FRf", "TRf", "DEf", "DEf", "Jf"], {}), id="ladies"),
        pytest.param(lambda: klatsch_game(["DEm", "DEm", "Jm", "ITf"], {13: "DEm"}), id="gents"),
        pytest.param(birthday_game, id="birthday"),
        pytest.param(
            lambda: named_birthday_game(["DEm", "USm", "Jf"], {11: "DEf", 13: "DEf", 16: "USf"}),
            id="birthday named",
        ),
    ],
)
def test_every_listed_turn_plays_with_its_listed_points(make_game: Callable[[], Game]) -> None:
    assert_listed_turns_play(make_game())


def test_11_hints_say_which_turns_may_name_the_birthday_nation() -> None:
    game = birthday_game()
    assert not game.may_name_birthday()
    assert game.may_name_birthday(4)
    hints = {str(hint.turn): hint for hint in game.hints(50)}
    assert hints["DEm@DE2"].may_name_birthday  # 6 + 4 reaches 10
    assert not any(h.may_name_birthday for h in hints.values() if h.points < 4)
    game.play("DEm@DE2 birthday=DE")
    assert not any(hint.may_name_birthday for hint in game.hints(50))  # bob; and named


def test_11_the_first_to_reach_the_threshold_may_name_it_on_any_later_turn() -> None:
    game = birthday_game()
    game.play("DEm@DE2")
    game.play("USm@US1")
    assert game.birthday_player == 0 and game.may_name_birthday()
    assert all(hint.may_name_birthday for hint in game.hints(5))
