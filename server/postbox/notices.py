"""Recording that a notice is due: an email that tells of a moment (a season started, a
vacation began, an invitation, the answer to an emailed reply…) whose facts later change or
are gone. The change that makes it true queues them here in its own transaction, as the
row's `payload`; the worker renders the row when it sends it (`server.mail.notices`).

The facts become JSON by the types the kind's builder declares, and a fact the builder does
not take is refused here, in the transaction, not in the worker. The builders are the mail
layer's, above the domain, so the mail layer hands this module its encoder
(`use_encoder`, called when `server.mail.notices` is imported: the app, the worker and the
commands import it before they serve or run anything); queueing a notice without it is an
error, never a notice queued unchecked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlmodel import Session

from server.config import Settings
from server.models import Player
from server.postbox.kinds import EmailKind
from server.postbox.outgoing import queue_row

#: The facts of a notice of a kind as JSON values (`server.mail.notices.encode`).
Encoder = Callable[[EmailKind, Mapping[str, Any]], dict[str, Any]]

_encoders: list[Encoder] = []


def use_encoder(encoder: Encoder) -> None:
    """Encode the facts of every notice queued from now on with `encoder`."""
    _encoders[:] = [encoder]


def encode(kind: EmailKind, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The facts of a notice of `kind` as JSON values, by the encoder the mail layer gave."""
    if not _encoders:
        raise RuntimeError("no encoder of notices' facts: import server.mail.notices first")
    return _encoders[0](kind, facts)


def queue(
    session: Session,
    config: Settings,
    kind: EmailKind,
    *,
    to: str,
    thread: int | None = None,
    answering: str | None = None,
    **facts: Any,
) -> None:
    """Queue a notice of `kind` to the address `to` (in the caller's transaction): the facts
    its builder takes (`links` among them), rendered by the worker when it sends it.
    `thread`: the game whose thread it joins; `answering`: the Message-ID it answers."""
    payload = {"facts": encode(kind, facts), "thread": thread}
    queue_row(session, config, kind=kind, to_addr=to, payload=payload, answering=answering)


def queue_about_game(
    session: Session,
    config: Settings,
    kind: EmailKind,
    *,
    game_id: int,
    player: Player,
    answering: str | None = None,
    **facts: Any,
) -> None:
    """Queue a game email of `kind` about the game for `player` (in the caller's
    transaction), with the facts of this moment its renderer adds (`GAME_BUILDERS`): the
    worker renders it from the game as it is when it sends it, like an event."""
    assert player.id is not None
    payload = {"facts": encode(kind, facts), "player": player.id}
    queue_row(
        session,
        config,
        kind=kind,
        to_addr=player.email,
        game_id=game_id,
        payload=payload,
        answering=answering,
    )
