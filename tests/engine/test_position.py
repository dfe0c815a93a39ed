"""docs/formats.md: positions load, round-trip, and are refused with a clear message when they
do not describe a possible game."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from rules_helpers import IDLE_HAND, Position, position, unseated_tiles

from cafe import Game, InvalidPositionError


def mid_game() -> Position:
    """Three players, guests on both US tables (a joker declared on a two-nation chair), two
    stools taken, one player eliminated."""
    return position(
        [["USm", "USf", "Jm", "DEf", "ITm"], ["INf", "INm", "TRf", "TRm", "CUf"], IDLE_HAND],
        chairs={16: "USf", 17: "USm", 19: "INf", 23: "USm", 24: "Jf=FR"},
        bar=["ITf", "CUm"],
        scores=[12, 3, 7],
        hand_limits=[5, 4, 5],
        eliminated=[False, False, True],
        to_move=1,
        bag_top=["GBf", "GBm"],
    )


def test_14_position_round_trips_exactly() -> None:
    start = mid_game()
    game = Game.from_position(start)
    dumped = game.to_position()
    for key, value in start.items():
        assert dumped[key] == value, key
    assert Game.from_position(dumped).to_position() == dumped


def test_14_position_may_be_json_text() -> None:
    start = mid_game()
    assert Game.from_position(json.dumps(start)).to_position() == (
        Game.from_position(start).to_position()
    )


def test_14_loaded_position_reads_back_through_the_game() -> None:
    game = Game.from_position(mid_game())
    assert game.players == ("ann", "bob", "cid")
    assert game.to_move == 1
    assert game.scores == [12, 3, 7]
    assert game.hand_limits == [5, 4, 5]
    assert game.eliminated == [False, False, True]
    assert game.bar == ["ITf", "CUm"]
    assert game.chair_tiles == {16: "USf", 17: "USm", 19: "INf", 23: "USm", 24: "Jf=FR"}
    assert game.bag_size == 100 - 15 - 5 - 2
    assert not game.is_over


def test_14_a_game_from_a_played_position_continues_identically() -> None:
    game = Game.from_position(mid_game())
    game.play("INf@IN2 INm@IN2")
    copy = Game.from_position(game.to_position())
    assert copy.to_position() == game.to_position()
    for turn in ("USm@US1-US2 USf@DE2-US1", "bar TRf"):
        assert game.play(turn) == copy.play(turn)
    assert copy.to_position() == game.to_position()


def test_14_omitted_bag_is_the_remaining_tiles_in_a_seeded_shuffle() -> None:
    start = mid_game()
    del start["bag"]
    first, second = Game.from_position(start), Game.from_position(start)
    bag = first.to_position()["bag"]
    assert bag == second.to_position()["bag"]
    rest = Counter(unseated_tiles(start["chairs"]))
    rest.subtract(tile for hand in start["hands"] for tile in hand)
    rest.subtract(start["bar"])
    assert Counter(bag) == +rest
    assert len(bag) == first.bag_size == 78


#: A joker on each kind of chair: a lady on a private chair (5, FR1), a lady on the chair of
#: the two German tables (12) and a gentleman declared German on a chair of two nations
#: (7, DE1-FR1); a German (11) and a French (6) gentleman keep DE1 and FR1 balanced.
JOKER_CHAIRS = {11: "DEm", 6: "FRm", 5: "Jf=FR", 12: "Jf=DE", 7: "Jm=DE"}


def test_14_every_seated_joker_is_written_with_its_nation() -> None:
    start = position([["DEf", "DEm"], IDLE_HAND], chairs=JOKER_CHAIRS)
    game = Game.from_position(start)
    assert game.to_position()["chairs"] == {str(c): t for c, t in JOKER_CHAIRS.items()}
    assert game.chair_tiles == JOKER_CHAIRS


def test_14_a_joker_seated_in_play_on_a_private_chair_is_written_with_its_nation() -> None:
    game = Game.from_position(position([["Jm", "DEm"], IDLE_HAND], chairs={13: "DEf"}))
    game.play("Jm@DE2")
    assert game.to_position()["chairs"] == {"13": "DEf", "14": "Jm=DE"}


def test_14_a_bare_joker_on_a_chair_of_one_nation_still_loads_and_is_written_in_full() -> None:
    bare = {
        chair: text.partition("=")[0] if chair != 7 else text
        for chair, text in JOKER_CHAIRS.items()
    }
    game = Game.from_position(position([["DEf", "DEm"], IDLE_HAND], chairs=bare))
    assert game.chair_tiles == JOKER_CHAIRS


def test_14_birthday_player_and_elimination_order_are_written_null_and_empty() -> None:
    dumped = Game.from_position(position([["DEf"], ["DEm"]], birthday=30)).to_position()
    assert (dumped["birthday_player"], dumped["elimination_order"]) == (None, [])


def test_14_birthday_player_and_elimination_order_round_trip() -> None:
    start = {
        **position(
            [["DEf"], ["DEm"], ["USf"], ["USm"]],
            scores=[35, 12, 0, 3],
            eliminated=[False, True, False, True],
            birthday=30,
        ),
        "birthday_player": 2,
        "elimination_order": [3, 1],
    }
    dumped = Game.from_position(start).to_position()
    assert (dumped["birthday_player"], dumped["elimination_order"]) == (2, [3, 1])
    assert Game.from_position(dumped).birthday_player == 2


def test_14_birthday_player_and_elimination_order_may_be_omitted_when_null_and_empty() -> None:
    start = position([["DEf"], ["DEm"]], scores=[29, 12], birthday=30)
    game = Game.from_position(start)
    assert game.birthday_player is None
    assert game.to_position()["elimination_order"] == []


def changed(**change: Any) -> Position:
    return {**mid_game(), **change}


def with_extra_tile(tile: str) -> Position:
    start = mid_game()
    start["hands"][1].append(tile)
    return start


def with_chairs(chairs: dict[int, str]) -> Position:
    return position([["DEf", "DEm"], IDLE_HAND], chairs=chairs)


TWENTY_ONE_STOOLS = [tile for tile in unseated_tiles({}) if tile[:2] not in ("DE", "CN")][:21]


@pytest.mark.parametrize(
    ("start", "message"),
    [
        (with_extra_tile("GBf"), "GBf 5 times"),
        (with_extra_tile("Jm"), "Jm 3 times"),
        (changed(bag=mid_game()["bag"][1:]), "GBf 3 times"),
        (with_chairs({16: "USf", 17: "USf"}), "US1"),
        (with_chairs({16: "USm", 17: "USm", 18: "Jm"}), "US1"),
        (with_chairs({24: "Jf"}), "24"),
        (with_chairs({24: "Jf=DE"}), "24"),
        (with_chairs({13: "DEm", 14: "Jf=US"}), "14"),
        (with_chairs({12: "Jf=FR", 13: "DEm"}), "12"),
        (with_chairs({25: "DEf"}), "25"),
        (with_chairs({69: "USf"}), "69"),
        (changed(scores=[12, 3]), "scores"),
        (changed(hands=mid_game()["hands"][:2]), "hands"),
        (changed(hand_limits=[5, 5, 5, 5]), "hand_limits"),
        (changed(eliminated=[False, False]), "eliminated"),
        (changed(to_move=3), "to_move"),
        (changed(players=["ann"]), "players"),
        (position([["DEf"], ["DEm"]], bar=TWENTY_ONE_STOOLS), "bar"),
        (changed(options={"birthday": 10}, birthday_player=True), "birthday_player"),
        (changed(options={"birthday": 10}, birthday_player=3), "birthday_player"),
        (changed(birthday_player=0), "birthday_player"),
        (changed(elimination_order=[2, 2]), "elimination_order"),
        (
            changed(eliminated=[False, True, False], to_move=0, elimination_order=[True]),
            "elimination_order",
        ),
        (changed(elimination_order=[1]), "elimination_order"),
        (changed(elimination_order="2"), "elimination_order"),
    ],
)
def test_14_impossible_positions_are_refused_with_a_clear_message(
    start: Position, message: str
) -> None:
    with pytest.raises(InvalidPositionError) as caught:
        Game.from_position(start)
    assert message in str(caught.value)


def test_14_gender_balance_broken_at_a_table_is_refused() -> None:
    start = position([IDLE_HAND, ["DEm"]], chairs={13: "DEf", 14: "DEf"})
    with pytest.raises(InvalidPositionError, match="DE2"):
        Game.from_position(start)


def test_14_invalid_json_text_is_refused() -> None:
    with pytest.raises(InvalidPositionError):
        Game.from_position("{not json")
