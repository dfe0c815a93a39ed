"""The facts the domain queues a notice with that are not the league's own (those are
`server.league.facts`): the recipient, the links, a vacation's games, the words of a
reason (`Words`). Small value types,
stored as JSON in the row's `payload` and handed back to the builder when the worker renders
it (`server.mail.notices`); the facts of a game as it is when sent are the mail layer's
(`server.mail.facts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, TypeAlias

from pydantic import PlainSerializer, PlainValidator

from cafe.i18n import Message, Text, from_json, to_json


@dataclass(frozen=True, slots=True)
class Recipient:
    """The player an email is for."""

    player_id: int
    name: str
    email: str
    timezone: str = "UTC"


@dataclass(frozen=True, slots=True)
class Links:
    """Where an email points: the service, the signed reply address, the unsubscribe link."""

    base_url: str
    reply_to: str | None = None
    unsubscribe: str | None = None


@dataclass(frozen=True, slots=True)
class VacationGame:
    """A running game with a clock, as a vacation email lists it: the other players,
    whether the game lets the vacation pause the recipient's clock, and the recipient's
    deadline there if it is their turn (None otherwise)."""

    id: int
    opponents: Sequence[str]
    paused: bool
    deadline: datetime | None = None


def _read_words(stored: Any) -> Message | list[Message]:
    """The words `_stored_words` kept (or given already as messages)."""
    if isinstance(stored, list):
        return [one if isinstance(one, Text) else from_json(one) for one in stored]
    return stored if isinstance(stored, Text) else from_json(stored)


def _stored_words(words: Message | list[Message]) -> Any:
    """Words as the row keeps them: each message's parts (`cafe.i18n.to_json`)."""
    return [to_json(one) for one in words] if isinstance(words, list) else to_json(words)


#: Words an email says that were known before it is rendered — why a reply was refused —:
#: a message (a `cafe.i18n.Text`, said in the reader's language when the email is
#: rendered), several (parted by semicolons), or words already (what an organiser typed, or
#: a row stored before reasons were kept as messages), shown as they are. Stored as the
#: messages' parts, never the words of one language.
Words: TypeAlias = Annotated[
    Message | list[Message], PlainValidator(_read_words), PlainSerializer(_stored_words)
]


def say(words: Message | Sequence[Message]) -> str:
    """`words` in the language in use."""
    if isinstance(words, str | Text):
        return str(words)
    return "; ".join(str(one) for one in words)
