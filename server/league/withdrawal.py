"""Leaving a season. Leaving a running season, the player resigns every running game of
theirs in it, in the withdrawal's own transaction, so that the withdrawal and its
resignations land together.

A member leaves in one of three ways (`server.models.MemberLeft`): they withdraw, the
organiser removes them (`withdraw` with `how=MemberLeft.REMOVED`), or they are removed on
time from every game of the season they had left (`server.league.results.removed_on_time`,
in the time-out's own transaction). `server.league.store.mark_left` is the one place that
writes it; the tables list them below every member still in their division, marked.

A leaving member's games are locked first, in id order, before anything else is written:
a game's end locks the game, then the ratings, the members and the season
(`server.league.results`), so a withdrawal that took a member's row before its games could
deadlock with a game finishing meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlmodel import Session, col, select

from cafe.endings import Departure
from cafe.i18n import lazy_gettext
from server.config import Settings
from server.domain import Conflict
from server.games import turns
from server.league.store import load_season, mark_left, running_games_of
from server.models import (
    GameRecord,
    GameStatus,
    League,
    MemberLeft,
    Player,
    Season,
    SeasonMember,
    SeasonStatus,
    utcnow,
)


def lock_games(session: Session, games: Sequence[GameRecord]) -> list[GameRecord]:
    """Lock the rows of `games` in id order (in the caller's transaction, before it writes
    anything else); those still running, as they are once locked (a game that was
    finishing meanwhile has finished)."""
    ids = sorted(game.id for game in games if game.id is not None)
    if not ids:
        return []
    locked = session.exec(
        select(GameRecord)
        .where(col(GameRecord.id).in_(ids))
        .order_by(col(GameRecord.id))
        .with_for_update()
        .execution_options(populate_existing=True)
    ).all()
    return [game for game in locked if game.status == GameStatus.ACTIVE]


def still_in(games: Sequence[GameRecord], player: Player) -> list[GameRecord]:
    """Those of the running `games` the player has not left."""
    return [
        game
        for game in games
        if game.state is not None
        and not game.state["eliminated"][game.state["players"].index(player.name)]
    ]


def resign_games(
    session: Session,
    games: Sequence[GameRecord],
    player: Player,
    *,
    how: MemberLeft = MemberLeft.WITHDREW,
    config: Settings,
) -> list[int]:
    """Resign the player from each of these running games they are still in (in the
    caller's transaction, which locked them first: `lock_games`; a league game's log says
    they withdrew, or were removed by the organiser: `how`); the games resigned. A game
    that moved on meanwhile makes the whole change a 409 to retry, never a partial one."""
    left_season = Departure.REMOVED if how is MemberLeft.REMOVED else Departure.WITHDREW
    resigned = []
    for game in still_in(games, player):
        assert game.id is not None and game.state is not None
        seat = game.state["players"].index(player.name)
        how_left = left_season if game.season_id is not None else Departure.RESIGNED
        engine, entry = turns.resignation(game, seat, how=how_left)
        values = turns.change_values(
            session, game=game, engine=engine, entry=entry, by_the_player=True
        )
        if not turns.write_change(session, game=game, values=values, entry=entry, config=config):
            session.rollback()
            raise Conflict(
                "busy",
                lazy_gettext(
                    "game %(game)s changed meanwhile; nothing changed, try again", game=game.id
                ),
            )
        resigned.append(game.id)
    return resigned


def withdraw(
    session: Session,
    *,
    league: League,
    number: int,
    player: Player,
    how: MemberLeft = MemberLeft.WITHDREW,
    config: Settings,
) -> Season:
    """The player leaves the season (`how`: they withdrew, or the organiser removed them):
    before its start they are simply not placed; during it they resign every running game
    of theirs in it (finished results stand)."""
    season = load_season(session, league, number)
    member = session.exec(
        select(SeasonMember).where(
            SeasonMember.season_id == season.id, SeasonMember.player_id == player.id
        )
    ).first()
    if member is None or member.withdrawn_at is not None:
        raise Conflict(
            "not_registered",
            lazy_gettext(
                "you are not registered for season %(season)s of %(league)s",
                season=number,
                league=league.slug,
            ),
        )
    if season.status == SeasonStatus.FINISHED:
        raise Conflict(
            "season_finished",
            lazy_gettext(
                "season %(season)s of %(league)s is over", season=number, league=league.slug
            ),
        )
    leave(session, season=season, member=member, player=player, how=how, config=config)
    session.commit()
    return season


def leave(
    session: Session,
    *,
    season: Season,
    member: SeasonMember,
    player: Player,
    how: MemberLeft,
    before_resigning: Callable[[list[int]], None] | None = None,
    config: Settings,
) -> list[int]:
    """The member leaves the season (not finished) in the way `how` says, in the caller's
    transaction: marked as left now, and during the season their running games of it
    resigned; the games resigned. A withdrawal and the organiser's removal
    (`server.league.removal`) alike. `before_resigning` is given the games about to be
    resigned once they are locked: what it queues (the removal's email) is mailed before
    what the resignations queue ("game over" of a game the departure ends)."""
    running: list[GameRecord] = []
    if season.status == SeasonStatus.RUNNING:  # the games first, before the member's row
        assert season.id is not None and player.id is not None
        running = lock_games(
            session, running_games_of(session, season_id=season.id, player_id=player.id)
        )
    mark_left(member, how, utcnow())
    session.add(member)
    if before_resigning is not None:
        before_resigning([game.id for game in still_in(running, player) if game.id is not None])
        session.flush()  # its rows first: the outbox's order is the mail's
    return resign_games(session, running, player, how=how, config=config)
