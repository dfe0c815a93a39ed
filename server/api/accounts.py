"""Routes for players, sign-in codes, tokens and `me`."""

from __future__ import annotations

from flask import Blueprint, g

from cafe.i18n import gettext
from server import accounts, throttle
from server.apispec import validate
from server.auth import login_required
from server.config import current_settings
from server.db import get_session
from server.mail import quota
from server.schemas.accounts import (
    EmailStatus,
    Me,
    PlayerCreate,
    PlayerPublic,
    Registration,
    SignInCodeCreate,
    SignInCodeSent,
    TokenCreate,
    TokenIssued,
    TokenList,
    TokenPublic,
)

bp = Blueprint("accounts", __name__, url_prefix="/api")


@bp.post("/players")
@validate(202, Registration, 409, 422, 429, json=PlayerCreate, public=True)
def register(json: PlayerCreate) -> tuple[Registration, int]:
    """Register a player and mail them a sign-in code. The answer is the same whether or
    not the email was registered (its owner is mailed a code and told so); only a taken
    name is refused."""
    session = get_session()
    throttle.attempt(session, accounts.signups_limit(current_settings()), throttle.client_address())
    email = json.email.lower()
    accounts.register(session, name=json.name, email=email, config=current_settings())
    message = gettext(
        "a sign-in code is on its way to %(email)s (if the address already has an account, "
        "the email says so); sign in with POST /api/tokens",
        email=email,
    )
    return Registration(name=json.name, email=email, message=message), 202


@bp.post("/signin-codes")
@validate(202, SignInCodeSent, 429, json=SignInCodeCreate, public=True)
def request_code(json: SignInCodeCreate) -> tuple[SignInCodeSent, int]:
    """Mail a registered player a new sign-in code. The answer does not tell whether the
    address is registered; codes sent earlier stay valid."""
    session = get_session()
    throttle.attempt(session, accounts.codes_limit(current_settings()), throttle.client_address())
    accounts.request_code(session, email=json.email, config=current_settings())
    email = json.email.lower()
    message = gettext(
        "if %(email)s is registered, a sign-in code is on its way (codes sent before stay "
        "valid); if not, register with POST /api/players",
        email=email,
    )
    return SignInCodeSent(sent_to=email, message=message), 202


@bp.post("/tokens")
@validate(201, TokenIssued, 401, 429, json=TokenCreate, public=True)
def create_token(json: TokenCreate) -> tuple[TokenIssued, int]:
    """Exchange an email and its sign-in code (or the code of the email's sign-in link)
    for a new API token, shown only this once."""
    token, secret = accounts.redeem_signin_code(
        get_session(),
        email=json.email,
        code=json.code,
        label=json.label,
        client=throttle.client_address(),
        config=current_settings(),
    )
    assert token.id is not None
    return TokenIssued(
        id=token.id, token=secret, label=token.label, created_at=token.created_at
    ), 201


@bp.get("/tokens")
@login_required
@validate(200, TokenList)
def list_tokens() -> TokenList:
    """The caller's tokens."""
    tokens = accounts.list_tokens(get_session(), player=g.player)
    return TokenList(
        tokens=[
            TokenPublic(
                id=token.id,
                label=token.label,
                created_at=token.created_at,
                revoked=token.revoked_at is not None,
                current=token.id == g.token_id,
            )
            for token in tokens
            if token.id is not None
        ]
    )


@bp.delete("/tokens/<int:token_id>")
@login_required
@validate(204, None, 404)
def revoke_token(token_id: int) -> tuple[str, int]:
    """Revoke one of the caller's tokens (the one in use included)."""
    accounts.revoke_token(get_session(), player=g.player, token_id=token_id)
    return "", 204


@bp.get("/me")
@login_required
@validate(200, Me)
def me() -> Me:
    """The caller, with the state of their email address (`ok`, `retrying` or `failing`)."""
    status = EmailStatus.model_validate(quota.status(get_session(), g.player.email))
    return Me(**PlayerPublic.model_validate(g.player).model_dump(), email_status=status)
