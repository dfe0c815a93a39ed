"""A player's vacations: show the bank, declare one, end it (docs/league.md).

The bank's arithmetic is `server.clock.bank`; this module stores it in the player's row,
keeps the vacations in their table, and recomputes the player's deadlines in the same
transaction as the change (`server.clock.store.recompute_for_player`). A vacation that
starts now, or is ended early, is told by email in that transaction too
(`server.clock.notices`); the sweep tells the rest (`vacations.notice_due`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from cafe.i18n import lazy_gettext
from server.clock import bank, store
from server.clock.bank import Bank, BankRefusal
from server.clock.notices import queue
from server.config import Settings
from server.domain import Conflict, Refused
from server.models import Player, Vacation, VacationKind, iso, utcnow
from server.postbox.kinds import EmailKind


@dataclass(frozen=True)
class Status:
    """What the player is shown: the bank now, the declared vacation under way or to come,
    and when the bank next earns an hour."""

    bank_days: float
    current: Vacation | None
    next_accrual: datetime | None


def stored_bank(player: Player) -> Bank:
    """The bank as the player's row keeps it."""
    return Bank(
        player.vacation_hours, player.vacation_as_of, timedelta(seconds=player.vacation_carry)
    )


def store_bank(player: Player, balance: Bank) -> None:
    """Keep `balance` in the player's row (the caller adds and commits it)."""
    player.vacation_hours = balance.hours
    player.vacation_as_of = balance.as_of
    player.vacation_carry = int(balance.carry.total_seconds())


def as_bank_vacation(row: Vacation) -> bank.Vacation:
    """A declared vacation's row as the bank's arithmetic takes it."""
    return bank.Vacation(start=row.start, end=row.end, days=row.days)


def unsettled(session: Session, player: Player) -> Vacation | None:
    """The declared vacation the stored bank may not have paid yet: the one that ends after
    the bank's moment (there is at most one: one vacation at a time)."""
    return session.exec(
        select(Vacation).where(
            Vacation.player_id == player.id,
            Vacation.kind == VacationKind.DECLARED,
            col(Vacation.end) > player.vacation_as_of,
        )
    ).first()


def status(session: Session, player: Player) -> Status:
    """The player's bank and vacation now."""
    now = utcnow()
    declared = unsettled(session, player)
    taken = None if declared is None else as_bank_vacation(declared)
    balance = bank.settle(stored_bank(player), now, taken)
    current = declared if declared is not None and declared.end > now else None
    return Status(
        balance.days, current, bank.next_accrual(stored_bank(player), now=now, vacation=taken)
    )


def declare(
    session: Session,
    player: Player,
    *,
    days: int,
    start: datetime | None,
    config: Settings,
) -> Status:
    """Declare a vacation of `days` from `start` (default now) and commit; 409 if one is
    declared already, 422 if the bank cannot pay it or it would start in the past. One
    that starts now is told by email at once, one that starts later by the sweep."""
    now = utcnow()
    declared = unsettled(session, player)
    if declared is not None and declared.end > now:
        raise Conflict(
            "vacation_declared",
            lazy_gettext(
                "you have declared a vacation from %(start)s to %(end)s; "
                "end it first (DELETE /api/me/vacation)",
                start=iso(declared.start),
                end=iso(declared.end),
            ),
        )
    taken = None if declared is None else as_bank_vacation(declared)
    try:
        balance, vacation = bank.declare(
            bank.settle(stored_bank(player), now, taken), now=now, days=days, start=start
        )
    except BankRefusal as refusal:
        raise Refused("vacation_refused", refusal.args[0]) from None
    assert player.id is not None
    store_bank(player, balance)
    session.add(player)
    begun = vacation.start <= now
    row = Vacation(
        player_id=player.id,
        start=vacation.start,
        end=vacation.end,
        days=days,
        notice_due=vacation.end if begun else vacation.start,
    )
    session.add(row)
    session.flush()
    store.recompute_for_player(session, player, vacation.pause)
    if begun:
        queue(session, config, player, row, EmailKind.VACATION_STARTED, bank_days=balance.days)
    session.commit()
    return status(session, player)


def end(session: Session, player: Player, *, config: Settings) -> Status:
    """End the declared vacation now (cancel it if it has not started), give back the
    unused whole hours, and commit; 409 if there is none. An ended vacation is told by
    email at once; a cancelled one, which paused nothing, is not."""
    now = utcnow()
    declared = unsettled(session, player)
    if declared is None or declared.end <= now:
        raise Conflict(
            "no_vacation", lazy_gettext("you have declared no vacation; see GET /api/me/vacation")
        )
    balance, taken = bank.end_early(stored_bank(player), as_bank_vacation(declared), now=now)
    store_bank(player, balance)
    session.add(player)
    if taken is None:
        session.delete(declared)
    else:
        declared.end, declared.notice_due = taken.end, None
        session.add(declared)
    session.flush()
    store.recompute_for_player(session, player, None)
    if taken is not None:
        queue(
            session,
            config,
            player,
            declared,
            EmailKind.VACATION_ENDED,
            bank_days=balance.days,
            early=True,
        )
    session.commit()
    return status(session, player)
