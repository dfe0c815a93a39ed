"""The weekly league digest, sent by the worker's sweep (`server.jobs.sweep`).

A running season's `digest_due` (indexed) is set at its start to a week later. The sweep
takes the seasons whose digest is due through that index, each in its own short
transaction that claims it as it lists it (`due_seasons`); then a compare-and-set moves
`digest_due` on from the value it read (to the first weekly time after now: after a long
outage one digest goes out, not one per missed week) and, only if that update took the
row, the members' digests are queued in the same transaction
(`server.league.emails.weekly_digest`). Of two workers, or two sweeps, only one
moves a given `digest_due`, so a week's digest is queued once; a crash rolls back both.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from server.config import Settings
from server.db import write_transaction
from server.league import emails
from server.league.start import DIGEST_EVERY
from server.models import League, Season, SeasonStatus, utcnow


def due_seasons(now: datetime) -> Select[int | None, datetime | None]:
    """(id, digest_due) of the running seasons whose digest is due, earliest first: the
    sweep claims them one at a time (`server.jobs.sweep`)."""
    return (
        select(Season.id, Season.digest_due)
        .where(col(Season.digest_due) <= now, col(Season.status) == SeasonStatus.RUNNING)
        .order_by(col(Season.digest_due), col(Season.id))
    )


def next_due(due: datetime, now: datetime) -> datetime:
    """The first weekly time after `now`, counting from `due`."""
    while due <= now:
        due += DIGEST_EVERY
    return due


def send_digest(session: Session, season_id: int, due: datetime, *, config: Settings) -> int | None:
    """Claim the season's digest due at `due` and queue it, and commit: the digests queued,
    or None when another sweep took it first."""
    with write_transaction(session):
        return _send(session, season_id, due, config)


def _send(session: Session, season_id: int, due: datetime, config: Settings) -> int | None:
    now = utcnow()
    claimed = session.exec(
        update(Season)
        .where(
            col(Season.id) == season_id,
            col(Season.status) == SeasonStatus.RUNNING,
            col(Season.digest_due) == due,
        )
        .values(digest_due=next_due(due, now))
        .execution_options(synchronize_session=False)
    )
    if claimed.rowcount != 1:
        return None
    season, league = session.exec(
        select(Season, League)
        .join(League, col(League.id) == Season.league_id)
        .where(col(Season.id) == season_id)
        .execution_options(populate_existing=True)
    ).one()
    return emails.weekly_digest(session, league=league, season=season, config=config)
