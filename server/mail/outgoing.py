"""Queueing emails in the outbox — the events of a game change that the worker renders
later (notices, the facts of a moment, are queued by `server.mail.notices`), or a message
rendered when queued (the worker's digest, a batch of one) — and the headers that thread
them, let players answer them and unsubscribe in one click.

Every message gets a fresh Message-ID. Messages about a game refer to the game's thread
root (`In-Reply-To`, `References`), or to the player's own email when they answer it.
`Reply-To` is the signed reply address of the player, game and version; `List-Unsubscribe`
with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058) points at the signed
unsubscribe link. `Auto-Submitted` tells auto-responders not to answer (RFC 3834).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from server.config import Settings
from server.mail.addresses import (
    ReplyAddress,
    new_message_id,
    reply_address,
    thread_root,
    unsubscribe_token,
)
from server.mail.facts import Links
from server.mail.templates import Rendered
from server.models import OutboxMessage, OutboxStatus, table_of, utcnow

#: The outbox, written with a plain INSERT built once: a validated model per row would cost
#: more than rendering it.
TABLE = table_of(OutboxMessage)
_INSERT = insert(TABLE)


def links(
    config: Settings, *, player_id: int | None = None, reply: ReplyAddress | None = None
) -> Links:
    """The links of an email: the service, and if given the reply address and, for a
    player, the unsubscribe link."""
    base = config.base_url.rstrip("/")
    secret = config.secret_key
    return Links(
        base_url=base,
        reply_to=None if reply is None else reply_address(secret, config.mail_domain, reply),
        unsubscribe=None
        if player_id is None
        else f"{base}/unsubscribe/{unsubscribe_token(secret, player_id)}",
    )


def headers(
    config: Settings,
    *,
    links: Links,
    game_id: int | None = None,
    answering: str | None = None,
) -> dict[str, str]:
    """The further header fields of a message (threading, Reply-To, List-Unsubscribe).

    `answering` is the Message-ID of the player's email this one answers, if any.
    """
    found = {"Auto-Submitted": "auto-replied" if answering else "auto-generated"}
    if game_id is not None:
        root = thread_root(config.secret_key, config.mail_domain, game_id)
        found["In-Reply-To"] = answering or root
        found["References"] = f"{root} {answering}" if answering else root
    elif answering:
        found["In-Reply-To"] = found["References"] = answering
    if links.reply_to:
        found["Reply-To"] = links.reply_to
    if links.unsubscribe:
        found["List-Unsubscribe"] = f"<{links.unsubscribe}>"
        found["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return found


@dataclass(frozen=True, slots=True)
class Composed:
    """A rendered email ready for the outbox: its address, parts and header fields."""

    to: str
    rendered: Rendered
    headers: dict[str, str]


def queue(
    session: Session,
    config: Settings,
    *,
    kind: str,
    to: str,
    rendered: Rendered,
    links: Links,
    game_id: int | None = None,
    answering: str | None = None,
) -> None:
    """Add a rendered email to the outbox (in the caller's transaction)."""
    found = headers(config, links=links, game_id=game_id, answering=answering)
    queue_composed(session, config, kind=kind, composed=Composed(to, rendered, found))


def queue_composed(session: Session, config: Settings, *, kind: str, composed: Composed) -> None:
    """Add a composed email to the outbox (in the caller's transaction)."""
    now = utcnow()
    session.execute(
        _INSERT,
        {
            "kind": kind,
            "to_addr": composed.to,
            "subject": composed.rendered.subject[:200],
            "body": composed.rendered.text,
            "html": composed.rendered.html,
            "headers": composed.headers,
            "message_id": new_message_id(config.mail_domain),
            "status": OutboxStatus.PENDING,
            "attempts": 0,
            "available_at": now,
            "created_at": now,
        },
    )


def fill(row: OutboxMessage, composed: Composed) -> None:
    """Write a composed email into the fields of its event's outbox row."""
    row.to_addr = composed.to
    row.subject = composed.rendered.subject[:200]
    row.body = composed.rendered.text
    row.html = composed.rendered.html
    row.headers = composed.headers


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
    """Add events to the outbox in one statement (in the caller's transaction)."""
    if events:
        session.execute(_INSERT, event_rows(config, events))


def event_rows(config: Settings, events: Sequence[Event]) -> list[dict[str, Any]]:
    """The outbox rows of `events`, as their INSERT binds them."""
    now = utcnow()
    domain = config.mail_domain
    return [
        {
            "kind": event.kind,
            "game_id": event.game_id,
            "version": event.version,
            "seat": event.seat,
            "turn": event.turn,
            "answering": event.answering,
            "more_games": [list(pair) for pair in event.more_games] or None,
            "message_id": new_message_id(domain),
            "status": OutboxStatus.PENDING,
            "attempts": 0,
            "available_at": now,
            "created_at": now,
        }
        for event in events
    ]
