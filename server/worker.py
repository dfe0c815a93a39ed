"""`cafe-server worker`: sweep the clocks, and render and deliver the outbox over SMTP,
with retries and backoff.

Every `WORKER_SWEEP` seconds a round first sweeps the due deadlines, reminders and vacation
emails (`server.clock.sweep`: time-outs, automatic vacation days, reminders, vacations
starting or ending, league digests, each exactly once however many workers run); their
emails are then delivered like any other.

Each round claims a batch (`server.outbox.claim`), renders its events from the games as
they are now and drops those that are out of date (`server.mail.events`), sends the rest
over the SMTP connection (`server.mail.sending`: kept open while there is mail, for up to
`PER_CONNECTION` messages, and closed when the outbox runs dry), and marks what was sent in
one statement. It works in chunks of `CHUNK` messages (the first one smaller), in one
thread: while the SMTP server reads a message of one chunk, the worker renders events of the
next.

Whatever goes wrong with one message is that message's failed attempt, never the batch's:
a 5xx answer, or an address that cannot be written without SMTPUTF8 when the server does
not offer it, is final; a 4xx or an error while rendering is retried with doubling delays
until `OUTBOX_MAX_ATTEMPTS`. A server that cannot be reached (down, refusing, timing out)
is no message's fault: the unsent messages go back to the queue without an attempt, and the
worker as a whole waits — 1 s, doubling, at most `WORKER_OUTAGE_MAX` s — before it tries
again, however long the outage lasts. A message to an address that had `MAIL_PER_MINUTE`
messages in the last minute waits (`server.mail.quota`, which also keeps each address's
delivery state for `GET /api/me`); only mail that is sent counts. Daily digests are queued
here too. Any number of workers may run at once: claims never overlap. Log lines name
messages by id and kind, never their bodies (a sign-in code is in the body).
"""

from __future__ import annotations

import functools
import itertools
import logging
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from server import outbox, retention
from server.clock import sweep
from server.db import make_engine
from server.mail import digest, events, quota
from server.mail.sending import Mailer, Sending, describe, is_permanent, send_all
from server.models import OutboxMessage, utcnow

log = logging.getLogger(__name__)

BATCH = 100
CHUNK = 20  # messages rendered, then sent while the next ones are rendered
FIRST_CHUNK = 5  # the first chunk of a batch is rendered with nothing to overlap: small
DIGEST_CHECK = 60  # seconds between two looks for digests that are due
PURGE_EVERY = 3600  # seconds between two applications of the retention rules
DATABASE_WAIT_MAX = 60  # longest wait, in seconds, between two tries of a database that is down
OUTAGE_FIRST = 1.0  # seconds the worker waits after the SMTP server first cannot be reached


def smtp_offers_utf8(config: Mapping[str, Any]) -> bool:
    """Whether the configured SMTP server offers SMTPUTF8 (international addresses);
    `Unavailable` if it cannot be reached."""
    mailer = Mailer(config)
    smtp = mailer.connect()
    try:
        return bool(smtp.has_extn("smtputf8"))
    finally:
        mailer._smtp = smtp
        mailer.close()


def worker_engine(config: Mapping[str, Any]) -> Engine:
    """The worker's own engine: its commits need not wait for the disk (`make_engine`)."""
    return make_engine(
        config["DATABASE_URL"], busy_timeout_ms=config["SQLITE_BUSY_TIMEOUT"], durable=False
    )


