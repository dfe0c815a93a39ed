"""Queueing rendered emails in the outbox, with the headers that thread them, let players
answer them and unsubscribe in one click.

Every message gets a fresh Message-ID. Messages about a game refer to the game's thread
root (`In-Reply-To`, `References`), or to the player's own email when they answer it.
`Reply-To` is the signed reply address of the player, game and version; `List-Unsubscribe`
with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058) points at the signed
unsubscribe link. `Auto-Submitted` tells auto-responders not to answer (RFC 3834).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from server.mail.addresses import (
    ReplyAddress,
    new_message_id,
    reply_address,
    thread_root,
    unsubscribe_token,
)
from server.mail.facts import Links
from server.mail.templates import Rendered
from server.models import OutboxMessage, utcnow

#: A plain INSERT, built once: a validated model per row would cost more than rendering it.
_INSERT = insert(OutboxMessage.__table__)  # type: ignore[attr-defined]


def links(
    config: Mapping[str, Any], *, player_id: int | None = None, reply: ReplyAddress | None = None
) -> Links:
    """The links of an email: the service, and if given the reply address and, for a
    player, the unsubscribe link."""
    base = config["BASE_URL"].rstrip("/")
    secret = config["SECRET_KEY"]
    return Links(
        base_url=base,
        reply_to=None if reply is None else reply_address(secret, config["MAIL_DOMAIN"], reply),
        unsubscribe=None
        if player_id is None
        else f"{base}/unsubscribe/{unsubscribe_token(secret, player_id)}",
    )


def queue(
    session: Session,
    config: Mapping[str, Any],
    *,
    kind: str,
    to: str,
    rendered: Rendered,
    links: Links,
    game_id: int | None = None,
    answering: str | None = None,
) -> None:
    """Add a rendered email to the outbox (in the caller's transaction).

    `answering` is the Message-ID of the player's email this one answers, if any.
    """
    domain = config["MAIL_DOMAIN"]
    headers = {"Auto-Submitted": "auto-replied" if answering else "auto-generated"}
    if game_id is not None:
        root = thread_root(config["SECRET_KEY"], domain, game_id)
        headers["In-Reply-To"] = answering or root
        headers["References"] = f"{root} {answering}" if answering else root
    elif answering:
        headers["In-Reply-To"] = headers["References"] = answering
    if links.reply_to:
        headers["Reply-To"] = links.reply_to
    if links.unsubscribe:
        headers["List-Unsubscribe"] = f"<{links.unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    now = utcnow()
    session.execute(
        _INSERT,
        {
            "kind": kind,
            "to_addr": to,
            "subject": rendered.subject[:200],
            "body": rendered.text,
            "html": rendered.html,
            "headers": headers,
            "message_id": new_message_id(domain),
            "status": "pending",
            "attempts": 0,
            "available_at": now,
            "created_at": now,
        },
    )
