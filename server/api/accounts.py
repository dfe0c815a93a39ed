"""Routes for players, sign-in codes, tokens and `me`."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, g

from server import accounts
from server.auth import login_required
from server.db import get_session
from server.errors import ApiError
from server.mail import quota
from server.models import ApiToken, Player, iso
from server.validation import MAX_INT, json_body, text_field

bp = Blueprint("accounts", __name__, url_prefix="/api")

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,23}")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
CODE = re.compile(r"\d{6}")

NAME_HINT = " (a letter, then up to 23 letters, digits, '_', '.' or '-')"


def player_json(player: Player) -> dict[str, Any]:
    """A player as the API shows it to themselves."""
    return {
        "id": player.id,
        "name": player.name,
        "email": player.email,
        "created_at": iso(player.created_at),
    }


def token_json(token: ApiToken) -> dict[str, Any]:
    """A token's metadata (never its secret, which is not stored)."""
    return {
        "id": token.id,
        "label": token.label,
        "created_at": iso(token.created_at),
        "revoked": token.revoked_at is not None,
        "current": token.id == g.token.id,
    }


@bp.post("/players")
def register() -> tuple[dict[str, Any], int]:
    """Register a player and mail them a sign-in code."""
    data = json_body()
    name = text_field(data, "name", max_length=24, pattern=NAME, hint=NAME_HINT)
    email = text_field(data, "email", max_length=254, pattern=EMAIL, hint=" (an email address)")
    session = get_session()
    player = accounts.create_player(session, name=name, email=email)
    accounts.send_signin_code(session, player=player)
    return player_json(player), 201


@bp.post("/signin-codes")
def request_code() -> tuple[dict[str, Any], int]:
    """Mail a registered player a new sign-in code."""
    email = text_field(json_body(), "email", max_length=254, pattern=EMAIL)
    session = get_session()
    player = accounts.find_player(session, email=email)
    if player is None:
        raise ApiError(
            404,
            "player_not_found",
            f"no player has the email {email}; register with POST /api/players",
        )
    accounts.send_signin_code(session, player=player)
    return {"sent_to": player.email}, 202


@bp.post("/tokens")
def create_token() -> tuple[dict[str, Any], int]:
    """Exchange an email and its sign-in code for a new API token, shown only this once."""
    data = json_body()
    email = text_field(data, "email", max_length=254, pattern=EMAIL)
    code = text_field(
        data, "code", max_length=6, pattern=CODE, hint=" (the 6 digits mailed to you)"
    )
    label = text_field(data, "label", max_length=64) if "label" in data else ""
    token, secret = accounts.redeem_signin_code(get_session(), email=email, code=code, label=label)
    return {
        "id": token.id,
        "token": secret,
        "label": token.label,
        "created_at": iso(token.created_at),
    }, 201


@bp.get("/tokens")
@login_required
def list_tokens() -> dict[str, Any]:
    """The caller's tokens."""
    tokens = accounts.list_tokens(get_session(), player=g.player)
    return {"tokens": [token_json(t) for t in tokens]}


@bp.delete("/tokens/<int:token_id>")
@login_required
def revoke_token(token_id: int) -> tuple[str, int]:
    """Revoke one of the caller's tokens (the one in use included)."""
    if token_id > MAX_INT:
        raise ApiError(404, "token_not_found", f"you have no token {token_id}; see GET /api/tokens")
    accounts.revoke_token(get_session(), player=g.player, token_id=token_id)
    return "", 204


@bp.get("/me")
@login_required
def me() -> dict[str, Any]:
    """The caller, with the state of their email address (`ok`, `retrying` or `failing`)."""
    return {**player_json(g.player), "email_status": quota.status(get_session(), g.player.email)}
