"""Time controls and vacations: what clients send and are shown (docs/league.md)."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal
from zoneinfo import available_timezones

from pydantic import AfterValidator, AwareDatetime, Field

from cafe.i18n import N_
from server.schemas.fields import PublicModel, RequestModel, Timestamp

#: A game's time control when its creator does not choose one.
DEFAULT_CLOCK: dict[str, Any] = {
    "days_per_turn": 3,
    "timeout": "autoplay",
    "max_timeouts": 2,
    "vacation": True,
}


class ClockSettings(RequestModel):
    """A game's time control; each setting has its default (docs/league.md)."""

    days_per_turn: int = Field(
        default=DEFAULT_CLOCK["days_per_turn"],
        ge=1,
        le=30,
        description=N_("a whole number of days from 1 to 30"),
    )
    timeout: Literal["autoplay", "resign"] = Field(
        default=DEFAULT_CLOCK["timeout"],
        description=N_("autoplay (the server plays a turn for a player out of time) or resign"),
    )
    max_timeouts: int = Field(
        default=DEFAULT_CLOCK["max_timeouts"],
        ge=1,
        le=5,
        description=N_("a whole number from 1 to 5: time-outs in a row before a player is removed"),
    )
    vacation: bool = Field(
        default=DEFAULT_CLOCK["vacation"],
        description=N_("true or false: whether the players' vacations pause their clocks"),
    )


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    return frozenset(available_timezones())


def _known_zone(name: str) -> str:
    if name not in _zone_names():
        raise ValueError("not a time zone name")
    return name


#: An IANA time zone name, checked against the zone database.
TimeZoneName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        description=N_("an IANA time zone name such as Europe/Prague, America/New_York or UTC"),
        json_schema_extra={"enum": sorted(_zone_names())},
    ),
    AfterValidator(_known_zone),
]


class VacationCreate(RequestModel):
    """Declare a vacation of whole days, from now or from a later `start`."""

    days: int = Field(ge=1, le=30, description=N_("a whole number of days from 1 to 30"))
    start: AwareDatetime | None = Field(
        default=None,
        strict=False,
        description=N_(
            "null or a time with its zone, ISO 8601, e.g. 2027-01-01T00:00Z, not in the past"
        ),
    )


class VacationPeriod(PublicModel):
    """A declared vacation: from `start` to `end`."""

    start: Timestamp
    end: Timestamp


class VacationStatus(PublicModel):
    """The caller's vacation bank in days (hour precision), the vacation they declared (under
    way or to come), and when the bank next earns an hour (null at the 30-day cap)."""

    bank_days: float
    current: VacationPeriod | None
    next_accrual: Timestamp | None
