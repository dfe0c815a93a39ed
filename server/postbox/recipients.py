"""Who a game change's events are for, read once for both things they may be sent: the
email (an event its reader's preferences do not want is not written at all) and the pings
of the reader's active channels (`server.postbox.pings`).

Not writing the unwanted events (issue 25): "another player's turn" goes only to players
who asked for it (`others_turns`, off by default), so at 10,000 games most of a turn's
events were written, claimed, read back and marked `skipped` without ever being mail. The
worker still applies the preferences when it sends (`server.mail.events`): a player who
turns an email off in between is not sent it.

One query reads the recipients' preferences and channels: by their names when the game's
players (by seat) are at hand, as a turn has them in its snapshot, else through the games'
seats. An event for a game's creator (`EmailKind.rules.creator`) has a join order, not a
recipient's seat, in its `seat`: it is neither read nor filtered here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, and_, bindparam, or_, select
from sqlmodel import Session, col

from server.models import Channel, GameSeat, Player, TalkEmails, TurnEmails
from server.postbox.kinds import EmailKind, wants
from server.postbox.pings import ACTIVE

if TYPE_CHECKING:
    from server.postbox.outgoing import Event


@dataclass(frozen=True, slots=True)
class Reader:
    """The player of one seat as a change's events see them: the preferences that decide
    what email they get (`server.postbox.kinds.wants`) and their active channels, as
    (channel id, the events it takes)."""

    turn_emails: TurnEmails
    others_turns: bool
    reminders: bool
    talk_emails: TalkEmails
    channels: tuple[tuple[int, tuple[str, ...]], ...] = ()


#: A reader by (game id, seat).
Readers = dict[tuple[int, int], Reader]

_PREFERENCES = tuple(
    col(column)
    for column in (Player.turn_emails, Player.others_turns, Player.reminders, Player.talk_emails)
)


_ACTIVE_CHANNEL = and_(col(Channel.player_id) == Player.id, col(Channel.state) == ACTIVE)
_COLUMNS = (
    *_PREFERENCES,
    col(Channel.id).label("channel_id"),
    col(Channel.events).label("taken"),
)


@functools.lru_cache(maxsize=16)
def _by_name(count: int) -> Select[*tuple[Any, ...]]:
    """The readers of `count` names, bound as `name_0`, `name_1`, …: what every turn asks.
    Built once per count and run on the session's connection: building the statement and
    its cache key for each turn, and the ORM's handling of its result, cost more than
    running it; and a list bound to one `IN` parameter is rendered into the SQL anew at
    every execution."""
    return (
        select(col(Player.name), *_COLUMNS)
        .outerjoin(Channel, _ACTIVE_CHANNEL)
        .where(col(Player.name).in_([bindparam(f"name_{n}") for n in range(count)]))
        .order_by(col(Channel.id))
    )


def read(
    session: Session, events: Sequence[Event], players: Sequence[str] | None = None
) -> Readers:
    """The readers of `events`, in one query (none when no event has a seated reader)."""
    seats = {(event.game_id, event.seat) for event in events if _seated(event)}
    if not seats:
        return {}
    if players is not None:
        names = sorted({players[seat] for _, seat in seats})
        query = {f"name_{n}": name for n, name in enumerate(names)}
        by_name = session.connection().execute(_by_name(len(names)), query).all()
        found = {(g, s): [r for r in by_name if r.name == players[s]] for g, s in seats}
    else:
        by_seat = session.execute(
            select(col(GameSeat.game_id), col(GameSeat.seat), *_COLUMNS)
            .join(Player, col(Player.id) == GameSeat.player_id)
            .outerjoin(Channel, _ACTIVE_CHANNEL)
            .where(
                or_(*(and_(col(GameSeat.game_id) == g, col(GameSeat.seat) == s) for g, s in seats))
            )
            .order_by(col(Channel.id))
        ).all()
        found = {(g, s): [r for r in by_seat if (r.game_id, r.seat) == (g, s)] for g, s in seats}
    return {key: _reader(rows) for key, rows in found.items() if rows}


def _reader(rows: Sequence[Any]) -> Reader:
    """A seat's reader from its rows of the query (one per active channel, or one)."""
    first = rows[0]
    return Reader(
        turn_emails=first.turn_emails,
        others_turns=first.others_turns,
        reminders=first.reminders,
        talk_emails=first.talk_emails,
        channels=tuple((r.channel_id, tuple(r.taken)) for r in rows if r.channel_id is not None),
    )


def _seated(event: Event) -> bool:
    """Whether the event's `seat` is its reader's (not a join order: see the module)."""
    return not EmailKind(event.kind).rules.creator


def wanted(events: Sequence[Event], readers: Readers) -> list[Event]:
    """The events to write as email: all but those whose reader's preferences do not want
    them (an event for a creator, or whose reader was not found, is kept: the worker
    decides when it renders it)."""
    return [
        event
        for event in events
        if not _seated(event)
        or (reader := readers.get((event.game_id, event.seat))) is None
        or wants(reader, event.kind)
    ]
