"""Identity: bearer tokens, kept only as hashes.

A token is 32 random bytes (so a plain SHA-256 is enough to store it), shown once. The
sign-in codes and links that get one are `server.signin`'s: never stored at all.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import ParamSpec, TypeVar

from flask import g, request
from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from cafe.i18n import lazy_gettext
from server import i18n
from server.db import get_session
from server.domain import Unauthenticated
from server.models import ApiToken, Player, stored_id

P = ParamSpec("P")
R = TypeVar("R")

TOKEN_PREFIX = "cafe_"

#: The owner of a token, the token's id and when it was revoked, by its hash. Built once:
#: every authenticated request runs it, and building the statement (and its cache key) cost
#: more than running it. The token's id and revocation are read as two columns: loading the
#: token as a second ORM object beside the player cost every request more than that.
_TOKEN_OWNER = (
    select(Player, stored_id(ApiToken.id), col(ApiToken.revoked_at))
    .join(ApiToken, col(ApiToken.player_id) == Player.id)
    .where(ApiToken.token_hash == bindparam("token_hash"))
)


@dataclass(frozen=True, slots=True)
class Owner:
    """Who a token belongs to, and the token: its id and when it was revoked (None: it
    is valid)."""

    player: Player
    token_id: int
    revoked_at: datetime | None


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(session: Session, *, player: Player, label: str) -> tuple[ApiToken, str]:
    """A new token for `player` (added to the session, not committed) and its secret text."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    assert player.id is not None
    row = ApiToken(player_id=player.id, token_hash=hash_token(secret), label=label)
    session.add(row)
    return row, secret


def owner_of(session: Session, secret: str) -> Owner | None:
    """Who a token belongs to, with the token's id and revocation (revoked or not), or
    None."""
    found = session.exec(_TOKEN_OWNER, params={"token_hash": hash_token(secret)}).first()
    return None if found is None else Owner(*found)


def authenticate() -> Player:
    """The player whose valid token the request carries, or a 401 naming the problem; the
    rest of the request speaks their language if it asked for none (`server.i18n`)."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated(
            "missing_token",
            lazy_gettext(
                "send your API token as `Authorization: Bearer <token>` "
                "(get one with POST /api/tokens)"
            ),
        )
    found = owner_of(get_session(), token.strip())
    if found is None or found.revoked_at is not None:
        raise Unauthenticated(
            "invalid_token",
            lazy_gettext("this token is unknown or revoked; sign in again for a new one"),
        )
    player = g.player = found.player
    g.token_id = found.token_id
    i18n.use_for_request(player)  # its messages in the caller's language, unless asked for one
    return player


def login_required(view: Callable[P, R]) -> Callable[P, R]:
    """Authenticate before the view runs; the view then reads `g.player`."""

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        authenticate()
        return view(*args, **kwargs)

    return wrapped
