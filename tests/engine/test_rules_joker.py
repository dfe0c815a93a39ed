"""Rulebook §8: exchanging a seated joker, and docs/rules.md's decisions on the exchange (same
gender, nation of either table), joker for joker, and ``swap X@DE1``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from rules_helpers import IDLE_HAND, assert_listed_turns_play, game_at, refuse

from cafe import Game, Turn

#: A lady joker declared French on chair 7 (DE1-FR1) between a German and a Frenchman,
#: and two jokers on the private chairs of DE2: a gentleman on 13, a lady on 14.
JOKERS = {11: "DEm", 5: "FRm", 7: "Jf=FR", 13: "Jm", 14: "Jf"}
HAND = ["DEf", "FRf", "DEm", "USf", "Jm"]


def swap_game(hand: Sequence[str] = HAND, chairs: Mapping[int, str] = JOKERS) -> Game:
    return game_at([hand, IDLE_HAND], chairs=chairs, bag_top=["ITf"])


@pytest.mark.parametrize("tile", ["DEf", "FRf"])
def test_8_15_joker_exchanged_for_a_guest_of_its_gender_and_either_nation(tile: str) -> None:
    game = swap_game()
    bag = game.bag_size
    result = game.play(f"swap {tile}@DE1-FR1")
    assert (result.points, result.drawn, result.tables) == (0, (), ())
    assert game.chair_tiles[7] == tile
    assert sorted(game.hands[0]) == sorted([*(t for t in HAND if t != tile), "Jf"])
    assert game.bag_size == bag
    assert game.scores == [0, 0]
    assert game.to_move == 1


def test_8_exchanged_joker_can_be_seated_again() -> None:
    game = swap_game()
    game.play("swap DEf@DE1-FR1")
    game.play("CNf@CN1 CNm@CN1")
    result = game.play("Jf=US@DE2-US1")
    assert result.points == 3  # DE2 now seats Jm, Jf and a third joker counting as American
    assert game.chair_tiles[15] == "Jf=US"


def test_8_exchange_for_a_guest_of_the_other_gender_is_refused() -> None:
    refuse(swap_game(), "swap DEm@DE1-FR1", "swap")


def test_8_exchange_for_a_guest_of_neither_nation_is_refused() -> None:
    refuse(swap_game(), "swap USf@DE1-FR1", "nation")


def test_8_15_joker_for_a_joker_is_refused() -> None:
    refuse(swap_game(), "swap Jm@#13", "swap")
    refuse(swap_game(), "swap Jm@DE2", "swap")


@pytest.mark.parametrize("turn", ["swap DEm@#11", "swap DEf@DE1-DE2", "swap DEm@DE1"])
def test_8_exchange_needs_a_joker_on_the_chair(turn: str) -> None:
    refuse(swap_game(), turn, "swap")


def test_8_exchange_needs_the_tile_in_hand() -> None:
    refuse(swap_game(["FRf", "Jm"]), "swap DEf@DE1-FR1", "hand")


@pytest.mark.parametrize(("tile", "chair"), [("DEf", 14), ("DEm", 13)])
def test_15_swap_on_a_table_takes_its_private_joker_of_the_tiles_gender(
    tile: str, chair: int
) -> None:
    game = swap_game()
    result = game.play(f"swap {tile}@DE2")
    assert result.turn.placements[0].chair.number == chair
    assert game.chair_tiles[chair] == tile
    assert {13: "Jm", 14: "Jf"}[chair] in game.hands[0]


def test_8_15_exchange_scores_nothing_and_keeps_the_hand_limit_even_completing_a_table() -> None:
    # DE2 seats three Germans and a lady joker declared American: the exchange makes it four
    # Germans, but only a seating turn lowers the hand limit (§9).
    guests = {12: "DEm", 13: "DEf", 14: "DEm", 15: "Jf=US", 16: "USm"}
    game = swap_game(chairs=guests)
    result = game.play("swap DEf@DE2-US1")
    assert (result.points, result.completed, result.drawn) == (0, (), ())
    assert game.hand_limits == [5, 5]
    assert game.chair_tiles[15] == "DEf"


def test_8_exchange_is_listed_among_the_legal_turns() -> None:
    listed = swap_game().legal_turns()
    for text in ("swap DEf@DE1-FR1", "swap FRf@DE1-FR1", "swap DEf@DE2", "swap DEm@DE2"):
        assert Turn.parse(text) in listed
    assert Turn.parse("swap Jm@DE2") not in listed


def test_every_listed_turn_plays_with_its_listed_points() -> None:
    assert_listed_turns_play(swap_game())
