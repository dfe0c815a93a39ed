"""`cafe-server league check`: the stored standings and ratings are a pure function of the
finished games (docs/league.md); recompute them and report every difference."""

from __future__ import annotations

from collections import defaultdict

from sqlmodel import Session, col, select

from cafe.league import table
from server.league import ratings
from server.league.results import season_moves
from server.models import (
    GameRecord,
    GameStatus,
    League,
    Player,
    Season,
    SeasonMember,
    SeasonStatus,
)


def season_differences(session: Session, league: League, season: Season) -> list[str]:
    """Where the season's stored table, games left and moves differ from its games."""
    where = f"{league.slug} season {season.number}"
    games = session.exec(select(GameRecord).where(GameRecord.season_id == season.id)).all()
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for game in games:
        if game.status != GameStatus.FINISHED or game.standings is None:
            continue
        for name, outcome in table.game_outcome(game.standings, league.game_size).items():
            line = totals[name]
            line[0] += table.points_units(outcome.points)
            line[1] += outcome.score
            line[2] += int(outcome.won)
            line[3] += 1
    found = []
    members = session.exec(
        select(SeasonMember, Player.name)
        .join(Player, col(Player.id) == SeasonMember.player_id)
        .where(SeasonMember.season_id == season.id)
    ).all()
    for member, name in members:
        stored = [member.points_units, member.score_sum, member.wins, member.played]
        if stored != totals[name]:
            found.append(
                f"{where}: {name} has (points×{table.POINT_UNITS}, score sum, wins, played) "
                f"{tuple(stored)} stored, {tuple(totals[name])} from the games"
            )
    unfinished = sum(1 for game in games if game.status != GameStatus.FINISHED)
    if season.status != SeasonStatus.REGISTRATION and season.games_left != unfinished:
        found.append(f"{where}: {season.games_left} games left stored, {unfinished} unfinished")
    if season.status == SeasonStatus.FINISHED:
        if unfinished:
            found.append(f"{where}: finished with {unfinished} games unfinished")
        if (season.moves or []) != season_moves(session, league, season):
            found.append(f"{where}: the stored moves differ from the final tables'")
    return found


def differences(session: Session) -> tuple[int, list[str]]:
    """How many seasons were checked, and every difference found in them and the ratings."""
    seasons = session.exec(
        select(Season, League)
        .join(League, col(League.id) == Season.league_id)
        .order_by(col(League.id), col(Season.number))
    ).all()
    found = []
    for season, league in seasons:
        found += season_differences(session, league, season)
    found += ratings.differences(session, ratings.replay(session))
    return len(seasons), found
