"""The outbox table's life cycle: claim due messages, then mark them sent, retry, failed or
dropped, or hand them back; and re-queue failed ones (`cafe-server mail retry`).

A claim is one `UPDATE … WHERE id IN (SELECT … LIMIT n)` that stamps the rows with the
claimer's unique id and a lease. A worker that dies holding a claim loses it when the lease
runs out, and another worker retries the message. What a worker sent is marked in one
statement per batch (`mark_sent`).

**Mail to one address leaves in the order it was queued** (the order of the events it
tells of). A message is claimed only when no earlier message to its address is still
unsettled: being sent under a live lease, or waiting — held back by the per-recipient limit,
or for a retry after a failed attempt. So the limit delays later mail behind earlier and
never reorders it, and a failing message holds back what follows it until it is sent or
given up on (at most the retry schedule, `RetryPolicy.patience`). An event has no address
until it is rendered, so each claim first writes the address of the player it is for into
the new events (`to_addr`; rendering writes the player's address of that moment). Claims
take turns (a transaction-level advisory lock on PostgreSQL, the writer lock on SQLite), so
that a claim sees every earlier message another worker has just claimed.

Every function here is one transaction, run again if the database aborted it for a rival
(`server.transactions.retried`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Engine,
    Executable,
    ScalarSelect,
    and_,
    bindparam,
    case,
    exists,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from server.clock import timesource
from server.models import (
    GameRecord,
    GameSeat,
    OutboxMessage,
    OutboxStatus,
    Player,
    table_of,
    unsettled,
    utcnow,
)
from server.postbox.kinds import CREATOR_KINDS, SIGNIN_KINDS
from server.transactions import retried


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently delivery is retried."""

    max_attempts: int = 8
    backoff_seconds: int = 30  # before the 2nd attempt; doubled for each further one
    lease_seconds: int = 300

    def delay(self, attempts: int) -> timedelta:
        """The wait after the `attempts`-th failed attempt."""
        return timedelta(seconds=self.backoff_seconds * 2 ** (attempts - 1))

    @property
    def patience(self) -> timedelta:
        """The longest a failing message is retried before it is given up on: the waits
        between its attempts (what it may hold back the mail to its address for)."""
        return sum((self.delay(n) for n in range(1, self.max_attempts)), timedelta())


_OUTBOX = table_of(OutboxMessage)
#: The key of the advisory lock claims take turns with on PostgreSQL ("cafe" "mail").
CLAIM_LOCK = 0x_CAFE_3A11

#: The address of the player an event is for: the creator of the game for a lobby event,
#: else the player in the event's seat.
_RECIPIENT = case(
    (
        col(OutboxMessage.kind).in_(sorted(CREATOR_KINDS)),
        select(col(Player.email))
        .join(GameRecord, col(GameRecord.creator_id) == Player.id)
        .where(col(GameRecord.id) == OutboxMessage.game_id)
        .scalar_subquery(),
    ),
    else_=select(col(Player.email))
    .join(GameSeat, col(GameSeat.player_id) == Player.id)
    .where(col(GameSeat.game_id) == OutboxMessage.game_id, col(GameSeat.seat) == OutboxMessage.seat)
    .scalar_subquery(),
)
#: New events get the address of the player they are for (read among the unsettled rows,
#: `ix_outbox_unsettled`).
_ADDRESS_EVENTS = (
    update(OutboxMessage)
    .where(
        unsettled(col(OutboxMessage.status)),
        col(OutboxMessage.status) == OutboxStatus.PENDING,
        col(OutboxMessage.to_addr).is_(None),
        col(OutboxMessage.game_id).is_not(None),
    )
    .values(to_addr=_RECIPIENT)
    .execution_options(synchronize_session=False)
)


