"""The development clock (`CAFE_DEV_CLOCK=1`): time shifted by an offset kept in the database.

The offset lives in the one-row table `dev_clock`, so that every process of the database
(gunicorn workers, `cafe-server worker`s, `cafe-server dev`) sees the same time, whatever
its secret key. `cafe-server clock advance|set|show` move and read it. Only development and
end-to-end tests turn it on; with it on every process logs a loud warning at start and
`/healthz` reports the shift, so it cannot stay on unnoticed.
"""

from __future__ import annotations

import logging
import math
from datetime import UTC, datetime, timedelta

from flask import Flask
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from cafe.render import quantities
from server.clock import timesource
from server.config import ConfigError, settings_of
from server.db import engine_of
from server.models import DevClock, iso
from server.transactions import outage

log = logging.getLogger(__name__)

WARNING = (
    "CAFE_DEV_CLOCK is on: this process keeps the development clock of its database, "
    "shifted by `cafe-server clock`; never turn it on in a deployment"
)
_READ = text("SELECT offset_seconds FROM dev_clock WHERE id = 1")


class ClockError(ValueError):
    """A development clock command that cannot be done; the message says why."""


def parse_duration(value: str) -> timedelta:
    """`36h`, `3d`, `1d12h`, `90m` as a duration (`cafe.render.quantities.parse_duration`)."""
    try:
        return quantities.parse_duration(value)
    except ValueError as error:
        raise ClockError(str(error)) from None


def parse_moment(value: str) -> datetime:
    """An ISO 8601 time (`2027-01-01T00:00Z`); one without a zone is taken as UTC."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ClockError(f"{value!r} is not a time: write e.g. 2027-01-01T00:00Z") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def read_offset(engine: Engine) -> timedelta:
    """The shift stored in the database (none until one is set)."""
    with engine.connect() as connection:
        seconds = connection.execute(_READ).scalar()
    return timedelta(seconds=seconds or 0)


class LastOffset:
    """The offset of `engine`'s development clock, read anew each time it is asked: the
    process's offset reader (`timesource.install_dev_offset`). When a read meets a database
    that cannot be reached, or a connection that broke under it, the offset read last is
    the answer: the time is then at most as stale as the last `cafe-server clock` move,
    and what asked the time (a response's time stamp, in a hook where the error would end
    the request with a 500) goes on; whatever needs the database fails on its own."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.last: timedelta | None = None

    def __call__(self) -> timedelta:
        try:
            self.last = read_offset(self.engine)
        except DBAPIError as error:
            if self.last is None or not outage(error):
                raise
            log.warning("development clock unread (%s): its last offset is used", error.orig)
        return self.last


def write_offset(engine: Engine, offset: timedelta) -> None:
    """Store the shift, whole seconds."""
    with Session(engine) as session:
        row = session.get(DevClock, 1) or DevClock(id=1)
        row.offset_seconds = int(offset.total_seconds())
        session.add(row)
        session.commit()


def advance(engine: Engine, by: timedelta) -> datetime:
    """Move the development clock on by `by`; the new time."""
    if by <= timedelta(0):
        raise ClockError("the development clock only moves forward")
    write_offset(engine, read_offset(engine) + by)
    return timesource.system_now() + read_offset(engine)


def set_to(engine: Engine, moment: datetime) -> datetime:
    """Set the development clock to `moment` (not earlier than its time now); the new time."""
    offset = read_offset(engine)
    current = timesource.system_now() + offset
    if moment < current:
        raise ClockError(f"the development clock only moves forward: it is {iso(current)} already")
    # whole seconds, rounded up: the clock shows `moment` or a moment after it
    write_offset(
        engine, timedelta(seconds=math.ceil((moment - timesource.system_now()).total_seconds()))
    )
    return moment


def shift_text(offset: timedelta) -> str:
    """`+3 days 4:00:00`: the shift as operators read it."""
    return f"+{offset}" if offset >= timedelta(0) else str(offset)


def init_app(app: Flask) -> None:
    """With `DEV_CLOCK` on, put this process on the database's development clock, loudly."""
    if not settings_of(app).dev_clock:
        return
    url = str(settings_of(app).database_url)
    if url in ("sqlite://", "sqlite:///:memory:"):
        raise ConfigError(
            "CAFE_DEV_CLOCK=1 needs a database that processes share: a SQLite file or PostgreSQL"
        )
    engine = engine_of(settings_of(app))
    app.extensions["cafe_dev_clock"] = engine
    timesource.install_dev_offset(LastOffset(engine))
    log.warning("%s", WARNING)
