"""`cafe-server worker`: sweep the clocks, and render and deliver the outbox over SMTP,
with retries and backoff.

Every `WORKER_SWEEP` seconds a round first sweeps the due deadlines, reminders and vacation
emails (`server.jobs.sweep`: time-outs, automatic vacation days, reminders, vacations
starting or ending, league digests, each exactly once however many workers run) and queues
the table talk that waited long enough to go alone (`server.jobs.talk_mail`); their emails
are then delivered like any other. A round's sweep is a bounded batch (`sweep.BATCH` of each
kind, none begun after `SWEEP_BUDGET` seconds), since the round's mail waits for it: when
more is due, the next round sweeps again right after its mail.

Each round claims a batch (`server.jobs.outbox.claim`), renders its events from the games as
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
again, however long the outage lasts. So is a database that cannot be reached, or a
connection to it that breaks, also while events are rendered (`server.transactions`): no
attempts are counted, and the worker backs off — 1 s, doubling, at most
`DATABASE_WAIT_MAX` s. A message to an address that had `MAIL_PER_MINUTE` messages in the
last minute waits (`server.mail.quota`, which also keeps each address's delivery state for
`GET /api/me`); only mail that is sent counts.

Mail to one address leaves in order (`server.jobs.outbox`): within a batch, once a message to an
address failed, broke or was held back by the limit, the batch's later mail to it goes back
unsent, to follow it.

Whatever ends a round early — an outage or a bug — the batch is concluded all the same: what
the SMTP server accepted is marked sent and the rest handed back, due at once and without
an attempt, so nothing waits for its lease to run out and nothing accepted is sent again. If
the database itself is gone, the next round writes what was left. Daily digests are queued
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
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlmodel import Session

from server.config import Settings
from server.db import engine_of
from server.jobs import computers, deliveries, digest, outbox, retention, sweep, talk_mail
from server.mail import events, quota
from server.mail.sending import Mailer, describe, held_back, is_permanent, send_all, stop
from server.models import OutboxMessage, utcnow
from server.transactions import outage

log = logging.getLogger(__name__)

BATCH = 100
CHUNK = 20  # messages rendered, then sent while the next ones are rendered
FIRST_CHUNK = 5  # the first chunk of a batch is rendered with nothing to overlap: small
DIGEST_CHECK = 60  # seconds between two looks for digests that are due
PURGE_EVERY = 3600  # seconds between two applications of the retention rules
CHANNELS_WAIT = 0.2  # seconds a round waits for a channel delivery under way, when none began
DATABASE_WAIT_MAX = 60  # longest wait, in seconds, between two tries of a database that is down
OUTAGE_FIRST = 1.0  # seconds the worker waits after the SMTP server first cannot be reached
#: Seconds a round's sweep may begin new work for (a time-out or reminder then runs to its
#: end): the round's mail waits for its sweep, so a sweep with more due stops here and goes
#: on in the next round, after the mail (issue 25).
SWEEP_BUDGET = 0.5


#: Why a message went back unsent behind an earlier one to its address.
HELD_BACK = "held back: an earlier message to this address is not sent yet"
#: Why a message went back unsent when its batch was cut short by an error.
CUT_SHORT = "not sent: the worker's round was cut short by an error"


@dataclass
class Batch:
    """One claimed batch as the worker goes through it: what became of its messages so far
    (sent, failed, handed back with the reason, or already written: dropped, broken,
    postponed), the sending slots taken, the addresses nothing more is tried for, and the
    addresses' delivery states. `Worker._conclude` writes it."""

    claimer: str
    claimed: Sequence[OutboxMessage]
    sent: list[OutboxMessage] = field(default_factory=list)
    failed: list[tuple[OutboxMessage, Exception]] = field(default_factory=list)
    back: list[tuple[OutboxMessage, str]] = field(default_factory=list)
    settled: set[int | None] = field(default_factory=set)
    slots: list[OutboxMessage] = field(default_factory=list)
    stopped: dict[str, int] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    cut_off: int = 0  # messages not sent because the SMTP server could not be reached

    def unsettled(self) -> list[OutboxMessage]:
        """The messages nothing has become of yet."""
        known = (
            self.settled
            | {message.id for message in self.sent}
            | {message.id for message, _ in self.failed}
            | {message.id for message, _ in self.back}
        )
        return [message for message in self.claimed if message.id not in known]


def smtp_offers_utf8(config: Settings) -> bool:
    """Whether the configured SMTP server offers SMTPUTF8 (international addresses);
    `Unavailable` if it cannot be reached."""
    mailer = Mailer(config)
    smtp = mailer.connect()
    try:
        return bool(smtp.has_extn("smtputf8"))
    finally:
        mailer._smtp = smtp
        mailer.close()


def worker_engine(config: Settings) -> Engine:
    """The worker's own engine: its commits need not wait for the disk (`make_engine`)."""
    return engine_of(config, durable=False)


