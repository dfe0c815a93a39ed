"""Words said later: a message of the catalogs and its values, stored with a notice
(`outbox.payload`) and said in the recipient's language when the email is rendered.

A refusal's reason is known when a reply is read, but the email that tells it is rendered
when it is sent, for a reader whose language the row does not know; so the row keeps the
message (its English, the catalogs' msgid) and its values, never the words of one
language. A value is a plain string or number (a name, a game's number, what a reply
said) or itself a `Phrase`.

A reason that is words already — what an organiser typed, or a row stored before reasons
were kept as phrases — is a plain `str`, shown as it is (`say`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from cafe.i18n import Message, Text, gettext, ngettext


@dataclass(frozen=True, slots=True)
class Phrase:
    """A message (`%(name)s` placeholders, English) and its values; `plural` and `num` for
    a message whose form follows a number (`ngettext`, the number is `num`)."""

    message: str
    values: Mapping[str, str | int | Phrase] = field(default_factory=dict)
    plural: str | None = None
    num: int = 1

    def __str__(self) -> str:
        """The phrase in the language in use, its values said in the same language."""
        values = {name: str(value) for name, value in self.values.items()}
        if self.plural is None:
            return gettext(self.message, **values)
        return ngettext(self.message, self.plural, self.num, **values)


def phrase(message: str, **values: str | int | Phrase) -> Phrase:
    """`message` with its values, to be said later (`gettext`'s arguments, stored)."""
    return Phrase(message, values)


def of(message: Any) -> Phrase:
    """A message that came from elsewhere (a refusal of the service, an engine error) as a
    phrase: its words are looked up in the catalogs when said, and stay as they are where
    the catalogs do not have them."""
    return Phrase(str(message))


def of_text(message: Message) -> Phrase:
    """A refusal's message as a phrase: a `Text` (a message of the catalogs and its values,
    as the service's refusals are made) kept as its parts, so that it is said in the
    reader's language, values that are `Text` too; words already, as `of`."""
    if not isinstance(message, Text):
        return of(message)
    values: dict[str, str | int | Phrase] = {}
    for name, value in message.values.items():
        if isinstance(value, Text):
            values[name] = of_text(value)
        elif isinstance(value, int | str) and not isinstance(value, bool):
            values[name] = value
        else:
            values[name] = str(value)
    return Phrase(message.message, values, message.plural, message.num)


#: Words to say in an email: a phrase, several (parted by semicolons), or words already.
Words: TypeAlias = Phrase | list[Phrase] | str


def say(words: Words | Sequence[Phrase]) -> str:
    """`words` in the language in use (a `str` is shown as it is)."""
    if isinstance(words, str):
        return words
    if isinstance(words, Phrase):
        return str(words)
    return "; ".join(str(one) for one in words)
