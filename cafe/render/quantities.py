"""One way to write each quantity, wherever it is shown: emails, web pages and `cafe`.

Time left, durations and the vacation bank are rounded **down** (a turn with 2 days
23:59:30 left has "2 days 23 hours", never "3 days": a player must not believe they have
more time than they have) and said in their two largest units; points carry their sign;
league points drop needless decimals; ratings have one decimal place; decimals are written
with the separator of the language in use (`1,5` in Czech, German and Russian).

Every count with its noun is a whole message of the catalogs (`cafe.i18n.ngettext`), in the
language in use: Czech and Russian have three forms ("2 body", "5 bodů"; "21 очко").

Pure functions of the standard library: no clock, no time zone, no I/O.
"""

from __future__ import annotations

import re
from datetime import timedelta
from fractions import Fraction

from cafe.i18n import N_, decimal_point, gettext, ngettext

#: Less time left than this, and a deadline stands out (`!` in `cafe`, marked on pages).
URGENT = timedelta(days=1)

_MINUTE = timedelta(minutes=1)


def signed(number: int, minus: str = "-") -> str:
    """A whole number with its sign, as points and stool values are written: `+3`, `-10`,
    `0` bare (`minus` may be the typographic `−` in pictures)."""
    if number == 0:
        return "0"
    return f"+{number}" if number > 0 else f"{minus}{-number}"


def points(number: int, minus: str = "-") -> str:
    """Points scored, signed and counted: `+1 point`, `+17 points`, `-4 points`, `0 points`
    (the noun takes the form of the number's absolute value: "-2 body", "-5 bodů")."""
    return ngettext(
        "%(signed)s point", "%(signed)s points", abs(number), signed=signed(number, minus)
    )


def days(number: int) -> str:
    """`1 day`, `3 days`."""
    return ngettext("%(num)s day", "%(num)s days", number)


def hours(number: int) -> str:
    """`1 hour`, `5 hours`."""
    return ngettext("%(num)s hour", "%(num)s hours", number)


def minutes(number: int) -> str:
    """`1 minute`, `40 minutes`."""
    return ngettext("%(num)s minute", "%(num)s minutes", number)


def league_points(value: Fraction | float) -> str:
    """League points: whole numbers plain, shared places' fractions to two decimals at most
    (`3`, `1.5`, `2.33`; `1,5` in Czech, German and Russian)."""
    return _decimal(f"{float(value):.2f}".rstrip("0").rstrip("."))


def rating(value: float) -> str:
    """A rating figure (the ordinal, mu, sigma) to one decimal place: `25.0`, `-3.4`
    (`25,0` in Czech, German and Russian)."""
    text = f"{value:.1f}"
    return _decimal("0.0" if text == "-0.0" else text)


def rating_change(value: float) -> str:
    """A rating's change, signed, to one decimal place: `+1.3`, `-0.4`, `0.0`."""
    text = f"{value:+.1f}"
    return _decimal("0.0" if text in ("+0.0", "-0.0") else text)


def _decimal(text: str) -> str:
    """`text`, a number written with `.`, with the decimal separator of the language in use."""
    return text.replace(".", decimal_point())


def duration(span: timedelta) -> str:
    """A span of time in its two largest units, rounded down to the minute: `2 days 23
    hours`, `1 day 12 hours`, `3 days`, `5 hours 10 minutes`, `40 minutes`, and `less than
    a minute` for what is shorter (or nothing)."""
    whole = int(span // _MINUTE)
    if whole <= 0:
        return gettext("less than a minute")
    in_days, whole = divmod(whole, 24 * 60)
    in_hours, in_minutes = divmod(whole, 60)
    if in_days:
        return _two(days(in_days), hours(in_hours) if in_hours else "")
    if in_hours:
        return _two(hours(in_hours), minutes(in_minutes) if in_minutes else "")
    return minutes(in_minutes)


def _two(larger: str, smaller: str) -> str:
    """Two units of one span side by side, the smaller left out when it is none."""
    return gettext("%(larger)s %(smaller)s", larger=larger, smaller=smaller) if smaller else larger


def time_left(span: timedelta) -> str:
    """The time left before a deadline, as a phrase: `2 days 23 hours left`, `less than a
    minute left`, or `time is up` once it has passed."""
    if span <= timedelta(0):
        return gettext("time is up")
    return gettext("%(duration)s left", duration=duration(span))


def urgent(span: timedelta) -> bool:
    """Whether a deadline `span` away stands out: less than a day (`URGENT`) left."""
    return span < URGENT


def bank(balance: int) -> str:
    """A vacation bank's `balance` in whole hours: `13 days 9 hours`, `14 days`,
    `5 hours`, `0 days`."""
    if balance <= 0:
        return days(0)
    in_days, in_hours = divmod(balance, 24)
    if not in_days:
        return hours(in_hours)
    return _two(days(in_days), hours(in_hours) if in_hours else "")


def bank_hours(days: float) -> int:
    """The whole hours of a balance given in days (the API's `bank_days`, hour precision)."""
    return round(days * 24)


#: Where a league game is played: its league, season and division.
SEASON_PLACE = N_("%(league)s, season %(season)s, division %(division)s")


def season_place(league: str, season: int, division: int) -> str:
    """Where a league game is played, for its reader, in the language in use: `Spring
    League, season 2, division 1` (`Spring League, sezóna 2, divize 1`)."""
    return gettext(SEASON_PLACE, league=league, season=season, division=division)


def season_event(league: str, season: int, division: int) -> str:
    """The same place in English whatever the language in use: a game record's `Event`
    tag, which is a file format's (`cafe.record`), not a reader's."""
    return SEASON_PLACE % {"league": league, "season": season, "division": division}


def season_path(slug: str, season: int) -> str:
    """The path of a season's page: `/leagues/spring/seasons/2`."""
    return f"/leagues/{slug}/seasons/{season}"


def season_short_path(slug: str, season: int) -> str:
    """The short path to a season's page, which leads there: `/leagues/spring/2`. Plain-text
    email gives it, so that the link fits its 78 columns with the longest slug and season
    number there are (a link cannot be broken)."""
    return f"/leagues/{slug}/{season}"


_UNITS = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
_DURATION = re.compile(r"(?:[0-9]{1,6}[dhms])+")
_PART = re.compile(r"([0-9]+)([dhms])")


def parse_duration(text: str) -> timedelta:
    """`36h`, `3d`, `1d12h`, `90m`, `45s` as a duration; a `ValueError` naming the text and
    the form otherwise."""
    if not _DURATION.fullmatch(text.strip()):
        raise ValueError(f"{text!r} is not a duration: write e.g. 36h, 3d, 1d12h or 90m")
    parts = _PART.findall(text)
    return sum((timedelta(**{_UNITS[unit]: int(n)}) for n, unit in parts), timedelta(0))
