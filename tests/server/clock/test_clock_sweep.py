"""The sweep, with time moved by the injected clock: reminders (half time, the last call, once
each, re-armed when the deadline moves, none on vacation or when turned off), automatic
vacation days until the bank runs out, then the game's time-out rule (a turn played for the
player, removal), and what everyone is told."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from cafe import Game
from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs.sweep import sweep
from server.models import Player, TurnRecord

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY, HOUR, MINUTE = timedelta(days=1), timedelta(hours=1), timedelta(minutes=1)
NO_VACATION = {"days_per_turn": 3, "vacation": False}


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def swept(api):
    """Sweep, then send what it queued (emails are rendered when sent, with the time then)."""
    done = sweep(get_engine(api.app), settings_of(api.app))
    api.send_events()
    return done


def state(api, game_id, token):
    return api.call("GET", f"/api/games/{game_id}", token).json


def mover(api, game_id, tokens):
    return state(api, game_id, next(iter(tokens.values())))["to_move"]


def mails(api, name, kind):
    return [m for m in api.outbox(f"{name}@example.com") if m.kind == kind and m.status == "sent"]


def set_bank(api, name, days):
    with Session(get_engine(api.app)) as session:
        player = session.exec(select(Player).where(Player.name == name)).one()
        player.vacation_hours, player.vacation_as_of = days * 24, T0
        session.add(player)
        session.commit()


def log(api, game_id, token):
    return api.call("GET", f"/api/games/{game_id}/turns", token).json["turns"]


@pytest.mark.postgres
def test_reminders_at_half_time_and_a_day_before_once_each(api, backend, clock):
    game_id, tokens = api.started_game("ann", "bob")
    name = mover(api, game_id, tokens)
    clock.advance(36 * HOUR - MINUTE)
    assert swept(api).reminders == 0
    clock.advance(MINUTE)
    assert swept(api).reminders == 1
    assert swept(api).reminders == 0
    clock.advance(12 * HOUR)
    assert swept(api).reminders == 1
    clock.advance(HOUR)
    assert swept(api).reminders == 0
    first, last = mails(api, name, "reminder")
    assert first.subject.endswith("1 day 12 hours left for your turn")
    assert last.subject.endswith("1 day left for your turn")
    assert "reply 1 to play it" in last.body and "Thu, 5 Mar 2026, 09:00 UTC" in last.body
    other = "bob" if name == "ann" else "ann"
    assert mails(api, other, "reminder") == []


def test_one_day_turns_get_the_last_call_six_hours_before(api, clock):
    game_id, tokens = api.started_game("ann", "bob", clock={"days_per_turn": 1})
    clock.advance(18 * HOUR - MINUTE)
    assert swept(api).reminders == 0
    clock.advance(MINUTE)
    assert swept(api).reminders == 1
    [mail] = mails(api, mover(api, game_id, tokens), "reminder")
    assert "6 hours left" in mail.subject


def test_a_reminder_is_re_armed_when_a_vacation_moves_the_deadline(api, clock):
    game_id, tokens = api.started_game("ann", "bob")
    name = mover(api, game_id, tokens)
    clock.advance(36 * HOUR)
    assert swept(api).reminders == 1
    declared = api.call("POST", "/api/me/vacation", tokens[name], json={"days": 2})
    assert declared.status_code == 201
    clock.advance(12 * HOUR)  # the last call was due now; the vacation moved it 2 days on
    assert swept(api).reminders == 0
    clock.advance(2 * DAY - MINUTE)
    assert swept(api).reminders == 0
    clock.advance(MINUTE)
    assert swept(api).reminders == 1
    assert len(mails(api, name, "reminder")) == 2


def test_no_reminder_on_vacation_nor_when_turned_off(api, clock):
    game_id, tokens = api.started_game("ann", "bob", clock=NO_VACATION)
    name = mover(api, game_id, tokens)
    api.call("POST", "/api/me/vacation", tokens[name], json={"days": 2})  # the clock runs on
    clock.advance(36 * HOUR)
    assert swept(api).reminders == 0
    off = api.call("PATCH", "/api/me/preferences", tokens[name], json={"reminders": False})
    assert off.status_code == 200
    api.call("DELETE", "/api/me/vacation", tokens[name])
    clock.advance(12 * HOUR)
    assert swept(api).reminders == 0
    assert mails(api, name, "reminder") == []


def test_automatic_vacation_day_by_day_until_the_bank_runs_out(api, clock):
    game_id, tokens = api.started_game("ann", "bob")
    name = mover(api, game_id, tokens)
    set_bank(api, name, 2)
    version = state(api, game_id, tokens[name])["version"]
    for day in range(2):
        clock.advance(3 * DAY if day == 0 else DAY)
        assert swept(api).timeouts == {"auto_vacation": 1}
        assert swept(api).total == 0
        shown = state(api, game_id, tokens[name])
        assert shown["deadline"] == (T0 + (4 + day) * DAY).isoformat().replace("+00:00", "Z")
        assert shown["version"] == version
    assert api.call("GET", "/api/me/vacation", tokens[name]).json["bank_days"] < 1
    notices = mails(api, name, "auto_vacation")
    assert len(notices) == 2 and "Your new deadline: Fri, 6 Mar 2026, 09:00 UTC" in notices[0].body
    clock.advance(DAY)
    assert swept(api).timeouts == {"timed_out": 1}
    assert log(api, game_id, tokens[name])[-1]["kind"] == "timeout"


def test_autoplay_twice_then_removal(api, clock):
    game_id, tokens = api.started_game("ann", "bob", "cid", clock=NO_VACATION)
    late = mover(api, game_id, tokens)
    for count in (1, 2):
        clock.advance(3 * DAY)
        assert swept(api).timeouts == {"timed_out": 1}
        shown = state(api, game_id, tokens[late])
        assert shown["timeouts"][shown["players"].index(late)] == count
        api.play_best(game_id, tokens)
        api.play_best(game_id, tokens)
    clock.advance(3 * DAY)
    assert swept(api).timeouts == {"removed": 1}
    entries = log(api, game_id, tokens[late])
    mine = [e for e in entries if e["player"] == late]
    assert [e["kind"] for e in mine] == ["timeout", "timeout", "timeout"]
    assert mine[-1]["turn"] == "" and mine[-1]["removed"] is True
    shown = state(api, game_id, tokens[late])
    assert shown["status"] == "active" and shown["to_move"] != late
    first, second = mails(api, late, "timed_out")
    assert "1 time-out in a row" in first.body and "1 more and you are removed" in first.body
    assert "At the next one you are removed" in second.body
    [removal] = mails(api, late, "removed")
    told = " ".join(removal.body.split())
    assert "you were removed from the game" in told and "The game goes on without you" in told
    others = [m for n in tokens if n != late for m in mails(api, n, "your_turn")]
    assert any("(played on time-out)" in m.body for m in others)
    record = api.call("GET", f"/api/games/{game_id}/record", tokens[late])
    assert f"-- {late} times out" in record.get_data(as_text=True)
    assert " | timeout" in record.get_data(as_text=True)


def test_resign_rule_removes_at_the_first_time_out_and_may_end_the_game(api, clock):
    game_id, tokens = api.started_game(
        "ann", "bob", clock={"days_per_turn": 2, "timeout": "resign", "vacation": True}
    )
    late = mover(api, game_id, tokens)
    set_bank(api, late, 0)
    clock.advance(2 * DAY)
    assert swept(api).timeouts == {"removed": 1}
    shown = state(api, game_id, tokens[late])
    assert shown["status"] == "finished" and shown["deadline"] is None
    assert shown["standings"][-1]["player"] == late
    assert len(mails(api, late, "removed")) == 1 and len(mails(api, late, "game_over")) == 1
    record = api.call("GET", f"/api/games/{game_id}/record", tokens[late]).get_data(as_text=True)
    assert Game.from_record(record).is_over


def test_a_turn_of_ones_own_resets_the_count(api, clock):
    game_id, tokens = api.started_game("ann", "bob", clock=NO_VACATION)
    late = mover(api, game_id, tokens)
    clock.advance(3 * DAY)
    assert swept(api).timeouts == {"timed_out": 1}
    seat = state(api, game_id, tokens[late])["players"].index(late)
    assert state(api, game_id, tokens[late])["timeouts"][seat] == 1
    api.play_best(game_id, tokens)  # the other player
    api.play_best(game_id, tokens)  # the late one, in time
    assert state(api, game_id, tokens[late])["timeouts"][seat] == 0


def test_the_timeout_turn_is_in_the_log_and_replays(api, clock):
    game_id, tokens = api.started_game("ann", "bob", clock=NO_VACATION)
    late = mover(api, game_id, tokens)
    clock.advance(3 * DAY)
    swept(api)
    with Session(get_engine(api.app)) as session:
        [entry] = session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)).all()
    assert entry.kind == "timeout" and entry.notation and entry.submitted == ""
    [shown] = log(api, game_id, tokens[late])
    assert shown["kind"] == "timeout" and shown["turn"] == entry.notation


def waiting_for(api, name, tokens):
    """A new game of `name` and bob in which it is `name`'s turn from now on."""
    game_id = api.call("POST", "/api/games", tokens[name], json={"seats": 2}).json["id"]
    api.call("POST", f"/api/games/{game_id}/join", tokens["bob"])
    api.call("POST", f"/api/games/{game_id}/start", tokens[name])
    if mover(api, game_id, tokens) != name:
        api.play_best(game_id, tokens)
    return game_id


