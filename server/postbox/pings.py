"""Recording that channels are due a ping (issue 26): one `ChannelDelivery` row per event and
channel, written in the change's own transaction — a game's beside its email events
(`server.postbox.outgoing.queue_events` calls `queue_for_events`), table talk's and a
season's with the message or the season's change (`queue_for_players`, `queue_for_league`)
— and sent by the worker (`server.jobs.deliveries`). What a channel is and how it is sent
is `server.channels`'.

A league's shared channel hears a game of its seasons once per event, not once per player
it is for (`LEAGUE_EVENTS`): a game's end, emailed to each of its players, is one delivery.
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
    GameRecord,
    Season,
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
#: The events a league's shared channel may take (and takes unless told): a reminder and
#: table talk are a player's own.
LEAGUE_EVENTS = (ChannelEvent.YOUR_TURN, ChannelEvent.GAME_OVER, ChannelEvent.LEAGUE)
#: The events a player's channel takes that a league's never does.
PERSONAL = tuple(event for event in CHOOSABLE if event not in LEAGUE_EVENTS)

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
    rows = rows_for_events(session, events, readers)
    if rows:
        session.execute(_INSERT, rows)


def rows_for_events(
    session: Session, events: Sequence[Event], readers: Readers, *, in_league: bool = True
) -> list[dict[str, Any]]:
    """The deliveries of `events`, as their INSERT binds them: one per event and active
    channel of its reader that takes it (the readers and their channels are read with the
    events' email preferences, `server.postbox.recipients.read`, one query), and one per
    game event and active channel of the game's league that takes it (`_league_rows`; not
    looked for when the caller knows the game is no league's, `in_league` False)."""
    rows = _readers_rows(events, readers)
    if in_league:
        rows += _league_rows(session, events)
    return rows


def _league_rows(session: Session, events: Sequence[Event]) -> list[dict[str, Any]]:
    """One delivery per game event (a game and version, and what happened) and active
    channel of the league of the game's season that takes it, however many players the
    event is for: one query, through the games' seasons."""
    wanted = list(
        dict.fromkeys(
            (event.game_id, event.version, _OF_EMAIL[event.kind])
            for event in events
            if event.kind in _OF_EMAIL and _OF_EMAIL[event.kind] in LEAGUE_EVENTS
        )
    )
    if not wanted:
        return []
    found = session.exec(
        select(stored_id(GameRecord.id), stored_id(Channel.id), Channel.events)
        .join(Season, col(Season.id) == GameRecord.season_id)
        .join(Channel, col(Channel.league_id) == Season.league_id)
        .where(Channel.state == ACTIVE, col(GameRecord.id).in_({game for game, _, _ in wanted}))
        .order_by(col(Channel.id))
    ).all()
    now = utcnow()
    return [
        delivery_row(channel_id, channel_event, now, game_id=game_id, version=version)
        for game_id, version, channel_event in wanted
        for game, channel_id, taken in found
        if game == game_id and channel_event in taken
    ]


def _readers_rows(events: Sequence[Event], readers: Readers) -> list[dict[str, Any]]:
    """One delivery per event and active channel of its reader that takes it."""
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


def queue_for_league(
    session: Session, league_id: int, event: ChannelEvent, *, payload: dict[str, Any]
) -> None:
    """Queue, in the caller's transaction, a delivery of `event` (a season's start or end)
    for each active channel of the league that takes it, its facts in `payload`."""
    found = session.exec(
        select(stored_id(Channel.id), Channel.events)
        .where(Channel.state == ACTIVE, Channel.league_id == league_id)
        .order_by(col(Channel.id))
    ).all()
    now = utcnow()
    rows = [
        delivery_row(channel_id, event, now, payload=payload)
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
