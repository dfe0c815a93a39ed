"""The lobby and game state: create, list, show (ETag, 304), join, start."""

from __future__ import annotations

import pytest


@pytest.fixture
def ann(api):
    return api.register("ann")


def create(api, token, **body):
    return api.call("POST", "/api/games", token, json={"seats": 2, **body})


def test_create_opens_a_game_with_the_creator_seated(api, ann):
    response = create(api, ann, seats=3, options={"birthday": 30, "coffee_klatsch": True})
    assert response.status_code == 201
    game = response.json
    assert response.headers["Location"] == f"/api/games/{game['id']}"
    assert game["status"] == "open"
    assert game["players"] == ["ann"]
    assert game["creator"] == "ann"
    assert game["your_seat"] == 0
    assert game["to_move"] is None
    assert game["options"] == {"birthday": 30, "coffee_klatsch": True}
    assert "hands" not in game and "commitment" not in game


@pytest.mark.parametrize(
    "body",
    [
        {"seats": 1},
        {"seats": 5},
        {"seats": "2"},
        {"seats": True},
        {},
        {"seats": 2, "options": []},
        {"seats": 2, "options": {"birthday": 0}},
        {"seats": 2, "options": {"birthday": "10"}},
        {"seats": 2, "options": {"coffee_klatsch": "yes"}},
        {"seats": 2, "options": {"speed": 3}},
        {"seats": 2, "invite": "bob"},
        {"seats": 2, "invite": [1]},
    ],
)
def test_create_refuses_bad_requests(api, ann, body):
    response = api.call("POST", "/api/games", ann, json=body)
    assert response.status_code == 400
    assert response.json["error"] == "invalid_request"


@pytest.mark.postgres
def test_create_with_invitations(api, ann):
    api.register("bob")
    response = create(api, ann, invite=["bob"])
    assert response.status_code == 201
    assert response.json["invited"] == ["bob"]
    [invite] = api.outbox("bob@example.com")[-1:]
    assert invite.kind == "invite"
    assert f"game {response.json['id']}" in invite.body


@pytest.mark.parametrize(
    ("invite", "code"),
    [
        (["nobody"], "unknown_player"),
        (["ann"], "invalid_invite"),
        (["bob", "cid"], "invalid_invite"),
    ],
)
def test_create_refuses_bad_invitations(api, ann, invite, code):
    api.register("bob")
    api.register("cid")
    response = create(api, ann, invite=invite)
    assert response.status_code == 422
    assert response.json["error"] == code


def test_create_needs_identity(api):
    assert api.call("POST", "/api/games", None, json={"seats": 2}).status_code == 401


@pytest.mark.postgres
def test_join_and_start(api, ann):
    bob = api.register("bob")
    game_id = create(api, ann).json["id"]
    joined = api.call("POST", f"/api/games/{game_id}/join", bob)
    assert joined.status_code == 200
    assert joined.json["players"] == ["ann", "bob"]
    assert joined.json["your_seat"] == 1
    started = api.call("POST", f"/api/games/{game_id}/start", ann)
    assert started.status_code == 200
    game = started.json
    assert game["status"] == "active"
    assert sorted(game["players"]) == ["ann", "bob"]
    assert game["to_move"] == game["players"][0]
    assert len(game["commitment"]) == 64
    assert [len(hand) for hand in game["hands"]] == [5, 5]
    assert game["bag_size"] == 90
    assert game["board"] == {} and game["bar"] == []
    assert game["version"] == 2
    assert "bag" not in game and "seed" not in game
    first = game["to_move"]
    [your_turn] = [m for m in api.outbox(f"{first}@example.com") if m.kind == "your_turn"]
    assert f"game {game_id}" in your_turn.subject
    assert " ".join(game["hands"][0]) in your_turn.body


