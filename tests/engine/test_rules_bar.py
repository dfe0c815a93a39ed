"""Rulebook §7: the bar — stool values in order, any tile, jokers only as a last resort,
elimination — and docs/rules.md's decisions on bar values, jokers at the bar and elimination."""

from __future__ import annotations

import pytest
from rules_helpers import IDLE_HAND, assert_listed_turns_play, bar_tiles, game_at, refuse

from cafe import Game, Turn

#: Rulebook §7, in fill order.
STOOL_VALUES = (1, 2, 3, 4, 5, -2, -4, -6, -8, -10, -4, -6, -8, -10, -12, -6, -8, -10, -12, -14)

HAND = ["DEf", "DEm", "ITf", "ITm", "GBf"]


def test_7_15_stools_fill_in_order_with_their_values() -> None:
    game = game_at([HAND, ["FRf", "FRm", "INf", "INm", "GBm"]], scores=[200, 200])
    for stool, value in enumerate(STOOL_VALUES, start=1):
        seat = game.to_move
        before = game.scores[seat]
        tile = game.hands[seat][0]
        result = game.play(f"bar {tile}")
        assert (result.stool, result.points) == (stool, value)
        assert game.scores[seat] == before + value
        assert game.bar[-1] == tile
    assert game.scores == [200 + sum(STOOL_VALUES[0::2]), 200 + sum(STOOL_VALUES[1::2])]
    assert len(game.bar) == 20


@pytest.mark.parametrize(("filled", "value"), [(0, 1), (4, 5), (5, -2), (10, -4), (19, -14)])
def test_7_next_stool_scores_its_value(filled: int, value: int) -> None:
    game = game_at([HAND, IDLE_HAND], bar=bar_tiles(filled), scores=[50, 0])
    result = game.play("bar ITm")
    assert (result.stool, result.points) == (filled + 1, value)
    assert game.scores == [50 + value, 0]


@pytest.mark.parametrize("tile", ["DEf", "DEm", "ITf", "GBf"])
def test_7_any_tile_may_go_to_the_bar(tile: str) -> None:
    game = game_at([HAND, IDLE_HAND], chairs={13: "DEm", 14: "DEf"}, bag_top=["USf"])
    result = game.play(f"bar {tile}")
    assert game.bar == [tile]
    assert result.drawn == ("USf",)
    assert sorted(game.hands[0]) == sorted([*(t for t in HAND if t != tile), "USf"])
    assert game.to_move == 1


def test_7_bar_tile_must_be_in_hand() -> None:
    refuse(game_at([HAND, IDLE_HAND]), "bar USf", "hand")


# --- jokers at the bar ------------------------------------------------------------------


def test_7_15_joker_to_the_bar_is_refused_while_another_tile_could_go() -> None:
    game = game_at([["Jm", "DEf"], IDLE_HAND], chairs={57: "AFm"}, hand_limits=[2, 5])
    refuse(game, "bar Jm", "joker-bar")
    assert Turn.parse("bar Jm") not in game.legal_turns()


def test_7_15_joker_to_the_bar_is_refused_while_a_joker_could_sit() -> None:
    game = game_at([["Jm", "Jm"], IDLE_HAND], chairs={57: "AFf"}, hand_limits=[2, 5])
    refuse(game, "bar Jm", "joker-bar")
    assert Turn.parse("Jm@AF1") in game.legal_turns()


def test_7_15_joker_goes_to_the_bar_when_no_other_turn_is_legal() -> None:
    # Two gentleman jokers, and the only guest is a gentleman alone at AF1: a joker beside
    # him breaks the balance, anywhere else it (or the pair) sits alone or two gentlemen sit
    # together.
    game = game_at(
        [["Jm", "Jm"], IDLE_HAND], chairs={57: "AFm"}, hand_limits=[2, 5], bag_top=["ITf"]
    )
    assert game.legal_turns() == [Turn.parse("bar Jm")]
    result = game.play("bar Jm")
    assert (result.points, result.drawn) == (1, ("ITf",))
    assert game.bar == ["Jm"]
    assert game.hands[0] == ["Jm", "ITf"]


# --- elimination ------------------------------------------------------------------------


def elimination_game(score: int) -> Game:
    """Three players; ann (to move) has ``score`` points, and the next stool costs 2."""
    return game_at(
        [HAND, ["FRf", "FRm", "INf", "INm", "GBm"], IDLE_HAND],
        bar=bar_tiles(5),
        scores=[score, 30, 30],
    )


def test_7_15_player_who_cannot_pay_the_stool_is_eliminated() -> None:
    game = elimination_game(1)
    bag = game.bag_size
    result = game.play("bar DEf")
    assert result.eliminated
    assert (result.points, result.drawn, result.stool) == (0, (), 6)
    assert game.eliminated == [True, False, False]
    assert game.scores == [1, 30, 30]
    assert game.bar[-1] == "DEf"
    assert game.hands[0] == ["DEm", "ITf", "ITm", "GBf"]
    assert game.bag_size == bag
    assert game.to_move == 1
    assert not game.is_over


def test_7_eliminated_player_never_moves_again() -> None:
    game = elimination_game(1)
    game.play("bar DEf")
    for _ in range(3):
        assert game.to_move == 1
        game.play("bar " + game.hands[1][0])
        assert game.to_move == 2
        game.play("bar " + game.hands[2][0])
    assert game.hands[0] == ["DEm", "ITf", "ITm", "GBf"]
    assert game.scores[0] == 1


def test_7_eliminated_player_stays_eliminated_through_a_position() -> None:
    game = elimination_game(1)
    game.play("bar DEf")
    copy = Game.from_position(game.to_position())
    assert copy.eliminated == [True, False, False]
    assert copy.hands[0] == ["DEm", "ITf", "ITm", "GBf"]


def test_7_player_who_can_pay_down_to_zero_stays_in() -> None:
    game = elimination_game(2)
    result = game.play("bar DEf")
    assert not result.eliminated
    assert result.points == -2
    assert game.scores == [0, 30, 30]
    assert len(result.drawn) == 1


# --- every listed turn --------------------------------------------------------------------


@pytest.mark.parametrize(
    "game",
    [
        pytest.param(elimination_game(1), id="eliminating stool"),
        pytest.param(
            game_at([["Jm", "Jm"], IDLE_HAND], chairs={57: "AFm"}, hand_limits=[2, 5]),
            id="joker to the bar",
        ),
        pytest.param(
            game_at([["Jm", "DEf", "ITf"], IDLE_HAND], chairs={13: "DEm"}, bar=bar_tiles(19)),
            id="last stool",
        ),
    ],
)
def test_every_listed_turn_plays_with_its_listed_points(game: Game) -> None:
    assert_listed_turns_play(game)
