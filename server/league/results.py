"""What a finished game changes beyond itself, in the transaction that finishes it: the
ratings of a rated game's players (`server.league.ratings`), the division table of a
league game, and — when it was the season's last game — the season's end (LEAGUE.md §3).

The table's totals are updated with increments (`points = points + …`), so games of one
season finishing at once never lose each other's results; the season's count of games left
is decremented in the same way, and the transaction that brings it to zero ends the season.
Rows are locked in one order everywhere — the game, the ratings (by player), the members
(by player), the season — so that finishing games wait for each other, never deadlock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from server.league import emails, ratings, table
from server.league.standings import final_tables
from server.models import GameRecord, League, Player, Season, SeasonMember, SeasonStatus


def game_finished(
    session: Session,
    *,
    game: GameRecord,
    standings: Sequence[Mapping[str, Any]],
    finished_at: datetime,
    config: Mapping[str, Any] | None = None,
) -> None:
    """Apply a game's final standings to its season's table and its players' ratings."""
    if game.season_id is None and not game.rated:
        return
    assert game.id is not None
    ratings.apply_game(session, game_id=game.id, standings=standings, finished_at=finished_at)
    if game.season_id is not None:
        _count_in_table(
            session, game=game, standings=standings, finished_at=finished_at, config=config
        )


def _count_in_table(
    session: Session,
    *,
    game: GameRecord,
    standings: Sequence[Mapping[str, Any]],
    finished_at: datetime,
    config: Mapping[str, Any] | None,
) -> None:
    season, league = session.exec(
        select(Season, League)
        .join(League, col(League.id) == Season.league_id)
        .where(Season.id == game.season_id)
    ).one()
    outcome = table.game_outcome(standings, league.game_size)
    ids = dict(
        session.exec(select(Player.name, Player.id).where(col(Player.name).in_(outcome))).all()
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
    left = session.execute(
        update(Season)
        .where(col(Season.id) == game.season_id)
        .values(games_left=Season.games_left - 1)
        .returning(Season.games_left)
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
    config: Mapping[str, Any] | None,
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
