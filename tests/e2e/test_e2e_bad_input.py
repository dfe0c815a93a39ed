"""Bad input against a real gunicorn: each gets its 4xx and leaves the game as it was."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from server.models import GameRecord


@pytest.fixture
def game(client):
    game_id = client.new_game("ann", "bob")
    return game_id, client.state(game_id)


def unchanged(client, game_id, state):
    with Session(client.engine) as session:
        stored = session.get(GameRecord, game_id)
        return stored.version == state["version"] and stored.turn_count == 0


def test_bad_inputs_get_their_4xx_and_change_nothing(client, game):
    game_id, state = game
    mover = state["to_move"]
    waiting = next(p for p in state["players"] if p != mover)
    path = f"/api/games/{game_id}/turns"
    turn = client.hints(game_id, mover, 1)[0]
    ok_body = {"turn": turn, "version": state["version"]}
    json_header = {"Content-Type": "application/json"}
    other_game = "/api/games/424242/turns"
    cases = [
        (path, mover, {"data": b'{"turn": ', "headers": json_header}, 400, "invalid_json"),
        (path, mover, {"json": {"turn": ["x"], "version": "2"}}, 400, "invalid_request"),
        (path, mover, {"json": {"turn": turn, "version": 10**20}}, 400, "invalid_request"),
        (path, mover, {"json": {**ok_body, "pad": "x" * 1_000_000}}, 413, "too_large"),
        (other_game, mover, {"json": ok_body}, 404, "game_not_found"),
        (f"/api/games/{2**63}/turns", mover, {"json": ok_body}, 404, "not_found"),
        (path, waiting, {"json": ok_body}, 409, "not_your_turn"),
        (path, mover, {"json": {**ok_body, "turn": "USm@@US1 ???"}}, 400, "unreadable_turn"),
        (path, mover, {"json": {**ok_body, "turn": "\u2603" * 50}}, 400, "unreadable_turn"),
        (path, mover, {"json": {**ok_body, "version": 0}}, 409, "stale_version"),
        (path, mover, {"json": {**ok_body, "version": 2.5}}, 400, "invalid_request"),
        (path, mover, {"json": {**ok_body, "turn": "bar\x1bUSf"}}, 400, "invalid_request"),
        (f"/api/leagues/x/seasons/{2**31}/start", mover, {}, 404, "not_found"),
        (f"/api/tokens/{2**31}", mover, {}, 405, "method_not_allowed"),
        (
            path,
            None,
            {"json": ok_body, "headers": {"Authorization": "Bearer no"}},
            401,
            "invalid_token",
        ),
    ]
    for url, who, kwargs, status, code in cases:
        response = client.call("POST", url, who, **kwargs)
        assert (response.status_code, response.json().get("error")) == (status, code), (
            url,
            kwargs.get("json", kwargs.get("data")),
            response.text,
        )
    assert unchanged(client, game_id, state)
    for raw in (b"", b"[]", b"null"):  # a route that reads a body needs one: an object
        response = client.call("PATCH", "/api/me/preferences", mover, data=raw, headers=json_header)
        assert response.status_code == 400, (raw, response.text)
    # a whole number written with a fraction is the integer (JSON Schema's `integer`)
    played = client.call("POST", path, mover, json={**ok_body, "version": state["version"] * 1.0})
    assert played.status_code == 201, played.text


def test_revoked_token_and_finished_game(client, game):
    game_id, state = game
    mover = state["to_move"]
    token_id = client.call("GET", "/api/tokens", mover).json()["tokens"][0]["id"]
    assert client.call("DELETE", f"/api/tokens/{token_id}", mover).status_code == 204
    turn_body = {"turn": "bar USf", "version": state["version"]}
    revoked = client.call("POST", f"/api/games/{game_id}/turns", mover, json=turn_body)
    assert revoked.status_code == 401
    waiting = next(p for p in state["players"] if p != mover)
    assert client.call("POST", f"/api/games/{game_id}/resign", waiting).status_code == 200
    finished = client.call("POST", f"/api/games/{game_id}/turns", waiting, json=turn_body)
    assert finished.status_code == 409
    assert finished.json()["error"] == "game_finished"
