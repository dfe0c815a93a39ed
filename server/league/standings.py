"""A season's division tables, read from the members' running totals (kept up to date as
games finish, `server.league.results`) and ordered by LEAGUE.md §3's tiebreaks."""

from __future__ import annotations

from fractions import Fraction

from sqlmodel import Session, col, select

from server.league.table import POINT_UNITS, TableRow, order_table
from server.models import Player, Season, SeasonMember


def row_of(member: SeasonMember, name: str) -> TableRow:
    """A member's line of the table."""
    return TableRow(
        player=name,
        points=Fraction(member.points_units, POINT_UNITS),
        score_sum=member.score_sum,
        wins=member.wins,
        played=member.played,
        withdrawn=member.withdrawn_at is not None,
    )


def division_tables(
    session: Session, season: Season, division: int | None = None
) -> dict[int, list[TableRow]]:
    """The ordered table of each division of the season (or of one)."""
    query = (
        select(SeasonMember, Player.name)
        .join(Player, col(Player.id) == SeasonMember.player_id)
        .where(SeasonMember.season_id == season.id, col(SeasonMember.division).is_not(None))
    )
    if division is not None:
        query = query.where(SeasonMember.division == division)
    rows: dict[int, list[TableRow]] = {}
    for member, name in session.exec(query):
        assert member.division is not None
        rows.setdefault(member.division, []).append(row_of(member, name))
    return {number: order_table(rows[number]) for number in sorted(rows)}


def final_tables(session: Session, season: Season) -> list[list[TableRow]]:
    """The season's tables, division 1 first."""
    return list(division_tables(session, season).values())
