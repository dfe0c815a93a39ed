"""Moments as emails and pages show them, in the reader's time zone (time left and other
spans are said by `cafe.render.quantities`).

Times are stored in UTC (docs/league.md); a player reads them in their
own zone (their `timezone` setting, an IANA name; an unknown one falls back to UTC).
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
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