@pytest.mark.postgres
def test_join_refusals(api, ann):
    bob, cid = api.register("bob"), api.register("cid")
    game_id = create(api, ann).json["id"]
    again = api.call("POST", f"/api/games/{game_id}/join", ann)
    assert again.status_code == 409 and again.json["error"] == "already_joined"
    assert api.call("POST", f"/api/games/{game_id}/join", bob).status_code == 200
    full = api.call("POST", f"/api/games/{game_id}/join", cid)
    assert full.status_code == 409 and full.json["error"] == "game_full"
    missing = api.call("POST", "/api/games/999/join", cid)
    assert missing.status_code == 404 and missing.json["error"] == "game_not_found"
    api.call("POST", f"/api/games/{game_id}/start", ann)
    late = api.call("POST", f"/api/games/{game_id}/join", cid)
    assert late.status_code == 409 and late.json["error"] == "game_not_open"


def test_invitation_only_games(api, ann):
    bob, cid = api.register("bob"), api.register("cid")
    game_id = create(api, ann, seats=3, invite=["bob"]).json["id"]
    refused = api.call("POST", f"/api/games/{game_id}/join", cid)
    assert refused.status_code == 403 and refused.json["error"] == "not_invited"
    assert api.call("POST", f"/api/games/{game_id}/join", bob).status_code == 200


def test_start_refusals(api, ann):
    bob = api.register("bob")
    game_id = create(api, ann).json["id"]
    alone = api.call("POST", f"/api/games/{game_id}/start", ann)
    assert alone.status_code == 409 and alone.json["error"] == "not_enough_players"
    api.call("POST", f"/api/games/{game_id}/join", bob)
    not_creator = api.call("POST", f"/api/games/{game_id}/start", bob)
    assert not_creator.status_code == 403 and not_creator.json["error"] == "not_creator"
    assert api.call("POST", f"/api/games/{game_id}/start", ann).status_code == 200
    twice = api.call("POST", f"/api/games/{game_id}/start", ann)
    assert twice.status_code == 409 and twice.json["error"] == "game_not_open"
    assert api.call("POST", "/api/games/999/start", ann).status_code == 404


def test_a_game_may_start_before_every_seat_is_taken(api, ann):
    bob = api.register("bob")
    game_id = create(api, ann, seats=4).json["id"]
    api.call("POST", f"/api/games/{game_id}/join", bob)
    started = api.call("POST", f"/api/games/{game_id}/start", ann).json
    assert len(started["players"]) == 2 and started["seats"] == 4


