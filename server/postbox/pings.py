"""Recording that channels are due a ping (issue 26): one `ChannelDelivery` row per event and
channel, written in the change's own transaction — a game's beside its email events
(`server.postbox.outgoing.queue_events` calls `queue_for_events`), table talk's and a
season's with the message or the season's change (`queue_for_players`) — and sent by the
worker (`server.jobs.deliveries`). What a channel is and how it is sent is
`server.channels`'.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert
from sqlmodel import Session, col, select

from server.models import (
    Channel,
    ChannelDelivery,
    stored_id,
    table_of,
    utcnow,
)

if TYPE_CHECKING:
    from server.postbox.outgoing import Event
    from server.postbox.recipients import Readers


class ChannelEvent(StrEnum):
    """The events a channel can take (`Channel.events`)."""

    YOUR_TURN = "your_turn"
    REMINDER = "reminder"
    GAME_OVER = "game_over"
    #: table talk, where it exists (queued by the talk, not by a game change)
    MESSAGE = "message"
    #: a league's season started or finished
    LEAGUE = "league"
    #: "send a test": never chosen, always taken
    TEST = "test"


#: What a channel takes when its owner does not say.
DEFAULT_EVENTS = (ChannelEvent.YOUR_TURN, ChannelEvent.REMINDER, ChannelEvent.GAME_OVER)
#: The events a player may choose.
CHOOSABLE = tuple(event for event in ChannelEvent if event is not ChannelEvent.TEST)

#: The email event kinds (`server.postbox.kinds.EmailKind` values) a channel hears of.
_OF_EMAIL = {
    "your_turn": ChannelEvent.YOUR_TURN,
    "reminder": ChannelEvent.REMINDER,
    "game_over": ChannelEvent.GAME_OVER,
}

#: A `league` delivery's `payload["status"]`: the season started, or finished.
SEASON_STARTED = "started"
SEASON_FINISHED = "finished"

ACTIVE = "active"
DISABLED = "disabled"

#: The deliveries, written with a plain INSERT (a turn writes them in its one statement).
TABLE = table_of(ChannelDelivery)
_INSERT = insert(TABLE)


def new_delivery_id() -> str:
    """A fresh delivery id (`msg_…`, Standard Webhooks' form): fixed when the row is written."""
    return f"msg_{uuid.uuid4().hex}"


def delivery_row(
    channel_id: int,
    event: ChannelEvent,
    now: datetime,
    *,
    game_id: int | None = None,
    version: int | None = None,
    payload: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A new delivery row, as its INSERT binds it: pending, due now."""
    return {
        "channel_id": channel_id,
        "delivery_id": new_delivery_id(),
        "event": event.value,
        "game_id": game_id,
        "version": version,
        "payload": payload,
        "status": "pending",
        "attempts": 0,
        "available_at": now,
        "created_at": now,
    }


def queue_for_events(session: Session, events: Sequence[Event], readers: Readers) -> None:
    """Queue `rows_for_events` (in the caller's transaction), in one INSERT."""
    rows = rows_for_events(events, readers)
    if rows:
        session.execute(_INSERT, rows)


def rows_for_events(events: Sequence[Event], readers: Readers) -> list[dict[str, Any]]:
    """One delivery per event and active channel of its reader that takes it, as their
    INSERT binds them; the readers and their channels are read with the events' email
    preferences (`server.postbox.recipients.read`, one query)."""
    now = utcnow()
    return [
        delivery_row(channel_id, channel_event, now, game_id=event.game_id, version=event.version)
        for event in events
        if (channel_event := _OF_EMAIL.get(event.kind)) is not None
        and (reader := readers.get((event.game_id, event.seat))) is not None
        for channel_id, taken in reader.channels
        if channel_event in taken
    ]


def queue_for_players(
    session: Session,
    player_ids: Iterable[int],
    event: ChannelEvent,
    *,
    game_id: int | None = None,
    version: int | None = None,
    payload: dict[str, Any] | None = None,
) -> None:
    """Queue, in the caller's transaction and one INSERT, a delivery of `event` for each
    active channel of these players that takes it: the events no game change carries (a
    message at the table, a season's start or end), their language-neutral facts in
    `payload`."""
    ids = set(player_ids)
    if not ids:
        return
    found = session.exec(
        select(stored_id(Channel.id), Channel.events)
        .where(Channel.state == ACTIVE, col(Channel.player_id).in_(ids))
        .order_by(col(Channel.id))
    ).all()
    now = utcnow()
    rows = [
        delivery_row(channel_id, event, now, game_id=game_id, version=version, payload=payload)
        for channel_id, taken in found
        if event in taken
    ]
    if rows:
        session.execute(_INSERT, rows)


def remove_channels(session: Session, channel_ids: Iterable[int]) -> None:
    """Delete channels and their deliveries (in the caller's transaction): their secrets go
    with them."""
    ids = list(channel_ids)
    if ids:
        session.execute(delete(ChannelDelivery).where(col(ChannelDelivery.channel_id).in_(ids)))
        session.execute(delete(Channel).where(col(Channel.id).in_(ids)))


def remove_players_channels(session: Session, player_id: int) -> None:
    """Delete every channel of a player, with its deliveries and secrets."""
    remove_channels(
        session,
        session.exec(select(stored_id(Channel.id)).where(Channel.player_id == player_id)).all(),
    )
