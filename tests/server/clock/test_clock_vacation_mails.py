"""The vacation emails, with time moved by the injected clock: "vacation started" when a
declared vacation begins (at once, or swept at its later start), "vacation ended" when it
ends (early by DELETE, or swept at its end), each exactly once; nothing for a vacation
cancelled before it began; and bad input changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs.sweep import sweep

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)
KINDS = ("vacation_started", "vacation_ended")


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def swept(api):
    """One sweep's vacation emails, by kind."""
    return dict(sweep(get_engine(api.app), settings_of(api.app)).vacations)


def vacation_mails(api, name):
    return [m for m in api.outbox(f"{name}@example.com") if m.kind in KINDS]


def mover(api, game_id, tokens):
    return api.call("GET", f"/api/games/{game_id}", next(iter(tokens.values()))).json["to_move"]


@pytest.mark.postgres
def test_a_vacation_from_now_ended_early_mails_started_then_ended_once_each(api, backend, clock):
    game_id, tokens = api.started_game("ann", "bob")
    name = mover(api, game_id, tokens)
    declared = api.call("POST", "/api/me/vacation", tokens[name], json={"days": 3})
    assert declared.status_code == 201
    [started] = vacation_mails(api, name)
    assert started.kind == "vacation_started"
    assert "until Thu, 5 Mar 2026, 09:00 UTC" in started.subject
    assert f"game {game_id} with " in started.body
    assert "your deadline is now Sun, 8 Mar 2026, 09:00 UTC" in started.body  # 3 + 3 days
    assert "holds 11 days now" in started.body
    clock.advance(DAY)
    assert swept(api) == {}  # sent when declared, not again at its start
    clock.advance(HOUR)
    assert api.call("DELETE", "/api/me/vacation", tokens[name]).status_code == 200
    assert api.call("DELETE", "/api/me/vacation", tokens[name]).status_code == 409
    clock.advance(3 * DAY)
    assert swept(api) == {}  # nothing more at its planned end
    first, ended = vacation_mails(api, name)
    assert first.id == started.id and ended.kind == "vacation_ended"
    assert "you ended your vacation early on Tue, 3 Mar 2026, 10:00 UTC" in ended.body
    assert "your turn, deadline Fri, 6 Mar 2026, 10:00 UTC" in ended.body  # 3 days + 25 h paused
    assert "holds 12 days 23 hours now" in ended.body  # 11 + 47 unused hours, + 1 h earned
    other = "bob" if name == "ann" else "ann"
    assert vacation_mails(api, other) == []


@pytest.mark.postgres
def test_a_later_vacation_is_mailed_by_the_sweep_at_its_start_and_its_end(api, backend, clock):
    game_id, tokens = api.started_game("ann", "bob", "cid", clock={"days_per_turn": 5})
    name = "cid" if mover(api, game_id, tokens) != "cid" else "bob"
    start = T0 + 2 * DAY
    body = {"days": 2, "start": start.isoformat()}
    assert api.call("POST", "/api/me/vacation", tokens[name], json=body).status_code == 201
    assert swept(api) == {} and vacation_mails(api, name) == []
    clock.advance(2 * DAY - HOUR)
    assert swept(api) == {}
    clock.advance(HOUR)
    assert swept(api) == {"vacation_started": 1}
    assert swept(api) == {}
    [started] = vacation_mails(api, name)
    assert "until Fri, 6 Mar 2026, 09:00 UTC" in started.subject
    assert f"game {game_id} with " in started.body and "deadline" not in started.body
    assert "holds 12 days 6 hours now" in started.body  # 14 - 2, and 6 hours earned before it
    clock.advance(2 * DAY)
    assert swept(api) == {"vacation_ended": 1}
    assert swept(api) == {}
    clock.advance(5 * DAY)
    assert swept(api) == {}
    kinds = [m.kind for m in vacation_mails(api, name)]
    assert kinds == ["vacation_started", "vacation_ended"]
    ended = vacation_mails(api, name)[1]
    assert "your vacation ended on Fri, 6 Mar 2026, 09:00 UTC" in ended.body


def test_swept_after_its_end_a_vacation_gets_only_the_ended_email(api, clock):
    _, tokens = api.started_game("ann", "bob")
    body = {"days": 1, "start": (T0 + DAY).isoformat()}
    assert api.call("POST", "/api/me/vacation", tokens["ann"], json=body).status_code == 201
    clock.advance(3 * DAY)  # the workers were down through the whole of it
    assert swept(api) == {"vacation_ended": 1}
    assert swept(api) == {}
    assert [m.kind for m in vacation_mails(api, "ann")] == ["vacation_ended"]


def test_a_vacation_cancelled_before_it_began_sends_nothing(api, clock):
    _, tokens = api.started_game("ann", "bob")
    token = tokens["ann"]
    body = {"days": 2, "start": (T0 + DAY).isoformat()}
    assert api.call("POST", "/api/me/vacation", token, json=body).status_code == 201
    assert api.call("DELETE", "/api/me/vacation", token).status_code == 200
    clock.advance(5 * DAY)
    assert swept(api) == {}
    assert vacation_mails(api, "ann") == []


def test_a_refused_vacation_queues_nothing(api, clock):
    _, tokens = api.started_game("ann", "bob")
    token = tokens["ann"]
    too_long = api.call("POST", "/api/me/vacation", token, json={"days": 15})
    assert too_long.status_code == 422
    past = {"days": 1, "start": (T0 - HOUR).isoformat()}
    assert api.call("POST", "/api/me/vacation", token, json=past).status_code == 422
    clock.advance(20 * DAY)
    assert swept(api) == {}
    assert vacation_mails(api, "ann") == []
