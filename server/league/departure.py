"""A player leaving the service (`cafe-server players remove NAME`): they stop playing
everywhere, with every table left consistent.

In one transaction: every season they are registered for and that has not finished is
withdrawn from (a running season's games of theirs resigned, as a withdrawal does), every
other running game of theirs resigned, their API tokens revoked, their emails turned off
and their channels deleted with their secrets.
Their finished games, results and rating stay, as a record of what was played.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import Session, col, select

from server.config import Settings
from server.league.store import mark_left
from server.league.withdrawal import lock_games, resign_games
from server.models import (
    ApiToken,
    GameRecord,
    GameSeat,
    GameStatus,
    MemberLeft,
    Player,
    Season,
    SeasonMember,
    SeasonStatus,
    TurnEmails,
    utcnow,
)
from server.postbox import pings


@dataclass(frozen=True, slots=True)
class Departure:
    """What removing a player did: how many seasons they were withdrawn from, and the
    games resigned."""

    seasons: int
    games: list[int]


def remove_player(session: Session, player: Player, *, config: Settings) -> Departure:
    """Withdraw `player` from every season, resign every running game of theirs, revoke
    their tokens and stop their emails; a 409 (nothing changed) if a game moved on meanwhile."""
    assert player.id is not None
    now = utcnow()
    running = session.exec(
        select(GameRecord)
        .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
        .where(GameSeat.player_id == player.id, GameRecord.status == GameStatus.ACTIVE)
        .order_by(col(GameRecord.id))
    ).all()
    running = lock_games(session, running)  # the games first (`server.league.withdrawal`)
    members = session.exec(
        select(SeasonMember, Season)
        .join(Season, col(Season.id) == SeasonMember.season_id)
        .where(
            SeasonMember.player_id == player.id,
            col(SeasonMember.withdrawn_at).is_(None),
            Season.status != SeasonStatus.FINISHED,
        )
        .order_by(col(SeasonMember.season_id))
    ).all()
    for member, _ in members:
        mark_left(member, MemberLeft.WITHDREW, now)
        session.add(member)
    resigned = resign_games(session, running, player, config=config)
    session.execute(
        update(ApiToken)
        .where(col(ApiToken.player_id) == player.id, col(ApiToken.revoked_at).is_(None))
        .values(revoked_at=now)
    )
    pings.remove_players_channels(session, player.id)  # their secrets go with them
    player.turn_emails = TurnEmails.NONE
    player.reminders = False
    session.add(player)
    session.commit()
    return Departure(seasons=len(members), games=sorted(resigned))
