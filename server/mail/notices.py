"""Notices: the emails that are not about a game as it is now, rendered when they are sent
(queued by `server.postbox.notices`, below the domain).

A notice tells of a moment — a season started or finished, a vacation began, an invitation,
the answer to an emailed reply, an open game expired — whose facts later change (the
standings at the season's end, the reason of a refusal) or are gone (an expired game is
deleted). The change that makes it true gathers those facts in its own transaction and
queues them, language-neutral, as the row's `payload` (`server.postbox.notices.queue`):
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

from server.config import Settings
from server.league import messages as league
from server.mail import messages, outgoing
from server.mail.outgoing import Composed
from server.mail.templates import Rendered
from server.models import OutboxMessage
from server.postbox.facts import Links
from server.postbox.kinds import EmailKind
from server.postbox.notices import use_encoder

Builder = Callable[..., Rendered]

#: The builder of each kind of notice (`server.mail.messages`, `server.league.messages`).
BUILDERS: dict[EmailKind, Builder] = {
    EmailKind.INVITE: messages.invite,
    EmailKind.JOIN_ANSWER: messages.join_answer,
    EmailKind.VACATION_STARTED: messages.vacation_started,
    EmailKind.VACATION_ENDED: messages.vacation_ended,
    EmailKind.REPLY_UNRECOGNISED: messages.reply_unrecognised,
    EmailKind.GAME_EXPIRED: messages.game_expired,
    EmailKind.TALK_REFUSED: messages.talk_refused,
    EmailKind.CHANNEL_DISABLED: messages.channel_disabled,
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
    hints = typing.get_type_hints(builder, include_extras=True)  # `Words` is `Annotated`
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


#: The domain queues notices below this layer (`server.postbox.notices`), with the facts
#: encoded here, by each kind's builder.
use_encoder(encode)


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
