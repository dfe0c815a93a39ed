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

from server import auth, throttle
from server.config import verifying_keys
from server.domain import Conflict, NotFound, Unauthenticated, Unreadable
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


def register(session: Session, *, name: str, email: str) -> None:
    """Register a player and mail them a code, answering alike whether or not the email was
    registered: a registered address is mailed a code and told it has an account. Only a
    taken *name* is refused (names are public; the check comes first, so the answer never
    depends on the email)."""
    taken = session.exec(select(Player.id).where(func.lower(Player.name) == name.lower())).first()
    if taken is not None:
        raise Conflict("name_taken", f"the name {name!r} is taken; choose another")
    existing = find_player(session, email=email)
    if existing is not None:
        send_signin_code(session, player=existing, again=True)
        return
    try:
        player = create_player(session, name=name, email=email)
    except Conflict as error:  # a registration at the same moment took the name or email
        if error.code == "name_taken":
            raise
        existing = find_player(session, email=email)
        assert existing is not None
        send_signin_code(session, player=existing, again=True)
        return
    send_signin_code(session, player=player)


def send_signin_code(session: Session, *, player: Player, again: bool = False) -> bool:
    """Mail `player` a new code (`again`: saying they already have an account); False when
    the player was sent `SIGNIN_CODES_PER_HOUR` already, so nothing is sent. Codes sent
    earlier stay valid: asking for a code must not void the one in the player's mailbox."""
    config = current_app.config
    now = utcnow()
    recent = session.exec(
        select(func.count())
        .select_from(SignInCode)
        .where(SignInCode.player_id == player.id, SignInCode.created_at > now - timedelta(hours=1))
    ).one()
    if recent >= config["SIGNIN_CODES_PER_HOUR"]:
        return False
    assert player.id is not None
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
        again=again,
    )
    outgoing.queue(
        session, config, kind="signin_code", to=player.email, rendered=rendered, links=links
    )
    session.commit()
    return True


#: The one answer to every failed exchange, so that it does not tell whether the email is
#: registered, has a code, or had another one.
WRONG_CODE = (
    "this sign-in code is wrong, used or expired for this email; "
    "check the newest email or ask for a new one with POST /api/signin-codes"
)


def redeem_signin_code(
    session: Session, *, email: str, code: str, label: str, client: str
) -> tuple[ApiToken, str]:
    """Exchange a valid code for a new token (returned with its secret text).

    Every try counts against `client` and the whole service (`server.throttle`), never
    against the player: wrong guesses by others cannot lock the owner out. Any of the
    player's live codes is accepted; a right one is forgiven.
    """
    config = current_app.config
    guess = throttle.attempt(session, guesses_limit(), client)
    player = find_player(session, email=email)
    row = None
    now = utcnow()
    if player is not None:
        assert player.id is not None
        offered = [auth.hash_code(code, player.id, key) for key in verifying_keys(config)]
        live = session.exec(
            select(SignInCode).where(
                SignInCode.player_id == player.id,
                col(SignInCode.used_at).is_(None),
                SignInCode.expires_at > now,
            )
        ).all()
        # compare every live code under every key (sum, not any: no early exit), so the time
        # taken does not tell which matched
        matches = [sum(hmac.compare_digest(r.code_hash, h) for h in offered) > 0 for r in live]
        row = next((r for r, match in zip(live, matches, strict=True) if match), None)
    if player is None or row is None:
        raise Unauthenticated("invalid_code", WRONG_CODE)
    used = session.execute(
        update(SignInCode)
        .where(col(SignInCode.id) == row.id, col(SignInCode.used_at).is_(None))
        .values(used_at=now)
    )
    if used.rowcount == 0:  # type: ignore[attr-defined]
        session.rollback()
        raise Unauthenticated("invalid_code", WRONG_CODE)
    token, secret = auth.issue_token(session, player=player, label=label)
    session.commit()
    throttle.forgive(session, guess)
    return token, secret


def guesses_limit() -> throttle.Limit:
    """Sign-in tries: per client, overall, with backoff (README: Security)."""
    config = current_app.config
    return throttle.Limit(
        "guesses", config["SIGNIN_GUESSES_PER_CLIENT"], config["SIGNIN_GUESSES_PER_HOUR"], True
    )


def signups_limit() -> throttle.Limit:
    """Registrations, per client and overall."""
    config = current_app.config
    return throttle.Limit("signups", config["SIGNUPS_PER_CLIENT"], config["SIGNUPS_PER_HOUR"])


def codes_limit() -> throttle.Limit:
    """Sign-in code requests, per client and overall."""
    config = current_app.config
    return throttle.Limit(
        "codes", config["CODE_REQUESTS_PER_CLIENT"], config["CODE_REQUESTS_PER_HOUR"]
    )


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
