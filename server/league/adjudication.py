"""The organiser adjudicates a league game (issue 20 item 18): a game stuck for a reason
outside the rules (a player unreachable, a dispute) ends now with its standings as they
are (`cafe.Game.adjudicate`: the scores, less the tiles in hand, as at any end).

It finishes like any game, in the same one transaction (`server.games.turns.write_change`):
a log entry of kind `end` that says who adjudicated and why, the final standings, the
division's table and the players' ratings, the "game over" emails (which say it was
adjudicated, and why), and the season's end if it was its last game. The game record
ends with `-- adjudicated: REASON`, which `cafe verify` checks (`cafe.record`); the season's
log records it too.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from cafe import Game
from cafe.i18n import lazy_gettext
from server.config import Settings
from server.db import write_transaction
from server.domain import Conflict, Refused
from server.games import turns
from server.games.store import conflict, load_game
from server.league import log
from server.league.store import organiser_only
from server.models import (
    GameRecord,
    GameStatus,
    League,
    LogEntry,
    Player,
    Season,
    SeasonLogAction,
    TurnKind,
)


def adjudicate(
    session: Session,
    *,
    game_id: int,
    organiser: Player,
    reason: str,
    config: Settings,
) -> GameRecord:
    """End the running league game `game_id` now with its standings as they are, and
    commit: 404 if there is no such game, 422 for a game of no league, 403 unless
    `organiser` organises its league, 409 unless it is running (or if it moved on while
    this was done)."""
    game = load_game(session, game_id)
    if game.season_id is None:
        raise Refused(
            "not_a_league_game",
            lazy_gettext(
                "game %(game)s is not a league game: only a league's games are adjudicated, "
                "by the league's organiser",
                game=game_id,
            ),
        )
    season, league = session.exec(
        select(Season, League)
        .join(League, col(League.id) == Season.league_id)
        .where(Season.id == game.season_id)
    ).one()
    organiser_only(
        league,
        organiser,
        lazy_gettext(
            "only the organiser of %(league)s can adjudicate its games", league=league.slug
        ),
    )
    if game.status != GameStatus.ACTIVE or game.state is None:
        raise Conflict(
            "game_not_running",
            lazy_gettext(
                "game %(game)s has not started: only a running game is adjudicated",
                game=game_id,
            )
            if game.status == GameStatus.OPEN
            else lazy_gettext(
                "game %(game)s is over: only a running game is adjudicated", game=game_id
            ),
        )
    engine = Game.from_position(game.state)
    engine.adjudicate(reason)
    entry = LogEntry(
        game_id=game_id,
        number=game.turn_count + 1,
        seat=game.state["to_move"],
        kind=TurnKind.END,
        detail={"adjudicated": True, "by": organiser.name, "reason": engine.adjudication},
    )
    values = turns.change_values(
        session, game=game, engine=engine, entry=entry, by_the_player=False
    )
    with write_transaction(session):
        applied = turns.write_change(session, game=game, values=values, entry=entry, config=config)
        if applied:
            log.write(
                session,
                season=season,
                by=organiser,
                action=SeasonLogAction.ADJUDICATE,
                game_id=game_id,
                reason=engine.adjudication or reason,
            )
        else:
            session.rollback()
    if not applied:
        raise conflict(
            session,
            game_id,
            "stale_version",
            lazy_gettext("game %(game)s changed while it was adjudicated", game=game_id),
        )
    return load_game(session, game_id)
