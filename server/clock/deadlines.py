"""Deadlines and reminders of a turn, as pure functions (docs/league.md).

A player's clock runs from the start of their turn, except while they are on vacation in a
game that allows it. The deadline is the moment the running time reaches the allowance
(`days_per_turn` × 24 h); a reminder is due when the running time reaches its own mark. So
every moment here is "when has the clock run for so long", computed over the pauses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

DAY = timedelta(days=1)


@dataclass(frozen=True, order=True)
class Interval:
    """A span of time `[start, end)` in which the player's clock is paused (a vacation, or
    an automatic vacation day)."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"an interval cannot end ({self.end}) before it starts ({self.start})")


@dataclass(frozen=True)
class Reminder:
    """A reminder of a turn: which one (`half` time, or `last` hours left) and when it is due."""

    kind: str
    due: datetime


def merged(pauses: Iterable[Interval]) -> list[Interval]:
    """The pauses in order, overlapping or touching ones joined into one."""
    joined: list[Interval] = []
    for pause in sorted(pauses):
        if joined and pause.start <= joined[-1].end:
            last = joined.pop()
            joined.append(Interval(last.start, max(last.end, pause.end)))
        else:
            joined.append(pause)
    return joined


def when_run(start: datetime, running: timedelta, pauses: Iterable[Interval] = ()) -> datetime:
    """The moment a clock started at `start` and stopped during `pauses` has run `running`.

    A pause that begins at that very moment still counts: an automatic vacation day starts
    at the deadline and moves it a day on."""
    moment, left = start, running
    for pause in merged(pauses):
        if pause.end <= moment:
            continue
        if pause.start > moment:
            if pause.start - moment > left:
                break
            left -= pause.start - moment
        moment = max(moment, pause.end)
    return moment + left


def deadline(
    turn_start: datetime,
    days_per_turn: int,
    vacations: Iterable[Interval] = (),
    *,
    vacation_allowed: bool = True,
) -> datetime:
    """The deadline of a turn started at `turn_start`: `days_per_turn` days of running clock,
    paused by the player's `vacations` if the game allows vacation."""
    return when_run(turn_start, days_per_turn * DAY, vacations if vacation_allowed else ())


def last_call(days_per_turn: int) -> timedelta:
    """How long before the deadline the last reminder comes: 24 h, or 6 h for one-day turns."""
    return timedelta(hours=6) if days_per_turn == 1 else DAY


def reminders(
    turn_start: datetime,
    days_per_turn: int,
    vacations: Iterable[Interval] = (),
    *,
    vacation_allowed: bool = True,
) -> list[Reminder]:
    """The reminders of a turn, in order: at half time (only for 3 days or more per turn)
    and when `last_call` is left."""
    pauses = list(vacations) if vacation_allowed else []
    allowance = days_per_turn * DAY
    marks = [("half", allowance / 2)] if days_per_turn >= 3 else []
    marks.append(("last", allowance - last_call(days_per_turn)))
    return [Reminder(kind, when_run(turn_start, running, pauses)) for kind, running in marks]


def next_reminder(
    turn_start: datetime,
    days_per_turn: int,
    vacations: Iterable[Interval] = (),
    *,
    vacation_allowed: bool = True,
    sent: Iterable[str] = (),
) -> datetime | None:
    """When the next reminder of the turn not yet `sent` is due (None: all were sent)."""
    done = set(sent)
    due = [
        reminder.due
        for reminder in reminders(
            turn_start, days_per_turn, vacations, vacation_allowed=vacation_allowed
        )
        if reminder.kind not in done
    ]
    return due[0] if due else None
