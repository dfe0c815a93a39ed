"""What a turn did: the points per table, the tiles drawn, and what changed for the player."""

from __future__ import annotations

from dataclasses import dataclass

from cafe.notation import Turn


@dataclass(frozen=True, slots=True)
class TableScore:
    """Points scored at one table by one placement (rulebook §6), in placement order.

    A coffee-klatsch table scores once for the whole turn: ``tile`` and ``chair`` are then
    ``None``.
    """

    table: str
    points: int
    guests: int
    single_nation: bool
    birthday: bool = False
    tile: str | None = None
    chair: int | None = None


@dataclass(frozen=True, slots=True)
class TurnResult:
    """The outcome of one played turn.

    ``turn`` is the turn as played, every chair pinned to its number; ``notation`` its text
    that replays to the very same chairs (canonical, but ``#N`` for a private chair that
    its table id would not name). ``points`` is what the
    turn changed the player's score by (the stool's value for the bar, 0 when eliminated).
    ``completed`` lists the single-nation tables the turn completed, ``hand_limit`` the
    player's limit after it.
    """

    seat: int
    player: str
    turn: Turn
    notation: str
    points: int
    tables: tuple[TableScore, ...] = ()
    drawn: tuple[str, ...] = ()
    eliminated: bool = False
    game_over: bool = False
    completed: tuple[str, ...] = ()
    hand_limit: int = 0
    stool: int | None = None
