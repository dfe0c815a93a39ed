"""The worker's channel deliveries (issue 26): the rows `server.postbox.pings` queued with the
events, sent like the mail — claimed so that any number of workers may run, each attempt in
its own short transactions, and never one receiver holding up another.

Every round `Deliveries.run_once` claims due rows up to its free threads (`THREADS`) and
hands each to a thread of its own: render (the game as it is now, in the owner's language),
check the URL again (`server.channels.guard`: resolved once, every address checked, the
connection pinned to it), send (10 s at most), record. A slow or dead receiver keeps one
thread for 10 s; the others go on.

The answer decides:

| answer | then |
|---|---|
| 2xx | sent; the channel's failures are forgotten |
| 410 | the channel is disabled and its owner emailed; its other deliveries fail |
| 429, 5xx, no answer, the guard refuses | tried again: `retry_delay` |
| anything else (a redirect, 4xx) | this delivery fails; the channel keeps its failure |

`retry_delay` is the next step of `SCHEDULE` with ±20 % jitter, or `Retry-After` when that
is later (at most a day). When a delivery's schedule runs out (about three days), or a
channel has been failing for `GIVE_UP_AFTER`, the channel is disabled and its owner told by email
(`EmailKind.CHANNEL_DISABLED`). A worker killed mid-delivery leaves its claim to lapse
(`LEASE` seconds): the row is sent again, with the same delivery id, so a receiver may drop
the repeat.
"""

from __future__ import annotations

import logging
import random
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, Engine, update
from sqlmodel import Session, col, select

from cafe import i18n
from server.channels import formats, guard, sending, texts
from server.channels.store import destination
from server.clock import timesource
from server.config import Settings
from server.models import (
    Channel,
    ChannelDelivery,
    GameRecord,
    GameStatus,
    Player,
    aware,
    stored_id,
    utcnow,
)
from server.postbox import addresses, notices, pings
from server.postbox.kinds import EmailKind
from server.postbox.pings import ChannelEvent
from server.transactions import retried

log = logging.getLogger(__name__)

#: Seconds before each retry: about three days in all (71.6 hours).
SCHEDULE = (5, 60, 300, 1800, 7200, 18000, 36000, 43200, 50400, 50400, 50400)
#: A channel failing this long is disabled.
GIVE_UP_AFTER = timedelta(days=3)
#: The longest `Retry-After` honoured.
RETRY_AFTER_MOST = 24 * 3600
#: Seconds a worker owns a claimed delivery (an attempt takes at most `sending.TIMEOUT`).
LEASE = 60
#: Deliveries one worker sends at once.
THREADS = 16

_CURRENT_ONLY = {ChannelEvent.YOUR_TURN.value, ChannelEvent.REMINDER.value}


def retry_delay(attempts: int, retry_after: str | None, now: datetime) -> float | None:
    """Seconds before the next attempt after `attempts` failed ones (None: the schedule ran
    out): the schedule's step with ±20 % jitter, or `Retry-After` when that is later."""
    if attempts > len(SCHEDULE):
        return None
    delay = SCHEDULE[attempts - 1] * random.uniform(0.8, 1.2)
    return max(delay, _retry_after_seconds(retry_after, now))


def _retry_after_seconds(value: str | None, now: datetime) -> float:
    """`Retry-After` (seconds, or an HTTP date) in seconds from `now`, at most a day."""
    if not value:
        return 0.0
    try:
        seconds = float(value.strip())
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - now).total_seconds()
        except (TypeError, ValueError):
            return 0.0
    return min(max(seconds, 0.0), RETRY_AFTER_MOST)


