"""`cafe-server worker`: deliver the outbox over SMTP, with retries and backoff.

Each round claims a batch (`server.outbox.claim`), sends it over one SMTP connection and
marks every message sent, to retry, or failed. A 5xx answer for a message is final; a
connection problem or a 4xx is retried with doubling delays. Any number of workers may run
at once: claims never overlap. Log lines name messages by id and kind, never their bodies
(a sign-in code is in the body).
"""

from __future__ import annotations

import logging
import smtplib
import threading
import uuid
from collections.abc import Mapping
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

from sqlalchemy import Engine

from server import outbox
from server.models import OutboxMessage

log = logging.getLogger(__name__)

BATCH = 20
SMTP_TIMEOUT = 30


class Mailer:
    """An SMTP connection opened on first use, as `CAFE_SMTP_*` describes."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self._smtp: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        config = self.config
        host, port = config["SMTP_HOST"], config["SMTP_PORT"]
        if config["SMTP_TLS"] == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=SMTP_TIMEOUT)
        else:
            smtp = smtplib.SMTP(host, port, timeout=SMTP_TIMEOUT)
            if config["SMTP_TLS"] == "starttls":
                smtp.starttls()
        if config["SMTP_USER"]:
            smtp.login(config["SMTP_USER"], config["SMTP_PASSWORD"])
        return smtp

    def send(self, message: OutboxMessage) -> None:
        """Hand one message to the SMTP server (raises `smtplib`/`OSError` errors)."""
        email = EmailMessage()
        email["From"] = self.config["MAIL_FROM"]
        email["To"] = message.to_addr
        email["Subject"] = message.subject
        email["Message-ID"] = message.message_id
        email["Date"] = formatdate(localtime=False)
        email.set_content(message.body)
        if self._smtp is None:
            self._smtp = self._connect()
        self._smtp.send_message(email)

    def close(self) -> None:
        """Say goodbye to the server; a connection that already broke is just dropped."""
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (smtplib.SMTPException, OSError):
                self._smtp.close()
            self._smtp = None

    def reset(self) -> None:
        """Drop the connection after an error, so the next message opens a fresh one."""
        if self._smtp is not None:
            self._smtp.close()
            self._smtp = None


def is_permanent(error: Exception) -> bool:
    """True when retrying cannot help: the server refused the message or its recipient."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    if isinstance(error, smtplib.SMTPResponseException):
        return error.smtp_code >= 500 and not isinstance(error, smtplib.SMTPAuthenticationError)
    return False


class Worker:
    """Delivers the outbox of one database."""

    def __init__(self, engine: Engine, config: Mapping[str, Any]) -> None:
        self.engine = engine
        self.config = config
        self.policy = outbox.RetryPolicy(
            max_attempts=config["OUTBOX_MAX_ATTEMPTS"],
            backoff_seconds=config["OUTBOX_BACKOFF"],
            lease_seconds=config["OUTBOX_LEASE"],
        )

    def run_once(self) -> int:
        """Claim and process one batch; the number of messages handled (0: nothing due)."""
        claimer = uuid.uuid4().hex
        messages = outbox.claim(
            self.engine, claimer=claimer, limit=BATCH, lease_seconds=self.policy.lease_seconds
        )
        mailer = Mailer(self.config)
        try:
            for message in messages:
                self._deliver(mailer, message, claimer)
        finally:
            mailer.close()
        return len(messages)

    def _deliver(self, mailer: Mailer, message: OutboxMessage, claimer: str) -> None:
        try:
            mailer.send(message)
        except (smtplib.SMTPException, OSError) as error:
            mailer.reset()
            text = f"{type(error).__name__}: {error}"
            retry = outbox.mark_failed(
                self.engine,
                message,
                claimer,
                error=text,
                permanent=is_permanent(error),
                policy=self.policy,
            )
            log.warning(
                "message %s (%s) not delivered, %s: %s",
                message.id,
                message.kind,
                "will retry" if retry else "gave up",
                text,
            )
            return
        outbox.mark_sent(self.engine, message, claimer)
        log.info("message %s (%s) sent", message.id, message.kind)

    def run(self, stop: threading.Event) -> None:
        """Deliver until `stop` is set, sleeping `WORKER_POLL` seconds when nothing is due."""
        log.info(
            "worker delivering to %s:%s (%s)",
            self.config["SMTP_HOST"],
            self.config["SMTP_PORT"],
            self.config["SMTP_TLS"],
        )
        while not stop.is_set():
            try:
                handled = self.run_once()
            except Exception:  # a database hiccup must not end the worker; try again later
                log.exception("worker round failed")
                handled = 0
            if handled == 0:
                stop.wait(self.config["WORKER_POLL"])
