"""Writing emails into the outbox; `server.worker` sends them.

Each email is a Jinja template `templates/email/<name>.txt` whose first line is
`Subject: …`. Emails are rendered when they are queued, inside the same transaction as the
change that causes them, so a turn and its "your turn" email are stored together or not
at all. Templates receive only public facts — never a snapshot, a bag or an unrevealed seed.
"""

from __future__ import annotations

import uuid
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from flask import current_app
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from sqlmodel import Session

from server.models import OutboxMessage

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates" / "email"

_templates = Environment(
    loader=FileSystemLoader(TEMPLATE_DIR),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,  # plain-text mail; nothing here is HTML
)


def render(template: str, **context: Any) -> tuple[str, str]:
    """The subject and body of `templates/email/<template>.txt`."""
    text = _templates.get_template(f"{template}.txt").render(**context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject: "):
        raise ValueError(f"templates/email/{template}.txt must start with 'Subject: '")
    return first.removeprefix("Subject: ").strip(), body.lstrip("\n")


def enqueue(session: Session, *, to: str, template: str, **context: Any) -> OutboxMessage:
    """Render an email and add it to the outbox (in the caller's transaction)."""
    config = current_app.config
    subject, body = render(template, base_url=config["BASE_URL"].rstrip("/"), **context)
    domain = parseaddr(config["MAIL_FROM"])[1].rpartition("@")[2] or "cafe.invalid"
    row = OutboxMessage(
        kind=template,
        to_addr=to,
        subject=subject,
        body=body,
        message_id=f"<{uuid.uuid4().hex}@{domain}>",
    )
    session.add(row)
    return row