@retried
def claim(engine: Engine, *, claimer: str, limit: int, lease: float = LEASE) -> list[int]:
    """Claim up to `limit` due deliveries (pending and due, or a lapsed claim) for `claimer`;
    their ids. Leases run on the system's clock, as the mail's do."""
    now, lease_now = utcnow(), timesource.system_now()
    with Session(engine) as session:
        due = (
            select(ChannelDelivery.id)
            .where(
                (
                    (col(ChannelDelivery.status) == "pending")
                    & (col(ChannelDelivery.available_at) <= now)
                )
                | (
                    (col(ChannelDelivery.status) == "sending")
                    & (col(ChannelDelivery.claimed_until) < lease_now)
                )
            )
            .order_by(col(ChannelDelivery.id))
            .limit(limit)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        session.execute(
            update(ChannelDelivery)
            .where(col(ChannelDelivery.id).in_(due))
            .values(
                status="sending",
                claimed_by=claimer,
                claimed_until=lease_now + timedelta(seconds=lease),
                attempts=ChannelDelivery.attempts + 1,
            )
            .execution_options(synchronize_session=False)
        )
        session.commit()
        return list(
            session.exec(
                select(stored_id(ChannelDelivery.id))
                .where(ChannelDelivery.claimed_by == claimer, ChannelDelivery.status == "sending")
                .order_by(col(ChannelDelivery.id))
            ).all()
        )


class Deliveries:
    """The channel deliveries of one worker: its threads and what they are sending."""

    def __init__(
        self,
        engine: Engine,
        config: Settings,
        *,
        resolver: guard.Resolver = guard.system_resolver,
        threads: int = THREADS,
        lease: float = LEASE,
    ) -> None:
        self.engine = engine
        self.lease = lease
        self.config = config
        self.resolver = resolver
        self.threads = threads
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="channel")
        self._running: set[Future[None]] = set()

    def run_once(self, *, wait_for: float = 0.0) -> int:
        """Claim due deliveries for the free threads and start them; when none was claimed
        but some are under way, wait up to `wait_for` seconds for one to end. The number
        started and ended, at least 1 while any is under way (0: nothing to do)."""
        ended = self._reap()
        free = self.threads - len(self._running)
        started = 0
        if free > 0:
            for delivery in claim(
                self.engine, claimer=uuid.uuid4().hex, limit=free, lease=self.lease
            ):
                self._running.add(self._pool.submit(self._attempt, delivery))
                started += 1
        if not started and self._running and wait_for:
            wait(self._running, timeout=wait_for, return_when=FIRST_COMPLETED)
            ended += self._reap()
        return started + ended or (1 if self._running else 0)

    def _reap(self) -> int:
        done = {future for future in self._running if future.done()}
        self._running -= done
        for future in done:
            error = future.exception()
            if error is not None:  # a bug: the claim lapses and the row is tried again
                log.error("a channel delivery failed: %r", error)
        return len(done)

    @property
    def busy(self) -> int:
        """Deliveries under way."""
        return len(self._running)

    def close(self) -> None:
        """Let the deliveries under way end (each within `sending.TIMEOUT`)."""
        self._pool.shutdown(wait=True)

    def _attempt(self, delivery_id: int) -> None:
        attempt(self.engine, self.config, delivery_id, resolver=self.resolver)


def attempt(engine: Engine, config: Settings, row_id: int, *, resolver: guard.Resolver) -> None:
    """One attempt of a claimed delivery: render, check, send, record."""
    with Session(engine, expire_on_commit=False) as session:
        row = session.get(ChannelDelivery, row_id)
        if row is None or row.status != "sending":
            return
        channel = session.get_one(Channel, row.channel_id)
        owner = session.get_one(Player, channel.player_id)
        game = session.get(GameRecord, row.game_id) if row.game_id is not None else None
    # the session is closed: no transaction is held while the receiver answers
    claimer = row.claimed_by
    if channel.state != pings.ACTIVE:
        _finish(engine, row_id, claimer, status="failed", last_error="the channel is disabled")
        return
    stale = game is None or game.status == GameStatus.FINISHED or game.version != row.version
    if row.event in _CURRENT_ONLY and stale:
        _finish(engine, row_id, claimer, status="superseded", last_error="the game moved on")
        return
    with i18n.speaking(owner.language):
        ping = _ping(config, row, game, owner)
    outgoing = formats.request(
        destination(channel),
        delivery_id=row.delivery_id,
        event=row.event,
        ping=ping,
        at=row.created_at,
        data=_data(row, game, ping),
    )
    try:
        target = guard.check(channel.url, allowed=config.channels_allowed, resolver=resolver)
    except guard.Refused as refusal:
        answer = sending.Answer(status=None, error=str(refusal))
    else:
        answer = sending.send(
            outgoing.method, target, body=outgoing.body, headers=outgoing.headers, url=outgoing.url
        )
    _record(engine, config, row_id, claimer, row.attempts, channel.id or 0, answer)


