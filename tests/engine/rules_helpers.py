"""Helpers for the rules tests: positions built from their interesting parts, and checks.

A position (docs/formats.md) must account for all 100 tiles. ``position`` takes what a test
cares about (hands, seated guests, the bar, the tiles to be drawn next) and puts every other
tile in the bag, below the named ones, so that every draw of the test is known.

The tile set is written out here from rulebook §1, not taken from the engine.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from cafe import Game, IllegalTurnError, NotationError, Turn, TurnResult
from cafe.board import CHAIRS

Position = dict[str, Any]

NATION_CODES = ("AF", "CN", "CU", "DE", "ES", "FR", "GB", "IN", "IT", "RU", "TR", "US")
PLAYERS = ("ann", "bob", "cid", "dan")

#: Rulebook §1: 4 ladies and 4 gentlemen per nation, 2 lady and 2 gentleman jokers.
ALL_TILES: tuple[str, ...] = (
    *(f"{nation}{gender}" for nation in NATION_CODES for gender in "ffffmmmm"),
    "Jf",
    "Jf",
    "Jm",
    "Jm",
)

#: A hand for players whose tiles a test does not care about.
IDLE_HAND = ("CNf", "CNm", "RUf", "RUm", "ESm")


def tile_of(chair_text: str) -> str:
    """The tile of a seated guest as written in a position: ``Jf=FR`` → ``Jf``."""
    return chair_text.partition("=")[0]


def unseated_tiles(chairs: Mapping[int, str] | Mapping[str, str]) -> list[str]:
    """The tiles not on ``chairs``, in the order of ``ALL_TILES``."""
    left = Counter(ALL_TILES)
    left.subtract(tile_of(text) for text in chairs.values())
    if any(count < 0 for count in left.values()):
        raise ValueError(f"more tiles seated than the game has: {-left}")
    return [tile for tile in dict.fromkeys(ALL_TILES) for _ in range(left[tile])]


def bar_tiles(count: int) -> list[str]:
    """``count`` (up to 24) African, Cuban and Turkish tiles: stools for a test's bar, which
    the test's hands and chairs then leave alone."""
    return [tile for tile in ALL_TILES if tile[:2] in ("AF", "CU", "TR")][:count]


def position(
    hands: Sequence[Sequence[str]],
    *,
    chairs: Mapping[int, str] | None = None,
    bar: Sequence[str] = (),
    bag_top: Sequence[str] = (),
    scores: Sequence[int] | None = None,
    hand_limits: Sequence[int] | None = None,
    eliminated: Sequence[bool] | None = None,
    to_move: int = 0,
    birthday: int | None = None,
    coffee_klatsch: bool = False,
    birthday_nation: str | None = None,
) -> Position:
    """A position with one player per hand; the bag is ``bag_top`` then every other tile."""
    chairs = dict(chairs or {})
    players = len(hands)
    placed = Counter(tile for hand in hands for tile in hand) + Counter(bar) + Counter(bag_top)
    rest = Counter(unseated_tiles(chairs))
    rest.subtract(placed)
    if any(count < 0 for count in rest.values()):
        raise ValueError(f"tiles used more often than the game has them: {-rest}")
    return {
        "players": list(PLAYERS[:players]),
        "to_move": to_move,
        "scores": list(scores or [0] * players),
        "hands": [list(hand) for hand in hands],
        "hand_limits": list(hand_limits or [5] * players),
        "eliminated": list(eliminated or [False] * players),
        "chairs": {str(chair): text for chair, text in chairs.items()},
        "bar": list(bar),
        "bag": [*bag_top, *rest.elements()],
        "options": {"birthday": birthday, "coffee_klatsch": coffee_klatsch},
        "birthday_nation": birthday_nation,
    }


def game_at(hands: Sequence[Sequence[str]], **parts: Any) -> Game:
    """The game at ``position(hands, **parts)``."""
    return Game.from_position(position(hands, **parts))


def refuse(game: Game, turn: str, rule: str) -> IllegalTurnError:
    """Assert that ``turn`` is refused for breaking ``rule`` and changes nothing."""
    before = game.to_position()
    with pytest.raises(IllegalTurnError) as caught:
        game.play(turn)
    assert caught.value.rule == rule, f"{turn!r} refused for {caught.value.rule}: {caught.value}"
    assert game.to_position() == before
    # What the position does not show (the engine's tallies per table) is unchanged too.
    assert game.scored_turns() == Game.from_position(before).scored_turns()
    return caught.value


def refuse_notation(game: Game, turn: str, token: str) -> NotationError:
    """Assert that ``turn`` cannot be read, the error names ``token``, and nothing changes."""
    before = game.to_position()
    with pytest.raises(NotationError) as caught:
        game.play(turn)
    assert token.lower() in caught.value.token.lower(), caught.value
    assert game.to_position() == before
    return caught.value


def placement_points(result: TurnResult) -> list[dict[str, int]]:
    """The points of each placement of a seating turn by table, in placement order."""
    groups: list[dict[str, int]] = []
    chairs: list[int | None] = []
    for score in result.tables:
        if not chairs or chairs[-1] != score.chair:
            chairs.append(score.chair)
            groups.append({})
        groups[-1][score.table] = score.points
    return groups


def assert_listed_turns_play(game: Game) -> None:
    """Every listed legal turn, as a Turn and as its canonical text, is accepted by ``play``
    on a copy and scores what ``scored_turns`` says."""
    pristine = game.copy()  # taken before listing: copies stay cheap
    scored = game.scored_turns()
    assert scored, "a player to move always has a legal turn"
    assert game.legal_turns() == [turn for turn, _ in scored]
    for turn, points in scored:
        assert Turn.parse(str(turn)) == turn
        for form in (turn, str(turn)):
            result = pristine.copy().play(form)
            assert result.points == points, f"{form}: played {result.points}, listed {points}"


def full_board() -> dict[int, str]:
    """A legal board with all 68 chairs taken and no joker: every table has 2 ladies and
    2 gentlemen, every guest sits at a table of its nation."""
    return dict(_full_board())


@functools.cache
def _full_board() -> dict[int, str]:
    """Found by backtracking over the chairs in order; cached, so callers get copies."""
    chairs = sorted(CHAIRS)
    supply = Counter(tile for tile in ALL_TILES if tile[0] != "J")
    by_gender: Counter[tuple[str, str]] = Counter()
    seated: dict[int, str] = {}

    def fill(index: int) -> bool:
        if index == len(chairs):
            return True
        chair = chairs[index]
        tables = CHAIRS[chair].tables
        for nation in sorted(CHAIRS[chair].nations):
            for gender in "fm":
                tile = f"{nation}{gender}"
                if not supply[tile] or any(by_gender[t, gender] == 2 for t in tables):
                    continue
                supply[tile] -= 1
                by_gender.update((t, gender) for t in tables)
                seated[chair] = tile
                if fill(index + 1):
                    return True
                supply[tile] += 1
                by_gender.subtract((t, gender) for t in tables)
                del seated[chair]
        return False

    assert fill(0), "no full board exists"
    return seated
