"""The daily digest for players who chose `turn_emails = digest`, queued by the worker.

Every `DIGEST_HOURS` a digest player gets one email listing their running games that wait
for them (each with its deadline, the time left, the best turn's command and its page)
and, if they asked to hear of others' turns, the turns played since the last digest. A
digest with nothing to say is not queued. Taking the period is a compare-and-set on
`Player.last_digest_at`, so with several workers each digest is queued once. It is queued
with its facts (the period and the moment) and rendered when sent (`server.mail.digest`),
like every email. The digest has no reply address: several games cannot share one.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, or_, update
from sqlmodel import Session, col, select

from server.config import Settings
from server.mail import digest
from server.models import Player, TurnEmails, utcnow
from server.postbox import outgoing


def _due(period: timedelta, now: datetime) -> Any:
    # the digest's audience (`server.postbox.kinds.Audience.DIGEST`), as a query
    return (col(Player.turn_emails) == TurnEmails.DIGEST) & or_(
        col(Player.last_digest_at).is_(None), col(Player.last_digest_at) <= now - period
    )


def queue_due(engine: Engine, config: Settings, now: datetime | None = None) -> int:
    """Queue every digest that is due; how many were queued."""
    now = now or utcnow()
    period = timedelta(hours=config.digest_hours)
    with Session(engine) as session:
        due = session.exec(select(Player).where(_due(period, now))).all()
    queued = 0
    for player in due:
        with Session(engine, expire_on_commit=False) as session:
            taken = session.exec(
                update(Player)
                .where(col(Player.id) == player.id, _due(period, now))
                .values(last_digest_at=now)
            )
            if taken.rowcount != 1:
                continue  # another worker took this period
            since = player.last_digest_at or now - period
            if digest.games_of(session, config, player, since=since):
                outgoing.queue_digest(session, config, player, since=since, at=now)
                queued += 1
            session.commit()
    return queued
