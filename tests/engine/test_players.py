"""Player names appear in records, pictures and emails: the engine refuses unsafe ones."""

from __future__ import annotations

import pytest
from rules_helpers import position

from cafe import CafeError, Game, InvalidPositionError


@pytest.mark.parametrize(
    "names",
    [
        ["ann"],
        ["a", "b", "c", "d", "e"],
        ["ann", "ann"],
        ["ann", ""],
        ["ann", "bob smith"],
        ["ann", "bob:1"],
        ["ann", 'b"ob'],
        ["ann", "\x07bell"],
        ["ann", "x" * 33],
    ],
)
def test_bad_names_are_refused_with_a_reason(names: list[str]) -> None:
    with pytest.raises(CafeError) as refused:
        Game.new(names, seed=1)
    assert str(refused.value)


def test_names_may_use_any_printable_letters() -> None:
    game = Game.new(["Zoë", "王小明", "o'brien", "x" * 32], seed=1)
    assert sorted(game.players) == sorted(["Zoë", "王小明", "o'brien", "x" * 32])


def test_a_position_with_a_bad_name_is_an_invalid_position() -> None:
    data = position([["DEf"], ["DEm"]])
    data["players"][0] = "two words"
    with pytest.raises(InvalidPositionError, match="players: player name"):
        Game.from_position(data)
