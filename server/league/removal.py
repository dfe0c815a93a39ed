"""The organiser removes a member from a season (issue 20 item 18): from a running season as
a withdrawal (their running games of it resigned, their finished results standing), or
from the next season's registration (they are not placed). The membership keeps the reason
(`SeasonMember.removed_reason`), so the tables can say the player was removed by the
organiser rather than withdrew, and the season's log says who did it, when and why. The
removed player is told by email; their opponents hear of each resignation as of any other.

A removed player cannot register again for that season; the next season they may.
"""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, select

from server.config import Settings
from server.domain import Conflict, NotFound
from server.league import emails, log
from server.league.store import load_season, organiser_only
from server.league.withdrawal import leave
from server.models import (
    League,
    MemberLeft,
    Player,
    Season,
    SeasonLogAction,
    SeasonMember,
    SeasonStatus,
)


def remove(
    session: Session,
    *,
    league: League,
    number: int,
    organiser: Player,
    name: str,
    reason: str,
    config: Settings,
) -> Season:
    """Remove the player named `name` from season `number` and commit: 403 unless
    `organiser` organises the league, 409 once the season is over or if they are not a
    member of it (any more), 404 if there is no such player."""
    season = load_season(session, league, number)
    organiser_only(league, organiser, "remove a member")
    if season.status == SeasonStatus.FINISHED:
        raise Conflict(
            "season_finished", f"season {number} of {league.slug} is over: its tables are final"
        )
    player = session.exec(select(Player).where(func.lower(Player.name) == name.lower())).first()
    if player is None:
        raise NotFound("player_not_found", f"there is no player named {name!r}")
    member = session.exec(
        select(SeasonMember).where(
            SeasonMember.season_id == season.id, SeasonMember.player_id == player.id
        )
    ).first()
    if member is None or member.withdrawn_at is not None:
        left = "has left" if member is not None else "is not a member of"
        raise Conflict("not_a_member", f"{player.name} {left} season {number} of {league.slug}")

    def tell(resigned: list[int]) -> None:
        """The removed player hears of it before the end of any game it ends."""
        emails.removed_by_organiser(
            session,
            league=league,
            season=season,
            player=player,
            reason=reason,
            resigned=resigned,
            config=config,
        )

    leave(
        session,
        season=season,
        member=member,
        player=player,
        how=MemberLeft.REMOVED,
        before_resigning=tell,
        config=config,
    )
    member.removed_reason = reason
    log.write(
        session,
        season=season,
        by=organiser,
        action=SeasonLogAction.REMOVE,
        player=player,
        reason=reason,
    )
    session.commit()
    return season