@pytest.mark.postgres
def test_show_with_etag_and_304(api):
    game_id, tokens = api.started_game("ann", "bob")
    first = api.call("GET", f"/api/games/{game_id}", tokens["ann"])
    assert first.status_code == 200
    etag = first.headers["ETag"]
    again = api.call("GET", f"/api/games/{game_id}", tokens["ann"], headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.data == b""
    assert again.headers["ETag"] == etag
    other = api.call("GET", f"/api/games/{game_id}", tokens["bob"], headers={"If-None-Match": etag})
    assert other.status_code == 200  # a different viewer sees a different representation
    assert other.json["your_seat"] != first.json["your_seat"]
    stranger = api.register("cid")
    view = api.call("GET", f"/api/games/{game_id}", stranger).json
    assert view["your_seat"] is None and view["hands"] == first.json["hands"]


@pytest.mark.postgres
def test_show_refusals(api, ann):
    for game_id, code in ((999, "game_not_found"), (2**31, "not_found"), (10**30, "not_found")):
        response = api.call("GET", f"/api/games/{game_id}", ann)
        assert response.status_code == 404
        assert response.json["error"] == code  # past the database's range: no route's number
    assert api.call("GET", "/api/games/1", None).status_code == 401
    assert api.call("GET", "/api/games/abc", ann).status_code == 404


@pytest.mark.postgres
def test_list_filters(api, ann):
    bob = api.register("bob")
    open_id = create(api, ann).json["id"]
    bobs_id = create(api, bob).json["id"]
    api.call("POST", f"/api/games/{bobs_id}/join", ann)
    api.call("POST", f"/api/games/{bobs_id}/start", bob)
    listing = api.call("GET", "/api/games", ann).json["games"]
    assert [g["id"] for g in listing] == [bobs_id, open_id]
    active = api.call("GET", "/api/games?status=active", ann).json["games"]
    assert [(g["id"], g["status"]) for g in active] == [(bobs_id, "active")]
    assert active[0]["to_move"] in ("ann", "bob")
    mine = api.call("GET", "/api/games?mine=true", bob).json["games"]
    assert [g["id"] for g in mine] == [bobs_id]
    assert api.call("GET", "/api/games?limit=1", ann).json["games"][0]["id"] == bobs_id
    assert api.call("GET", "/api/games?status=finished", ann).json["games"] == []


@pytest.mark.parametrize(
    "query", ["status=done", "mine=yes", "limit=0", "limit=201", "limit=-1", "limit=x"]
)
def test_list_refuses_bad_queries(api, ann, query):
    response = api.call("GET", f"/api/games?{query}", ann)
    assert response.status_code == 400
    assert response.json["error"] == "invalid_request"


@pytest.mark.postgres
def test_summaries_carry_scores_and_the_list_an_etag(api):
    game_id, tokens = api.started_game("ann", "bob")
    listed = api.call("GET", "/api/games", tokens["ann"])
    [summary] = listed.json["games"]
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert summary["scores"] == state["scores"] == [0, 0]
    assert summary["players"] == state["players"]
    tag = listed.headers["ETag"]
    again = api.call("GET", "/api/games", tokens["ann"], headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.headers["ETag"] == tag
    mover = state["to_move"]
    [hint] = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]).json["hints"]
    played = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        tokens[mover],
        json={"turn": hint["turn"], "version": state["version"]},
    )
    assert played.status_code == 201
    changed = api.call("GET", "/api/games", tokens["ann"], headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    [summary] = changed.json["games"]
    assert summary["scores"][state["players"].index(mover)] == hint["points"]


def test_an_open_game_lists_no_scores_yet(api, ann):
    create(api, ann)
    [summary] = api.call("GET", "/api/games", ann).json["games"]
    assert summary["scores"] is None


def test_the_state_names_the_birthday_player_and_the_elimination_order(api):
    game_id, tokens = api.started_game("ann", "bob", "cid", options={"birthday": 1})
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert state["birthday_player"] is None and state["elimination_order"] == []
    mover = state["to_move"]
    [hint] = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]).json["hints"]
    api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        tokens[mover],
        json={"turn": hint["turn"], "version": state["version"]},
    )
    quitter = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    assert api.call("POST", f"/api/games/{game_id}/resign", tokens[quitter]).status_code == 200
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert state["birthday_player"] == state["players"].index(mover)
    assert state["elimination_order"] == [state["players"].index(quitter)]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"seats": 2, "colour": "red"}, "`colour` is not a field of this request"),
        ({}, "`seats` is required: a whole number from 2 to 4"),
        ({"seats": 9}, "`seats` must be a whole number from 2 to 4"),
        ({"seats": 2, "options": {"birthday": 0}}, "`options.birthday` must be null or a points"),
        ({"seats": 2, "invite": ["no spaces"]}, "`invite` must be a list of player names"),
    ],
)
def test_a_refusal_names_the_field_and_its_rule(api, ann, body, words):
    response = api.call("POST", "/api/games", ann, json=body)
    assert response.status_code == 400
    assert response.json["error"] == "invalid_request"
    assert response.json["message"].startswith(words), response.json["message"]


@pytest.mark.parametrize(("raw", "seats"), [(b'{"seats": 2.0}', 2), (b'{"seats": 3e0}', 3)])
def test_a_whole_number_with_a_fraction_is_the_integer_json_schema_says(api, ann, raw, seats):
    created = api.call(
        "POST", "/api/games", ann, data=raw, headers={"Content-Type": "application/json"}
    )
    assert created.status_code == 201 and created.json["seats"] == seats
    for bad in (b'{"seats": 2.5}', b'{"seats": 1e400}', b'{"seats": 2e99999}'):
        refused = api.call(
            "POST", "/api/games", ann, data=bad, headers={"Content-Type": "application/json"}
        )
        assert refused.status_code == 400 and refused.json["error"] == "invalid_request"
