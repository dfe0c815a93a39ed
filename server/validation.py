"""Reading client input: the JSON body, its fields, query parameters and path ids.

Everything a client sends passes through here and is refused with a 400 that names the
field and what it should be, so that no odd value (a bool for an int, a NUL byte, a number
too big for the database) ever reaches the database or the engine.
"""

from __future__ import annotations

import re
from typing import Any

from flask import request

from server.errors import ApiError

#: Largest id or version accepted (PostgreSQL `integer`).
MAX_INT = 2**31 - 1

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: Text no database column can hold: NUL (PostgreSQL refuses it) and unpaired surrogates
#: (JSON can spell them as `\ud800`, but they have no UTF-8 encoding).
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
_DIGITS = re.compile(r"[0-9]{1,10}")


def bad_request(message: str, code: str = "invalid_request") -> ApiError:
    """A 400 refusal."""
    return ApiError(400, code, message)


def _has_unstorable_text(data: Any) -> bool:
    """Whether any key or string in decoded JSON holds text no column can store.

    Iterative, so that a body nested as deep as the parser allows cannot exhaust the stack.
    """
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _UNSTORABLE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 saying why it could not be read."""
    try:
        data = request.get_json(silent=True, force=True)
    except RecursionError:  # nested deeper than the parser goes
        data = None
    if data is None:
        raise bad_request(
            'the body is not valid JSON; send an object like {"name": "ann"} '
            "with Content-Type: application/json",
            "invalid_json",
        )
    if not isinstance(data, dict):
        raise bad_request(f"the body must be a JSON object, not {type(data).__name__}")
    for name, value in data.items():
        if _has_unstorable_text([name, value]):
            raise bad_request(
                f"`{name}` holds a NUL character or an unpaired surrogate (\\ud800-\\udfff); "
                "send text as valid Unicode without NUL"
            )
    return data


def text_field(
    data: dict[str, Any],
    name: str,
    *,
    max_length: int,
    pattern: re.Pattern[str] | None = None,
    hint: str = "",
) -> str:
    """A required string field, stripped, 1..max_length characters, no control characters."""
    value = data.get(name)
    if not isinstance(value, str):
        raise bad_request(f"`{name}` is required and must be a string{hint}")
    value = value.strip()
    if not value or len(value) > max_length or _CONTROL.search(value):
        raise bad_request(
            f"`{name}` must be 1 to {max_length} characters without control characters{hint}"
        )
    if pattern is not None and not pattern.fullmatch(value):
        raise bad_request(f"`{name}` {value!r} is not valid{hint}")
    return value


def int_field(
    data: dict[str, Any], name: str, *, low: int = 0, high: int = MAX_INT, required: bool = True
) -> int | None:
    """An integer field in low..high (booleans are not integers here)."""
    value = data.get(name)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise bad_request(f"`{name}` must be a whole number from {low} to {high}")
    return value


def bool_field(data: dict[str, Any], name: str, *, default: bool) -> bool:
    """An optional boolean field."""
    value = data.get(name, default)
    if not isinstance(value, bool):
        raise bad_request(f"`{name}` must be true or false")
    return value


def query_choice(name: str, choices: tuple[str, ...]) -> str | None:
    """An optional query parameter that must be one of `choices`."""
    value = request.args.get(name)
    if value is not None and value not in choices:
        raise bad_request(f"query parameter `{name}` must be one of {', '.join(choices)}")
    return value


def query_int(name: str, *, default: int, low: int, high: int) -> int:
    """An optional integer query parameter in low..high."""
    raw = request.args.get(name)
    if raw is None:
        return default
    if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
        raise bad_request(f"query parameter `{name}` must be a whole number from {low} to {high}")
    return int(raw)


def query_bool(name: str) -> bool:
    """An optional `true`/`false` query parameter (absent means false)."""
    return query_choice(name, ("true", "false")) == "true"
