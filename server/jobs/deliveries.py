"""The worker's channel deliveries (issue 26): the rows `server.postbox.pings` queued with the
events, sent like the mail — claimed so that any number of workers may run, each attempt in
its own short transactions, and never one receiver holding up another.

Every round `Deliveries.run_once` claims due rows up to its free threads (`THREADS`) and
hands each to a thread of its own: render (the game as it is now, in the owner's language:
a league's channel's owner is its organiser),
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
channel has been failing for `GIVE_UP_AFTER`, the channel is disabled and its owner told by
email (`EmailKind.CHANNEL_DISABLED`; a league's organiser, naming the league). A worker
killed mid-delivery leaves its claim to lapse (`LEASE` seconds): the row is sent again,
with the same delivery id, so a receiver may drop the repeat.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, Engine, Update, update
from sqlmodel import Session, col, select

from cafe import i18n
from cafe.i18n import gettext as _
from server.channels import formats, guard, sending, texts
from server.channels.store import destination
from server.clock import timesource
from server.config import Settings
from server.models import (
    Channel,
    ChannelDelivery,
    GameRecord,
    GameStatus,
    League,
    Player,
    aware,
    unsettled,
    utcnow,
)
from server.postbox import addresses, notices, pings
from server.postbox.kinds import EmailKind
from server.postbox.pings import SEASON_STARTED, ChannelEvent
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


def claim_statement(
    now: datetime, lease_now: datetime, limit: int, *, claimer: str, lease: float
) -> Update:
    """The claim's one statement: up to `limit` due deliveries in id order, read among the
    unsettled ones alone (`ix_channel_deliveries_unsettled`, issue 25), never the sent ones
    that are nearly all of the table. `benchmarks/outbox.py` times it."""
    due = (
        select(ChannelDelivery.id)
        .where(
            unsettled(col(ChannelDelivery.status)),
            (
                (col(ChannelDelivery.status) == "pending")
                & (col(ChannelDelivery.available_at) <= now)
            )
            | (
                (col(ChannelDelivery.status) == "sending")
                & (col(ChannelDelivery.claimed_until) < lease_now)
            ),
        )
        .order_by(col(ChannelDelivery.id))
        .limit(limit)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    return (
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


@retried
def claim(engine: Engine, *, claimer: str, limit: int, lease: float = LEASE) -> list[Claimed]:
    """Claim up to `limit` due deliveries (pending and due, or a lapsed claim) for `claimer`,
    with their channels, owners (a league channel's: its organiser), leagues and games.
    Leases run on the system's clock, as the mail's do."""
    now, lease_now = utcnow(), timesource.system_now()
    with Session(engine, expire_on_commit=False) as session:
        session.execute(claim_statement(now, lease_now, limit, claimer=claimer, lease=lease))
        session.commit()
        rows = list(
            session.exec(
                select(ChannelDelivery)
                .where(ChannelDelivery.claimed_by == claimer, ChannelDelivery.status == "sending")
                .order_by(col(ChannelDelivery.id))
            ).all()
        )
        if not rows:
            return []
        channels = {
            c.id: c
            for c in session.exec(
                select(Channel).where(col(Channel.id).in_({r.channel_id for r in rows}))
            )
        }
        leagues = {
            league.id: league
            for league in session.exec(
                select(League).where(col(League.id).in_({c.league_id for c in channels.values()}))
            )
        }
        owner_ids = {c.player_id for c in channels.values()}
        owner_ids |= {league.organiser_id for league in leagues.values()}
        owners = {
            p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(owner_ids)))
        }
        game_ids = {r.game_id for r in rows if r.game_id is not None}
        games = {
            g.id: g
            for g in session.exec(select(GameRecord).where(col(GameRecord.id).in_(game_ids)))
        }
        claimed = []
        for row in rows:
            channel = channels[row.channel_id]
            league = leagues.get(channel.league_id) if channel.league_id is not None else None
            owner = owners[league.organiser_id if league is not None else channel.player_id]
            game = games.get(row.game_id) if row.game_id is not None else None
            claimed.append(Claimed(row, channel, owner, game, league))
        return claimed


@dataclass(frozen=True, slots=True)
class Claimed:
    """A claimed delivery with all it is rendered from, read in the claim's transaction:
    `owner` is who reads it and is told when it fails (a league channel's organiser),
    `league` the league whose shared channel it is (None: a player's own)."""

    row: ChannelDelivery
    channel: Channel
    owner: Player
    game: GameRecord | None
    league: League | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came of an attempt, for the worker's round to record."""

    claimed: Claimed
    answer: sending.Answer | None  # None: not sent (`status` says why)
    status: str | None = None
    reason: str | None = None


class Deliveries:
    """The channel deliveries of one worker: its threads, what they are sending, and the
    outcomes the next round records (the successes of a round in one transaction)."""

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
        self.config = config
        self.resolver = resolver
        self.threads = threads
        self.lease = lease
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="channel")
        self._running: set[Future[Outcome]] = set()

    def run_once(self, *, wait_for: float = 0.0) -> int:
        """Record the deliveries that ended, claim due ones for the free places (four per
        thread, so that each thread always has the next one; well within the lease) and
        start them; when none was claimed but some are under way, wait up to `wait_for`
        seconds for one to end. The number started and ended, at least 1 while any is
        under way (0: nothing to do)."""
        ended = self._record_ended()
        free = 4 * self.threads - len(self._running)
        started = 0
        if free > 0:
            claimer = uuid.uuid4().hex
            for claimed in claim(self.engine, claimer=claimer, limit=free, lease=self.lease):
                self._running.add(self._pool.submit(self._attempt, claimed))
                started += 1
        if not started and self._running and wait_for:
            wait(self._running, timeout=wait_for, return_when=FIRST_COMPLETED)
            ended += self._record_ended()
        return started + ended or (1 if self._running else 0)

    def _record_ended(self) -> int:
        done = {future for future in self._running if future.done()}
        self._running -= done
        outcomes = []
        for future in done:
            error = future.exception()
            if error is not None:  # a bug: the claim lapses and the row is tried again
                log.error("a channel delivery failed: %r", error)
            else:
                outcomes.append(future.result())
        record(self.engine, self.config, outcomes)
        return len(done)

    def close(self) -> None:
        """Let the deliveries under way end (each within `sending.TIMEOUT`) and record them."""
        self._pool.shutdown(wait=True)
        self._record_ended()

    def _attempt(self, claimed: Claimed) -> Outcome:
        return attempt(self.config, claimed, resolver=self.resolver)


def attempt(config: Settings, claimed: Claimed, *, resolver: guard.Resolver) -> Outcome:
    """One attempt of a claimed delivery, holding no transaction: render, check, send."""
    row, channel, owner, game = claimed.row, claimed.channel, claimed.owner, claimed.game
    if channel.state != pings.ACTIVE:
        with i18n.speaking(owner.language):
            return Outcome(claimed, None, "failed", _("the channel is disabled"))
    stale = game is None or game.status == GameStatus.FINISHED or game.version != row.version
    if row.event in _CURRENT_ONLY and stale:
        with i18n.speaking(owner.language):
            return Outcome(claimed, None, "superseded", _("the game moved on"))
    with i18n.speaking(owner.language):  # the ping, and what went wrong, in the owner's words
        return _send(config, claimed, resolver)


def _send(config: Settings, claimed: Claimed, resolver: guard.Resolver) -> Outcome:
    """Render, check and send a claimed delivery (in its owner's language)."""
    row, channel, game = claimed.row, claimed.channel, claimed.game
    ping = _ping(config, claimed)
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
        return Outcome(claimed, sending.Answer(status=None, error=str(refusal)))
    answer = sending.send(
        outgoing.method, target, body=outgoing.body, headers=outgoing.headers, url=outgoing.url
    )
    return Outcome(claimed, answer)


@retried
def record(engine: Engine, config: Settings, outcomes: Sequence[Outcome]) -> None:
    """Record what came of `outcomes` in one transaction: the deliveries sent and their
    channels' success in two statements, every other outcome one by one."""
    if not outcomes:
        return
    now = utcnow()
    with Session(engine) as session:
        sent = [o for o in outcomes if o.answer is not None and o.answer.ok]
        for outcome in sent:
            session.execute(
                update(ChannelDelivery)
                .where(_held(outcome.claimed.row))
                .values(claimed_by=None, claimed_until=None, status="sent", sent_at=now)
            )
        if sent:
            session.execute(
                update(Channel)
                .where(col(Channel.id).in_({o.claimed.channel.id for o in sent}))
                .values(failing_since=None, last_error=None, last_sent_at=now)
            )
        for outcome in outcomes:
            if outcome.answer is None:
                session.execute(
                    update(ChannelDelivery)
                    .where(_held(outcome.claimed.row))
                    .values(
                        claimed_by=None,
                        claimed_until=None,
                        status=outcome.status,
                        last_error=outcome.reason,
                    )
                )
            elif not outcome.answer.ok:
                _failed(session, config, outcome, now)
        session.commit()


def _ping(config: Settings, claimed: Claimed) -> texts.Ping:
    """What the delivery says: a message at a game's table or a season's start or end (from
    the facts queued with it), a game's event (for a player, their opponents; for a
    league's channel, whose move it is or the result), or a test."""
    row, game, shared = claimed.row, claimed.game, claimed.league is not None
    facts = row.payload or {}
    if row.event == ChannelEvent.MESSAGE and row.game_id is not None:
        return texts.about_message(
            game_id=row.game_id,
            writer=facts["writer"],
            said=facts["text"],
            link=texts.game_link(config.base_url, row.game_id),
        )
    if row.event == ChannelEvent.LEAGUE:
        return texts.about_season(
            started=facts["status"] == SEASON_STARTED,
            league=facts["league"],
            season=facts["season"],
            link=texts.season_link(config.base_url, facts["slug"], facts["season"]),
            shared=shared,
        )
    if game is None or game.state is None or row.event == ChannelEvent.TEST:
        return texts.test_message(config.base_url, league=shared)
    assert game.id is not None
    players: list[str] = game.state["players"]
    link = texts.game_link(config.base_url, game.id)
    if shared:
        standings = sorted(game.standings or [], key=lambda line: line["place"])
        return texts.about_league_game(
            ChannelEvent(row.event),
            game_id=game.id,
            players=players,
            to_move=players[game.state["to_move"]],
            result=[(line["player"], line["final"]) for line in standings],
            link=link,
        )
    return texts.about_game(
        ChannelEvent(row.event),
        game_id=game.id,
        opponents=[name for name in players if name != claimed.owner.name],
        link=link,
    )


def _data(row: ChannelDelivery, game: GameRecord | None, ping: texts.Ping) -> dict[str, object]:
    """A webhook's `data`: the game, its players and the ping's words (never a hand); a
    message's writer; a season's league, number and status."""
    data: dict[str, object] = {"title": ping.title, "text": ping.text, "url": ping.link}
    if game is not None and game.state is not None:
        data |= {"game": game.id, "version": row.version, "players": game.state["players"]}
    facts = row.payload or {}
    if row.event == ChannelEvent.MESSAGE:
        data["writer"] = facts.get("writer")
    if row.event == ChannelEvent.LEAGUE:
        data |= {"league": facts.get("slug"), "season": facts.get("season")}
        data["status"] = facts.get("status")
    return data


def _held(row: ChannelDelivery) -> ColumnElement[bool]:
    """The delivery while its claimer still holds it (a lapsed claim is another's)."""
    return (col(ChannelDelivery.id) == row.id) & (col(ChannelDelivery.claimed_by) == row.claimed_by)


def _failed(session: Session, config: Settings, outcome: Outcome, now: datetime) -> None:
    """Record a failed attempt (in the caller's transaction): on the delivery and on its
    channel, and disable the channel when it is gone (410) or has failed long enough."""
    assert outcome.answer is not None
    answer, row = outcome.answer, outcome.claimed.row
    channel = session.get_one(Channel, outcome.claimed.channel.id, with_for_update=True)
    summary = answer.summary()[:500]
    channel.last_error = summary
    channel.failing_since = channel.failing_since or now
    values: dict[str, object] = {"claimed_by": None, "claimed_until": None, "last_error": summary}
    retryable = answer.status is None or answer.status == 429 or answer.status >= 500
    delay = retry_delay(row.attempts, answer.retry_after, now) if retryable else None
    disable = None
    with i18n.speaking(outcome.claimed.owner.language):
        gone, too_long = _("the receiver answered 410 Gone"), _("three days of failures")
    if answer.status == 410:
        values["status"] = "failed"
        disable = gone
    elif delay is None:
        values["status"] = "failed"
        if retryable:
            disable = too_long
    else:
        values |= {"status": "pending", "available_at": now + timedelta(seconds=delay)}
    if disable is None and now - aware(channel.failing_since) >= GIVE_UP_AFTER:
        disable = too_long
    session.execute(update(ChannelDelivery).where(_held(row)).values(**values))
    if disable is not None and channel.state == pings.ACTIVE:
        _disable(session, config, outcome.claimed, channel, disable)
    session.add(channel)
    log.info(
        "channel %s delivery %s not delivered (%s)%s",
        channel.id,
        row.id,
        summary[:80],
        ", channel disabled" if disable else "",
    )


def _disable(
    session: Session, config: Settings, claimed: Claimed, channel: Channel, reason: str
) -> None:
    """Disable `channel` (in the caller's transaction), fail its waiting deliveries and tell
    its owner by email (a league's channel: the league's organiser, naming the league)."""
    assert channel.id is not None
    channel.state = pings.DISABLED
    channel.disabled_reason = reason
    session.execute(
        update(ChannelDelivery)
        .where(
            col(ChannelDelivery.channel_id) == channel.id,
            col(ChannelDelivery.status) == "pending",
        )
        .values(status="failed", last_error=reason)
    )
    owner, league = session.get_one(Player, claimed.owner.id), claimed.league
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
        league=None if league is None else league.name,
        slug=None if league is None else league.slug,
        links=addresses.links(config, player_id=owner.id),
    )