class Worker:
    """Sweeps the clocks of one database, and renders and delivers its outbox.

    `clock_engine` is the engine the sweep writes with (default `engine`): time-outs are
    game changes, so the command gives it one whose commits wait for the disk."""

    def __init__(
        self, engine: Engine, config: Settings, clock_engine: Engine | None = None
    ) -> None:
        self.engine = engine
        self.clock_engine = engine if clock_engine is None else clock_engine
        self.config = config
        self._next_sweep = 0.0
        #: Sweeps finished so far; each is logged (DEBUG, "sweep N done"), so that a test
        #: can wait for a worker's next sweep rather than sleep.
        self.sweeps = 0
        self.policy = outbox.RetryPolicy(
            max_attempts=config.outbox_max_attempts,
            backoff_seconds=config.outbox_backoff,
            lease_seconds=config.outbox_lease,
        )
        self._next_digests = 0.0
        self._next_purge = 0.0
        self._outage_wait = 0.0  # the current wait while the SMTP server is unreachable
        self._resume_at = 0.0  # monotonic time before which no batch is claimed
        self._unconcluded: Batch | None = None  # a batch an error left partly unwritten
        # one connection for as long as there is mail to send (TLS and login are costly)
        self._mailer = Mailer(config)
        #: the channels' deliveries, sent by threads of their own (`server.jobs.deliveries`)
        self.deliveries = deliveries.Deliveries(engine, config)

    @property
    def waiting(self) -> float:
        """Seconds until the worker tries the SMTP server again after an outage (0: now)."""
        return max(0.0, self._resume_at - time.monotonic())

    def run_once(self) -> int:
        """Sweep the clocks and queue the table talk that is due (at most every
        `WORKER_SWEEP` seconds), play the computer players' turns that are due (every round:
        `server.jobs.computers`), start the channels' deliveries that are due
        (`server.jobs.deliveries`), queue the digests that are due (at most once a minute),
        apply the retention rules (once an hour), then claim and process one batch of
        messages; the number of games and messages handled (0: nothing due, or the SMTP
        server cannot be reached). What an error left unwritten of
        the last batch is written first."""
        if self._unconcluded is not None:
            self._conclude(self._unconcluded)
        swept = 0
        if time.monotonic() >= self._next_sweep:
            self._next_sweep = time.monotonic() + self.config.worker_sweep
            done = sweep.sweep(self.clock_engine, self.config, budget=SWEEP_BUDGET)
            if done.more:  # the rest of what is due: in the next round, after this mail
                self._next_sweep = 0.0
            swept = done.total + talk_mail.queue_due(self.engine, self.config)
            self.sweeps += 1
            log.debug("sweep %d done: %d acted on", self.sweeps, swept)
            if swept:
                log.info(
                    "sweep: %s, %d reminders, vacation emails %s, %d league digests",
                    dict(done.timeouts),
                    done.reminders,
                    dict(done.vacations),
                    done.league_digests,
                )
        swept += computers.play_due(self.clock_engine, self.config)
        swept += self.deliveries.run_once(wait_for=CHANNELS_WAIT)
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
        batch = self._unconcluded = Batch(claimer, claimed)
        try:
            self._process(batch)
        except BaseException:
            self._mailer.close()
            raise
        finally:  # whatever happened: mark what was sent, hand back what was not
            self._conclude(batch)
        return swept + len(claimed) - batch.cut_off

    def _process(self, batch: Batch) -> None:
        """Render, drop, hold back and send one claimed batch, `CHUNK` messages at a time:
        while the SMTP server reads each message of a chunk, the worker renders its share of
        the events of the next chunk (`send_all`, `events.Preparation`); only the first
        chunk, `FIRST_CHUNK` messages, is rendered with nothing sent meanwhile. What becomes
        of each message is kept in `batch`, written by `_conclude`."""
        claimed = batch.claimed
        bounds = [0, *range(FIRST_CHUNK, len(claimed), CHUNK), len(claimed)]
        chunks = [claimed[start:end] for start, end in itertools.pairwise(bounds)]
        preparation = events.Preparation(self.engine, self.config, chunks[0])
        for index, chunk in enumerate(chunks):
            due = self._prepare(preparation, chunk, batch)
            following = chunks[index + 1] if index + 1 < len(chunks) else []
            preparation = events.Preparation(self.engine, self.config, following)
            # its events rendered while the server reads this chunk's messages, evenly
            share = -(-preparation.waiting // max(len(due), 1))
            try:
                done = send_all(
                    self._mailer,
                    due,
                    self.config.mail_from,
                    meanwhile=functools.partial(preparation.render, share),
                    stopped=batch.stopped,
                )
            except BaseException:
                preparation.discard()
                raise
            if done.sent:
                self._outage_wait = 0.0  # the server is reachable again
            batch.sent += done.sent
            batch.failed += done.failed
            batch.back += [(message, HELD_BACK) for message in done.held]
            if done.outage is not None:  # the rest is not tried (perhaps rendered: again next time)
                preparation.discard()
                self._smtp_outage(batch, done.outage)
                return

    def _smtp_outage(self, batch: Batch, reason: str) -> None:
        """The SMTP server cannot be reached: hand back what was not sent, and wait."""
        batch.cut_off = len(batch.unsettled())
        batch.back += [(message, reason) for message in batch.unsettled()]
        self._outage_wait = min(
            max(2 * self._outage_wait, OUTAGE_FIRST), self.config.worker_outage_max
        )
        self._resume_at = time.monotonic() + self._outage_wait
        log.warning(
            "%s; %d messages wait, next try in %.0f s", reason, batch.cut_off, self._outage_wait
        )

    def _prepare(
        self, preparation: events.Preparation, chunk: Sequence[OutboxMessage], batch: Batch
    ) -> list[OutboxMessage]:
        """Render the rest of a chunk's events, mark what is dropped or broken, take the
        recipients' sending slots; the messages to send now, in order. A message to an
        address whose earlier mail in the batch failed, broke or was held back by the limit
        is handed back unsent: it must not overtake that mail."""
        prepared = preparation.finish()
        outbox.drop(self.engine, prepared.dropped, batch.claimer)
        batch.settled.update(message.id for message, _, _ in prepared.dropped)
        broken = {message.id: error for message, error in prepared.broken}
        ready = {message.id for message in prepared.ready}
        candidates = []
        for message in chunk:  # in order: what failed stops the later mail to its address
            if message.id in broken:  # the template's fault, not the address's
                self._failed(
                    message, batch.claimer, broken[message.id], permanent=False, address=False
                )
                batch.settled.add(message.id)
                stop(batch.stopped, message)
            elif message.id in ready:
                if held_back(batch.stopped, message):
                    batch.back.append((message, HELD_BACK))
                else:
                    candidates.append(message)
        waits, found = quota.reserve(
            self.engine, [m.to_addr or "" for m in candidates], self.config.mail_per_minute
        )
        batch.states.update(found)
        due = []
        for message, wait in zip(candidates, waits, strict=True):
            if wait is None:
                due.append(message)
                continue
            outbox.postpone(self.engine, message, batch.claimer, until=wait)
            batch.settled.add(message.id)
            stop(batch.stopped, message)
            log.info("message %s (%s) held back: recipient limit", message.id, message.kind)
        if self.config.mail_per_minute > 0:
            batch.slots += due
        return due

    def _conclude(self, batch: Batch) -> None:
        """Write what became of a batch: give back the sending slots of what was not sent,
        mark the sent messages (one statement) and the failures, and hand back unsent,
        without an attempt, whatever is left — held back, cut off by an outage, or not
        reached because of an error. Each step, once written, is not written again: after
        an error here (the database went away), the next round concludes the rest."""
        if batch.slots:
            sent = {message.id for message in batch.sent}
            quota.give_back(self.engine, [m.to_addr or "" for m in batch.slots if m.id not in sent])
            batch.slots = []
        if batch.sent:
            outbox.mark_sent(self.engine, batch.sent, batch.claimer)
            for message in batch.sent:
                log.info("message %s (%s) sent", message.id, message.kind)
            batch.settled.update(message.id for message in batch.sent)
            delivered, batch.sent = batch.sent, []
            for message in delivered:
                address = message.to_addr or ""
                if batch.states.get(address, "ok") != "ok":
                    quota.record_delivery(self.engine, address)
                    batch.states[address] = "ok"
        while batch.failed:
            message, error = batch.failed[0]
            self._failed(message, batch.claimer, describe(error), permanent=is_permanent(error))
            batch.settled.add(message.id)
            batch.failed.pop(0)
        left = [(message, CUT_SHORT) for message in batch.unsettled()]
        by_reason: dict[str, list[OutboxMessage]] = {}
        for message, reason in [*batch.back, *left]:
            if message.id not in batch.settled:
                by_reason.setdefault(reason, []).append(message)
        for reason, messages in by_reason.items():
            outbox.release(self.engine, messages, batch.claimer, reason=reason)
            batch.settled.update(message.id for message in messages)
        batch.back = []
        self._unconcluded = None

    def _failed(
        self,
        message: OutboxMessage,
        claimer: str,
        error: str,
        *,
        permanent: bool,
        address: bool = True,
    ) -> None:
        """Record a failed attempt at `message` and (if `address`: the address was tried)
        its address's delivery state."""
        retry = outbox.mark_failed(
            self.engine, message, claimer, error=error, permanent=permanent, policy=self.policy
        )
        if address and message.to_addr:
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
            self.config.smtp_host,
            self.config.smtp_port,
            self.config.smtp_tls,
        )
        database_wait = 0.0  # while the database is unreachable: doubling, logged once
        while not stop.is_set():
            try:
                handled = self.run_once()
            except Exception as error:
                if outage(error):  # the database is down or busy: back off
                    if not database_wait:
                        reason = getattr(error, "orig", None) or error
                        log.error("the database cannot be reached (%s); retrying", reason)
                    database_wait = min(max(2 * database_wait, 1.0), DATABASE_WAIT_MAX)
                    stop.wait(database_wait)
                    continue
                log.exception("worker round failed")  # a bug in one round must not end it
                handled = 0
            if database_wait:
                log.warning("the database answers again")
                database_wait = 0.0
            if handled == 0:
                stop.wait(self.waiting or self.config.worker_poll)
        self._mailer.close()
        self.deliveries.close()
