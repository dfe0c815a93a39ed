"""What a finished game changes beyond itself, in the transaction that finishes it: the
ratings of a rated game's players (`server.league.ratings`), the division table of a
league game, and — when it was the season's last game — the season's end (docs/league.md).

The table's totals are updated with increments (`points = points + …`), so games of one
season finishing at once never lose each other's results; the season's count of games left
is decremented in the same way, and the transaction that brings it to zero ends the season.
Rows are locked in one order everywhere — the game, the ratings (by player), the members
(by player), the season — so that finishing games wait for each other, never deadlock.

A player removed on time from a season's game who is then in no running game of the season
is out of the season, removed on time (`removed_on_time`): marked after the members' totals
and before the season's count, so a season that this very game ends is finished with them
marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from cafe.league import table
from server.config import Settings
from server.league import emails, pings, ratings
from server.league.standings import final_tables
from server.league.store import mark_left
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    League,
    MemberLeft,
    Player,
    Season,
    SeasonMember,
    SeasonStatus,
    stored_id,
)


def game_finished(
    session: Session,
    *,
    game: GameRecord,
    standings: Sequence[Mapping[str, Any]],
    finished_at: datetime,
    config: Settings,
    removed_on_time: str | None = None,
) -> None:
    """Apply a game's final standings to its season's table and its players' ratings;
    `removed_on_time`: the player whose removal on time ended it."""
    if game.season_id is None and not game.rated:
        return
    assert game.id is not None
    ratings.apply_game(session, game_id=game.id, standings=standings, finished_at=finished_at)
    if game.season_id is not None:
        _count_in_table(
            session,
            game=game,
            standings=standings,
            finished_at=finished_at,
            config=config,
            removed=removed_on_time,
        )


def removed_on_time(session: Session, *, game: GameRecord, player: str, at: datetime) -> None:
    """`player` was just removed on time from `game`: if it is a season's game and no running
    game of the season holds them any more, they are out of the season, removed on time.
    (Time-outs of one player are applied one at a time: the sweep holds the player's row.)"""
    if game.season_id is None:
        return
    member = session.exec(
        select(SeasonMember)
        .join(Player, col(Player.id) == SeasonMember.player_id)
        .where(
            SeasonMember.season_id == game.season_id,
            Player.name == player,
            col(SeasonMember.withdrawn_at).is_(None),
        )
    ).first()
    if member is None:
        return
    others = session.exec(
        select(GameRecord.state)
        .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
        .where(
            GameRecord.season_id == game.season_id,
            GameSeat.player_id == member.player_id,
            GameRecord.status == GameStatus.ACTIVE,
            GameRecord.id != game.id,
        )
    ).all()
    if any(
        state is not None and not state["eliminated"][state["players"].index(player)]
        for state in others
    ):
        return
    mark_left(member, MemberLeft.REMOVED_ON_TIME, at)
    session.add(member)
    session.flush()


def _count_in_table(
    session: Session,
    *,
    game: GameRecord,
    standings: Sequence[Mapping[str, Any]],
    finished_at: datetime,
    config: Settings,
    removed: str | None,
) -> None:
    season, league = session.exec(
        select(Season, League)
        .join(League, col(League.id) == Season.league_id)
        .where(Season.id == game.season_id)
    ).one()
    outcome = table.game_outcome(standings, league.game_size)
    ids = dict(
        session.exec(
            select(Player.name, stored_id(Player.id)).where(col(Player.name).in_(outcome))
        ).all()
    )
    for name in sorted(outcome, key=lambda n: ids[n]):
        result = outcome[name]
        session.execute(
            update(SeasonMember)
            .where(
                col(SeasonMember.season_id) == game.season_id,
                col(SeasonMember.player_id) == ids[name],
            )
            .values(
                points_units=SeasonMember.points_units + table.points_units(result.points),
                score_sum=SeasonMember.score_sum + result.score,
                wins=SeasonMember.wins + int(result.won),
                played=SeasonMember.played + 1,
            )
            .execution_options(synchronize_session=False)
        )
    if removed is not None:
        removed_on_time(session, game=game, player=removed, at=finished_at)
    left = session.execute(
        update(Season)
        .where(col(Season.id) == game.season_id)
        .values(games_left=Season.games_left - 1)
        .returning(col(Season.games_left))
        .execution_options(synchronize_session=False)
    ).scalar_one()
    if left == 0:
        finish_season(session, league=league, season=season, finished_at=finished_at, config=config)


def season_moves(session: Session, league: League, season: Season) -> list[dict[str, Any]]:
    """Who moves up and down after the season's final tables."""
    moves = table.season_moves(final_tables(session, season), league.promote, league.relegate)
    return [
        {"player": m.player, "from_division": m.from_division, "to_division": m.to_division}
        for m in moves
    ]


def finish_season(
    session: Session,
    *,
    league: League,
    season: Season,
    finished_at: datetime,
    config: Settings,
) -> None:
    """The season's last game has finished: its tables are final, the moves are computed,
    and every member gets the final table."""
    session.execute(
        update(Season)
        .where(col(Season.id) == season.id)
        .values(
            status=SeasonStatus.FINISHED,
            finished_at=finished_at,
            moves=season_moves(session, league, season),
            digest_due=None,
        )
        .execution_options(synchronize_session=False)
    )
    session.flush()
    session.refresh(season)
    emails.season_finished(session, league=league, season=season, config=config)
    pings.season_finished(session, league=league, season=season)
