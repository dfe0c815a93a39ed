"""Times as emails show them: a moment in the reader's time zone, and time left in words.

Times are stored in UTC (README: Time controls and vacation); a player reads them in their
own zone (their `timezone` setting, an IANA name; an unknown one falls back to UTC).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def zone(name: str) -> tzinfo:
    """The time zone called `name`, or UTC if there is none of that name."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def local(moment: datetime, zone_name: str) -> str:
    """`Thu 5 Mar 2026, 10:00 CET`: `moment` in the zone `zone_name`."""
    seen = moment.astimezone(zone(zone_name))
    return f"{seen:%a} {seen.day} {seen:%b %Y, %H:%M} {seen.tzname()}"


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


def left(span: timedelta) -> str:
    """`2 days 4 hours`, `5 hours 10 minutes`, `40 minutes`: time left, to the minute,
    in at most two units (`no time` once it is up)."""
    minutes = int(span.total_seconds() // 60)
    if minutes <= 0:
        return "no time"
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    shown = [_count(n, unit) for n, unit in parts if n][:2]
    if days and not hours:
        shown = shown[:1]
    return " ".join(shown)
