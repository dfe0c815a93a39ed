"""League points, a division's table, promotion and relegation (docs/league.md), as pure
functions: no database, no clock. The service stores what these compute.

League points are exact fractions; the service keeps them as integers in units of
1/``POINT_UNITS``. Every value a game of up to 4 players can give, shared or not, is a
multiple of 1/36 (place points have denominators 1, 2 or 3; sharing among m ≤ 4 places
divides by m).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from cafe.league.scheduling import division_sizes

POINT_UNITS = 36


class Placement(StrEnum):
    """Why a member plays in their division (README: League; the service stores it as
    `SeasonMember.placed`): placed by rating (a first season), new to the league, moved up
    or down or stayed as the last season's final table announced, or placed otherwise by
    the refilling of the divisions in order: higher than announced, to fill a place
    (`filled`), or lower, as the divisions were evened out (`evened`)."""

    RATING = "rating"
    NEW = "new"
    UP = "up"
    DOWN = "down"
    STAYED = "stayed"
    FILLED = "filled"
    EVENED = "evened"


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """What one finished game adds to a player's row."""

    points: Fraction
    score: int
    won: bool


@dataclass(frozen=True, slots=True)
class TableRow:
    """A player's line in a division's table. `left`: how the player left the season (the
    service's `MemberLeft` value), None while they are in it; `placed` and
    `placed_from`: why they play in this division (`Placed`), when known."""

    player: str
    points: Fraction
    score_sum: int
    wins: int
    played: int
    left: str | None = None
    placed: str | None = None
    placed_from: int | None = None

    @property
    def withdrawn(self) -> bool:
        """Whether the player left the season (any way): listed last, moving nowhere."""
        return self.left is not None


@dataclass(frozen=True, slots=True)
class Placed:
    """Why a player plays in their division: a `Placement` value and their division in the
    season before (None for a first season or a newcomer)."""

    reason: str
    from_division: int | None = None


@dataclass(frozen=True)
class Move:
    """A player moving between divisions (1 is the top) for the next season."""

    player: str
    from_division: int
    to_division: int


def game_points(places: Mapping[str, int], game_size: int) -> dict[str, Fraction]:
    """League points of one game: place p of k players is worth (k − p)·(g − 1)/(k − 1).

    ``places`` are as in ``cafe.standings``: m players tied at place p occupy places p …
    p + m − 1 and share those places' points equally. So a full four-player game gives
    3, 2, 1, 0; a three-player game of a four-player league 3, 1.5, 0; a tie for first in a
    four-player game 2.5, 2.5, 1, 0. Raises ValueError for fewer than 2 or more than g
    players, or places that are not such standings.
    """
    k = len(places)
    if not 2 <= k <= game_size:
        raise ValueError(
            f"a game of a {game_size}-player league has 2–{game_size}, not {k} players"
        )
    _check_places(sorted(places.values()))
    scale = Fraction(game_size - 1, k - 1)
    tied: dict[int, int] = {}
    for place in places.values():
        tied[place] = tied.get(place, 0) + 1
    shares = {
        place: sum(((k - q) * scale for q in range(place, place + m)), Fraction(0)) / m
        for place, m in tied.items()
    }
    return {player: shares[place] for player, place in places.items()}


def points_units(points: Fraction) -> int:
    """Points as a whole number of 1/36 units (exact; ValueError if not a multiple)."""
    units = Fraction(points) * POINT_UNITS
    if units.denominator != 1:
        raise ValueError(f"{points} points is not a multiple of 1/{POINT_UNITS}")
    return units.numerator


def game_outcome(standings: Sequence[Mapping[str, Any]], game_size: int) -> dict[str, GameOutcome]:
    """What a finished game adds to each player's row, from its stored standings.

    Each entry has "player", "place" and "final" (the score after end-of-game penalties);
    a player won if they have place 1, alone or shared.
    """
    places = {entry["player"]: entry["place"] for entry in standings}
    if len(places) != len(standings):
        raise ValueError("a player appears twice in the standings")
    points = game_points(places, game_size)
    return {
        entry["player"]: GameOutcome(
            points[entry["player"]], int(entry["final"]), entry["place"] == 1
        )
        for entry in standings
    }


def table_key(row: TableRow) -> tuple[bool, Fraction, int, int, str, str]:
    """The sort key of the standings: the players still in first, then points, score sum,
    wins (all high first), then name."""
    return (
        row.withdrawn,
        -row.points,
        -row.score_sum,
        -row.wins,
        row.player.casefold(),
        row.player,
    )


def order_table(rows: Iterable[TableRow]) -> list[TableRow]:
    """A division's table in order: the tiebreaks of docs/league.md, below every player
    still in the season those who left it (whatever their points: their finished games
    count for their opponents, but they hold no place).

    League points, then the sum of final game scores, then games won (each highest first),
    then the name (case-insensitively, then exactly, so the order is always the same).
    """
    return sorted(rows, key=table_key)


