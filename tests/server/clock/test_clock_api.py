"""Clocks through the API: a game's time control and deadline, the vacation routes, the
reminder and time-zone preferences, and the deadline of the next turn
(`server.clock.store.next_deadline`, which the turn path calls)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from server.clock.store import next_deadline
from server.clock.timesource import FakeClock, use
from server.db import get_engine
from server.games import store
from server.models import GameRecord, iso

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY, HOUR = timedelta(days=1), timedelta(hours=1)
DEFAULTS = {"days_per_turn": 3, "timeout": "autoplay", "max_timeouts": 2, "vacation": True}


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def state(api, game_id, token):
    return api.call("GET", f"/api/games/{game_id}", token).json


@pytest.mark.postgres
def test_a_game_has_the_default_clock_unless_it_chooses(api, backend, clock):
    token = api.register("ann")
    default = api.call("POST", "/api/games", token, json={"seats": 2}).json
    assert default["clock"] == DEFAULTS and default["deadline"] is None
    assert default["vacation_until"] == [None] and default["timeouts"] == [0]
    chosen = {"days_per_turn": 7, "timeout": "resign"}
    made = api.call("POST", "/api/games", token, json={"seats": 2, "clock": chosen}).json
    assert made["clock"] == {**DEFAULTS, **chosen}
    none = api.call("POST", "/api/games", token, json={"seats": 2, "clock": None}).json
    assert none["clock"] is None
    listed = api.call("GET", "/api/games?mine=true", token).json["games"]
    assert [g["clock"] for g in listed] == [None, {**DEFAULTS, **chosen}, DEFAULTS]
    assert all(g["deadline"] is None and g["timeouts"] == [0] for g in listed)


@pytest.mark.parametrize(
    ("clock", "message"),
    [
        ({"days_per_turn": 0}, "`clock.days_per_turn` must be a whole number of days from 1 to 30"),
        (
            {"days_per_turn": 31},
            "`clock.days_per_turn` must be a whole number of days from 1 to 30",
        ),
        ({"timeout": "pass"}, "`clock.timeout` must be autoplay (the server plays a turn for a"),
        ({"max_timeouts": 6}, "`clock.max_timeouts` must be a whole number from 1 to 5"),
        ({"vacation": "yes"}, "`clock.vacation` must be true or false"),
        ({"days": 3}, "`clock.days` is not a field of this request"),
        (3, "`clock` must be null (no clock) or an object with `days_per_turn`"),
    ],
)
def test_a_bad_clock_is_refused_and_nothing_is_made(api, clock, message):
    token = api.register("ann")
    response = api.call("POST", "/api/games", token, json={"seats": 2, "clock": clock})
    assert response.status_code == 400
    assert response.json["message"].startswith(message), response.json
    assert api.call("GET", "/api/games?mine=true", token).json["games"] == []


@pytest.mark.postgres
def test_a_started_game_has_a_deadline(api, backend, clock):
    game_id, tokens = api.started_game("ann", "bob", clock={"days_per_turn": 2})
    shown = state(api, game_id, tokens["ann"])
    assert shown["deadline"] == iso(T0 + 2 * DAY)
    listed = api.call("GET", "/api/games?mine=true", tokens["bob"]).json["games"]
    assert listed[0]["deadline"] == iso(T0 + 2 * DAY)
    untimed, tokens = api.started_game("cid", "dan", clock=None)
    assert state(api, untimed, tokens["cid"])["deadline"] is None


def test_the_next_deadline_starts_a_new_turn_and_keeps_a_running_one(api, clock):
    game_id, _ = api.started_game("ann", "bob")
    clock.advance(DAY)
    with Session(get_engine(api.app)) as session:
        game = store.load_game(session, game_id)
        assert game.state is not None
        after = {**game.state, "to_move": 1 - game.state["to_move"]}
        assert next_deadline(session, game, state=after, finished=False, new_turn=True) == {
            "deadline": T0 + 4 * DAY,
            "turn_started_at": T0 + DAY,
            "reminder_due": T0 + DAY + 36 * HOUR,
            "reminded": [],
        }
        game.reminded = ["half"]
        same = next_deadline(session, game, state=game.state, finished=False, new_turn=False)
        assert same == {
            "deadline": T0 + 3 * DAY,
            "turn_started_at": T0,
            "reminder_due": T0 + 2 * DAY,
            "reminded": ["half"],
        }
        over = next_deadline(session, game, state=after, finished=True, new_turn=True)
        assert over == {"deadline": None, "turn_started_at": None, "reminder_due": None}


def test_the_next_deadline_counts_the_next_players_vacation(api, clock):
    game_id, tokens = api.started_game("ann", "bob")
    with Session(get_engine(api.app)) as session:
        game = store.load_game(session, game_id)
        assert game.state is not None
        mover = game.state["players"][game.state["to_move"]]
    other = "bob" if mover == "ann" else "ann"
    declared = api.call("POST", "/api/me/vacation", tokens[other], json={"days": 2})
    assert declared.status_code == 201
    with Session(get_engine(api.app)) as session:
        game = store.load_game(session, game_id)
        after = {**game.state, "to_move": 1 - game.state["to_move"]}  # type: ignore[index]
        values = next_deadline(session, game, state=after, finished=False, new_turn=True)
        assert values["deadline"] == T0 + 5 * DAY


def test_a_turn_by_the_player_resets_their_timeouts(api, clock):
    game_id, _ = api.started_game("ann", "bob")
    with Session(get_engine(api.app)) as session:
        game = store.load_game(session, game_id)
        assert game.state is not None
        mover = game.state["players"][game.state["to_move"]]
        game.player_clocks = {mover: {"timeouts": 1}}
        after = {**game.state, "to_move": 1 - game.state["to_move"]}
        values = next_deadline(session, game, state=after, finished=False, new_turn=True)
        assert values["player_clocks"] == {}
        bot = next_deadline(
            session, game, state=after, finished=False, new_turn=True, by_the_player=False
        )
        assert "player_clocks" not in bot


def test_the_vacation_bank_of_a_new_player(api, clock):
    token = api.register("ann")
    assert api.call("GET", "/api/me/vacation", token).json == {
        "bank_days": 14.0,
        "current": None,
        "next_accrual": iso(T0 + 8 * HOUR),
    }


@pytest.mark.postgres
def test_a_vacation_pauses_the_clock_of_the_player_to_move(api, backend, clock):
    game_id, tokens = api.started_game("ann", "bob")
    before = api.call("GET", f"/api/games/{game_id}", tokens["ann"])
    mover = before.json["to_move"]
    clock.advance(DAY)
    declared = api.call("POST", "/api/me/vacation", tokens[mover], json={"days": 5})
    assert declared.status_code == 201, declared.json
    assert declared.json == {
        "bank_days": (14 * 24 + 3 - 5 * 24) / 24,  # 3 h earned in the first day
        "current": {"start": iso(T0 + DAY), "end": iso(T0 + 6 * DAY)},
        "next_accrual": iso(T0 + 6 * DAY + 8 * HOUR),  # nothing is earned while away
    }
    shown = state(api, game_id, tokens["ann"])
    assert shown["deadline"] == iso(T0 + 8 * DAY)
    seat = shown["players"].index(mover)
    assert shown["vacation_until"][seat] == iso(T0 + 6 * DAY)
    assert shown["vacation_until"][1 - seat] is None
    # the state changed without a new version: its ETag changed all the same
    again = api.call(
        "GET",
        f"/api/games/{game_id}",
        tokens["ann"],
        headers={"If-None-Match": before.headers["ETag"]},
    )
    assert again.status_code == 200 and again.headers["ETag"] != before.headers["ETag"]

    twice = api.call("POST", "/api/me/vacation", tokens[mover], json={"days": 1})
    assert twice.status_code == 409
    assert twice.json["message"].startswith("you have declared a vacation from")

    clock.advance(DAY + 30 * timedelta(minutes=1))
    ended = api.call("DELETE", "/api/me/vacation", tokens[mover])
    assert ended.status_code == 200
    assert ended.json["current"] is None
    assert ended.json["bank_days"] == (14 * 24 + 3 - 5 * 24 + 95) / 24  # 95.5 h unused: 95 back
    shown = state(api, game_id, tokens["ann"])
    assert shown["deadline"] == iso(T0 + 4 * DAY + 30 * timedelta(minutes=1))
    assert shown["vacation_until"] == [None, None]
    assert api.call("DELETE", "/api/me/vacation", tokens[mover]).status_code == 409


def test_a_vacation_in_a_game_without_vacation_leaves_its_deadline(api, clock):
    game_id, tokens = api.started_game("ann", "bob", clock={"vacation": False})
    mover = state(api, game_id, tokens["ann"])["to_move"]
    assert api.call("POST", "/api/me/vacation", tokens[mover], json={"days": 2}).status_code == 201
    assert state(api, game_id, tokens["ann"])["deadline"] == iso(T0 + 3 * DAY)


def test_a_later_vacation(api, clock):
    token = api.register("ann")
    start = iso(T0 + 2 * DAY)
    declared = api.call("POST", "/api/me/vacation", token, json={"days": 3, "start": start})
    assert declared.status_code == 201
    assert declared.json["bank_days"] == 14.0  # paid when it starts
    assert declared.json["current"] == {"start": start, "end": iso(T0 + 5 * DAY)}
    clock.advance(3 * DAY)
    assert api.call("GET", "/api/me/vacation", token).json["bank_days"] == (14 * 24 + 6 - 72) / 24
    cancelled = api.call("POST", "/api/me/vacation", token, json={"days": 1})
    assert cancelled.status_code == 409


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"days": 15}, 422, "your vacation bank holds 14 days, not enough for 15"),
        ({"days": 2, "start": "2020-01-01T00:00Z"}, 422, "a vacation cannot start in the past"),
        ({"days": 0}, 400, "`days` must be a whole number of days from 1 to 30"),
        ({"days": "3"}, 400, "`days` must be a whole number of days from 1 to 30"),
        ({"days": 2, "start": "2027-01-01T00:00"}, 400, "`start` must be null or a time with"),
        ({"days": 2, "start": "soon"}, 400, "`start` must be null or a time with its zone"),
        ({}, 400, "`days` is required"),
    ],
)
def test_a_vacation_refused_changes_nothing(api, clock, body, status, message):
    token = api.register("ann")
    response = api.call("POST", "/api/me/vacation", token, json=body)
    assert response.status_code == status
    assert response.json["message"].startswith(message), response.json
    assert api.call("GET", "/api/me/vacation", token).json["current"] is None


def test_reminders_and_time_zone_preferences(api):
    token = api.register("ann")
    shown = api.call("GET", "/api/me/preferences", token).json
    assert (shown["reminders"], shown["timezone"]) == (True, "UTC")
    changes = {"reminders": False, "timezone": "Europe/Prague"}
    changed = api.call("PATCH", "/api/me/preferences", token, json=changes).json
    assert (changed["reminders"], changed["timezone"]) == (False, "Europe/Prague")
    bad = api.call("PATCH", "/api/me/preferences", token, json={"timezone": "Mars/Olympus"})
    assert bad.status_code == 400
    assert bad.json["message"] == (
        "`timezone` must be an IANA time zone name such as Europe/Prague, America/New_York or UTC"
    )
    assert api.call("GET", "/api/me/preferences", token).json["timezone"] == "Europe/Prague"


def test_a_game_shows_a_vacation_to_come_once_it_begins(api, clock):
    game_id, tokens = api.started_game("ann", "bob", clock=None)
    start = iso(T0 + DAY)
    api.call("POST", "/api/me/vacation", tokens["bob"], json={"days": 1, "start": start})
    assert state(api, game_id, tokens["ann"])["vacation_until"] == [None, None]
    clock.advance(DAY)
    seat = state(api, game_id, tokens["ann"])["players"].index("bob")
    assert state(api, game_id, tokens["ann"])["vacation_until"][seat] == iso(T0 + 2 * DAY)


def test_a_game_row_keeps_no_clock_facts_of_nobody(api, clock):
    game_id, tokens = api.started_game("ann", "bob")
    api.call("POST", "/api/me/vacation", tokens["ann"], json={"days": 1})
    api.call("DELETE", "/api/me/vacation", tokens["ann"])
    with Session(get_engine(api.app)) as session:
        assert session.get(GameRecord, game_id).player_clocks == {}  # type: ignore[union-attr]
