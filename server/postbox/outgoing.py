"""Recording that game emails are due: the events of a game change, written as outbox rows
in the change's own transaction and rendered by the worker from the game as it is when it
sends them (`server.mail.events`), and a player's daily digest (`queue_digest`). Notices
are queued by `server.postbox.notices`; what the worker writes into a row when it renders
it is `server.mail.outgoing`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from server.config import Settings
from server.models import OutboxMessage, OutboxStatus, Player, aware, table_of, utcnow
from server.postbox import pings, recipients
from server.postbox.addresses import new_message_id
from server.postbox.kinds import EmailKind

#: The outbox, written with a plain INSERT built once: a validated model per row would cost
#: more than rendering it.
TABLE = table_of(OutboxMessage)
_INSERT = insert(TABLE)


def new_row(config: Settings, now: datetime, **fields: Any) -> dict[str, Any]:
    """A new outbox row of `fields`, as its INSERT binds it, with what every new row has: a
    fresh Message-ID (fixed now, so a message sent twice after a crash is shown once), and
    pending, due `now`."""
    return {
        **fields,
        "message_id": new_message_id(config.mail_domain),
        "status": OutboxStatus.PENDING,
        "attempts": 0,
        "available_at": now,
        "created_at": now,
    }


def queue_row(session: Session, config: Settings, **fields: Any) -> None:
    """Add one new outbox row of `fields` (in the caller's transaction)."""
    session.execute(_INSERT, new_row(config, utcnow(), **fields))


@dataclass(frozen=True, slots=True)
class Event:
    """A notification of a game change, for the player in `seat`: rendered when sent."""

    kind: str
    game_id: int
    version: int
    seat: int
    turn: int | None = None  # the log entry a `turn_confirmed` answers
    answering: str | None = None  # the Message-ID of the emailed turn it answers
    more_games: tuple[tuple[int, int], ...] = ()  # a reminder's further (game, version)s


def queue_events(session: Session, config: Settings, events: Sequence[Event]) -> None:
    """Add the events their readers want to the outbox in one statement (in the caller's
    transaction), and the pings their recipients' channels take (`server.postbox.pings`);
    the readers are read once for both (`server.postbox.recipients`)."""
    if not events:
        return
    readers = recipients.read(session, events)
    written = recipients.wanted(events, readers)
    if written:
        session.execute(_INSERT, event_rows(config, written))
    pings.queue_for_events(session, events, readers)


def event_rows(config: Settings, events: Sequence[Event]) -> list[dict[str, Any]]:
    """The outbox rows of `events`, as their INSERT binds them."""
    now = utcnow()
    return [
        new_row(
            config,
            now,
            kind=event.kind,
            game_id=event.game_id,
            version=event.version,
            seat=event.seat,
            turn=event.turn,
            answering=event.answering,
            more_games=[list(pair) for pair in event.more_games] or None,
        )
        for event in events
    ]


def queue_digest(
    session: Session, config: Settings, player: Player, *, since: datetime, at: datetime
) -> None:
    """Queue `player`'s daily digest (in the caller's transaction) with its facts: the
    turns since `since`, as of the moment `at`; the worker renders it from the games as
    they are when it sends it (`server.mail.digest`)."""
    assert player.id is not None
    facts = {"player": player.id, "since": aware(since).isoformat(), "at": aware(at).isoformat()}
    queue_row(session, config, kind=EmailKind.DIGEST, to_addr=player.email, payload=facts)


def queue_talk(session: Session, config: Settings, *, game_id: int, player: Player) -> None:
    """Queue the email of the game's table talk for `player` (in the caller's transaction):
    the worker renders it from the messages not emailed to them by the time it sends it
    (`server.mail.events`), or drops it if none is left."""
    assert player.id is not None
    queue_row(
        session,
        config,
        kind=EmailKind.TABLE_TALK,
        to_addr=player.email,
        game_id=game_id,
        payload={"player": player.id},
    )
