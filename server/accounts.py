"""Players, sign-in codes and tokens: the store functions behind `server.api.accounts`.

Each function takes the session as its first argument and commits its own change, so a
view is a thin layer: read input, call one function, shape the response.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from flask import current_app
from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from server import auth
from server.domain import Conflict, NotFound, RateLimited, Unauthenticated, Unreadable
from server.mail import messages, outgoing
from server.mail.addresses import AddressError, normalise_address, parse_new_address
from server.mail.facts import Recipient
from server.models import ApiToken, Player, SignInCode, utcnow


def find_player(session: Session, *, email: str) -> Player | None:
    """The player with this email, compared as stored: normalised, so that one mailbox is
    one player however its address is typed."""
    try:
        address = normalise_address(email)
    except AddressError:
        return None
    return session.exec(select(Player).where(Player.email == address)).first()


def create_player(session: Session, *, name: str, email: str) -> Player:
    """A new player; names are unique ignoring case, emails once normalised. An address is
    refused (400) unless it is one bare address the mail server can deliver to."""
    try:
        email = parse_new_address(email, smtputf8=current_app.config["SMTP_UTF8"])
    except AddressError as error:
        raise Unreadable("invalid_request", f"`email` {error}") from None
    taken = session.exec(
        select(Player).where((func.lower(Player.name) == name.lower()) | (Player.email == email))
    ).first()
    if taken is None:
        player = Player(name=name, email=email)
        session.add(player)
        try:
            session.commit()
        except IntegrityError:  # a concurrent registration won the race
            session.rollback()
            taken = session.exec(
                select(Player).where(
                    (func.lower(Player.name) == name.lower()) | (Player.email == email)
                )
            ).one()
        else:
            return player
    if taken.email == email:
        raise Conflict(
            "email_taken",
            f"{email} is already registered; ask for a sign-in code with POST /api/signin-codes",
        )
    raise Conflict("name_taken", f"the name {name!r} is taken; choose another")


def send_signin_code(session: Session, *, player: Player) -> None:
    """Mail `player` a new code; older unused codes die. Limited per hour against abuse."""
    config = current_app.config
    now = utcnow()
    recent = session.exec(
        select(func.count())
        .select_from(SignInCode)
        .where(SignInCode.player_id == player.id, SignInCode.created_at > now - timedelta(hours=1))
    ).one()
    if recent >= config["SIGNIN_CODES_PER_HOUR"]:
        raise RateLimited(
            "too_many_codes",
            f"{recent} sign-in codes were sent in the last hour; use one of them or wait",
        )
    assert player.id is not None
    session.execute(
        update(SignInCode)
        .where(col(SignInCode.player_id) == player.id, col(SignInCode.used_at).is_(None))
        .values(used_at=now)
    )
    code = auth.new_signin_code()
    ttl = config["SIGNIN_CODE_TTL"]
    session.add(
        SignInCode(
            player_id=player.id,
            code_hash=auth.hash_code(code, player.id),
            expires_at=now + timedelta(seconds=ttl),
        )
    )
    links = outgoing.links(config)  # no unsubscribe link: codes come whatever one chose
    rendered = messages.signin_code(
        Recipient(player_id=player.id, name=player.name, email=player.email),
        code=code,
        minutes=ttl // 60,
        links=links,
    )
    outgoing.queue(
        session, config, kind="signin_code", to=player.email, rendered=rendered, links=links
    )
    session.commit()


def redeem_signin_code(
    session: Session, *, email: str, code: str, label: str
) -> tuple[ApiToken, str]:
    """Exchange a valid code for a new token (returned with its secret text)."""
    player = find_player(session, email=email)
    now = utcnow()
    row = None
    if player is not None:
        row = session.exec(
            select(SignInCode)
            .where(
                SignInCode.player_id == player.id,
                col(SignInCode.used_at).is_(None),
                SignInCode.expires_at > now,
            )
            .order_by(col(SignInCode.id).desc())
        ).first()
    if player is None or row is None:
        raise Unauthenticated(
            "invalid_code",
            "no valid sign-in code for this email; ask for a new one with POST /api/signin-codes",
        )
    limit = current_app.config["SIGNIN_CODE_ATTEMPTS"]
    assert player.id is not None
    # count the attempt first, atomically, so parallel guesses cannot exceed the limit
    counted = session.execute(
        update(SignInCode)
        .where(col(SignInCode.id) == row.id, col(SignInCode.attempts) < limit)
        .values(attempts=SignInCode.attempts + 1)
    )
    session.commit()
    if counted.rowcount == 0:  # type: ignore[attr-defined]
        raise RateLimited(
            "too_many_attempts",
            f"this code was guessed wrong {limit} times and is void; ask for a new one",
        )
    if not hmac.compare_digest(row.code_hash, auth.hash_code(code, player.id)):
        raise Unauthenticated("invalid_code", "wrong sign-in code; check the latest email")
    used = session.execute(
        update(SignInCode)
        .where(col(SignInCode.id) == row.id, col(SignInCode.used_at).is_(None))
        .values(used_at=now)
    )
    if used.rowcount == 0:  # type: ignore[attr-defined]
        session.rollback()
        raise Unauthenticated("invalid_code", "this code was already used; ask for a new one")
    token, secret = auth.issue_token(session, player=player, label=label)
    session.commit()
    return token, secret


def list_tokens(session: Session, *, player: Player) -> list[ApiToken]:
    """The player's tokens, newest first, revoked ones included."""
    return list(
        session.exec(
            select(ApiToken)
            .where(ApiToken.player_id == player.id)
            .order_by(col(ApiToken.id).desc())
        )
    )


def revoke_token(session: Session, *, player: Player, token_id: int) -> None:
    """Revoke one of the player's tokens (revoking twice is harmless)."""
    token = session.get(ApiToken, token_id)
    if token is None or token.player_id != player.id:
        raise NotFound("token_not_found", f"you have no token {token_id}; see GET /api/tokens")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.commit()
