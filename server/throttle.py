"""Limits per client address and overall, for what an attacker would repeat: guessing
sign-in codes, registering, asking for codes.

A limit per victim lets anyone lock a player out; these count by who is *asking* (the
client address, `client_address()`) and across the whole service. Each attempt is a row of
`throttle_events`, written and committed *before* the count, so attempts made at the same
moment cannot all slip under a limit. Wrong guesses also back off: after a few, a client
must wait, doubling with each further one.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import request
from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from server.domain import RateLimited
from server.models import ThrottleEvent, utcnow

#: The window every limit counts in.
WINDOW = timedelta(hours=1)

#: Wrong guesses a client makes freely before the backoff starts, and the longest wait.
FREE_GUESSES = 3
MAX_BACKOFF = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class Limit:
    """At most `per_client` attempts of `kind` from one address and `overall` from all,
    in any `WINDOW`; `backoff` adds the doubling wait after `FREE_GUESSES`."""

    kind: str
    per_client: int
    overall: int
    backoff: bool = False


def client_address() -> str:
    """Who is asking: the request's remote address (which `ProxyFix` sets from
    `X-Forwarded-For` only when `CAFE_TRUSTED_PROXIES` says a proxy is there). IPv6
    clients count by their /64 network, since one host usually holds a whole /64."""
    remote = request.remote_addr or "unknown"
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return remote[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def attempt(session: Session, limit: Limit, client: str, *, now: datetime | None = None) -> int:
    """Count one attempt of `client`, or refuse it (429) if a limit is reached; the id of
    the attempt's row (`forgive` takes it back)."""
    now = now or utcnow()
    event = ThrottleEvent(kind=limit.kind, client=client, created_at=now)
    session.add(event)
    session.commit()
    assert event.id is not None
    since = now - WINDOW
    mine = list(
        session.exec(
            select(ThrottleEvent.created_at)
            .where(
                ThrottleEvent.kind == limit.kind,
                ThrottleEvent.client == client,
                ThrottleEvent.created_at > since,
                col(ThrottleEvent.id) < event.id,
            )
            .order_by(col(ThrottleEvent.created_at).desc())
        )
    )
    everyone = session.exec(
        select(func.count())
        .select_from(ThrottleEvent)
        .where(ThrottleEvent.kind == limit.kind, ThrottleEvent.created_at > since)
    ).one()
    refusal = _refusal(limit, mine, everyone, now)
    if refusal is not None:
        forgive(session, event.id)  # a refused attempt is not tried, so it does not count
        raise refusal
    return event.id


def forgive(session: Session, event_id: int) -> None:
    """Take back an attempt that turned out right (a correct code is not a guess)."""
    session.execute(delete(ThrottleEvent).where(col(ThrottleEvent.id) == event_id))
    session.commit()


def _refusal(
    limit: Limit, mine: list[datetime], everyone: int, now: datetime
) -> RateLimited | None:
    """Why the attempt after `mine` (the client's earlier ones, newest first) is refused."""
    if len(mine) >= limit.per_client:
        wait = WINDOW - (now - _aware(mine[-1]))
        return _limited(limit, f"too many from your address; try again in {_span(wait)}", wait)
    if everyone > limit.overall:
        return _limited(limit, "too many from everyone just now; try again in a few minutes")
    if limit.backoff and len(mine) >= FREE_GUESSES:
        wait = min(timedelta(seconds=2 ** (len(mine) - FREE_GUESSES)), MAX_BACKOFF)
        left = wait - (now - _aware(mine[0]))
        if left > timedelta(0):
            return _limited(limit, f"wait {_span(left)} before the next try", left)
    return None


def _limited(limit: Limit, reason: str, wait: timedelta | None = None) -> RateLimited:
    facts = {} if wait is None else {"retry_after": max(1, int(wait.total_seconds()) + 1)}
    return RateLimited(f"too_many_{limit.kind}", f"{_WHAT[limit.kind]}: {reason}", **facts)


_WHAT = {
    "guesses": "too many wrong sign-in codes",
    "signups": "too many registrations",
    "codes": "too many sign-in code requests",
}


def _span(wait: timedelta) -> str:
    seconds = max(1, int(wait.total_seconds()) + 1)
    return f"{seconds} seconds" if seconds < 120 else f"{seconds // 60} minutes"


def _aware(moment: datetime) -> datetime:
    """A datetime from the database as aware UTC (to be safe with naive drivers)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=utcnow().tzinfo)
