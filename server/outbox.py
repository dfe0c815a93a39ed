"""The outbox table's life cycle: claim due messages, then mark them sent, retry or failed.

A claim is one `UPDATE … WHERE id IN (SELECT … LIMIT n)` that stamps the rows with the
claimer's unique id and a lease. On PostgreSQL the inner select is `FOR UPDATE SKIP LOCKED`,
so concurrent workers take disjoint rows without waiting; on SQLite the single UPDATE runs
under the database's one write lock, which makes it atomic all the same. A worker that dies
holding a claim loses it when the lease runs out, and another worker retries the message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, bindparam, func, or_, select, update
from sqlmodel import Session, col

from server.models import OutboxMessage, utcnow


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently delivery is retried."""

    max_attempts: int = 8
    backoff_seconds: int = 30  # before the 2nd attempt; doubled for each further one
    lease_seconds: int = 300

    def delay(self, attempts: int) -> timedelta:
        """The wait after the `attempts`-th failed attempt."""
        return timedelta(seconds=self.backoff_seconds * 2 ** (attempts - 1))


def claim(engine: Engine, *, claimer: str, limit: int, lease_seconds: int) -> list[OutboxMessage]:
    """Claim up to `limit` due messages for `claimer` (a fresh id per claim) and return them."""
    now = utcnow()
    due = (
        select(OutboxMessage.id)
        .where(
            or_(
                (col(OutboxMessage.status) == "pending") & (col(OutboxMessage.available_at) <= now),
                (col(OutboxMessage.status) == "sending") & (col(OutboxMessage.claimed_until) < now),
            )
        )
        .order_by(col(OutboxMessage.id))
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    with Session(engine, expire_on_commit=False) as session:
        session.execute(
            update(OutboxMessage)
            .where(col(OutboxMessage.id).in_(due.scalar_subquery()))
            .values(
                status="sending",
                claimed_by=claimer,
                claimed_until=now + timedelta(seconds=lease_seconds),
            )
            .execution_options(synchronize_session=False)
        )
        session.commit()
        return list(
            session.scalars(
                select(OutboxMessage)
                .where(
                    col(OutboxMessage.claimed_by) == claimer, col(OutboxMessage.status) == "sending"
                )
                .order_by(col(OutboxMessage.id))
            )
        )


_OUTBOX = OutboxMessage.__table__  # type: ignore[attr-defined]
#: The update of a message its claimer still holds; the SET clause is made from the
#: parameters. Built once: the worker runs it after every message.
_FINISH = update(_OUTBOX).where(
    _OUTBOX.c.id == bindparam("held_id"),
    _OUTBOX.c.claimed_by == bindparam("held_by"),
    _OUTBOX.c.status == "sending",
)


def _finish(engine: Engine, message: OutboxMessage, claimer: str, **values: object) -> None:
    """Update a message this claimer still holds (a lapsed claim is left to its new owner)."""
    with engine.begin() as connection:
        connection.execute(
            _FINISH,
            {
                "held_id": message.id,
                "held_by": claimer,
                "claimed_by": None,
                "claimed_until": None,
                **values,
            },
        )


def mark_sent(engine: Engine, message: OutboxMessage, claimer: str) -> None:
    """The message was accepted by the SMTP server."""
    attempts = message.attempts + 1
    _finish(engine, message, claimer, status="sent", sent_at=utcnow(), attempts=attempts)


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
        status="pending" if retry else "failed",
        attempts=attempts,
        last_error=error[:500],
        available_at=utcnow() + policy.delay(attempts) if retry else message.available_at,
    )
    return retry


def postpone(engine: Engine, message: OutboxMessage, claimer: str, *, until: datetime) -> None:
    """Hand the message back unsent until `until` (not an attempt: nothing was tried)."""
    _finish(engine, message, claimer, status="pending", available_at=until)


def counts(engine: Engine) -> dict[str, int]:
    """How many messages are in each status."""
    with Session(engine) as session:
        rows = session.execute(
            select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)
        ).all()
    return dict(rows)
