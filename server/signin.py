"""Sign-in requests: the email that carries a short code and a sign-in link, and the checks
of both.

Nothing that signs anyone in is ever stored. A request is a row of `signin_codes` with a
random `request_id`; when the worker renders the email (`server.mail.signin_mail`), the
code and the link are derived from the secret key and that id (HMAC-SHA-256), and an
offered code or link is checked by deriving them again. A copy of the database — its file,
its write-ahead log, a backup — holds no usable code; and the request is made when the
email is rendered, so the web request that asked for it does the same work whether or not
the address has an account (`server.accounts`).

The **short code** is 10 digits, for typing; its guesses are limited per client and per
account (docs/security.md). The **link** carries 162 bits no one can guess, so no limit
applies to it: however many wrong codes strangers send for an account, its owner signs in
with the link. The link opens a page with a button (`server.web.account_pages`): mail
scanners follow links, and a GET never signs anyone in.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from server.config import Settings
from server.models import (
    OutboxMessage,
    Player,
    SignInCode,
    aware,
    stored_id,
    utcnow,
)
from server.postbox import outgoing

#: Digits of the short code.
CODE_DIGITS = 10
#: Characters of a request id (16 random bytes, base64url) and of a link's MAC (162 bits);
#: a link's code is the two together.
REQUEST_ID_LENGTH = 22
LINK_MAC_LENGTH = 27
LINK_CODE_LENGTH = REQUEST_ID_LENGTH + LINK_MAC_LENGTH
#: What a code offered in place of the short code must look like to be a link's.
LINK_CODE_PATTERN = rf"[A-Za-z0-9_-]{{{LINK_CODE_LENGTH}}}"
#: Where a sign-in link points, before its code.
LINK_PATH = "/signin/link/"
#: Why a sign-in email is not sent to an address nobody has (its row forgets the address).
NOBODY = "no player has this address"


def _mac(secret: str, purpose: str, request_id: str) -> bytes:
    return hmac.new(secret.encode(), f"{purpose}:{request_id}".encode(), hashlib.sha256).digest()


def short_code(secret: str, request_id: str) -> str:
    """The short code of a request under `secret`: `CODE_DIGITS` digits."""
    number = int.from_bytes(_mac(secret, "signin-code", request_id)[:8], "big")
    return f"{number % 10**CODE_DIGITS:0{CODE_DIGITS}d}"


def link_code(secret: str, request_id: str) -> str:
    """The code of a request's sign-in link under `secret`: its id and a MAC of it."""
    mac = base64.urlsafe_b64encode(_mac(secret, "signin-link", request_id)).decode()
    return request_id + mac[:LINK_MAC_LENGTH]


def code_of_link(text: str) -> str:
    """What was typed or pasted for a code, as a code: a whole sign-in link becomes the
    code at its end."""
    typed = text.strip()
    return typed.rsplit(LINK_PATH, 1)[1].strip("/") if LINK_PATH in typed else typed


def is_link_code(text: str) -> bool:
    """Whether `text` has the form of a link's code (rather than a short code)."""
    return len(text) == LINK_CODE_LENGTH


def queue(session: Session, config: Settings, *, kind: str, to: str) -> None:
    """Ask for a sign-in email to the (normalised) address `to`, in the caller's
    transaction: one outbox row, the same whether or not `to` has an account; the worker
    makes the request and renders the email, or drops the row if nobody has the address."""
    outgoing.queue_row(session, config, kind=kind, to_addr=to)


def issue(session: Session, config: Settings, row: OutboxMessage) -> SignInCode | str:
    """The request the sign-in email `row` carries: the one made for it already while it
    is usable (a message sent again carries the same code), else a new one, committed; or
    why there is none: nobody has the address, or it was sent `SIGNIN_CODES_PER_HOUR`
    requests in the last hour."""
    player = session.exec(select(Player).where(Player.email == row.to_addr)).first()
    if player is None:
        return NOBODY
    now = utcnow()
    made = session.exec(select(SignInCode).where(SignInCode.outbox_id == row.id)).first()
    if made is not None and made.used_at is None and aware(made.expires_at) > now:
        return made
    recent = session.exec(
        select(func.count())
        .select_from(SignInCode)
        .where(SignInCode.player_id == player.id, SignInCode.created_at > now - timedelta(hours=1))
    ).one()
    if recent >= config.signin_codes_per_hour:
        return f"{recent} sign-in emails went to this address in the last hour"
    if made is not None:  # used or expired: the message's new request replaces it
        # A statement, not a flush of `made`: retention may have deleted the old request
        # meanwhile (it deletes expired ones), and then there is nothing to detach.
        session.execute(
            update(SignInCode).where(col(SignInCode.id) == made.id).values(outbox_id=None)
        )
        session.expunge(made)
    assert player.id is not None
    request = SignInCode(
        player_id=player.id,
        request_id=secrets.token_urlsafe(16),
        outbox_id=row.id,
        created_at=now,
        expires_at=now + timedelta(seconds=config.signin_code_ttl),
    )
    session.add(request)
    session.commit()
    return request


def live_requests(session: Session, email: str, now: datetime) -> list[tuple[int, str]]:
    """The ids and request ids of the usable requests of the player with this (normalised)
    address: one query, the same for an address nobody has, reading plain columns (loading
    a row as an object costs time an address without requests would not spend)."""
    return [
        (code_id, request_id)
        for code_id, request_id in session.exec(
            select(stored_id(SignInCode.id), SignInCode.request_id)
            .join(Player, col(Player.id) == SignInCode.player_id)
            .where(
                Player.email == email,
                col(SignInCode.used_at).is_(None),
                SignInCode.expires_at > now,
            )
        )
    ]


#: A request id no request has: what the comparisons are padded with.
_NO_REQUEST = "-" * REQUEST_ID_LENGTH


def matching(
    requests: Sequence[tuple[int, str]], code: str, keys: Sequence[str], *, at_least: int
) -> int | None:
    """The id of the request whose short code, under any of `keys` (the current and the old
    secret keys), is `code`. At least `at_least` requests are compared under every key (the
    most an address can have live: padded with requests no one has), and none ends early,
    so the time taken tells neither whether the address has codes nor which matched."""
    padded = [*requests, *[(None, _NO_REQUEST)] * (at_least - len(requests))]
    found = None
    for number, request_id in padded:
        hits = sum(hmac.compare_digest(short_code(key, request_id), code) for key in keys)
        if hits and found is None and number is not None:
            found = number
    return found


def by_link(session: Session, code: str, keys: Sequence[str], now: datetime) -> SignInCode | None:
    """The usable request whose sign-in link has the code `code` (under any of `keys`)."""
    request_id = code[:REQUEST_ID_LENGTH]
    request = session.exec(
        select(SignInCode).where(
            SignInCode.request_id == request_id,
            col(SignInCode.used_at).is_(None),
            SignInCode.expires_at > now,
        )
    ).first()
    if request is None:
        return None
    hits = sum(hmac.compare_digest(link_code(key, request_id), code) for key in keys)
    return request if hits else None


def use(session: Session, request: SignInCode, now: datetime) -> bool:
    """Mark the request used, unless a concurrent sign-in used it first (not committed)."""
    used = session.exec(
        update(SignInCode)
        .where(col(SignInCode.id) == request.id, col(SignInCode.used_at).is_(None))
        .values(used_at=now)
    )
    return bool(used.rowcount)
