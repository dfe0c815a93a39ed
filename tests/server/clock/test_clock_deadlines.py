"""Deadlines and reminders (`server.clock.deadlines`): examples of each way a vacation can
meet a turn, and properties over any vacations at all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.clock.deadlines import Interval, deadline, merged, next_reminder, reminders

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def pause(start: float, end: float) -> Interval:
    return Interval(at(start), at(end))


@pytest.mark.parametrize(
    ("vacations", "expected"),
    [
        ([], 3),
        ([pause(-5, -1)], 3),  # over before the turn began
        ([pause(-1, 2)], 5),  # under way when the turn began
        ([pause(1, 2)], 4),  # inside the turn (declared mid-turn, or ended early)
        ([pause(2, 6)], 7),  # begins in the turn, ends after the old deadline
        ([pause(-1, 10)], 13),  # covers the whole turn
        ([pause(3, 5)], 5),  # begins at the deadline: still in time (an automatic day)
        ([pause(4, 9)], 3),  # after the deadline
        ([pause(0.5, 1), pause(1.5, 2)], 4),  # several
        ([pause(1, 2), pause(1.5, 3)], 5),  # overlapping each other
        ([pause(1, 2), pause(2, 3)], 5),  # touching
    ],
)
def test_a_vacation_pushes_the_deadline_back_by_its_overlap(vacations, expected):
    assert deadline(T0, 3, vacations) == at(expected)


def test_a_game_without_vacation_ignores_them():
    assert deadline(T0, 3, [pause(1, 2)], vacation_allowed=False) == at(3)


def test_automatic_days_move_the_deadline_a_day_each():
    first = deadline(T0, 2, [])
    days = [Interval(first, first + DAY), Interval(first + DAY, first + 2 * DAY)]
    assert deadline(T0, 2, days[:1]) == first + DAY
    assert deadline(T0, 2, days) == first + 2 * DAY


def test_reminders_at_half_time_and_a_day_before():
    assert [(r.kind, r.due) for r in reminders(T0, 4, [])] == [("half", at(2)), ("last", at(3))]
    assert [(r.kind, r.due) for r in reminders(T0, 2, [])] == [("last", at(1))]
    assert [(r.kind, r.due) for r in reminders(T0, 1, [])] == [("last", T0 + 18 * HOUR)]


def test_reminders_move_with_a_vacation():
    assert [r.due for r in reminders(T0, 4, [pause(1, 2)])] == [at(3), at(4)]


def test_an_interval_cannot_end_before_it_starts():
    with pytest.raises(ValueError, match="cannot end"):
        Interval(at(2), at(1))


offsets = st.integers(min_value=-10 * 24 * 60, max_value=60 * 24 * 60).map(
    lambda minutes: T0 + timedelta(minutes=minutes)
)
intervals = st.tuples(offsets, st.integers(0, 20 * 24 * 60)).map(
    lambda pair: Interval(pair[0], pair[0] + timedelta(minutes=pair[1]))
)
vacation_lists = st.lists(intervals, max_size=6)
allowances = st.integers(min_value=1, max_value=30)


def running(start: datetime, until: datetime, pauses: list[Interval]) -> timedelta:
    """How long the clock ran from `start` to `until` (computed the plain way)."""
    paused = sum(
        (max(timedelta(0), min(p.end, until) - max(p.start, start)) for p in merged(pauses)),
        timedelta(0),
    )
    return until - start - paused


@given(allowances, vacation_lists)
def test_the_clock_has_run_exactly_the_allowance_at_the_deadline(days, vacations):
    due = deadline(T0, days, vacations)
    assert running(T0, due, vacations) == days * DAY
    assert due >= T0 + days * DAY
    # and not a moment earlier: the deadline is not inside a pause that began before it
    assert not any(p.start < due < p.end for p in merged(vacations) if p.end > T0)


@given(allowances, vacation_lists, intervals)
def test_another_vacation_never_brings_the_deadline_forward(days, vacations, extra):
    assert deadline(T0, days, [*vacations, extra]) >= deadline(T0, days, vacations)


@given(allowances, vacation_lists)
def test_the_order_of_the_vacations_does_not_matter(days, vacations):
    assert deadline(T0, days, vacations) == deadline(T0, days, list(reversed(vacations)))


@given(allowances, vacation_lists, st.integers(0, 30 * 24 * 60))
def test_ending_a_vacation_early_never_pushes_the_deadline_back(days, vacations, minutes):
    """A vacation declared mid-turn and ended early is a shorter interval: never later."""
    whole = Interval(T0 + timedelta(minutes=minutes), T0 + timedelta(minutes=minutes) + 10 * DAY)
    shortened = Interval(whole.start, whole.start + DAY)
    assert deadline(T0, days, [*vacations, shortened]) <= deadline(T0, days, [*vacations, whole])


@given(allowances, vacation_lists)
def test_reminders_come_in_order_before_the_deadline(days, vacations):
    due = deadline(T0, days, vacations)
    found = reminders(T0, days, vacations)
    assert [r.due for r in found] == sorted(r.due for r in found)
    assert all(T0 < r.due < due for r in found)
    last = found[-1]
    assert running(T0, last.due, vacations) == days * DAY - (6 * HOUR if days == 1 else DAY)
    assert [r.kind for r in found] == (["half", "last"] if days >= 3 else ["last"])


def test_the_next_reminder_skips_those_sent_and_follows_the_pauses():
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    day = timedelta(days=1)
    assert next_reminder(start, 3) == start + 1.5 * day
    assert next_reminder(start, 3, sent=["half"]) == start + 2 * day
    assert next_reminder(start, 3, sent=["half", "last"]) is None
    assert next_reminder(start, 1) == start + timedelta(hours=18)
    away = [Interval(start + day, start + 3 * day)]
    assert next_reminder(start, 3, away, sent=["half"]) == start + 4 * day
    assert next_reminder(start, 3, away, vacation_allowed=False) == start + 1.5 * day
