"""What a rendered email carries into its outbox row — its address, parts and the headers
that thread it, let players answer it and unsubscribe in one click — and the one message
queued rendered (the worker's digest). Recording that an email is due is below the
domain, in `server.postbox` (events of a game change, notices with their facts).

Every message gets a fresh Message-ID. Messages about a game refer to the game's thread
root (`In-Reply-To`, `References`), or to the player's own email when they answer it.
`Reply-To` is the signed reply address of the player, game and version; `List-Unsubscribe`
with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058) points at the signed
unsubscribe link. `Auto-Submitted` tells auto-responders not to answer (RFC 3834).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import insert
from sqlmodel import Session

from server.config import Settings
from server.mail.templates import Rendered
from server.models import OutboxMessage, OutboxStatus, table_of, utcnow
from server.postbox.addresses import new_message_id, thread_root
from server.postbox.facts import Links

_INSERT = insert(table_of(OutboxMessage))


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
