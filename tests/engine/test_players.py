"""Player names appear in records, pictures, emails and URLs: the engine refuses any name the
service would not register."""

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
        ["ann", "x" * 25],
        ["ann", "Zoë"],
        ["ann", "王小明"],
        ["ann", "9lives"],
        ["ann", "o'brien"],
        ["ann", "<i>"],
    ],
)
def test_bad_names_are_refused_with_a_reason(names: list[str]) -> None:
    with pytest.raises(CafeError) as refused:
        Game.new(names, seed=1)
    assert str(refused.value)


def test_names_are_the_services_names() -> None:
    """The rule the service registers names by (`cafe.players.NAME_RULE`): a letter, then
    letters, digits, '_', '.' or '-', at most 24 characters."""
    names = ["Zoe", "o.brien", "x" * 24, "b_2-c"]
    assert sorted(Game.new(names, seed=1).players) == sorted(names)


def test_a_position_with_a_bad_name_is_an_invalid_position() -> None:
    data = position([["DEf"], ["DEm"]])
    data["players"][0] = "two words"
    with pytest.raises(InvalidPositionError, match="players: player name"):
        Game.from_position(data)
