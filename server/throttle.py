"""Limits per client address, per account and overall, for what an attacker would repeat:
guessing sign-in codes, registering, asking for codes.

A limit that anyone can exhaust for someone else is a switch a stranger can throw: these
count by who is *asking* (the client address, `client_address()`), by the account a guess
names only where the owner keeps another way in (the sign-in link, `server.signin`), and
overall only where nobody's sign-in depends on it. Each attempt is a row of
`throttle_events`, written and committed *before* the count, so attempts made at the same
moment cannot all slip under a limit. Wrong guesses also back off: after a few, a client
must wait, doubling with each further one.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import request
from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from cafe.i18n import N_, Text, lazy_gettext, lazy_ngettext
from server.domain import RateLimited
from server.models import ThrottleEvent, aware, utcnow

#: The window a limit counts in unless it says otherwise.
WINDOW = timedelta(hours=1)

#: Wrong guesses a client makes freely before the backoff starts, and the longest wait.
FREE_GUESSES = 3
MAX_BACKOFF = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class Limit:
    """At most `per_client` attempts of `kind` by one asker (an address, or an account's
    key) and `overall` from all (None: no overall limit), in any `window`; `backoff` adds
    the doubling wait after `FREE_GUESSES`."""

    kind: str
    per_client: int
    overall: int | None = None
    backoff: bool = False
    window: timedelta = WINDOW


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
    return attempts(session, [(limit, client)], now=now)[0]


def attempts(
    session: Session, checks: Sequence[tuple[Limit, str]], *, now: datetime | None = None
) -> list[int]:
    """Count one attempt against each (limit, asker) of `checks` in one commit, or refuse
    them all (429, the first limit reached); the ids of the attempts' rows."""
    now = now or utcnow()
    events = [
        ThrottleEvent(kind=limit.kind, client=client, created_at=now) for limit, client in checks
    ]
    session.add_all(events)
    session.commit()
    ids = [event.id for event in events if event.id is not None]
    assert len(ids) == len(events)
    for (limit, client), event_id in zip(checks, ids, strict=True):
        refusal = _refusal(limit, _earlier(session, limit, client, event_id, now), now, session)
        if refusal is not None:
            forgive(session, *ids)  # a refused attempt is not tried, so it does not count
            raise refusal
    return ids


def _earlier(
    session: Session, limit: Limit, client: str, event_id: int, now: datetime
) -> list[datetime]:
    """The asker's attempts of this kind in the window before `event_id`, newest first."""
    return list(
        session.exec(
            select(ThrottleEvent.created_at)
            .where(
                ThrottleEvent.kind == limit.kind,
                ThrottleEvent.client == client,
                ThrottleEvent.created_at > now - limit.window,
                col(ThrottleEvent.id) < event_id,
            )
            .order_by(col(ThrottleEvent.created_at).desc())
        )
    )


def forgive(session: Session, *event_ids: int) -> None:
    """Take back attempts that turned out right (a correct code is not a guess)."""
    session.execute(delete(ThrottleEvent).where(col(ThrottleEvent.id).in_(event_ids)))
    session.commit()


def _refusal(
    limit: Limit, mine: list[datetime], now: datetime, session: Session
) -> RateLimited | None:
    """Why the attempt after `mine` (the asker's earlier ones, newest first) is refused."""
    if len(mine) >= limit.per_client:
        wait = limit.window - (now - aware(mine[-1]))
        reason = lazy_gettext(
            "%(who)s; try again in %(wait)s", who=Text(_WHO[limit.kind]), wait=_span(wait)
        )
        return _limited(limit, reason, wait)
    if limit.overall is not None and _everyone(session, limit, now) > limit.overall:
        return _limited(
            limit, lazy_gettext("too many from everyone just now; try again in a few minutes")
        )
    if limit.backoff and len(mine) >= FREE_GUESSES:
        wait = min(timedelta(seconds=2 ** (len(mine) - FREE_GUESSES)), MAX_BACKOFF)
        left = wait - (now - aware(mine[0]))
        if left > timedelta(0):
            return _limited(
                limit, lazy_gettext("wait %(wait)s before the next try", wait=_span(left)), left
            )
    return None


def _everyone(session: Session, limit: Limit, now: datetime) -> int:
    """Everyone's attempts of this kind in the window."""
    return session.exec(
        select(func.count())
        .select_from(ThrottleEvent)
        .where(ThrottleEvent.kind == limit.kind, ThrottleEvent.created_at > now - limit.window)
    ).one()


def _limited(limit: Limit, reason: Text, wait: timedelta | None = None) -> RateLimited:
    facts = {} if wait is None else {"retry_after": max(1, int(wait.total_seconds()) + 1)}
    said = lazy_gettext("%(what)s: %(reason)s", what=Text(_WHAT[limit.kind]), reason=reason)
    return RateLimited(f"too_many_{limit.kind}", said, **facts)


#: What was attempted too often, by kind.
_WHAT = {
    "guesses": N_("too many wrong sign-in codes"),
    "account_guesses": N_("too many wrong sign-in codes"),
    "signups": N_("too many registrations"),
    "codes": N_("too many sign-in code requests"),
}
#: Who reached a limit of their own, by kind.
_WHO = {
    "guesses": N_("too many from your address"),
    "account_guesses": N_(
        "too many for this email address today; use the sign-in link "
        "in the email (no wrong guess blocks it)"
    ),
    "signups": N_("too many from your address"),
    "codes": N_("too many from your address"),
}


def _span(wait: timedelta) -> Text:
    seconds = max(1, int(wait.total_seconds()) + 1)
    if seconds < 120:
        return lazy_ngettext("%(num)s second", "%(num)s seconds", seconds)
    return lazy_ngettext("%(num)s minute", "%(num)s minutes", seconds // 60)
