"""What a rendered email carries into its outbox row — its address, parts and the headers
that thread it, let players answer it and unsubscribe in one click — written by the worker
when it renders the row. Recording that an email is due is below the domain, in
`server.postbox` (events of a game change, notices with their facts, the daily digest):
nothing is queued rendered.

Every message gets a fresh Message-ID. Messages about a game refer to the game's thread
root (`In-Reply-To`, `References`), or to the player's own email when they answer it.
`Reply-To` is the signed reply address of the player, game and version; `List-Unsubscribe`
with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058) points at the signed
unsubscribe link. `Auto-Submitted` tells auto-responders not to answer (RFC 3834).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.config import Settings
from server.mail.templates import Rendered
from server.models import OutboxMessage
from server.postbox.addresses import thread_root
from server.postbox.facts import Links


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


def fill(row: OutboxMessage, composed: Composed) -> None:
    """Write a composed email into the fields of its event's outbox row."""
    row.to_addr = composed.to
    row.subject = composed.rendered.subject[:200]
    row.body = composed.rendered.text
    row.html = composed.rendered.html
    row.headers = composed.headers
