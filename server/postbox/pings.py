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

from sqlalchemy import (
    Integer,
    Select,
    String,
    Text,
    and_,
    any_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal_column,
    or_,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlmodel import Session, col, select

from server.models import (
    Channel,
    ChannelDelivery,
    GameSeat,
    Player,
    select_columns,
    stored_id,
    table_of,
    utcnow,
)

if TYPE_CHECKING:
    from server.postbox.outgoing import Event


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

_CHANNELS = table_of(Channel)
_PLAYERS = table_of(Player)
#: The active channels of the players named `names`, with their owner's name: what every
#: turn asks. Built once, in Core: building the statement and its cache key for each turn,
#: and the ORM's handling of its result, cost more than running it.
_CHANNELS_BY_NAME = (
    select(_PLAYERS.c.name, _CHANNELS.c.id, _CHANNELS.c.events)
    .join(_CHANNELS, _CHANNELS.c.player_id == _PLAYERS.c.id)
    .where(_CHANNELS.c.state == ACTIVE, _PLAYERS.c.name.in_(bindparam("names", expanding=True)))
    .order_by(_CHANNELS.c.id)
)


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


def queue_for_events(session: Session, events: Sequence[Event]) -> None:
    """Queue `rows_for_events` (in the caller's transaction), in one INSERT."""
    rows = rows_for_events(session, events)
    if rows:
        session.execute(_INSERT, rows)


def rows_for_events(
    session: Session, events: Sequence[Event], players: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One delivery per event and active channel of its recipient that takes it, as their
    INSERT binds them: one query finds the channels of every recipient — by their names
    when the game's `players` (by seat) are at hand, as a turn has them in its snapshot,
    else through the games' seats."""
    wanted = [(event, _OF_EMAIL[event.kind]) for event in events if event.kind in _OF_EMAIL]
    if not wanted:
        return []
    channel = (stored_id(Channel.id), Channel.events)
    found: list[tuple[int, int | None, int, Any]]  # (game, seat, channel, its events)
    if players is not None:
        names = sorted({players[event.seat] for event, _ in wanted})
        by_name = session.connection().execute(_CHANNELS_BY_NAME, {"names": names}).all()
        found = [
            (event.game_id, event.seat, channel_id, taken)
            for event, _ in wanted
            for name, channel_id, taken in by_name
            if name == players[event.seat]
        ]
    else:
        seats = {(event.game_id, event.seat) for event, _ in wanted}
        found = list(
            session.exec(
                select(GameSeat.game_id, GameSeat.seat, *channel)
                .join(Channel, col(Channel.player_id) == GameSeat.player_id)
                .where(
                    Channel.state == ACTIVE,
                    or_(
                        *(
                            and_(col(GameSeat.game_id) == g, col(GameSeat.seat) == s)
                            for g, s in seats
                        )
                    ),
                )
                .order_by(col(Channel.id))
            ).all()
        )
    now = utcnow()
    return [
        delivery_row(channel_id, channel_event, now, game_id=event.game_id, version=event.version)
        for event, channel_event in wanted
        for game_id, seat, channel_id, taken in found
        if (game_id, seat) == (event.game_id, event.seat) and channel_event in taken
    ]


#: The columns `DELIVERIES_SELECTED` gives, in order: those of `delivery_row` but `payload`
#: (None, which the column stores as NULL, as it does when left out).
SELECTED_COLUMNS = (
    "channel_id",
    "delivery_id",
    "event",
    "game_id",
    "version",
    "status",
    "attempts",
    "available_at",
    "created_at",
)
#: On PostgreSQL, the deliveries of one event of one game for the players `ping_names`
#: (in the order given): `rows_for_events`' query and rows as one SELECT, for a turn to
#: insert in its one statement (`server.games.guarded`) instead of asking for the channels
#: first — a round trip and a statement fewer. The delivery id is made by the database,
#: of the same form as `new_delivery_id` (`gen_random_uuid`: PostgreSQL 13 or later).
DELIVERIES_SELECTED = (
    select_columns(
        _CHANNELS.c.id,
        func.concat(
            literal_column("'msg_'"),
            func.replace(
                cast(func.gen_random_uuid(), Text), literal_column("'-'"), literal_column("''")
            ),
        ),
        bindparam("ping_event", type_=String),
        bindparam("ping_game_id", type_=Integer),
        bindparam("ping_version", type_=Integer),
        literal_column("'pending'"),
        literal_column("0"),
        bindparam("ping_now", type_=TABLE.c.available_at.type),
        bindparam("ping_now", type_=TABLE.c.created_at.type),
    )
    .join_from(_PLAYERS, _CHANNELS, _CHANNELS.c.player_id == _PLAYERS.c.id)
    .where(
        _CHANNELS.c.state == literal_column(f"'{ACTIVE}'"),
        _PLAYERS.c.name == any_(bindparam("ping_names", type_=ARRAY(String))),
        cast(_CHANNELS.c.events, JSONB).has_key(bindparam("ping_event", type_=String)),
    )
    .order_by(
        func.array_position(bindparam("ping_names", type_=ARRAY(String)), _PLAYERS.c.name),
        _CHANNELS.c.id,
    )
)


def selected_for_events(
    events: Sequence[Event], players: Sequence[str]
) -> tuple[Select[Any], dict[str, Any]] | None:
    """`DELIVERIES_SELECTED` and its parameters for the deliveries `rows_for_events` would
    give for `events` of one game whose players (by seat) are `players` — the same rows, in
    the same order — or None when they are not of that form (no event a channel takes, or
    events of more than one kind or version): `rows_for_events` then."""
    wanted = [(event, _OF_EMAIL[event.kind]) for event in events if event.kind in _OF_EMAIL]
    if not wanted or len({(e.game_id, e.version, kind) for e, kind in wanted}) != 1:
        return None
    first, kind = wanted[0]
    names = list(dict.fromkeys(players[event.seat] for event, _ in wanted))
    params = {
        "ping_event": kind.value,
        "ping_game_id": first.game_id,
        "ping_version": first.version,
        "ping_now": utcnow(),
        "ping_names": names,
    }
    return DELIVERIES_SELECTED, params


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
