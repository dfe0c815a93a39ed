"""The sign-in code (or link) a player would find in their newest sign-in email, for tests
that sign in without reading a mailbox.

The email's code exists only once the email is rendered (`server.signin`): this takes the
rendering step the worker takes — the request made for the email, at the time the servers
keep (the development clock's, if they run on it) — and derives the code the email shows
from it and the secret key, exactly as the worker does.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server import signin
from server.clock import devclock, timesource
from server.config import Settings
from server.models import OutboxMessage, OutboxStatus
from server.postbox.kinds import SIGNIN_KINDS

#: The states of an email that is, or will be, in its reader's mailbox.
MAILED = (OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.SENT)


def mailed_code(engine: Engine, config: Settings, email: str, *, link: bool = False) -> str:
    """The short code (`link`: the sign-in link's code) of the newest sign-in email to
    `email`, under the service's `config` (its secret key and sign-in settings)."""
    with Session(engine, expire_on_commit=False) as session:
        row = session.exec(
            select(OutboxMessage)
            .where(
                OutboxMessage.to_addr == email,
                col(OutboxMessage.kind).in_(SIGNIN_KINDS),
                col(OutboxMessage.status).in_(MAILED),
            )
            .order_by(col(OutboxMessage.id).desc())
        ).first()
        assert row is not None, f"no sign-in email was asked for {email}"
        offset = devclock.read_offset(engine)  # servers on the development clock
        if offset:
            with timesource.use(lambda: timesource.system_now() + offset):
                request = signin.issue(session, config, row)
        else:
            request = signin.issue(session, config, row)
    assert not isinstance(request, str), request
    derive = signin.link_code if link else signin.short_code
    return derive(config.secret_key, request.request_id)