def _claimable(now: datetime, lease_now: datetime, limit: int) -> ScalarSelect[Any]:
    """The ids of the due messages no earlier message to the same address holds back, in
    order, locked for the claim. Both read the unsettled rows alone, through their partial
    indexes (`ix_outbox_unsettled`, `ix_outbox_unsettled_address`): the sent ones, nearly
    all of a league's outbox, are never read."""
    earlier = aliased(OutboxMessage)
    held_back = exists().where(
        unsettled(col(earlier.status)),
        col(earlier.to_addr) == OutboxMessage.to_addr,
        col(earlier.id) < OutboxMessage.id,
        or_(
            and_(
                col(earlier.status) == OutboxStatus.PENDING,
                col(earlier.available_at) > now,
            ),
            and_(
                col(earlier.status) == OutboxStatus.SENDING,
                col(earlier.claimed_until) >= lease_now,
            ),
        ),
    )
    return (
        select(col(OutboxMessage.id))
        .where(
            unsettled(col(OutboxMessage.status)),
            or_(
                (col(OutboxMessage.status) == OutboxStatus.PENDING)
                & (col(OutboxMessage.available_at) <= now),
                (col(OutboxMessage.status) == OutboxStatus.SENDING)
                & (col(OutboxMessage.claimed_until) < lease_now),
            ),
            ~held_back,
        )
        .order_by(col(OutboxMessage.id))
        .limit(limit)
        .with_for_update(of=OutboxMessage)
        .scalar_subquery()
    )


def claim_statements(
    dialect: str,
    now: datetime,
    lease_now: datetime,
    limit: int,
    *,
    claimer: str,
    lease_seconds: int,
) -> list[Executable]:
    """The statements of one claim, in order, for its transaction: take the claims' turn
    (PostgreSQL's advisory lock; SQLite's writer lock comes with the first write), address
    the new events, claim up to `limit` due messages for `claimer`. Each reads only the
    unsettled rows, so the turn is held briefly however long the outbox grows.
    `benchmarks/outbox.py` times them."""
    lock = [select(func.pg_advisory_xact_lock(CLAIM_LOCK))] if dialect == "postgresql" else []
    take = (
        update(OutboxMessage)
        .where(col(OutboxMessage.id).in_(_claimable(now, lease_now, limit)))
        .values(
            status=OutboxStatus.SENDING,
            claimed_by=claimer,
            claimed_until=lease_now + timedelta(seconds=lease_seconds),
        )
        .execution_options(synchronize_session=False)
    )
    return [*lock, _ADDRESS_EVENTS, take]


@retried
def claim(engine: Engine, *, claimer: str, limit: int, lease_seconds: int) -> list[OutboxMessage]:
    """Claim up to `limit` due messages for `claimer` (a fresh id per claim) and return them
    in order; none that an earlier message to its address holds back.

    Leases run on the system's clock, not the development clock (`server.clock`): they time
    processes, and a clock moved on by days must not hand a batch being sent to another
    worker."""
    now, lease_now = utcnow(), timesource.system_now()
    with Session(engine, expire_on_commit=False) as session:
        dialect = session.get_bind().dialect.name
        for statement in claim_statements(
            dialect, now, lease_now, limit, claimer=claimer, lease_seconds=lease_seconds
        ):
            session.execute(statement)
        session.commit()
        return list(
            session.scalars(
                select(OutboxMessage)
                .where(
                    col(OutboxMessage.claimed_by) == claimer,
                    col(OutboxMessage.status) == OutboxStatus.SENDING,
                )
                .order_by(col(OutboxMessage.id))
            )
        )


#: The update of a message its claimer still holds; the SET clause is made from the
#: parameters. Built once: the worker runs it after every message.
_FINISH = update(_OUTBOX).where(
    _OUTBOX.c.id == bindparam("held_id"),
    _OUTBOX.c.claimed_by == bindparam("held_by"),
    _OUTBOX.c.status == OutboxStatus.SENDING,
)


@retried
def _finish(engine: Engine, message: OutboxMessage, claimer: str, **values: object) -> None:
    """Update a message this claimer still holds (a lapsed claim is left to its new owner)."""
    with engine.begin() as connection:
        connection.execute(_FINISH, _finished(message, claimer, **values))


def _finished(message: OutboxMessage, claimer: str, **values: object) -> dict[str, object]:
    """The parameters of `_FINISH`: the claim on `message` released, `values` written."""
    return {
        "held_id": message.id,
        "held_by": claimer,
        "claimed_by": None,
        "claimed_until": None,
        **values,
    }


#: A claimed message marked sent, with the fields its worker rendered (for an event).
_SENT = _FINISH.values(
    status=OutboxStatus.SENT,
    attempts=_OUTBOX.c.attempts + 1,
    claimed_by=None,
    claimed_until=None,
)