def _ping(
    config: Settings, row: ChannelDelivery, game: GameRecord | None, owner: Player
) -> texts.Ping:
    """What the delivery says: about its game (the owner's opponents), or a test."""
    if game is None or game.state is None or row.event == ChannelEvent.TEST:
        return texts.test_message(config.base_url)
    assert game.id is not None
    players: list[str] = game.state["players"]
    return texts.about_game(
        ChannelEvent(row.event),
        game_id=game.id,
        opponents=[name for name in players if name != owner.name],
        link=texts.game_link(config.base_url, game.id),
    )


def _data(row: ChannelDelivery, game: GameRecord | None, ping: texts.Ping) -> dict[str, object]:
    """A webhook's `data`: the game, its players and the ping's words (never a hand)."""
    data: dict[str, object] = {"title": ping.title, "text": ping.text, "url": ping.link}
    if game is not None and game.state is not None:
        data |= {"game": game.id, "version": row.version, "players": game.state["players"]}
    return data


def _held(row_id: int, claimer: str | None) -> ColumnElement[bool]:
    """The delivery `row_id` while `claimer` still holds it (a lapsed claim is another's)."""
    return (col(ChannelDelivery.id) == row_id) & (col(ChannelDelivery.claimed_by) == claimer)


@retried
def _finish(engine: Engine, row_id: int, claimer: str | None, **values: object) -> None:
    """Write `values` into a delivery this claimer still holds, releasing the claim."""
    with Session(engine) as session:
        session.execute(
            update(ChannelDelivery)
            .where(_held(row_id, claimer))
            .values(claimed_by=None, claimed_until=None, **values)
        )
        session.commit()


@retried
def _record(
    engine: Engine,
    config: Settings,
    row_id: int,
    claimer: str | None,
    attempts: int,
    channel_id: int,
    answer: sending.Answer,
) -> None:
    """Record what the receiver answered: on the delivery and on its channel, and disable
    the channel when it is gone (410) or has failed long enough."""
    now = utcnow()
    summary = answer.summary()[:500]
    with Session(engine) as session:
        channel = session.get_one(Channel, channel_id, with_for_update=True)
        values: dict[str, object] = {"claimed_by": None, "claimed_until": None}
        disable = None
        if answer.ok:
            values |= {"status": "sent", "sent_at": now, "last_error": None}
            channel.failing_since = None
            channel.last_error = None
            channel.last_sent_at = now
        else:
            channel.last_error = summary
            channel.failing_since = channel.failing_since or now
            values["last_error"] = summary
            retryable = answer.status is None or answer.status == 429 or answer.status >= 500
            delay = retry_delay(attempts, answer.retry_after, now) if retryable else None
            if answer.status == 410:
                values["status"] = "failed"
                disable = "the receiver answered 410 Gone"
            elif delay is None:
                values["status"] = "failed"
                if retryable:
                    disable = "three days of failures"
            else:
                values |= {"status": "pending", "available_at": now + timedelta(seconds=delay)}
            failing = now - aware(channel.failing_since)
            if disable is None and failing >= GIVE_UP_AFTER:
                disable = "three days of failures"
        session.execute(update(ChannelDelivery).where(_held(row_id, claimer)).values(**values))
        if disable is not None and channel.state == pings.ACTIVE:
            _disable(session, config, channel, disable)
        session.add(channel)
        session.commit()
    if not answer.ok:
        log.info(
            "channel %s delivery %s not delivered (%s)%s",
            channel_id,
            row_id,
            summary[:80],
            ", channel disabled" if disable else "",
        )


def _disable(session: Session, config: Settings, channel: Channel, reason: str) -> None:
    """Disable `channel` (in the caller's transaction), fail its waiting deliveries and tell
    its owner by email."""
    assert channel.id is not None
    channel.state = pings.DISABLED
    channel.disabled_reason = reason
    session.execute(
        update(ChannelDelivery)
        .where(
            col(ChannelDelivery.channel_id) == channel.id,
            col(ChannelDelivery.status) == "pending",
        )
        .values(status="failed", last_error="the channel is disabled")
    )
    owner = session.get_one(Player, channel.player_id)
    notices.queue(
        session,
        config,
        EmailKind.CHANNEL_DISABLED,
        to=owner.email,
        name=owner.name,
        channel=channel.id,
        service=channel.kind,
        host=urlsplit(channel.url).hostname or "",
        error=channel.last_error or reason,
        links=addresses.links(config, player_id=owner.id),
    )
