"""`Idempotency-Key`: a retried request returns the first response instead of acting again.

The key is scoped to the player. The stored row is written in the same transaction as the
change it answers for, so "applied" and "remembered" cannot come apart. A key reused with a
different request is refused with 422.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from flask import request
from sqlmodel import Session, select

from cafe.i18n import lazy_gettext
from server.domain import Refused, Unreadable
from server.models import IdempotencyKey, table_of, utcnow

HEADER = "Idempotency-Key"
#: The records' table (written with Core: cheaper than a unit-of-work flush of a model).
TABLE = table_of(IdempotencyKey)
_KEY = re.compile(r"[\x21-\x7e]{1,100}")


@dataclass(frozen=True, slots=True)
class Idempotency:
    """A request's key and the fingerprint of what it asked for."""

    player_id: int
    key: str
    request_hash: str


def from_request(player_id: int, body: dict[str, Any]) -> Idempotency | None:
    """The request's idempotency key (None when it sent none), or a 400 if it is malformed."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not _KEY.fullmatch(key):
        raise Unreadable(
            "invalid_idempotency_key",
            lazy_gettext(
                "%(header)s must be 1 to 100 printable ASCII characters, e.g. a UUID",
                header=HEADER,
            ),
        )
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    fingerprint = hashlib.sha256(f"{request.method} {request.path}\n{canonical}".encode())
    return Idempotency(player_id, key, fingerprint.hexdigest())


def recall(session: Session, idem: Idempotency) -> tuple[dict[str, Any], int] | None:
    """The stored response for this key, None if there is none; 422 if the request differs."""
    row = session.exec(
        select(IdempotencyKey).where(
            IdempotencyKey.player_id == idem.player_id, IdempotencyKey.key == idem.key
        )
    ).first()
    if row is None:
        return None
    if row.request_hash != idem.request_hash:
        raise Refused(
            "idempotency_key_reused",
            lazy_gettext(
                "%(header)s %(key)s was already used for a different request; "
                "use a new key for a new request",
                header=HEADER,
                key=repr(idem.key),
            ),
        )
    return row.response, row.status_code


def record(idem: Idempotency, response: dict[str, Any], status: int) -> dict[str, Any]:
    """The row that stores the response to return on retries (`TABLE`), to insert in the
    transaction of the change it answers for."""
    return {
        "player_id": idem.player_id,
        "key": idem.key,
        "request_hash": idem.request_hash,
        "status_code": status,
        "response": response,
        "created_at": utcnow(),
    }
