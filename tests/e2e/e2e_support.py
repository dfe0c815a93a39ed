"""Helpers shared by the end-to-end tests."""

from __future__ import annotations

import re
import socket

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.models import OutboxMessage

#: The secret key of the servers the end-to-end tests start.
E2E_SECRET_KEY = "e2e-secret-of-at-least-thirty-two-bytes"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def mailed_code(engine: Engine, email: str) -> str:
    """The sign-in code in the newest email to `email`, as its reader would find it (no
    worker runs beside these servers, so it still waits in the outbox)."""
    with Session(engine) as session:
        body = session.exec(
            select(OutboxMessage.body)
            .where(OutboxMessage.to_addr == email)
            .order_by(col(OutboxMessage.id).desc())
        ).first()
    found = re.search(r"^\s+(\d{10})$", body or "", re.MULTILINE)
    assert found, body
    return found.group(1)
