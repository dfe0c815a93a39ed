"""Notices: the emails that are not about a game as it is now, rendered when they are sent.

A notice tells of a moment — a season started or finished, a vacation began, an invitation,
the answer to an emailed reply, an open game expired — whose facts later change (the
standings at the season's end, the reason of a refusal) or are gone (an expired game is
deleted). The change that makes it true gathers those facts in its own transaction and
queues them, language-neutral, as the row's `payload` (`server.mail.outgoing.queue_notice`):
the keyword arguments of the kind's builder, as JSON. The worker renders the row when it
sends it (`render`, called from `server.mail.events`), with that kind's builder (`BUILDERS`,
one per kind), so a message is rendered at send time like every game email.

The facts are encoded and decoded by the types the builder's parameters declare (pydantic's
`TypeAdapter`): a new kind needs only its builder here, whatever facts it takes.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import insert
from sqlmodel import Session

from server.config import Settings
from server.league import messages as league
from server.mail import messages, outgoing
from server.mail.addresses import new_message_id
from server.mail.facts import Links
from server.mail.kinds import EmailKind
from server.mail.outgoing import Composed
from server.mail.templates import Rendered
from server.models import OutboxMessage, OutboxStatus, Player, table_of, utcnow

Builder = Callable[..., Rendered]

#: The builder of each kind of notice (`server.mail.messages`, `server.league.messages`).
BUILDERS: dict[EmailKind, Builder] = {
    EmailKind.INVITE: messages.invite,
    EmailKind.JOIN_ANSWER: messages.join_answer,
    EmailKind.VACATION_STARTED: messages.vacation_started,
    EmailKind.VACATION_ENDED: messages.vacation_ended,
    EmailKind.REPLY_UNRECOGNISED: messages.reply_unrecognised,
    EmailKind.GAME_EXPIRED: messages.game_expired,
    EmailKind.LEAGUE_REGISTRATION: league.registration,
    EmailKind.LEAGUE_SEASON_STARTED: league.season_started,
    EmailKind.LEAGUE_DIGEST: league.digest,
    EmailKind.LEAGUE_SEASON_FINISHED: league.season_finished,
    EmailKind.LEAGUE_REMOVED: league.removed,
    EmailKind.LEAGUE_PAUSED: league.paused,
    EmailKind.LEAGUE_RESUMED: league.resumed,
    EmailKind.LEAGUE_JOINED: league.joined,
    EmailKind.LEAGUE_JOIN_REFUSED: league.join_refused,
    EmailKind.LEAGUE_TURNS_REFUSED: league.turns_refused,
}


#: The builders of the game emails that tell of a moment as well as of the game as it is
#: when sent: their facts are what the kind's renderer (`server.mail.batch.RENDERERS`) adds.
GAME_BUILDERS: dict[EmailKind, Builder] = {EmailKind.TURN_REFUSED: messages.turn_refused}


@functools.cache
def _parameters(kind: EmailKind) -> dict[str, TypeAdapter[Any]]:
    """The parameters of the kind's builder, each with the adapter of its declared type."""
    builder = BUILDERS.get(kind) or GAME_BUILDERS[kind]
    hints = typing.get_type_hints(builder)
    return {name: TypeAdapter(hints[name]) for name in inspect.signature(builder).parameters}


def encode(kind: EmailKind, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The facts of a notice (its builder's keyword arguments) as JSON values; a fact the
    builder does not take is a TypeError here, in the transaction, not in the worker."""
    parameters = _parameters(kind)
    unknown = set(facts) - set(parameters)
    if unknown:
        raise TypeError(f"{kind} takes no {', '.join(sorted(unknown))}")
    return {name: parameters[name].dump_python(value, mode="json") for name, value in facts.items()}


def decode(kind: EmailKind, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The builder's keyword arguments from the JSON values `encode` made."""
    parameters = _parameters(kind)
    return {name: parameters[name].validate_python(value) for name, value in facts.items()}


_INSERT = insert(table_of(OutboxMessage))


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
    now = utcnow()
    session.execute(
        _INSERT,
        {
            "kind": kind,
            "to_addr": to,
            "payload": {"facts": encode(kind, facts), "thread": thread},
            "answering": answering,
            "message_id": new_message_id(config.mail_domain),
            "status": OutboxStatus.PENDING,
            "attempts": 0,
            "available_at": now,
            "created_at": now,
        },
    )


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
    now = utcnow()
    session.execute(
        _INSERT,
        {
            "kind": kind,
            "to_addr": player.email,
            "game_id": game_id,
            "payload": {"facts": encode(kind, facts), "player": player.id},
            "answering": answering,
            "message_id": new_message_id(config.mail_domain),
            "status": OutboxStatus.PENDING,
            "attempts": 0,
            "available_at": now,
            "created_at": now,
        },
    )


def render(config: Settings, row: OutboxMessage) -> Composed:
    """Render the notice `row` from its stored facts with its kind's builder, and the
    header fields that thread it and let it be answered."""
    assert row.payload is not None and row.to_addr is not None
    kind = EmailKind(row.kind)
    facts = decode(kind, row.payload["facts"])
    links: Links = facts["links"]
    headers = outgoing.headers(
        config, links=links, game_id=row.payload["thread"], answering=row.answering
    )
    return Composed(row.to_addr, BUILDERS[kind](**facts), headers)