@pytest.mark.postgres
def test_reminders_due_within_the_hour_come_as_one_email(api, backend, clock):
    tokens = {"ann": api.register("ann"), "bob": api.register("bob")}
    first = waiting_for(api, "ann", tokens)  # half time in 36 hours
    clock.advance(30 * MINUTE)
    second = waiting_for(api, "ann", tokens)  # half an hour later
    clock.advance(90 * MINUTE)
    third = waiting_for(api, "ann", tokens)  # two hours after the first
    clock.advance(34 * HOUR)  # the first's reminder is due; the second's within the hour
    assert swept(api).reminders == 1
    [both] = mails(api, "ann", "reminder")
    assert both.subject == "Café International: your turn is due soon in 2 games"
    text = " ".join(both.body.split())
    assert re.search(rf"Game {first} \(turn \d\): 1 day 12 hours left with bob Deadline", text)
    assert re.search(rf"Game {second} \(turn \d\): 1 day 12 hours left with bob", text)
    assert text.index(f"Game {first} ") < text.index(f"Game {second} ")  # soonest first
    assert f"http://cafe.test/games/{first}" in text and f"/games/{second}" in text
    assert f"Game {third} " not in text and "Reply-To" not in both.headers
    clock.advance(HOUR)
    assert swept(api).reminders == 0  # the second's was sent with the first's
    clock.advance(HOUR)
    assert swept(api).reminders == 1
    [_, alone] = mails(api, "ann", "reminder")
    assert alone.subject == f"Café · game {third} with bob: 1 day 12 hours left for your turn"


def test_a_joint_reminder_tells_only_of_the_games_still_waiting(api, clock):
    tokens = {"ann": api.register("ann"), "bob": api.register("bob")}
    first = waiting_for(api, "ann", tokens)
    clock.advance(10 * MINUTE)
    second = waiting_for(api, "ann", tokens)
    clock.advance(36 * HOUR)
    assert sweep(get_engine(api.app), settings_of(api.app)).reminders == 1  # one email, queued
    api.play_best(first, tokens)  # ann plays the first game before it is sent
    [reminder] = mails(api, "ann", "reminder")
    assert reminder.subject.startswith(f"Café · game {second} with bob: ")  # the one left
    assert "Reply-To" in reminder.headers
