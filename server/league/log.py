"""A season's log: what its organiser did — removed a member, paused or resumed the
season's clocks, adjudicated a game — with who, when and why. Written in the transaction of
the action itself, so an entry stands exactly for what happened; public, like the season
(`GET /api/leagues/<slug>/seasons/<n>/log`, the season's page, `cafe league log`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from server.models import Player, Season, SeasonLogAction, SeasonLogEntry, utcnow


@dataclass(frozen=True, slots=True)
class LogLine:
    """One entry as it is shown: names rather than ids."""

    at: datetime
    by: str
    action: SeasonLogAction
    player: str | None
    game: int | None
    reason: str


def write(
    session: Session,
    *,
    season: Season,
    by: Player,
    action: SeasonLogAction,
    reason: str,
    player: Player | None = None,
    game_id: int | None = None,
) -> None:
    """Add an entry to the season's log, in the caller's transaction."""
    assert season.id is not None and by.id is not None
    session.add(
        SeasonLogEntry(
            season_id=season.id,
            at=utcnow(),
            by_id=by.id,
            action=action,
            player_id=None if player is None else player.id,
            game_id=game_id,
            reason=reason,
        )
    )


def lines(session: Session, season: Season) -> list[LogLine]:
    """The season's log, oldest first."""
    organiser, member = aliased(Player), aliased(Player)
    rows = session.exec(
        select(SeasonLogEntry, organiser.name, member.name)
        .join(organiser, col(organiser.id) == SeasonLogEntry.by_id)
        .outerjoin(member, col(member.id) == SeasonLogEntry.player_id)
        .where(SeasonLogEntry.season_id == season.id)
        .order_by(col(SeasonLogEntry.id))
    ).all()
    return [
        LogLine(
            at=entry.at,
            by=by,
            action=entry.action,
            player=name,
            game=entry.game_id,
            reason=entry.reason,
        )
        for entry, by, name in rows
    ]
