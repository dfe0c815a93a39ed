"""The vacation bank (`server.clock.bank`): examples of the rules, and properties over any
sequence of time passing, vacations declared and ended."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.clock.bank import (
    CAP_HOURS,
    START_HOURS,
    Bank,
    BankRefusal,
    declare,
    end_early,
    next_accrual,
    settle,
    take_day,
)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


def test_a_new_player_has_14_days_and_earns_a_day_every_8():
    bank = Bank.new(T0)
    assert bank.days == 14
    assert settle(bank, T0 + 8 * DAY).days == 15
    assert settle(bank, T0 + 8 * HOUR).hours == START_HOURS + 1  # hour precision
    assert settle(bank, T0 + 8 * HOUR - timedelta(seconds=1)).hours == START_HOURS
    assert settle(bank, T0 + 1000 * DAY).hours == CAP_HOURS


def test_earning_in_steps_equals_earning_at_once():
    bank = Bank.new(T0)
    stepped = settle(settle(settle(bank, T0 + 5 * HOUR), T0 + 11 * HOUR), T0 + 17 * HOUR)
    assert stepped.hours == settle(bank, T0 + 17 * HOUR).hours == START_HOURS + 2


def test_a_vacation_from_now_is_paid_at_once_and_earns_nothing():
    bank, vacation = declare(Bank.new(T0), now=T0, days=5)
    assert (vacation.start, vacation.end) == (T0, T0 + 5 * DAY)
    assert bank.days == 9
    assert settle(bank, T0 + 5 * DAY, vacation).days == 9  # no accrual while away
    assert settle(bank, T0 + 13 * DAY, vacation).days == 10


def test_a_later_vacation_is_paid_when_it_starts():
    bank, vacation = declare(Bank.new(T0), now=T0, days=5, start=T0 + 2 * DAY)
    assert bank.days == 14
    assert settle(bank, T0 + 2 * DAY - HOUR, vacation).hours == START_HOURS + 5
    assert settle(bank, T0 + 3 * DAY, vacation).hours == START_HOURS + 6 - 5 * 24


def test_the_bank_must_pay_the_whole_vacation():
    with pytest.raises(BankRefusal, match="holds 14 days, not enough for 15"):
        declare(Bank.new(T0), now=T0, days=15)
    with pytest.raises(BankRefusal, match="at least 1 day"):
        declare(Bank.new(T0), now=T0, days=0)
    with pytest.raises(BankRefusal, match="in the past"):
        declare(Bank.new(T0), now=T0, days=1, start=T0 - HOUR)


def test_ending_early_gives_back_the_unused_whole_hours():
    bank, vacation = declare(Bank.new(T0), now=T0, days=5)
    back, taken = end_early(bank, vacation, now=T0 + 2 * DAY + 90 * timedelta(minutes=1))
    assert taken is not None and taken.end == T0 + 2 * DAY + 90 * timedelta(minutes=1)
    assert back.hours == START_HOURS - 5 * 24 + (3 * 24 - 2)  # 70.5 h unused: 70 back


def test_ending_a_vacation_not_started_cancels_it():
    bank, vacation = declare(Bank.new(T0), now=T0, days=5, start=T0 + DAY)
    back, taken = end_early(bank, vacation, now=T0 + HOUR)
    assert taken is None and back.hours == START_HOURS


def test_automatic_days_come_from_the_same_bank():
    bank = take_day(Bank.new(T0), now=T0)
    assert bank.days == 13
    with pytest.raises(BankRefusal, match="no day to take"):
        take_day(bank, now=T0, reserved=12 * 24 + 1)


def test_next_accrual():
    assert next_accrual(Bank.new(T0), now=T0) == T0 + 8 * HOUR
    assert next_accrual(Bank.new(T0), now=T0 + 3 * HOUR) == T0 + 8 * HOUR
    bank, vacation = declare(Bank.new(T0), now=T0, days=2)
    assert next_accrual(bank, now=T0 + HOUR, vacation=vacation) == T0 + 2 * DAY + 8 * HOUR
    assert next_accrual(Bank(CAP_HOURS, T0), now=T0) is None


steps = st.lists(st.integers(min_value=0, max_value=20 * 24 * 60), min_size=1, max_size=8)


@given(steps)
def test_the_bank_stays_between_0_and_30_days_and_only_grows_off_vacation(minutes):
    bank, moment = Bank.new(T0), T0
    for step in minutes:
        moment += timedelta(minutes=step)
        later = settle(bank, moment)
        assert bank.hours <= later.hours <= CAP_HOURS
        bank = later


@given(st.integers(1, 14), st.integers(0, 100 * 24), st.integers(0, 14 * 24 * 60))
def test_a_vacation_ended_at_any_moment_costs_the_whole_hours_used(days, delay_hours, minutes):
    """Declared now or later, ended before it starts or while it runs: the bank earns for
    the time before it and pays exactly the hours spent away, rounded up to whole hours."""
    start = T0 + delay_hours * HOUR
    bank, vacation = declare(Bank.new(T0), now=T0, days=days, start=start)
    now = min(max(T0, start - 2 * HOUR) + timedelta(minutes=minutes), vacation.end)
    back, taken = end_early(bank, vacation, now=now)
    if now < start:
        assert taken is None and back == settle(Bank.new(T0), now)
        return
    assert taken is not None and (taken.start, taken.end) == (start, now)
    used = -((start - now) // HOUR)
    assert back.hours == min(CAP_HOURS, START_HOURS + delay_hours // 8) - used
