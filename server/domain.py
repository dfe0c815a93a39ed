"""Refusals in the service's own terms: what was asked, why it cannot be done, a stable code.

The store and account layers raise these; they know nothing of HTTP. `server.errors` maps
each class to a status once, and the email-reply path and `cafe-server` read them directly.
"""

from __future__ import annotations

from typing import Any

from cafe import CafeError, GameOverError, IllegalTurnError, NotationError
from cafe.i18n import Message


class DomainError(Exception):
    """A refusal: a stable `code`, a `message` that says what was wrong and how to go on,
    and any `facts` a client may act on (the current version, whose turn it is). The code
    is the same in every language; the message is said in the language in use when it is
    read (a `cafe.i18n.Text`), which is the reader's, not the one in use where it was raised."""

    def __init__(self, code: str, message: Message, **facts: Any) -> None:
        super().__init__(message)
        self.code = code
        self.lazy_message = message
        self.facts = facts

    @property
    def message(self) -> str:
        """The message, in the language in use now."""
        return str(self.lazy_message)

    def __str__(self) -> str:
        return self.message


class Unreadable(DomainError):
    """The request could not be read: malformed, a wrong type, a missing field."""


class Unauthenticated(DomainError):
    """The caller's identity is missing or wrong (a token, a sign-in code)."""


class Forbidden(DomainError):
    """The caller is known but may not do this."""


class NotFound(DomainError):
    """What was named does not exist (for this caller)."""


class Conflict(DomainError):
    """The thing changed or is in the wrong state: a stale version, not your turn, over."""


class Refused(DomainError):
    """Understood, but against a rule (an illegal turn, an unknown invitee)."""


class RateLimited(DomainError):
    """Too many attempts; wait and try again."""


def from_engine(exc: CafeError) -> DomainError:
    """The service's refusal for an engine refusal: the one engine-error → code mapping,
    used by the API and the email-reply path alike."""
    message = exc.lazy_message
    if isinstance(exc, NotationError):
        return Unreadable("unreadable_turn", message)
    if isinstance(exc, IllegalTurnError):
        return Refused("illegal_turn", message)
    if isinstance(exc, GameOverError):
        return Conflict("game_finished", message)
    return Refused("rejected", message)
