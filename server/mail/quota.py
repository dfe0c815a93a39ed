"""Per-address delivery state and the per-recipient sending limit (`MAIL_PER_MINUTE`).

One `MailRecipient` row per address. Before sending a batch the worker asks `reserve` for a
slot per message, in one transaction: the row keeps the times of the sends of the last
minute, and slots are taken by a compare-and-set on the row's `version`, so two workers
sending at once can never exceed the limit together; a refused slot says when the next one
frees up; the slots of messages that were then not sent are given back (`give_back`), so
only what is sent counts. After each attempt `record_delivery` / `record_failure` keep the
address's state (`ok`, `retrying`, `failing`), which a player sees in `GET /api/me`; the
worker calls `record_delivery` only for an address that was not `ok`.

Where a transaction changes several rows it changes them in the order of their addresses,
so that two workers reserving for the same addresses wait for each other and never
deadlock; each function is one transaction, run again if the database aborted it anyway
(`server.transactions.retried`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, bindparam, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from server.models import MailRecipient, iso, table_of, utcnow
from server.transactions import retried

WINDOW = timedelta(minutes=1)
_TABLE = table_of(MailRecipient)
#: An address's recent sends, if nobody changed them since they were read (executemany).
_CAS = (
    update(_TABLE)
    .where(_TABLE.c.address == bindparam("held"), _TABLE.c.version == bindparam("seen"))
    .values(recent=bindparam("recent"), version=bindparam("version"))
)
#: Compare-and-set attempts before a reservation gives up for this round (heavy contention).
RETRIES = 5


@retried
def reserve(
    engine: Engine, addresses: Sequence[str], per_minute: int
) -> tuple[list[datetime | None], dict[str, str]]:
    """Take a sending slot for each entry of `addresses` (a batch, in order), in one
    transaction: None where a slot was taken, else when to try again. Also each address's
    delivery state now. `per_minute` 0 means no limit.
    """
    wanted = sorted(set(addresses))
    for _ in range(RETRIES):
        now = utcnow()
        with Session(engine) as session:
            rows = {
                row.address: row
                for row in session.exec(
                    select(MailRecipient).where(col(MailRecipient.address).in_(wanted))
                )
            }
            states = {address: row.state for address, row in rows.items()}
            if per_minute <= 0:
                return [None] * len(addresses), states
            waits, recent = _slots(addresses, rows, per_minute, now)
            if _take(session, rows, recent):
                return waits, states
    return [utcnow() + timedelta(seconds=1)] * len(addresses), {}


def _slots(
    addresses: Sequence[str],
    rows: dict[str, MailRecipient],
    per_minute: int,
    now: datetime,
) -> tuple[list[datetime | None], dict[str, list[str]]]:
    """Which entries get a slot, and each address's sends of the last minute after that."""
    recent = {
        address: [
            t
            for t in (rows[address].recent if address in rows else [])
            if datetime.fromisoformat(t) > now - WINDOW
        ]
        for address in set(addresses)
    }
    waits: list[datetime | None] = []
    for address in addresses:
        sent = recent[address]
        if len(sent) >= per_minute:
            waits.append(datetime.fromisoformat(min(sent)) + WINDOW)
        else:
            sent.append(now.isoformat())
            waits.append(None)
    return waits, recent


def _take(session: Session, rows: dict[str, MailRecipient], recent: dict[str, list[str]]) -> bool:
    """Write the new sends with a compare-and-set per address, in address order; False if
    a rival came first (nothing is then kept, and the caller tries again)."""
    ordered = sorted(recent)
    changes = [
        {"held": address, "seen": rows[address].version, "recent": recent[address],
         "version": rows[address].version + 1}
        for address in ordered
        if address in rows
    ]  # fmt: skip
    session.add_all(  # flushed in this order, after the updates
        MailRecipient(address=address, recent=recent[address])
        for address in ordered
        if address not in rows
    )
    if changes:
        taken = session.connection().execute(_CAS, changes)
        if taken.rowcount != len(changes):  # a rival changed a row first
            session.rollback()
            return False
    try:
        session.commit()
    except IntegrityError:  # another worker created one of the rows first
        session.rollback()
        return False
    return True


@retried
def give_back(engine: Engine, addresses: Sequence[str]) -> None:
    """Free the newest slot of each entry of `addresses`: taken by `reserve` for a message
    that was then not sent (it failed, or the SMTP server could not be reached)."""
    if not addresses:
        return
    unsent = Counter(addresses)
    for _ in range(RETRIES):
        with Session(engine) as session:
            rows = session.exec(
                select(MailRecipient).where(col(MailRecipient.address).in_(list(unsent)))
            ).all()
            recent = {row.address: sorted(row.recent)[: -unsent[row.address]] for row in rows}
            if _take(session, {row.address: row for row in rows}, recent):
                return


@retried
def _set_state(engine: Engine, address: str, **values: Any) -> None:
    """Change an address's state (creating its row if the limit never did)."""
    with Session(engine) as session:
        changed = session.exec(
            update(MailRecipient)
            .where(col(MailRecipient.address) == address)
            .values(version=MailRecipient.version + 1, **values)
        )
        if changed.rowcount == 0:
            session.add(MailRecipient(address=address, **values))
        try:
            session.commit()
        except IntegrityError:  # created meanwhile by a reservation: update it instead
            session.rollback()
            _set_state(engine, address, **values)


@retried
def record_delivery(engine: Engine, address: str) -> None:
    """A message reached `address`: whatever failed before, it works now."""
    with Session(engine) as session:
        session.execute(
            update(MailRecipient)
            .where(col(MailRecipient.address) == address, col(MailRecipient.state) != "ok")
            .values(state="ok", last_error=None, since=utcnow(), version=MailRecipient.version + 1)
        )
        session.commit()


@retried
def record_failure(engine: Engine, address: str, *, error: str, final: bool) -> None:
    """An attempt to reach `address` failed; `final` when the message was given up on."""
    with Session(engine) as session:
        row = session.get(MailRecipient, address)
        state = row.state if row is not None else "ok"
    # a temporary failure does not clear an address that is failing already
    new_state = "failing" if final or state == "failing" else "retrying"
    since = row.since if row is not None and row.state == new_state else utcnow()
    _set_state(engine, address, state=new_state, last_error=error[:500], since=since)


def status(session: Session, address: str) -> dict[str, Any]:
    """The address's state as `GET /api/me` shows it."""
    row = session.get(MailRecipient, address)
    if row is None:
        return {"state": "ok", "last_error": None, "since": None}
    return {"state": row.state, "last_error": row.last_error, "since": iso(row.since)}
