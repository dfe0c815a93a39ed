"""An SMTP server (aiosmtpd) that takes emailed replies: `cafe-server mail-in --listen`.

It accepts mail for reply addresses of the service's mail domain only (`play+…@domain`;
anything else is refused at RCPT with 550: this is not a relay) and hands each message to
`server.mail.replies` in a worker thread. A message is acknowledged with 250 once it has
been handled (applied, or answered); if the database fails, the answer is 451 so that the
sending server tries again later. A message over `MAIL_IN_MAX_BYTES` is refused during DATA
(552): aiosmtpd stops keeping its bytes once it passes the limit, so a huge message never
sits in memory.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.controller import Controller
from flask import Flask

from server.config import settings_of
from server.mail import replies
from server.postbox.addresses import is_reply_address

log = logging.getLogger(__name__)


class ReplyHandler:
    """aiosmtpd hooks: check each recipient, then handle the message."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.domain = settings_of(app).mail_domain

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any
    ) -> str:
        """Accept reply addresses of our domain only."""
        if not is_reply_address(address, self.domain):
            return f"550 5.1.1 <{address}>: not a Café International reply address"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """Handle the message in a thread (the engine and database calls block)."""
        raw: bytes = envelope.original_content or envelope.content
        try:
            outcome = await asyncio.get_running_loop().run_in_executor(
                None,
                lambda: replies.handle(
                    self.app,
                    raw,
                    envelope_to=tuple(envelope.rcpt_tos),
                    envelope_from=envelope.mail_from or "",
                    bounce=not envelope.mail_from,
                ),
            )
        except Exception:  # the database is down or worse: let the sender retry
            log.exception("mail-in failed; the sender will retry")
            return "451 4.3.0 the reply could not be handled now; try again later"
        return f"250 OK {outcome.kind}"


def start_receiver(app: Flask, *, host: str, port: int) -> Controller:
    """Start the receiver in a background thread (call `.stop()` to end it)."""
    controller = Controller(
        ReplyHandler(app),
        hostname=host,
        port=port,
        data_size_limit=settings_of(app).mail_in_max_bytes,
        enable_SMTPUTF8=True,
    )
    controller.start()
    return controller