@retried
def mark_sent(engine: Engine, messages: Sequence[OutboxMessage], claimer: str) -> None:
    """These messages were accepted by the SMTP server: one statement for all of them."""
    if not messages:
        return
    now = utcnow()
    with engine.begin() as connection:
        connection.execute(
            _SENT,
            [
                {
                    "held_id": message.id,
                    "held_by": claimer,
                    "sent_at": now,
                    "to_addr": message.to_addr,
                    "subject": message.subject,
                    # a sign-in email's body holds its code and link: never written down
                    "body": "" if message.kind in SIGNIN_KINDS else message.body,
                    "html": None if message.kind in SIGNIN_KINDS else message.html,
                    "headers": message.headers,
                }
                for message in messages
            ],
        )


@retried
def drop(engine: Engine, dropped: Sequence[tuple[OutboxMessage, str, str]], claimer: str) -> None:
    """Events not to send, each with its status (`superseded`, `skipped`) and reason, and
    its address as rendering left it (a sign-in email nobody would receive forgets it)."""
    if not dropped:
        return
    with engine.begin() as connection:
        connection.execute(
            _FINISH,
            [
                _finished(
                    message,
                    claimer,
                    status=status,
                    last_error=reason[:500],
                    to_addr=message.to_addr,
                )
                for message, status, reason in dropped
            ],
        )


@retried
def release(
    engine: Engine, messages: Sequence[OutboxMessage], claimer: str, *, reason: str
) -> None:
    """Hand messages back unsent and due at once, not counting an attempt: the SMTP server
    could not be reached, which is no fault of theirs."""
    if not messages:
        return
    with engine.begin() as connection:
        connection.execute(
            update(_OUTBOX)
            .where(
                _OUTBOX.c.id.in_([message.id for message in messages]),
                _OUTBOX.c.claimed_by == claimer,
                _OUTBOX.c.status == OutboxStatus.SENDING,
            )
            .values(
                status=OutboxStatus.PENDING,
                claimed_by=None,
                claimed_until=None,
                last_error=reason[:500],
            )
        )


def mark_failed(
    engine: Engine,
    message: OutboxMessage,
    claimer: str,
    *,
    error: str,
    permanent: bool,
    policy: RetryPolicy,
) -> bool:
    """Record a failed attempt; True when the message will be retried later."""
    attempts = message.attempts + 1
    retry = not permanent and attempts < policy.max_attempts
    _finish(
        engine,
        message,
        claimer,
        status=OutboxStatus.PENDING if retry else OutboxStatus.FAILED,
        attempts=attempts,
        last_error=error[:500],
        available_at=utcnow() + policy.delay(attempts) if retry else message.available_at,
    )
    return retry


def postpone(engine: Engine, message: OutboxMessage, claimer: str, *, until: datetime) -> None:
    """Hand the message back unsent until `until` (not an attempt: nothing was tried)."""
    _finish(engine, message, claimer, status=OutboxStatus.PENDING, available_at=until)


@retried
def requeue(engine: Engine, *, failed: bool, since: datetime | None) -> int:
    """Make messages due now: those waiting for a retry, and with `failed` also those that
    were given up on (their attempts start again). `since`: only messages queued since then.
    The number of messages re-queued."""
    statuses = [OutboxStatus.PENDING, OutboxStatus.FAILED] if failed else [OutboxStatus.PENDING]
    query = update(_OUTBOX).where(_OUTBOX.c.status.in_(statuses))
    if since is not None:
        query = query.where(_OUTBOX.c.created_at >= since)
    values: dict[str, object] = {"status": OutboxStatus.PENDING, "available_at": utcnow()}
    if failed:
        values["attempts"] = case(
            (_OUTBOX.c.status == OutboxStatus.FAILED, 0), else_=_OUTBOX.c.attempts
        )
    with engine.begin() as connection:
        return connection.execute(query.values(**values)).rowcount


def counts(engine: Engine) -> dict[str, int]:
    """How many messages are in each status."""
    with Session(engine) as session:
        rows = session.execute(
            select(col(OutboxMessage.status), func.count()).group_by(OutboxMessage.status)
        ).all()
    return dict(rows)
