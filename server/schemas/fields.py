"""The building blocks every shape shares: base classes and constrained field types.

Each constrained type carries, as its description, what a valid value is; the refusal of a
bad value quotes it (`server.apispec.refusal`), so the OpenAPI description and the error
message say the same thing.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    model_serializer,
)
from pydantic.functional_serializers import SerializerFunctionWrapHandler
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from cafe.i18n import N_, Text, lazy_gettext
from cafe.players import NAME_LENGTH, NAME_PATTERN, NAME_RULE
from server.models import iso

#: The field rules that hold a number (`rule`), by their English words: what a refusal
#: quoting one says in the reader's language.
RULES: dict[str, Text] = {}


def rule(template: str, **values: Any) -> str:
    """A field's description with its numbers filled in (`template` marked `N_`, with named
    placeholders): the English words for the OpenAPI document, remembered in `RULES` so that
    a refusal quoting the rule says it in the reader's language (`server.apispec`)."""
    described = template % values
    RULES[described] = Text(template, **values)
    return described


#: Largest id or version accepted (PostgreSQL `integer`).
MAX_INT = 2**31 - 1


class StoredInt(IntegerConverter):
    """Every `<int:…>` of a route (`server.app.create_app` installs it as `int`): a whole
    number a database `integer` holds, at most `MAX_INT`. A larger one is the 404 of a
    thing nobody has, whatever the method, never a database error. (Werkzeug's own `max`
    would let the route's other methods answer 405.)"""

    def to_python(self, value: str) -> int:
        number: int = super().to_python(value)
        if number > MAX_INT:
            raise NotFound(  # said in the reader's language by the handler (`server.errors`)
                lazy_gettext(  # type: ignore[arg-type]
                    "nothing here has the number %(number)s; numbers go up to %(most)s",
                    number=value,
                    most=MAX_INT,
                )
            )
        return number


#: Text no database column can hold: NUL (PostgreSQL refuses it) and unpaired surrogates
#: (JSON can spell them as `\ud800`, but they have no UTF-8 encoding). Refused anywhere in
#: a body (`server.apispec`).
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
UNSTORABLE_RULE = lazy_gettext(
    "holds a NUL character or an unpaired surrogate (\\ud800-\\udfff); "
    "send text as valid Unicode without NUL"
)
#: The characters no text field takes, as a regular expression's class: the control
#: characters, NUL among them. The published patterns are made from it and the models
#: check the very patterns they publish. (Unpaired surrogates are no characters of
#: JSON Schema's strings, and a pattern naming them is one many validators cannot read:
#: the body check above refuses them.)
UNSTORED = r"\x00-\x1f\x7f"
#: A line of text: no control character.
LINE_PATTERN = rf"^[^{UNSTORED}]*$"
_DIGITS = re.compile(r"[0-9]{1,10}")


class RequestModel(BaseModel):
    """A request body: strict types (a bool is not a number, "2" is not 2) and no stray
    fields, since a misspelt field is a client error the client should hear of."""

    model_config = ConfigDict(strict=True, extra="forbid", str_strip_whitespace=True)


class QueryModel(BaseModel):
    """Query parameters: text by nature, so each field converts its own text; unknown
    parameters are ignored, as web servers do."""

    model_config = ConfigDict(extra="ignore")


class PublicModel(BaseModel):
    """A response body."""

    model_config = ConfigDict(from_attributes=True)


class SparseModel(PublicModel):
    """A response body whose optional fields appear only when they apply (a game's hands
    once it has started, its seed once it is over), rather than as `null`."""

    @model_serializer(mode="wrap")
    def _only_set_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        chosen = self.model_fields_set  # a property: read once, not once per field
        return {name: value for name, value in data.items() if name in chosen}


def _plain_digits(value: Any) -> Any:
    """Query numbers are ASCII digits only: no sign, space, superscript or other script."""
    if isinstance(value, str) and not _DIGITS.fullmatch(value):
        raise ValueError("not plain digits")
    return value


#: A name a player is known by: the engine's rule (`cafe.players`), which the engine, this
#: pattern and the `players.name` column share.
PlayerName = Annotated[
    str,
    Field(min_length=1, max_length=NAME_LENGTH, pattern=NAME_PATTERN, description=NAME_RULE),
]
#: An email address as typed at registration or sign-in. (No `format: email`: this pattern
#: is the whole rule a request is held to; a registration whose address the mail server
#: cannot take is refused as such, 422.)
_ADDRESS_PART = rf"[^@\s{UNSTORED}]+"
Email = Annotated[
    str,
    Field(
        min_length=3,
        max_length=254,
        pattern=rf"^{_ADDRESS_PART}@{_ADDRESS_PART}\.{_ADDRESS_PART}$",
        description=N_("an email address"),
    ),
]
#: A short label of the user's choosing.
Label = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        pattern=LINE_PATTERN,
        description=N_("1 to 64 characters, none of them a control character"),
    ),
]
#: A plain-digit query integer (`?limit=20`).
QueryInt = Annotated[int, BeforeValidator(_plain_digits)]
#: A moment, shown as ISO 8601 in UTC with `Z`.
Timestamp = Annotated[datetime, PlainSerializer(iso, return_type=str)]


class ErrorBody(PublicModel):
    """A refusal: a stable code and what was wrong; a conflict over a game adds its current
    version, whose turn it is and its status."""

    error: str
    message: str
    version: int | None = None
    to_move: str | None = None
    game_status: str | None = None
