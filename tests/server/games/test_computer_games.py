"""Computer players (issue 27): practice games and computer seats, the worker playing
their turns as soon as they are due, and the games they may not sit in."""

from __future__ import annotations

import pytest
from server_support import csrf_of, settings_of, signed_in
from sqlmodel import Session, col, select

from server.db import get_engine
from server.domain import Refused
from server.games.computers import check_seats
from server.jobs import computers
from server.jobs.worker import Worker
from server.models import GameRecord, TurnRecord, TurnSource


def _state(api, game_id, token):
    return api.call("GET", f"/api/games/{game_id}", token).json


def _log(app, game_id):
    with Session(get_engine(app)) as session:
        return list(
            session.exec(
                select(TurnRecord)
                .where(TurnRecord.game_id == game_id)
                .order_by(col(TurnRecord.number))
            ).all()
        )


@pytest.mark.postgres
def test_the_worker_plays_the_computers_turns_at_once(app, api, dead_port):
    ann = api.register("ann")
    created = api.call(
        "POST",
        "/api/games",
        ann,
        json={"seats": 3, "computer": {"seats": 2, "level": 1}},
    )
    assert created.status_code == 201, created.json
    game = created.json
    assert game["status"] == "active"
    assert sorted(game["computers"]) == ["computer-1", "computer-2"]
    assert sorted(game["players"]) == ["ann", "computer-1", "computer-2"]
    assert game["rated"] is False
    worker = Worker(get_engine(app), settings_of(app).replace(SMTP_PORT=dead_port))
    worker.run_once()
    state = _state(api, game["id"], ann)
    assert state["to_move"] == "ann"  # whoever began, the computers have played up to ann
    log = _log(app, game["id"])
    seats = {name: seat for seat, name in enumerate(state["players"])}
    assert len(log) == seats["ann"]
    assert all(entry.source == TurnSource.COMPUTER for entry in log)
    hint = api.call("GET", f"/api/games/{game['id']}/hints?n=1", ann).json["hints"][0]
    played = api.call(
        "POST",
        f"/api/games/{game['id']}/turns",
        ann,
        json={"turn": hint["turn"], "version": state["version"]},
    )
    assert played.status_code == 201, played.json
    worker.run_once()
    after = _state(api, game["id"], ann)
    assert after["to_move"] == "ann" or after["status"] == "finished"
    assert after["version"] == state["version"] + 3


def test_a_practice_game_is_played_to_its_end_with_hints(app, api):
    """One person using hints against a computer, through the API, to the end."""
    ann = api.register("ann")
    body = {"seats": 2, "computer": {"seats": 1, "level": 1}, "clock": None}
    game = api.call("POST", "/api/games", ann, json=body).json
    engine, config = get_engine(app), settings_of(app)
    for _ in range(200):
        computers.play_due(engine, config)
        state = _state(api, game["id"], ann)
        if state["status"] == "finished":
            break
        assert state["to_move"] == "ann"
        hint = api.call("GET", f"/api/games/{game['id']}/hints?n=1", ann).json["hints"][0]
        played = api.call(
            "POST",
            f"/api/games/{game['id']}/turns",
            ann,
            json={"turn": hint["turn"], "version": state["version"]},
        )
        assert played.status_code == 201, played.json
    assert state["status"] == "finished"
    assert {line["player"] for line in state["standings"]} == {"ann", "computer-1"}
    with Session(engine) as session:
        assert session.get(GameRecord, game["id"]).computer_turn is False


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"seats": 2, "computer": {"seats": 2}}, "computer_only"),
        ({"seats": 3, "computer": {"seats": 3}}, "computer_only"),
        ({"seats": 2, "computer": {"seats": 1}, "rated": True}, "computer_rated"),
    ],
)
def test_games_computers_may_not_sit_in_are_refused(api, body, code):
    ann = api.register("ann")
    refused = api.call("POST", "/api/games", ann, json=body)
    assert refused.status_code == 422, refused.json
    assert refused.json["error"] == code
    assert api.call("GET", "/api/games?mine=true", ann).json["games"] == []


def test_computer_players_and_invitees_must_fit(api):
    ann = api.register("ann")
    api.register("bob")
    body = {"seats": 2, "computer": {"seats": 1}, "invite": ["bob"]}
    refused = api.call("POST", "/api/games", ann, json=body)
    assert refused.status_code == 422
    assert refused.json["error"] in ("computer_seats", "invalid_invite")


def test_the_creator_fills_an_open_game_with_computers(app, api):
    ann, bob = api.register("ann"), api.register("bob")
    game = api.call("POST", "/api/games", ann, json={"seats": 4}).json
    assert api.call("POST", f"/api/games/{game['id']}/join", bob).status_code == 200
    assert api.call("POST", f"/api/games/{game['id']}/computers", bob, json={}).status_code == 403
    filled = api.call("POST", f"/api/games/{game['id']}/computers", ann, json={"level": 2})
    assert filled.status_code == 200, filled.json
    assert filled.json["status"] == "active"
    assert sorted(filled.json["computers"]) == ["computer-1", "computer-2"]
    again = api.call("POST", f"/api/games/{game['id']}/computers", ann, json={})
    assert again.status_code == 409


def test_a_rated_or_league_game_gets_no_computers(app, api):
    ann = api.register("ann")
    rated = api.call("POST", "/api/games", ann, json={"seats": 2, "rated": True}).json
    refused = api.call("POST", f"/api/games/{rated['id']}/computers", ann, json={})
    assert refused.status_code == 422
    assert refused.json["error"] == "computer_rated"


def test_a_league_game_gets_no_computers():
    """League games are dealt by their season (`server.league.start`), never opened: the
    one rule still refuses computer seats in one."""
    with pytest.raises(Refused) as refused:
        check_seats(seats=4, computers=1, humans=3, rated=True, league=True)
    assert refused.value.code == "computer_rated"
    with pytest.raises(Refused) as refused:
        check_seats(seats=4, computers=1, humans=3, rated=False, league=True)
    assert refused.value.code == "computer_league"


def test_nobody_may_register_a_computers_name(api):
    response = api.client.post(
        "/api/players", json={"name": "Computer-7", "email": "c7@example.com"}
    )
    assert response.status_code == 409
    assert response.json["error"] == "name_taken"


def test_the_home_pages_form_opens_a_practice_game_shown_with_its_computers(api):
    api.register("ann")
    ann = signed_in(api, "ann")
    home = ann.get("/").text
    assert 'name="computers"' in home
    form = {"csrf": csrf_of(home), "seats": "3", "computers": "2", "level": "1"}
    opened = ann.post("/games", data=form)
    assert opened.status_code == 303
    page = ann.get(opened.headers["Location"]).text
    assert "computer-1</a> · computer" in page
    assert "computer-2</a> · computer" in page
