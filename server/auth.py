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
from typing import ParamSpec, TypeVar

from flask import g, request
from sqlalchemy import bindparam, select
from sqlmodel import Session

from cafe.i18n import lazy_gettext
from server import i18n
from server.db import get_session
from server.domain import Unauthenticated
from server.models import ApiToken, Player, attached, from_row, table_of

P = ParamSpec("P")
R = TypeVar("R")

TOKEN_PREFIX = "cafe_"

_PLAYERS = table_of(Player)
_TOKENS = table_of(ApiToken)
#: The owner's row of a valid (unrevoked) token and the token's id, by its hash, in Core.
#: Built once: every authenticated request runs it, and building the statement (and its
#: cache key) cost more than running it. The ORM's loading of the player cost every
#: request about as much again as the query (`server.models.from_row`).
_TOKEN_OWNER = (
    select(_PLAYERS, _TOKENS.c.id.label("token_id"))
    .join(_TOKENS, _TOKENS.c.player_id == _PLAYERS.c.id)
    .where(_TOKENS.c.token_hash == bindparam("token_hash"), _TOKENS.c.revoked_at.is_(None))
)


@dataclass(frozen=True, slots=True)
class Owner:
    """Who a valid token belongs to, and the token's id."""

    player: Player
    token_id: int


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
    """Who a token belongs to (an object of `session`, as if it had loaded it) and the
    token's id; None for a token unknown or revoked — the one place a revoked token stops
    signing in, for the API and the pages alike."""
    query = {"token_hash": hash_token(secret)}
    found = session.connection().execute(_TOKEN_OWNER, query).first()
    if found is None:
        return None
    player = from_row(Player, found)
    return Owner(attached(session, player), found.token_id)


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
    if found is None:
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
