"""Deadlines as players read them: the time left in words ("2 days 4 hours", "23 minutes")
and the moment in the player's own time zone (their `timezone` preference).

`zoneinfo` loads only when a zone is looked up (`zone`): `cafe --help` and the commands
that show no moment do without it.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

#: Less time left than this, and a deadline stands out.
CLOSE = timedelta(hours=24)


def parse(moment: str) -> datetime:
    """An ISO 8601 time from the API (`2026-03-05T14:00:00Z`)."""
    return datetime.fromisoformat(moment).astimezone(UTC)


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}{'' if number == 1 else 's'}"


def time_left(deadline: datetime, now: datetime) -> str:
    """`2 days 4 hours`, `5 hours 12 minutes`, `23 minutes`, or `time is up`."""
    left = deadline - now
    return "time is up" if left <= timedelta(0) else words(left)


def words(span: timedelta) -> str:
    """A positive span as people say it, in its two largest units, rounded up to the minute
    (a fresh 3-day turn has "3 days" left, not "2 days 23 hours")."""
    minutes = math.ceil(span.total_seconds() / 60)
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    if days:
        return _count(days, "day") + (f" {_count(hours, 'hour')}" if hours else "")
    if hours:
        return _count(hours, "hour") + (f" {_count(minutes, 'minute')}" if minutes else "")
    return _count(minutes, "minute")


def zone(name: str | None) -> ZoneInfo:
    """The player's zone; UTC if the server gave none or one this machine does not know."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # noqa: PLC0415 (see the docstring)

    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def local(moment: datetime, where: ZoneInfo) -> str:
    """`Thu 5 Mar 14:00 CET`: the moment in the player's zone."""
    shown = moment.astimezone(where)
    return f"{shown:%a} {shown.day} {shown:%b %H:%M} {shown.tzname()}"


def deadline_text(deadline: str | None, where: ZoneInfo, now: datetime | None = None) -> str:
    """`2 days 4 hours left (Thu 5 Mar 14:00 CET)`, marked `!` when it is close;
    `none` for a game without one."""
    if deadline is None:
        return "none"
    left, moment = deadline_parts(deadline, where, now)
    words = left if left.endswith("time is up") else f"{left} left"
    return f"{words} ({moment})"


def deadline_parts(
    deadline: str | None, where: ZoneInfo, now: datetime | None = None
) -> tuple[str, str]:
    """The time left (`2 days 4 hours`, `! 5 hours` when it is close) and the moment in
    the player's zone (`Thu 5 Mar 14:00 CET`) of a deadline; `-` and `-` without one."""
    if deadline is None:
        return "-", "-"
    moment = parse(deadline)
    now = now or datetime.now(UTC)
    close = moment - now < CLOSE
    return f"{'! ' if close else ''}{time_left(moment, now)}", local(moment, where)
