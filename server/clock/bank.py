"""The vacation bank, as pure functions (docs/league.md; the OGS rule).

A player starts with 14 days; every 8 hours they spend off vacation earn 1 hour (1 day per
8 days), up to 30 days. The bank counts whole hours. A declared vacation of N days is paid
(N × 24 h) when it starts; ending it early gives back the unused whole hours; automatic
vacation days are taken from the same bank.

`Bank` is the balance at a moment (`as_of`) plus the time off vacation since the last hour
credited (`carry`); `settle` moves it forward over time, paying a vacation whose start it
crosses. Stored, it is three columns of the player; everything else follows from them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from cafe.i18n import lazy_gettext
from server.clock.deadlines import Interval

HOUR = timedelta(hours=1)
START_HOURS = 14 * 24
CAP_HOURS = 30 * 24
#: Time off vacation that earns one hour.
EARNS_AN_HOUR = 8 * HOUR


class BankRefusal(ValueError):
    """A vacation the bank or the rules do not allow; the message says why, with the balance."""


@dataclass(frozen=True)
class Bank:
    """A vacation bank: `hours` at `as_of`, and `carry`, time off vacation not yet credited."""

    hours: int
    as_of: datetime
    carry: timedelta = timedelta(0)

    @classmethod
    def new(cls, at: datetime) -> Bank:
        """A new player's bank."""
        return cls(START_HOURS, at)

    @property
    def days(self) -> float:
        """The balance in days (hour precision)."""
        return self.hours / 24


@dataclass(frozen=True)
class Vacation:
    """A declared vacation: `days` whole days from `start`, and its `end` (earlier if it
    was ended early)."""

    start: datetime
    end: datetime
    days: int

    @property
    def cost_hours(self) -> int:
        """What the bank pays when it starts."""
        return self.days * 24

    @property
    def pause(self) -> Interval:
        """The interval in which it pauses the player's clocks."""
        return Interval(self.start, self.end)


def _earn(bank: Bank, off: timedelta) -> Bank:
    """`bank` after `off` more time off vacation."""
    carry = bank.carry + off
    earned = carry // EARNS_AN_HOUR
    hours = min(CAP_HOURS, bank.hours + earned)
    carry = timedelta(0) if hours == CAP_HOURS else carry - earned * EARNS_AN_HOUR
    return replace(bank, hours=hours, carry=carry)


def settle(bank: Bank, to: datetime, vacation: Vacation | None = None) -> Bank:
    """The bank at `to` (not before `bank.as_of`): time off vacation earns, and `vacation`
    is paid if it starts in `(as_of, to]` (a bank `as_of` a moment has paid every vacation
    started by then)."""
    if to < bank.as_of:
        raise ValueError(f"cannot settle a bank back in time ({to} < {bank.as_of})")
    moment = bank.as_of
    if vacation is not None and vacation.start <= to and moment < vacation.end:
        if moment < vacation.start:
            bank = _earn(bank, vacation.start - moment)
            bank = replace(bank, hours=bank.hours - vacation.cost_hours)
        moment = min(vacation.end, to)
    if moment < to:
        bank = _earn(bank, to - moment)
    return replace(bank, as_of=to)


def declare(
    bank: Bank, *, now: datetime, days: int, start: datetime | None = None
) -> tuple[Bank, Vacation]:
    """A vacation of `days` whole days from `start` (default `now`) if the bank can pay it
    now, else `BankRefusal`; with the bank settled to `now` (and paid, if it starts now)."""
    start = now if start is None else start
    if days < 1:
        raise BankRefusal(lazy_gettext("a vacation lasts at least 1 day"))
    if start < now:
        raise BankRefusal(lazy_gettext("a vacation cannot start in the past"))
    balance = settle(bank, now)
    if balance.hours < days * 24:
        raise BankRefusal(
            lazy_gettext(
                "your vacation bank holds %(held)s days, not enough for %(wanted)s",
                held=format(balance.days, "g"),
                wanted=days,
            )
        )
    vacation = Vacation(start=start, end=start + days * 24 * HOUR, days=days)
    if start == now:
        balance = replace(balance, hours=balance.hours - vacation.cost_hours)
    return balance, vacation


def end_early(bank: Bank, vacation: Vacation, *, now: datetime) -> tuple[Bank, Vacation | None]:
    """End `vacation` at `now`: the bank settled to `now` with the unused whole hours given
    back, and the vacation as it was taken (None if it had not started: nothing was paid)."""
    if vacation.start > now:
        return settle(bank, now), None
    settled = settle(bank, now, vacation)
    unused = max(timedelta(0), vacation.end - now) // HOUR
    taken = replace(vacation, end=min(now, vacation.end))
    return replace(settled, hours=settled.hours + unused), taken


def take_day(bank: Bank, *, now: datetime, reserved: int = 0) -> Bank:
    """The bank settled to `now` after an automatic vacation day; `BankRefusal` if it holds
    less than a day beyond the `reserved` hours (a declared vacation not yet paid)."""
    balance = settle(bank, now)
    if balance.hours - reserved < 24:
        raise BankRefusal(
            lazy_gettext(
                "the vacation bank holds %(held)s days: no day to take",
                held=format(balance.days, "g"),
            )
        )
    return replace(balance, hours=balance.hours - 24)


def next_accrual(bank: Bank, *, now: datetime, vacation: Vacation | None = None) -> datetime | None:
    """When the bank (settled to `now`) next earns an hour: None at the cap; after the
    vacation if one is under way."""
    settled = settle(bank, now, vacation)
    if settled.hours >= CAP_HOURS:
        return None
    off_from = now
    if vacation is not None and vacation.start <= now < vacation.end:
        off_from = vacation.end
    return off_from + (EARNS_AN_HOUR - settled.carry)
