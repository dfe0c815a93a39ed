"""`cafe-server worker`: deliver the outbox over SMTP, with retries and backoff.

Each round claims a batch (`server.outbox.claim`), sends it over the SMTP connection (kept
open while there is mail, for up to `PER_CONNECTION` messages, and closed when the outbox
runs dry) and marks every message sent, to retry, or failed. A 5xx answer for a message is
final; a connection problem or a 4xx is retried with doubling delays. A message to an address that
had `MAIL_PER_MINUTE` messages in the last minute waits (`server.mail.quota`, which also
keeps each address's delivery state for `GET /api/me`). Daily digests are queued here too.
Any number of workers may run at once: claims never overlap. Log lines name messages by id
and kind, never their bodies (a sign-in code is in the body).
"""

from __future__ import annotations

import logging
import smtplib
import threading
import time
import uuid
from collections.abc import Mapping
from email.utils import parseaddr
from typing import Any

from sqlalchemy import Engine

from server import outbox
from server.db import make_engine
from server.mail import digest, quota
from server.mail.compose import compose
from server.models import OutboxMessage

log = logging.getLogger(__name__)

BATCH = 20
SMTP_TIMEOUT = 30
DIGEST_CHECK = 60  # seconds between two looks for digests that are due
PER_CONNECTION = 100  # messages sent over one SMTP connection (servers limit it)


class Mailer:
    """An SMTP connection opened on first use, as `CAFE_SMTP_*` describes."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self.envelope_from = parseaddr(config["MAIL_FROM"])[1]  # where bounces go
        self._smtp: smtplib.SMTP | None = None
        self._sent_here = 0  # messages sent over the open connection

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
        data = compose(message, self.config["MAIL_FROM"])
        if self._sent_here >= PER_CONNECTION:
            self.close()
        if self._smtp is None:
            self._smtp = self._connect()
            self._sent_here = 0
        self._sent_here += 1
        self._smtp.sendmail(self.envelope_from, [message.to_addr], data)

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


def worker_engine(config: Mapping[str, Any]) -> Engine:
    """The worker's own engine: its commits need not wait for the disk (`make_engine`)."""
    return make_engine(
        config["DATABASE_URL"], busy_timeout_ms=config["SQLITE_BUSY_TIMEOUT"], durable=False
    )


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
        self._next_digests = 0.0
        # one connection for as long as there is mail to send (TLS and login are costly)
        self._mailer = Mailer(config)

    def run_once(self) -> int:
        """Queue the digests that are due (at most once a minute), then claim and process
        one batch of messages; the number of messages handled (0: nothing due)."""
        if time.monotonic() >= self._next_digests:
            self._next_digests = time.monotonic() + DIGEST_CHECK
            digest.queue_due(self.engine, self.config)
        claimer = uuid.uuid4().hex
        messages = outbox.claim(
            self.engine, claimer=claimer, limit=BATCH, lease_seconds=self.policy.lease_seconds
        )
        if not messages:
            self._mailer.close()  # idle: do not hold a connection the server would drop
            return 0
        waits, states = quota.reserve(
            self.engine, [m.to_addr for m in messages], self.config["MAIL_PER_MINUTE"]
        )
        try:
            for message, wait in zip(messages, waits, strict=True):
                if wait is not None:
                    outbox.postpone(self.engine, message, claimer, until=wait)
                    log.info("message %s (%s) held back: recipient limit", message.id, message.kind)
                    continue
                state = states.get(message.to_addr, "ok")
                states[message.to_addr] = self._deliver(message, claimer, state)
        except BaseException:
            self._mailer.close()
            raise
        return len(messages)

    def _deliver(self, message: OutboxMessage, claimer: str, state: str) -> str:
        """Send one message and record the outcome; the address's state afterwards."""
        try:
            self._mailer.send(message)
        except (smtplib.SMTPException, OSError) as error:
            self._mailer.reset()
            text = f"{type(error).__name__}: {error}"
            retry = outbox.mark_failed(
                self.engine,
                message,
                claimer,
                error=text,
                permanent=is_permanent(error),
                policy=self.policy,
            )
            quota.record_failure(self.engine, message.to_addr, error=text, final=not retry)
            log.warning(
                "message %s (%s) not delivered, %s: %s",
                message.id,
                message.kind,
                "will retry" if retry else "gave up",
                text,
            )
            return "retrying" if retry else "failing"
        outbox.mark_sent(self.engine, message, claimer)
        if state != "ok":
            quota.record_delivery(self.engine, message.to_addr)
        log.info("message %s (%s) sent", message.id, message.kind)
        return "ok"

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
        self._mailer.close()
