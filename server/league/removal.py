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

from cafe.i18n import lazy_gettext
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
    organiser_only(
        league,
        organiser,
        lazy_gettext("only the organiser of %(league)s can remove a member", league=league.slug),
    )
    if season.status == SeasonStatus.FINISHED:
        raise Conflict(
            "season_finished",
            lazy_gettext(
                "season %(season)s of %(league)s is over: its tables are final",
                season=number,
                league=league.slug,
            ),
        )
    player = session.exec(select(Player).where(func.lower(Player.name) == name.lower())).first()
    if player is None:
        raise NotFound(
            "player_not_found", lazy_gettext("there is no player named %(name)s", name=repr(name))
        )
    member = session.exec(
        select(SeasonMember).where(
            SeasonMember.season_id == season.id, SeasonMember.player_id == player.id
        )
    ).first()
    if member is None or member.withdrawn_at is not None:
        where = {"player": player.name, "season": number, "league": league.slug}
        raise Conflict(
            "not_a_member",
            lazy_gettext("%(player)s has left season %(season)s of %(league)s", **where)
            if member is not None
            else lazy_gettext(
                "%(player)s is not a member of season %(season)s of %(league)s", **where
            ),
        )

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