def season_moves(tables: Sequence[Sequence[TableRow]], promote: int, relegate: int) -> list[Move]:
    """Promotions and relegations from the final ordered tables of divisions 1 … D.

    The top ``promote`` rows of every division but the first move up one division, the
    bottom ``relegate`` of every division but the last move down one. Withdrawn rows never
    move and take no slot: the counts are among the rows still in. In a division too small
    for both, promotion wins: relegation takes the bottom ``relegate`` of the rows not
    promoted, so a player moves at most once and fewer may go down. Moves come division by
    division, those going up before those going down, each in table order.
    """
    if promote < 0 or relegate < 0:
        raise ValueError("promote and relegate are not negative")
    moves = []
    last = len(tables)
    for division, table in enumerate(tables, start=1):
        active = [row for row in table if not row.withdrawn]
        up = active[:promote] if division > 1 else []
        down = active[max(len(up), len(active) - relegate) :] if division < last else []
        moves += [Move(row.player, division, division - 1) for row in up]
        moves += [Move(row.player, division, division + 1) for row in down]
    return moves


def next_divisions(
    tables: Sequence[Sequence[TableRow]],
    moves: Sequence[Move],
    *,
    leaving: Collection[str],
    newcomers: Sequence[str],
    division_size: int,
) -> list[list[str]]:
    """The divisions of the next season, from the last one's final tables and moves.

    One ordered list is built and cut into ``division_sizes(len(list), division_size)``,
    top division first. The list is, for each division d = 1 … D of the last season:

    1. the players relegated into d from d − 1, in their order in d − 1's final table;
    2. the players of d who neither moved nor withdrew, in d's final order;
    3. the players promoted into d from d + 1, in their order in d + 1's final table;

    leaving out the players in ``leaving`` and every withdrawn row; after the last division
    come the ``newcomers`` in the order given (the caller sorts them by rating, highest
    first). Because the cut is made on the whole list, places freed by leavers and
    withdrawals are refilled in order: the first players of the division below (those just
    relegated into it, the best of them first) move up into them, and so on down; and
    newcomers land in the last division (spilling into the one above only when there are
    more of them than it holds). Moves are only honoured between neighbouring divisions.
    """
    where = {row.player: d for d, table in enumerate(tables) for row in table}
    withdrawn = {row.player for table in tables for row in table if row.withdrawn}
    moving: dict[str, Move] = {}
    for move in moves:
        if move.player not in where or where[move.player] != move.from_division - 1:
            raise ValueError(f"{move.player} is not in division {move.from_division}")
        if abs(move.to_division - move.from_division) != 1 or not (
            1 <= move.to_division <= len(tables)
        ):
            raise ValueError(f"{move.player} cannot move to division {move.to_division}")
        moving[move.player] = move
    ordered: list[str] = []
    for d, table in enumerate(tables, start=1):
        ordered += [p for p in _players(tables, d - 1) if _arrives(moving.get(p), d)]
        ordered += [row.player for row in table if row.player not in moving]
        ordered += [p for p in _players(tables, d + 1) if _arrives(moving.get(p), d)]
    placed = [p for p in ordered if p not in leaving and p not in withdrawn]
    for player in newcomers:
        if player in placed:
            raise ValueError(f"newcomer {player} is already placed")
    placed += newcomers
    if len(set(placed)) != len(placed):
        raise ValueError("a newcomer is listed twice")
    return _cut(placed, division_size)


def placements(
    tables: Sequence[Sequence[TableRow]],
    moves: Sequence[Move],
    divisions: Sequence[Sequence[str]],
    *,
    newcomers: Collection[str],
) -> dict[str, Placed]:
    """Why each player of the next season's `divisions` (from `next_divisions`) plays where
    they do: a newcomer is new; anyone else moved up, moved down or stayed as the last
    season's `moves` announced, or — where refilling the divisions in order placed them
    elsewhere than announced — higher, to fill a place (`filled`), or lower, as the
    divisions were evened out (`evened`); each with their old division."""
    where = {row.player: d for d, table in enumerate(tables, start=1) for row in table}
    announced = {move.player: move.to_division for move in moves}
    found = {}
    for number, names in enumerate(divisions, start=1):
        for name in names:
            if name in newcomers or name not in where:
                found[name] = Placed(Placement.NEW)
                continue
            before = where[name]
            meant = announced.get(name, before)
            if number != meant:
                reason = Placement.FILLED if number < meant else Placement.EVENED
            elif meant == before:
                reason = Placement.STAYED
            else:
                reason = Placement.UP if meant < before else Placement.DOWN
            found[name] = Placed(reason, before)
    return found


def first_divisions(players_by_rating: Sequence[str], division_size: int) -> list[list[str]]:
    """The first season's divisions: the rating-ordered list (highest first) cut into
    ``division_sizes`` — the strongest players in division 1."""
    if len(set(players_by_rating)) != len(players_by_rating):
        raise ValueError("a player is listed twice")
    return _cut(list(players_by_rating), division_size)


def _players(tables: Sequence[Sequence[TableRow]], division: int) -> list[str]:
    """The names in a division's table (1-based), or none outside 1 … D."""
    if not 1 <= division <= len(tables):
        return []
    return [row.player for row in tables[division - 1]]


def _arrives(move: Move | None, division: int) -> bool:
    return move is not None and move.to_division == division


def _cut(players: list[str], division_size: int) -> list[list[str]]:
    if not players:
        return []
    divisions, start = [], 0
    for size in division_sizes(len(players), division_size):
        divisions.append(players[start : start + size])
        start += size
    return divisions


def _check_places(places: list[int]) -> None:
    """Places sorted ascending must be standings: each equals 1 + the players above it."""
    for i, place in enumerate(places):
        if place != (places[i - 1] if i and places[i - 1] == place else i + 1):
            raise ValueError(f"places {places} are not standings (ties share the higher place)")
