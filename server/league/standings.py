"""A season's division tables, read from the members' running totals (kept up to date as
games finish, `server.league.results`) and ordered by the tiebreaks of docs/league.md. A member
left the season when `withdrawn_at` is set, in the way `departure` says (a withdrawal
where it does not)."""

from __future__ import annotations

from fractions import Fraction

from sqlmodel import Session, col

from cafe.league.table import POINT_UNITS, TableRow, order_table
from server.models import MemberLeft, Player, Season, SeasonMember, select_columns


def division_tables(
    session: Session, season: Season, division: int | None = None
) -> dict[int, list[TableRow]]:
    """The ordered table of each division of the season (or of one). Plain columns, not
    member objects: a division's page is read often (issue 12 §4)."""
    query = (
        select_columns(
            SeasonMember.division,
            Player.name,
            SeasonMember.points_units,
            SeasonMember.score_sum,
            SeasonMember.wins,
            SeasonMember.played,
            SeasonMember.withdrawn_at,
            SeasonMember.departure,
            SeasonMember.placed,
            SeasonMember.placed_from,
        )
        .join(Player, col(Player.id) == SeasonMember.player_id)
        .where(SeasonMember.season_id == season.id, col(SeasonMember.division).is_not(None))
    )
    if division is not None:
        query = query.where(SeasonMember.division == division)
    rows: dict[int, list[TableRow]] = {}
    for number, name, units, score_sum, wins, played, out, how, placed, placed_from in session.exec(
        query
    ):
        assert number is not None
        rows.setdefault(number, []).append(
            TableRow(
                player=name,
                points=Fraction(units, POINT_UNITS),
                score_sum=score_sum,
                wins=wins,
                played=played,
                left=None if out is None else how or MemberLeft.WITHDREW,
                placed=placed,
                placed_from=placed_from,
            )
        )
    return {number: order_table(rows[number]) for number in sorted(rows)}


def final_tables(session: Session, season: Season) -> list[list[TableRow]]:
    """The season's tables, division 1 first."""
    return list(division_tables(session, season).values())
