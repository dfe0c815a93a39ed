"""Deadlines as players read them: the time left in words ("2 days 4 hours", "23 minutes")
and the moment in the player's own time zone (their `timezone` preference).

`zoneinfo` loads only when a zone is looked up (`zone`), the engine's wording of
quantities (`cafe.render.quantities`) only when a time is said, and Babel only when a
moment is written (`local`): `cafe --help` and the commands that show no moment do without
them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from cafe.i18n import gettext as _
from cafe.i18n import moment as moment_text

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo


def parse(moment: str) -> datetime:
    """An ISO 8601 time from the API (`2026-03-05T14:00:00Z`)."""
    return datetime.fromisoformat(moment).astimezone(UTC)


def time_left(deadline: datetime, now: datetime) -> str:
    """`2 days 4 hours left`, `23 minutes left`, or `time is up` (rounded down, as every
    view says it: `cafe.render.quantities.time_left`)."""
    from cafe.render import quantities  # noqa: PLC0415 (see the docstring)

    return quantities.time_left(deadline - now)


def zone(name: str | None) -> ZoneInfo:
    """The player's zone; UTC if the server gave none or one this machine does not know."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # noqa: PLC0415 (see the docstring)

    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def local(moment: datetime, where: ZoneInfo) -> str:
    """`Thu 5 Mar 14:00 CET`: the moment in the player's zone, written as the emails and
    pages write it but for the year, narrow enough for a table's cell (`cafe.i18n.moment`:
    CLDR's formats, through Babel, in the language in use: `čt 5. 3. 14:00 SEČ`, `Do., 5.
    März 14:00 MEZ`, `чт, 5 мар. 14:00 CET`)."""
    return moment_text(moment.astimezone(where), year=False)


def deadline_text(deadline: str | None, where: ZoneInfo, now: datetime) -> str:
    """`2 days 4 hours left (Thu 5 Mar 14:00 CET)`, marked `!` when less than a day is
    left; `none` for a game without one. `now` is the server's time (`ApiClient.now`), so
    that a machine whose clock is off, or the development clock, shows what the page and
    the emails show."""
    from cafe.render import quantities  # noqa: PLC0415 (see the docstring)

    if deadline is None:
        return _("none")
    moment = parse(deadline)
    mark = "! " if quantities.urgent(moment - now) else ""
    return f"{mark}{time_left(moment, now)} ({local(moment, where)})"


def deadline_parts(deadline: str | None, where: ZoneInfo, now: datetime) -> tuple[str, str]:
    """The time left at the server's time `now` (`2 days 4 hours`, `! 5 hours` when less
    than a day is left, `! time is up`), for a cell under the heading "left", and the
    moment in the player's zone (`Thu 5 Mar 14:00 CET`) of a deadline; `-` and `-` without
    one."""
    from cafe.render import quantities  # noqa: PLC0415 (see the docstring)

    if deadline is None:
        return "-", "-"
    moment = parse(deadline)
    mark = "! " if quantities.urgent(moment - now) else ""
    span = moment - now
    left = quantities.duration(span) if span > timedelta(0) else quantities.time_left(span)
    return f"{mark}{left}", local(moment, where)
