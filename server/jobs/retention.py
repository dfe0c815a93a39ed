"""Retention: how long each growing table keeps its rows, and the purge that applies it.

Every table that grows with traffic has a rule (docs/security.md lists them
with their settings):

- `idempotency_keys`: deleted `IDEMPOTENCY_HOURS` after use (a client retries within
  minutes);
- `outbox`: a sent or failed message's body, HTML and headers (signed reply and
  unsubscribe addresses) are cleared after `MAIL_BODY_DAYS`, and the row (kind, address,
  subject, status) is deleted `MAIL_KEEP_DAYS` later (a sign-in email's body, with its
  code, is never stored: `server.signin`);
- `inbound_mail`: rows of messages from no known player (anyone can send them) are deleted
  after `STRANGER_MAIL_HOURS`, the rest after `INBOUND_MAIL_DAYS` (longer than any mail
  server retries, so a late duplicate is still recognised);
- `signin_codes`: deleted once expired and older than the hour the per-player limit counts;
- `offered_hints`: deleted once their game has moved past their version or finished;
- `throttle_events`: deleted after a day (the limits count one hour);
- open games nobody joined: deleted after `OPEN_GAME_DAYS`, their creator told by email;
- `table_talk`: a game's messages are kept as long as the game, and deleted with it (an
  expired open game's, counted as their own rule).

`purge` is what `cafe-server purge` and the worker's schedule run.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, exists, func, null, or_, update
from sqlmodel import Session, col, select

from server.config import Settings
from server.models import (
    ChannelDelivery,
    GameRecord,
    GameSeat,
    GameStatus,
    IdempotencyKey,
    InboundMail,
    OfferedHints,
    OutboxMessage,
    OutboxStatus,
    Player,
    SignInCode,
    TableTalk,
    ThrottleEvent,
)
from server.postbox import addresses, notices
from server.postbox.kinds import EmailKind

#: Outbox states in which a message will not be sent (again).
DONE = (OutboxStatus.SENT, OutboxStatus.FAILED, OutboxStatus.SUPERSEDED, OutboxStatus.SKIPPED)

#: How long a throttle event is kept (the limits look back one hour).
THROTTLE_KEEP = timedelta(days=1)

#: How long a sign-in code row is kept at least (the per-player limit counts one hour).
CODE_KEEP = timedelta(hours=1)


def purge(
    session: Session, config: Settings, now: datetime, *, dry_run: bool = False
) -> dict[str, int]:
    """Apply every rule as of `now`; rows changed or deleted per rule. With `dry_run`
    nothing is kept (the counts say what would be done); otherwise it is committed."""
    body_until = now - _days(config.mail_body_days)
    expired, talk = _expire_open_games(session, config, now)
    counts = {
        "idempotency keys deleted": _delete(
            session,
            IdempotencyKey,
            IdempotencyKey.created_at < now - _hours(config.idempotency_hours),
        ),
        "mail bodies cleared": _count(
            session.execute(
                update(OutboxMessage)
                .where(
                    col(OutboxMessage.status).in_(DONE),
                    col(OutboxMessage.created_at) < body_until,
                    (col(OutboxMessage.body) != "")
                    | col(OutboxMessage.html).is_not(None)
                    | col(OutboxMessage.headers).is_not(None),
                )
                .values(body="", html=null(), headers=null())
            )
        ),
        "mail rows deleted": _delete(
            session,
            OutboxMessage,
            col(OutboxMessage.status).in_(DONE),
            OutboxMessage.created_at < body_until - _days(config.mail_keep_days),
        ),
        "channel deliveries deleted": _delete(
            session,
            ChannelDelivery,
            col(ChannelDelivery.status).in_(("sent", "failed", "superseded")),
            ChannelDelivery.created_at < now - _days(config.mail_keep_days),
        ),
        "stranger mail deleted": _delete(
            session,
            InboundMail,
            col(InboundMail.player_id).is_(None),
            InboundMail.received_at < now - _hours(config.stranger_mail_hours),
        ),
        "inbound mail deleted": _delete(
            session, InboundMail, InboundMail.received_at < now - _days(config.inbound_mail_days)
        ),
        "sign-in codes deleted": _delete(
            session,
            SignInCode,
            SignInCode.expires_at < now,
            SignInCode.created_at < now - CODE_KEEP,
        ),
        "offered hints deleted": _delete(
            session,
            OfferedHints,
            exists().where(
                col(GameRecord.id) == OfferedHints.game_id,
                or_(
                    col(GameRecord.version) > OfferedHints.version,
                    col(GameRecord.status) == GameStatus.FINISHED,
                ),
            ),
        ),
        "throttle events deleted": _delete(
            session, ThrottleEvent, ThrottleEvent.created_at < now - THROTTLE_KEEP
        ),
        "open games expired": expired,
        "table talk deleted": talk,
    }
    if dry_run:
        session.rollback()
        return counts
    session.commit()
    if session.get_bind().dialect.name == "sqlite":
        # the write-ahead log still holds the pages as they were (codes, bodies): fold it
        # into the database (where secure_delete zeroed them) and empty it
        session.connection().exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        session.commit()
    return counts


def _delete(session: Session, model: type[Any], *where: Any) -> int:
    """Delete the rows of `model` that meet every condition."""
    return _count(session.execute(delete(model).where(*where)))


def _days(number: int) -> timedelta:
    return timedelta(days=number)


def _hours(number: int) -> timedelta:
    return timedelta(hours=number)


def _count(result: Any) -> int:
    return int(result.rowcount)


def _expire_open_games(session: Session, config: Settings, now: datetime) -> tuple[int, int]:
    """Delete the open games nobody joined within `OPEN_GAME_DAYS`, telling each creator,
    and their table talk with them; how many games and messages."""
    age = config.open_game_days
    seated = (
        select(func.count())
        .select_from(GameSeat)
        .where(GameSeat.game_id == GameRecord.id)
        .scalar_subquery()
    )
    games = session.exec(
        select(GameRecord)
        .where(
            GameRecord.status == GameStatus.OPEN,
            GameRecord.created_at < now - timedelta(days=age),
            seated <= 1,
        )
        # two purges at once (several workers) must not tell a creator twice
        .with_for_update(skip_locked=True)
    ).all()
    links = addresses.links(config)
    talk = 0
    for game in games:
        assert game.id is not None
        creator = session.get_one(Player, game.creator_id)
        notices.queue(  # the facts are kept: the game is deleted here
            session,
            config,
            EmailKind.GAME_EXPIRED,
            to=creator.email,
            game_id=game.id,
            seats=game.seats,
            days=age,
            links=links,
        )
        talk += _count(session.execute(delete(TableTalk).where(col(TableTalk.game_id) == game.id)))
        session.execute(delete(GameSeat).where(col(GameSeat.game_id) == game.id))
        session.delete(game)
    session.flush()
    return len(games), talk
