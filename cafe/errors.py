"""The engine's errors: one family, so callers can catch ``CafeError`` and show the message.

Every error is a ``ValueError``: something the caller passed in was wrong, never the engine.
Its message is a ``cafe.i18n.Text``: ``str(error)`` says it in the language in use when it
is read, so that an error raised in one place is told to its reader in theirs.
"""

from __future__ import annotations

from cafe.i18n import Message, Text


class CafeError(ValueError):
    """Base of every error the engine raises for bad input."""

    def __init__(self, message: Message) -> None:
        super().__init__(message)

    @property
    def lazy_message(self) -> Message:
        """The message, still to be said (a `Text`: in the language in use when read)."""
        given = self.args[0] if self.args else ""
        return given if isinstance(given, str | Text) else str(given)


class NotationError(CafeError):
    """Text that cannot be read as a tile, chair or turn (rulebook §13).

    ``token`` is the piece of text that could not be read and ``text`` the whole input.
    """

    def __init__(self, message: Message, *, token: str = "", text: str = "") -> None:
        super().__init__(message)
        self.token = token
        self.text = text


class IllegalTurnError(CafeError):
    """A readable turn that breaks a rule; ``rule`` names it (``gender-balance``, ``nation`` …)."""

    def __init__(self, message: Message, *, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class GameOverError(CafeError):
    """A turn was offered to a game that has already ended."""


class InvalidPositionError(CafeError):
    """A position (docs/formats.md) or game record that does not describe a possible game."""
