"""Moments and days as emails and pages show them: in the reader's language, with CLDR's
formats for it (Babel, `cafe.i18n.moment` and `day`, which `cafe` writes its dates with
too), and in the reader's time zone. The one way the service writes a
date or a time for people (time left and other spans are `cafe.render.quantities`'s,
which never rounds 36 hours up to "2 days").

Times are stored in UTC (docs/league.md); a player reads them in their own zone (their
`timezone` setting, an IANA name; an unknown one falls back to UTC): the one given, else the
zone in use (`server.i18n.zone`: the signed-in player's on a page, the recipient's in an
email). English is written as the service always wrote it, day before month and a 24-hour
clock (CLDR's British English).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cafe import i18n
from server.i18n import zone as zone_in_use


def zone(name: str) -> tzinfo:
    """The time zone called `name`, or UTC if there is none of that name."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _seen(moment: datetime, zone_name: str | None) -> datetime:
    """`moment` (naive: UTC, as SQLite gives it back) in the zone named, or the zone in use."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(zone(zone_name or zone_in_use()))


def local(moment: datetime, zone_name: str | None = None) -> str:
    """`Thu, 5 Mar 2026, 10:00 CET` (`čt 5. 3. 2026 10:00 SEČ`, `Do., 5. März 2026, 10:00
    MEZ`, `чт, 5 мар. 2026 г., 10:00 CET`): `moment` in the zone `zone_name` (default: the
    zone in use), in the language in use (`cafe.i18n.moment`)."""
    return i18n.moment(_seen(moment, zone_name))


def day(moment: datetime | date, zone_name: str | None = None) -> str:
    """`5 Mar 2026` (`5. 3. 2026`, `05.03.2026`, `5 мар. 2026 г.`): the day of `moment` (a
    time: its day in the zone `zone_name`, default the zone in use) in the language in use."""
    return i18n.day(_seen(moment, zone_name).date() if isinstance(moment, datetime) else moment)


#: The template filters that write dates and times, for the emails and the pages alike:
#: `{{ season.started_at|day }}`, `{{ token.created_at|moment }}`.
TIME_FILTERS = {"moment": local, "day": day}
