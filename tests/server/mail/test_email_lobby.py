"""Mail around an open game: the creator hears who joined and when the table is full, an
`auto_start` game starts as its last seat is taken, and an invitation answered with `join`
(over real SMTP) takes the seat."""

from __future__ import annotations

import pytest
from mail_support import game_row, outbox_rows, reply_message, send


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: replies are handled in threads


def mails(api, kind, name):
    api.send_events()
    return [r for r in outbox_rows(api.app, kind) if r.to_addr == f"{name}@example.com"]


def test_an_auto_start_game_starts_when_its_last_seat_is_taken(api):
    tokens = {name: api.register(name) for name in ("ann", "bob", "cid")}
    body = {"seats": 3, "auto_start": True}
    created = api.call("POST", "/api/games", tokens["ann"], json=body)
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    assert api.call("POST", f"/api/games/{game_id}/join", tokens["bob"]).json["status"] == "open"
    [joined] = mails(api, "player_joined", "ann")
    assert joined.subject == f"Café · game {game_id}: bob joined"
    assert "1 of 3 seats is still free" in joined.body
    last = api.call("POST", f"/api/games/{game_id}/join", tokens["cid"])
    assert last.status_code == 200 and last.json["status"] == "active"
    [full] = mails(api, "table_full", "ann")
    assert full.subject == f"Café · game {game_id}: the table is full, the game has started"
    assert "cid took the last seat" in full.body and "ann, bob and cid" in full.body
    assert all(mails(api, "game_started", name) for name in tokens)
    assert api.call("POST", f"/api/games/{game_id}/start", tokens["ann"]).status_code == 409


def test_without_auto_start_the_creator_is_told_to_start(api):
    tokens = {name: api.register(name) for name in ("ann", "bob")}
    game_id = api.call("POST", "/api/games", tokens["ann"], json={"seats": 2}).json["id"]
    assert api.call("POST", f"/api/games/{game_id}/join", tokens["bob"]).json["status"] == "open"
    [full] = mails(api, "table_full", "ann")
    assert full.subject == f"Café · game {game_id}: the table is full"
    assert f"cafe start {game_id}" in full.body
    assert mails(api, "player_joined", "ann") == []


def test_auto_start_must_be_a_boolean(api):
    token = api.register("ann")
    refused = api.call("POST", "/api/games", token, json={"seats": 2, "auto_start": "soon"})
    assert refused.status_code == 400 and "auto_start" in refused.json["message"]


def test_an_invitation_answered_with_join_takes_the_seat(api, receiver):
    tokens = {name: api.register(name) for name in ("ann", "bob", "cid")}
    body = {"seats": 3, "invite": ["bob"]}
    game_id = api.call("POST", "/api/games", tokens["ann"], json=body).json["id"]
    [invite] = mails(api, "invite", "bob")
    assert "Reply to this email with the word join" in invite.body
    send(receiver, reply_message(invite.headers["Reply-To"], "Join!\n\n> the invitation\n"))
    shown = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert shown["players"] == ["ann", "bob"]
    [answer] = mails(api, "join_answer", "bob")
    assert answer.subject == f"Café · game {game_id}: you joined"
    assert answer.headers["In-Reply-To"] == "<reply-1@mail.example>"
    assert mails(api, "player_joined", "ann")
    again = reply_message(invite.headers["Reply-To"], "join", message_id="<reply-2@m.example>")
    send(receiver, again)
    refused = mails(api, "join_answer", "bob")[-1]
    assert refused.subject.endswith("you did not join")
    assert f"you are already in game {game_id}" in refused.body


def test_an_invitation_answered_with_anything_else_says_how_to_join(api, receiver):
    tokens = {name: api.register(name) for name in ("ann", "bob")}
    body = {"seats": 2, "invite": ["bob"]}
    game_id = api.call("POST", "/api/games", tokens["ann"], json=body).json["id"]
    [invite] = mails(api, "invite", "bob")
    send(receiver, reply_message(invite.headers["Reply-To"], "Sounds fun\n"))
    assert game_row(api.app, game_id).status == "open"
    [answer] = mails(api, "join_answer", "bob")
    assert "your reply began 'Sounds fun'; to take the seat, reply with the word join" in (
        answer.body
    )
