"""The service's one time source: `now()`.

Everything that compares times with deadlines asks `now()` (and `server.models.utcnow`,
the default of every `created_at`, is `now()` too), so that

- tests move time by injecting a clock (`use(clock)`; `FakeClock` is one you can advance),
  with no sleeping and no patching of the system clock;
- with `CAFE_DEV_CLOCK=1` (`server.clock.devclock`), the time of every process of one
  database is shifted by the offset stored in that database, so that web processes and
  workers agree on it. `create_app` installs it for the process; a deployment never sets it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

#: Reads the development clock's offset; installed by `server.clock.devclock.init_app`.
OffsetReader = Callable[[], timedelta]

_injected: Callable[[], datetime] | None = None
_dev_offset: OffsetReader | None = None


def system_now() -> datetime:
    """The system's time, aware, in UTC."""
    return datetime.now(UTC)


def now() -> datetime:
    """The service's current time, aware, in UTC: an injected clock's if a test set one,
    else the system's, shifted by the development clock when it is on."""
    if _injected is not None:
        return _injected()
    moment = system_now()
    return moment if _dev_offset is None else moment + _dev_offset()


def install_dev_offset(reader: OffsetReader | None) -> None:
    """Shift this process's time by what `reader` reads (None: no shift)."""
    global _dev_offset  # noqa: PLW0603 (one time source per process, by design)
    _dev_offset = reader


def dev_offset_installed() -> bool:
    """Whether this process runs on the development clock."""
    return _dev_offset is not None


class FakeClock:
    """A clock for tests: it stands still at `at` until moved."""

    def __init__(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("a FakeClock needs an aware time")
        self.at = at.astimezone(UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, by: timedelta) -> datetime:
        """Move the clock on by `by`; the new time."""
        self.at += by
        return self.at


@contextmanager
def use(clock: Callable[[], datetime]) -> Iterator[Callable[[], datetime]]:
    """Make `clock` the time source of this process while the block runs."""
    global _injected  # noqa: PLW0603
    before, _injected = _injected, clock
    try:
        yield clock
    finally:
        _injected = before