class Worker:
    """Sweeps the clocks of one database, and renders and delivers its outbox.

    `clock_engine` is the engine the sweep writes with (default `engine`): time-outs are
    game changes, so the command gives it one whose commits wait for the disk."""

    def __init__(
        self, engine: Engine, config: Mapping[str, Any], clock_engine: Engine | None = None
    ) -> None:
        self.engine = engine
        self.clock_engine = engine if clock_engine is None else clock_engine
        self.config = config
        self._next_sweep = 0.0
        self.policy = outbox.RetryPolicy(
            max_attempts=config["OUTBOX_MAX_ATTEMPTS"],
            backoff_seconds=config["OUTBOX_BACKOFF"],
            lease_seconds=config["OUTBOX_LEASE"],
        )
        self._next_digests = 0.0
        self._next_purge = 0.0
        self._outage_wait = 0.0  # the current wait while the SMTP server is unreachable
        self._resume_at = 0.0  # monotonic time before which no batch is claimed
        # one connection for as long as there is mail to send (TLS and login are costly)
        self._mailer = Mailer(config)

    @property
    def waiting(self) -> float:
        """Seconds until the worker tries the SMTP server again after an outage (0: now)."""
        return max(0.0, self._resume_at - time.monotonic())

    def run_once(self) -> int:
        """Sweep the clocks (at most every `WORKER_SWEEP` seconds), queue the digests that
        are due (at most once a minute), apply the retention rules (once an hour), then claim
        and process one batch of messages; the number of games and messages handled (0:
        nothing due, or the SMTP server cannot be reached)."""
        swept = 0
        if time.monotonic() >= self._next_sweep:
            self._next_sweep = time.monotonic() + self.config["WORKER_SWEEP"]
            done = sweep.sweep(self.clock_engine, self.config)
            swept = done.total
            if swept:
                log.info(
                    "sweep: %s, %d reminders, vacation emails %s, %d league digests",
                    dict(done.timeouts),
                    done.reminders,
                    dict(done.vacations),
                    done.league_digests,
                )
        if time.monotonic() >= self._next_digests:
            self._next_digests = time.monotonic() + DIGEST_CHECK
            digest.queue_due(self.engine, self.config)
        if time.monotonic() >= self._next_purge:
            self._next_purge = time.monotonic() + PURGE_EVERY
            with Session(self.clock_engine) as session:  # durable: it deletes and tells
                counts = retention.purge(session, self.config, utcnow())
            log.info("retention: %s", ", ".join(f"{rule} {n}" for rule, n in counts.items()))
        if self.waiting:
            return swept
        claimer = uuid.uuid4().hex
        claimed = outbox.claim(
            self.engine, claimer=claimer, limit=BATCH, lease_seconds=self.policy.lease_seconds
        )
        if not claimed:
            self._mailer.close()  # idle: do not hold a connection the server would drop
            return swept
        try:
            handled = self._process(claimed, claimer)
        except BaseException:
            self._mailer.close()
            raise
        return swept + handled

    def _process(self, claimed: Sequence[OutboxMessage], claimer: str) -> int:
        """Render, drop, hold back, send and mark one claimed batch, `CHUNK` messages at a
        time: while the SMTP server reads each message of a chunk, the worker renders its
        share of the events of the next chunk (`send_all`, `events.Preparation`); only the
        first chunk, `FIRST_CHUNK` messages, is rendered with nothing sent meanwhile."""
        sent: list[OutboxMessage] = []
        failed: list[tuple[OutboxMessage, Exception]] = []
        unsent: list[OutboxMessage] = []  # handed back: their sending slots too
        not_tried: list[OutboxMessage] = []  # chunks after an outage (no slots taken)
        outage: str | None = None
        states: dict[str, str] = {}
        bounds = [0, *range(FIRST_CHUNK, len(claimed), CHUNK), len(claimed)]
        chunks = [claimed[start:end] for start, end in itertools.pairwise(bounds)]
        preparation = events.Preparation(self.engine, self.config, chunks[0])
        for index in range(len(chunks)):
            due = self._prepare(preparation, claimer, states)
            following = chunks[index + 1] if index + 1 < len(chunks) else []
            preparation = events.Preparation(self.engine, self.config, following)
            # its events rendered while the server reads this chunk's messages, evenly
            share = -(-preparation.waiting // max(len(due), 1))
            try:
                done = send_all(
                    self._mailer,
                    due,
                    self.config["MAIL_FROM"],
                    meanwhile=functools.partial(preparation.render, share),
                )
            except BaseException:
                preparation.discard()
                raise
            outage = self._collect(done, sent, failed, unsent)
            if outage is not None:  # the rest is not tried (perhaps rendered: again next time)
                preparation.discard()
                not_tried = [message for chunk in chunks[index + 1 :] for message in chunk]
                break
        self._settle(claimer, sent, failed, states)
        if self.config["MAIL_PER_MINUTE"] > 0:  # only what was sent counts
            quota.give_back(
                self.engine,
                [m.to_addr or "" for m, _ in failed] + [m.to_addr or "" for m in unsent],
            )
        if outage is not None:
            unsent += not_tried
            outbox.release(self.engine, unsent, claimer, reason=outage)
            self._outage_wait = min(
                max(2 * self._outage_wait, OUTAGE_FIRST), self.config["WORKER_OUTAGE_MAX"]
            )
            self._resume_at = time.monotonic() + self._outage_wait
            log.warning(
                "%s; %d messages wait, next try in %.0f s", outage, len(unsent), self._outage_wait
            )
        return len(claimed) - len(unsent)

    def _prepare(
        self, preparation: events.Preparation, claimer: str, states: dict[str, str]
    ) -> list[OutboxMessage]:
        """Render the rest of a chunk's events, mark what is dropped or broken, take the
        recipients' sending slots (holding back the rest); the messages to send now."""
        prepared = preparation.finish()
        outbox.drop(self.engine, prepared.dropped, claimer)
        for message, error in prepared.broken:
            self._failed(message, claimer, error, permanent=False)
        ready = prepared.ready
        waits, found = quota.reserve(
            self.engine, [m.to_addr or "" for m in ready], self.config["MAIL_PER_MINUTE"]
        )
        states.update(found)
        due = []
        for message, wait in zip(ready, waits, strict=True):
            if wait is None:
                due.append(message)
            else:
                outbox.postpone(self.engine, message, claimer, until=wait)
                log.info("message %s (%s) held back: recipient limit", message.id, message.kind)
        return due

    def _collect(
        self,
        done: Sending,
        sent: list[OutboxMessage],
        failed: list[tuple[OutboxMessage, Exception]],
        unsent: list[OutboxMessage],
    ) -> str | None:
        """Add one chunk's outcome to the batch's; the outage it met, if any."""
        if done.sent:
            self._outage_wait = 0.0  # the server is reachable again
        sent += done.sent
        failed += done.failed
        unsent += done.unsent
        return done.outage

    def _settle(
        self,
        claimer: str,
        sent: list[OutboxMessage],
        failed: list[tuple[OutboxMessage, Exception]],
        states: dict[str, str],
    ) -> None:
        """Mark the batch's sent messages (one statement) and its failures."""
        outbox.mark_sent(self.engine, sent, claimer)
        for message in sent:
            if states.get(message.to_addr or "", "ok") != "ok":
                quota.record_delivery(self.engine, message.to_addr or "")
                states[message.to_addr or ""] = "ok"
            log.info("message %s (%s) sent", message.id, message.kind)
        for message, error in failed:
            self._failed(message, claimer, describe(error), permanent=is_permanent(error))

    def _failed(self, message: OutboxMessage, claimer: str, error: str, *, permanent: bool) -> None:
        """Record a failed attempt at `message` and its address's delivery state."""
        retry = outbox.mark_failed(
            self.engine, message, claimer, error=error, permanent=permanent, policy=self.policy
        )
        if message.to_addr:
            quota.record_failure(self.engine, message.to_addr, error=error, final=not retry)
        log.warning(
            "message %s (%s) not delivered, %s: %s",
            message.id,
            message.kind,
            "will retry" if retry else "gave up",
            error,
        )

    def run(self, stop: threading.Event) -> None:
        """Deliver until `stop` is set, sleeping `WORKER_POLL` seconds when nothing is due
        (or longer, while the SMTP server cannot be reached)."""
        log.info(
            "worker delivering to %s:%s (%s)",
            self.config["SMTP_HOST"],
            self.config["SMTP_PORT"],
            self.config["SMTP_TLS"],
        )
        database_wait = 0.0  # while the database is unreachable: doubling, logged once
        while not stop.is_set():
            try:
                handled = self.run_once()
            except OperationalError as error:  # the database is down or busy: back off
                if not database_wait:
                    log.error("the database cannot be reached (%s); retrying", error.orig)
                database_wait = min(max(2 * database_wait, 1.0), DATABASE_WAIT_MAX)
                stop.wait(database_wait)
                continue
            except Exception:  # a bug in one round must not end the worker
                log.exception("worker round failed")
                handled = 0
            if database_wait:
                log.warning("the database answers again")
                database_wait = 0.0
            if handled == 0:
                stop.wait(self.waiting or self.config["WORKER_POLL"])
        self._mailer.close()
