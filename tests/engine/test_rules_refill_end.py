"""Rulebook §9 (refill and the hand limit) and §10 (end of the game, final scoring), with
docs/rules.md's decisions on the hand limit, a hand above it, the end, penalties, ties, and the
running scores."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from rules_helpers import (
    IDLE_HAND,
    assert_listed_turns_play,
    bar_tiles,
    full_board,
    game_at,
    refuse,
    unseated_tiles,
)

from cafe import Game, GameOverError, Standing
from cafe.endings import Ending

#: DE2 seats three Germans (12, 13, 15): a German gentleman on 14 completes it.
THREE_GERMANS = {12: "DEm", 13: "DEf", 15: "DEf"}
#: DE1 and DE2 each seat three Germans: a German gentleman on 12 completes both (16 points).
SIX_GERMANS = {7: "DEf", 10: "DEm", 11: "DEf", 13: "DEf", 14: "DEm", 15: "DEf"}
DRAWS = ["ITf", "ITm", "GBf", "GBm", "INf"]


def refill_game(
    hand: Sequence[str], chairs: dict[int, str], hand_limit: int = 5, **parts: Any
) -> Game:
    """ann holds ``hand`` with ``hand_limit``; bob the idle hand; the bag starts with DRAWS."""
    return game_at(
        [hand, IDLE_HAND], chairs=chairs, hand_limits=[hand_limit, 5], bag_top=DRAWS, **parts
    )


def standing_rows(game: Game) -> list[tuple[int, str, int, int, int, bool]]:
    return [
        (s.place, s.player, s.score, s.penalty, s.final, s.eliminated) for s in game.standings()
    ]


# --- §9 refill and the hand limit -------------------------------------------------------


def test_9_seating_turn_refills_the_hand_to_its_limit_from_the_top_of_the_bag() -> None:
    game = refill_game(["DEm", "DEf", "USf", "USm", "ITm"], {13: "DEm"})
    bag = game.bag_size
    result = game.play("DEf@DE2 DEm@DE1-DE2")
    assert result.drawn == ("ITf", "ITm")
    assert game.hands[0] == ["USf", "USm", "ITm", "ITf", "ITm"]
    assert game.bag_size == bag - 2


def test_9_15_completing_a_single_nation_table_lowers_the_hand_limit_by_one() -> None:
    game = refill_game(["DEm", "USf", "USm", "AFf", "AFm"], THREE_GERMANS)
    result = game.play("DEm@DE2")
    assert result.points == 8
    assert (result.completed, result.hand_limit, result.drawn) == (("DE2",), 4, ())
    assert game.hand_limits == [4, 5]
    assert len(game.hands[0]) == 4
    assert Game.from_position(game.to_position()).hand_limits == [4, 5]


def test_9_lowered_limit_applies_to_every_later_refill() -> None:
    game = refill_game(["DEm", "USf", "USm", "AFf", "AFm"], THREE_GERMANS)
    game.play("DEm@DE2")
    game.play("CNf@CN1 CNm@CN1")
    result = game.play("bar USf")
    assert len(result.drawn) == 1
    assert len(game.hands[0]) == 4


def test_9_completing_with_two_guests_lowers_by_one_and_refills_to_the_new_limit() -> None:
    game = refill_game(["DEm", "DEf", "USm", "AFf", "AFm"], {12: "DEm", 13: "DEf"})
    result = game.play("DEf@DE2-US1 DEm@DE2")
    assert (result.completed, result.hand_limit, result.drawn) == (("DE2",), 4, ("ITf",))
    assert len(game.hands[0]) == 4


def test_9_completing_a_table_with_a_joker_counting_as_its_nation_lowers_the_limit() -> None:
    game = refill_game(["DEm", "USf"], {12: "DEm", 13: "DEf", 15: "Jf=DE"})
    assert game.play("DEm@DE2").completed == ("DE2",)
    assert game.hand_limits == [4, 5]


@pytest.mark.parametrize("other", ["USf", "Jf=US"])
def test_9_completing_a_mixed_table_keeps_the_hand_limit(other: str) -> None:
    game = refill_game(["DEm", "USf", "USm", "AFf", "AFm"], {12: "DEm", 13: "DEf", 15: other})
    result = game.play("DEm@DE2")
    assert (result.completed, result.hand_limit) == ((), 5)
    assert result.drawn == ("ITf",)


def test_9_15_two_tables_completed_at_once_lower_the_limit_by_two() -> None:
    game = refill_game(["DEm", "USf", "USm", "AFf", "AFm"], SIX_GERMANS)
    result = game.play("DEm@DE1-DE2")
    assert result.points == 16
    assert sorted(result.completed) == ["DE1", "DE2"]
    assert result.hand_limit == 3
    assert game.hand_limits == [3, 5]


def test_15_hand_above_its_lowered_limit_keeps_its_tiles_and_draws_nothing() -> None:
    game = refill_game(["DEm", "USf", "USm", "AFf", "AFm"], SIX_GERMANS)
    assert game.play("DEm@DE1-DE2").drawn == ()
    assert game.hands[0] == ["USf", "USm", "AFf", "AFm"]
    game.play("CNf@CN1 CNm@CN1")
    assert game.play("bar USf").drawn == ()
    game.play("bar RUf")
    assert game.play("bar USm").drawn == ("GBm",)  # bob drew ITf, ITm, then GBf
    assert game.hands[0] == ["AFf", "AFm", "GBm"]


def test_9_15_noshrink_keeps_the_hand_limit() -> None:
    game = refill_game(["DEm", "USf", "USm", "AFf", "AFm"], SIX_GERMANS)
    result = game.play("DEm@DE1-DE2 noshrink")
    assert (result.points, result.hand_limit, result.drawn) == (16, 5, ("ITf",))
    assert sorted(result.completed) == ["DE1", "DE2"]
    assert game.hand_limits == [5, 5]


def test_9_noshrink_without_a_completed_table_is_refused_as_meaningless() -> None:
    game = refill_game(["DEm", "USf"], {13: "DEf"})
    refuse(game, "DEm@DE2 noshrink", "noshrink")
    assert game.play("DEm@DE2").points == 4


def test_9_hints_say_how_much_a_turn_lowers_the_hand_limit() -> None:
    game = refill_game(["DEm", "USf", "USm", "AFf", "AFm"], SIX_GERMANS)
    best = game.hints(1)[0]
    assert (str(best.turn), best.points, best.lowers_limit) == ("DEm@DE1-DE2 USm@US1", 18, 2)
    assert all(hint.lowers_limit == 0 for hint in game.hints(20) if hint.points < 8)


# --- §10 the end conditions -------------------------------------------------------------


def assert_over(game: Game) -> None:
    """The game is over: no turn is listed, hinted or accepted, and nothing changes."""
    assert game.is_over
    assert game.legal_turns() == []
    assert game.hints(3) == []
    before = game.to_position()
    with pytest.raises(GameOverError):
        game.play("bar " + game.hands[game.to_move][0])
    assert game.to_position() == before


def spare(count: int, chairs: dict[int, str], avoid: Sequence[str] = ()) -> list[str]:
    """``count`` tiles neither on ``chairs`` nor in ``avoid``."""
    left = unseated_tiles(chairs)
    for tile in avoid:
        left.remove(tile)
    return left[:count]


def test_10_1_15_game_ends_at_the_end_of_the_turn_that_takes_the_last_stool() -> None:
    game = refill_game(["DEm", "USf"], {13: "DEf"}, bar=bar_tiles(19), scores=[50, 0])
    result = game.play("bar USf")
    assert result.game_over
    assert result.drawn == ("ITf", "ITm", "GBf", "GBm")  # the turn ends with its refill
    assert len(game.bar) == 20
    assert_over(game)
    assert game.ending is Ending.BAR_FULL


def test_10_1_game_goes_on_while_a_stool_is_free() -> None:
    game = refill_game(["DEm", "USf"], {13: "DEf"}, bar=bar_tiles(18), scores=[50, 0])
    assert not game.play("bar USf").game_over
    assert not game.is_over


def last_chair_game() -> Game:
    """Every chair but 57 (AF1) taken; ann holds the gentleman who fits it."""
    chairs = full_board()
    tile = chairs.pop(57)
    hand = [tile, *spare(4, chairs, [tile])]
    return game_at([hand, spare(5, chairs, hand)], chairs=chairs)


def test_10_2_game_ends_when_the_last_chair_is_taken() -> None:
    game = last_chair_game()
    assert not game.is_over
    result = game.play(f"{game.hands[0][0]}@AF1")
    assert result.game_over
    assert len(game.chair_tiles) == 68
    assert_over(game)
    assert game.ending is Ending.CHAIRS_FULL


def bag_game(bag: int) -> Game:
    """Sixty-seven chairs taken, ``bag`` tiles left in the bag, rich players."""
    chairs = full_board()
    del chairs[57]
    off_board = unseated_tiles(chairs)
    hands = [off_board[:5], off_board[5:10]]
    bar = off_board[10 : len(off_board) - bag]
    return game_at(hands, chairs=chairs, bar=bar, scores=[100, 100])


@pytest.mark.parametrize(("bag", "over"), [(5, True), (6, False)])
def test_10_3_15_game_ends_when_the_bag_holds_four_tiles_or_fewer(bag: int, over: bool) -> None:
    game = bag_game(bag)
    assert game.bag_size == bag
    assert not game.is_over
    result = game.play("bar " + game.hands[0][0])
    assert len(result.drawn) == 1
    assert game.bag_size == bag - 1
    assert result.game_over == over == game.is_over
    assert len(game.bar) < 20
    assert game.ending is (Ending.BAG_LOW if over else None)


@pytest.mark.parametrize(("turn", "over"), [("DEm@DE2", True), ("DEm@DE2 noshrink", False)])
def test_10_4_game_ends_when_a_hand_is_empty_after_refilling(turn: str, over: bool) -> None:
    game = refill_game(["DEm"], THREE_GERMANS, hand_limit=1)
    result = game.play(turn)
    assert result.game_over == over == game.is_over
    assert game.hands[0] == ([] if over else ["ITf"])
    assert game.ending is (Ending.HAND_EMPTY if over else None)


def test_10_4_15_hand_limit_at_zero_with_tiles_in_hand_plays_on_until_the_hand_is_empty() -> None:
    game = refill_game(["DEm", "USf"], SIX_GERMANS, hand_limit=1)
    result = game.play("DEm@DE1-DE2")
    assert (result.hand_limit, result.drawn, result.game_over) == (0, (), False)
    game.play("CNf@CN1 CNm@CN1")
    result = game.play("bar USf")
    assert (result.drawn, result.game_over) == ((), True)
    assert game.hands[0] == []


def test_10_5_game_ends_when_one_player_is_left() -> None:
    game = game_at([["DEf", "DEm"], IDLE_HAND], bar=bar_tiles(5), scores=[1, 0])
    result = game.play("bar DEf")
    assert result.eliminated
    assert result.game_over
    assert_over(game)
    assert game.ending is Ending.LAST_IN_GAME
    assert (
        game.why_over() == "only bob was still in the game (the others were eliminated at the bar)"
    )


# --- §10 final scoring ------------------------------------------------------------------


def last_stool_game(hands: list[list[str]], scores: list[int]) -> Game:
    """The next stool is the last (−14): the bar turn of the player to move ends the game."""
    return game_at(hands, bar=bar_tiles(19), scores=scores, bag_top=DRAWS)


def test_10_15_penalties_for_tiles_in_hand_five_and_ten_for_a_joker() -> None:
    game = last_stool_game([["ITm", "DEf", "Jm", "Jf", "USf"], ["FRf", "FRm"]], [40, 20])
    result = game.play("bar ITm")
    assert (result.points, result.game_over) == (-14, True)
    assert game.hands[0] == ["DEf", "Jm", "Jf", "USf", "ITf"]
    assert standing_rows(game) == [
        (1, "bob", 20, -10, 10, False),
        (2, "ann", 26, -35, -9, False),
    ]


def test_15_scores_stay_running_scores_and_penalties_appear_only_in_the_standings() -> None:
    game = last_stool_game([["ITm", "DEf", "Jm", "Jf", "USf"], ["FRf", "FRm"]], [40, 20])
    game.play("bar ITm")
    assert game.scores == [26, 20]
    assert [(s.player, s.final) for s in game.standings()] == [("bob", 10), ("ann", -9)]


def test_10_15_equal_scores_share_a_place() -> None:
    hands = [
        ["ITm", "DEf", "DEm", "USf", "USm"],
        ["FRf", "FRm", "ESf", "ESm", "CNf"],
        ["CNm"],
        ["RUf", "RUm", "INm", "Jm"],
    ]
    game = last_stool_game(hands, [36, 22, 10, 15])
    game.play("bar ITm")
    assert sorted(standing_rows(game)) == [
        (1, "cid", 10, -5, 5, False),
        (2, "ann", 22, -25, -3, False),
        (2, "bob", 22, -25, -3, False),
        (4, "dan", 15, -25, -10, False),
    ]


def test_10_15_eliminated_players_rank_below_and_later_eliminations_above_earlier() -> None:
    hands = [["DEf", "DEm"], ["USf", "USm"], ["FRf", "FRm"], ["ITf", "ITm", "GBf"]]
    game = game_at(hands, bar=bar_tiles(5), scores=[1, 3, 5, 0])
    for turn in ("bar DEf", "bar USf", "bar FRf"):
        assert game.play(turn).eliminated
    assert game.is_over
    assert game.standings() == [
        Standing(1, 3, "dan", 0, -15, -15, False),
        Standing(2, 2, "cid", 5, 0, 5, True),
        Standing(3, 1, "bob", 3, 0, 3, True),
        Standing(4, 0, "ann", 1, 0, 1, True),
    ]
    assert game.hands[:3] == [["DEm"], ["USm"], ["FRm"]]


# --- every listed turn --------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_game",
    [
        pytest.param(last_chair_game, id="last chair"),
        pytest.param(lambda: bag_game(5), id="bag of five"),
        pytest.param(
            lambda: refill_game(["DEm", "USf", "USm", "AFf", "Jm"], SIX_GERMANS), id="16 points"
        ),
    ],
)
def test_every_listed_turn_plays_with_its_listed_points(make_game: Callable[[], Game]) -> None:
    assert_listed_turns_play(make_game())


def test_refused_turn_on_a_full_hand_changes_nothing() -> None:
    refuse(refill_game(["DEm"], THREE_GERMANS, hand_limit=1), "DEf@DE2", "hand")
