"""The organiser pauses and resumes a running season's clocks (a holiday season; issue 20
item 18): a pause is a vacation for everyone in the season's running games, whatever the
league's vacation rule.

Pausing adds an open hold to every running game of the season (`games.clock_holds`,
`server.clock.store.hold`): the games have no deadline and no reminder due, so the sweep
finds nothing in them, however long it lasts; the players may still play, and a turn
played meanwhile starts its clock at the resumption. Resuming ends the hold, and each
game's deadline and reminders are computed again over every pause since the turn began
(`server.clock.deadlines.when_run`), so each deadline moves back by the pause, less any
vacation of the mover's that overlapped it. Every member still in the season is told by
email, and the season's log records who did it, when and why.

Rows are locked in the order every other change takes them (the games in id order, then
the season; `server.league.results`), on PostgreSQL `FOR UPDATE`: a sweep that is timing a
game out finishes first, and the pause then sees the game as it left it; on SQLite the
web's writer lock makes the change one short write.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from cafe.i18n import lazy_gettext
from server.clock import store as clocks
from server.config import Settings
from server.db import write_transaction
from server.domain import Conflict
from server.league import emails, log
from server.league.store import load_season, organiser_only, season_is
from server.models import (
    GameRecord,
    GameStatus,
    League,
    Player,
    Season,
    SeasonLogAction,
    SeasonStatus,
    iso,
    utcnow,
)

Holds = list[dict[str, Any]]


def pause(
    session: Session,
    *,
    league: League,
    number: int,
    organiser: Player,
    reason: str,
    config: Settings,
) -> Season:
    """Stop every clock of the running season's games from now, and commit: 403 unless
    `organiser` organises the league, 409 unless the season runs and is not paused."""
    return _change(
        session,
        league=league,
        number=number,
        organiser=organiser,
        reason=reason,
        action=SeasonLogAction.PAUSE,
        config=config,
    )


def resume(
    session: Session,
    *,
    league: League,
    number: int,
    organiser: Player,
    reason: str = "",
    config: Settings,
) -> Season:
    """Start the paused season's clocks again from now, every deadline moved back by the
    pause, and commit: 403 unless `organiser` organises the league, 409 unless the season
    runs and is paused."""
    return _change(
        session,
        league=league,
        number=number,
        organiser=organiser,
        reason=reason,
        action=SeasonLogAction.RESUME,
        config=config,
    )


def _change(
    session: Session,
    *,
    league: League,
    number: int,
    organiser: Player,
    reason: str,
    action: SeasonLogAction,
    config: Settings,
) -> Season:
    doing = "pause" if action == SeasonLogAction.PAUSE else "resume"
    season = load_season(session, league, number)
    _check(league, season, organiser, doing)
    with write_transaction(session):
        games = _lock_running_games(session, season)
        season = load_season(session, league, number, lock=True)
        _check(league, season, organiser, doing)
        now = utcnow()
        paused_since = season.paused_at
        if action == SeasonLogAction.PAUSE:
            season.paused_at = now
            _hold_all(session, games, lambda holds: _opened(holds, now, reason))
        else:
            season.paused_at = None
            _hold_all(session, games, lambda holds: _closed(holds, now))
        session.add(season)
        log.write(session, season=season, by=organiser, action=action, reason=reason)
        if action == SeasonLogAction.PAUSE:
            emails.season_paused(
                session, league=league, season=season, reason=reason, config=config
            )
        else:
            assert paused_since is not None
            emails.season_resumed(
                session,
                league=league,
                season=season,
                paused=now - paused_since,
                config=config,
            )
    return season


def _check(league: League, season: Season, organiser: Player, doing: str) -> None:
    """The refusals of a pause or a resumption, in the order they are told."""
    organiser_only(
        league,
        organiser,
        lazy_gettext("only the organiser of %(league)s can pause a season", league=league.slug)
        if doing == "pause"
        else lazy_gettext(
            "only the organiser of %(league)s can resume a season", league=league.slug
        ),
    )
    where = {"season": season.number, "league": league.slug}
    if season.status != SeasonStatus.RUNNING:
        raise Conflict(
            "season_not_running",
            lazy_gettext(
                "%(state)s: only a running season's clocks can be paused or resumed",
                state=season_is(season, league),
            ),
        )
    if doing == "pause" and season.paused_at is not None:
        raise Conflict(
            "season_paused",
            lazy_gettext(
                "season %(season)s of %(league)s has been paused since %(since)s; resume it first",
                since=iso(season.paused_at),
                **where,
            ),
        )
    if doing == "resume" and season.paused_at is None:
        raise Conflict(
            "season_not_paused",
            lazy_gettext(
                "season %(season)s of %(league)s is not paused: its clocks are running", **where
            ),
        )


def _lock_running_games(session: Session, season: Season) -> list[GameRecord]:
    """The season's running games, locked for this transaction in id order, read afresh."""
    return list(
        session.exec(
            select(GameRecord)
            .where(GameRecord.season_id == season.id, GameRecord.status == GameStatus.ACTIVE)
            .order_by(col(GameRecord.id))
            .with_for_update()
            .execution_options(populate_existing=True)
        ).all()
    )


def _hold_all(session: Session, games: list[GameRecord], change: Callable[[Holds], Holds]) -> None:
    """Give each game the holds `change` makes of its own, with the deadline they make; a
    game changed meanwhile (it is locked, so only on a backend without row locks) is read
    again and changed anew."""
    for game in games:
        while not clocks.hold(session, game, change(list(game.clock_holds))):
            session.refresh(game)


def _opened(holds: Holds, now: datetime, reason: str) -> Holds:
    """The holds with a new one under way from `now`."""
    return [*holds, {"start": iso(now), "end": None, "reason": reason}]


def _closed(holds: Holds, now: datetime) -> Holds:
    """The holds with the one under way ended at `now`."""
    return [hold if hold["end"] is not None else {**hold, "end": iso(now)} for hold in holds]
