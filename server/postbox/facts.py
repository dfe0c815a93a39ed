"""The facts the domain queues a notice with that are not the league's own (those are
`server.league.facts`): the recipient, the links, a vacation's games. Small value types,
stored as JSON in the row's `payload` and handed back to the builder when the worker renders
it (`server.mail.notices`); the facts of a game as it is when sent are the mail layer's
(`server.mail.facts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime


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
