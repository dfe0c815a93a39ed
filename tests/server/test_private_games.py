"""Private games and the lobby: a private game exists only for its players and invitees (a
404 to anyone else, on the API and the web, and absent from their lists); the lobby lists
only the open games the caller could join."""

from __future__ import annotations

import pytest
from test_web_pages import csrf_of, web_sign_in


def ids(api, token, query: str) -> list[int]:
    """The ids `GET /api/games?query` lists for the holder of `token`."""
    response = api.call("GET", f"/api/games?{query}", token)
    assert response.status_code == 200
    return [game["id"] for game in response.json["games"]]


@pytest.mark.postgres
def test_a_private_game_is_seen_only_by_its_players_and_invitees(api):
    game_id, tokens = api.started_game("ann", "bob", private=True, invite=["bob"], seats=2)
    cid = api.register("cid")
    state = api.call("GET", f"/api/games/{game_id}", tokens["bob"])
    assert state.status_code == 200 and state.json["private"] is True
    for path in ("", "/turns", "/record", "/hints"):
        refused = api.call("GET", f"/api/games/{game_id}{path}", cid)
        assert refused.status_code == 404, path
        assert refused.json["message"] == f"there is no game {game_id}; see GET /api/games"
    turn = {"turn": "bar USm", "version": state.json["version"]}
    for path in ("/join", "/resign"):
        assert api.call("POST", f"/api/games/{game_id}{path}", cid).status_code == 404, path
    for path in ("/turns", "/preview"):
        assert api.call("POST", f"/api/games/{game_id}{path}", cid, json=turn).status_code == 404
    for query in ("", "status=active", "status=open", "mine=false&limit=200"):
        assert game_id not in ids(api, cid, query), query
    assert game_id in ids(api, tokens["ann"], "") and game_id in ids(api, tokens["bob"], "")
    assert api.client.get(f"/games/{game_id}").status_code == 404
    assert api.client.get(f"/games/{game_id}/record").status_code == 404
    web_sign_in(api, "cid")
    page = api.client.get(f"/games/{game_id}")
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert f"there is no game {game_id}" in page.text
    web_sign_in(api, "bob")
    assert api.client.get(f"/games/{game_id}").status_code == 200


def test_an_invitee_sees_a_private_open_game_and_joins_it(api):
    ann, bob, cid = (api.register(name) for name in ("ann", "bob", "cid"))
    created = api.call(
        "POST", "/api/games", ann, json={"seats": 3, "private": True, "invite": ["bob"]}
    )
    assert created.status_code == 201 and created.json["private"] is True
    game_id = created.json["id"]
    assert game_id in ids(api, bob, "status=open")
    assert game_id not in ids(api, cid, "status=open") + ids(api, cid, "")
    assert api.call("GET", f"/api/games/{game_id}", cid).status_code == 404
    assert api.call("POST", f"/api/games/{game_id}/join", cid).status_code == 404
    assert api.call("POST", f"/api/games/{game_id}/join", bob).status_code == 200
    [summary] = api.call("GET", "/api/games?mine=true", bob).json["games"]
    assert summary["private"] is True


def test_a_private_game_needs_invitees(api):
    ann = api.register("ann")
    refused = api.call("POST", "/api/games", ann, json={"seats": 2, "private": True})
    assert refused.status_code == 422 and refused.json["error"] == "invalid_invite"
    public = api.call("POST", "/api/games", ann, json={"seats": 2}).json
    assert public["private"] is False


@pytest.mark.postgres
def test_the_lobby_lists_only_games_the_caller_could_join(api):
    ann, bob, cid, dan = (api.register(name) for name in ("ann", "bob", "cid", "dan"))

    def new(token, **body):
        return api.call("POST", "/api/games", token, json={"seats": 2, **body}).json["id"]

    public = new(ann)
    for_bob = new(ann, invite=["bob"])
    full = new(cid)
    assert api.call("POST", f"/api/games/{full}/join", dan).status_code == 200
    three = new(dan, seats=3, invite=["bob"])
    assert ids(api, bob, "status=open") == [three, for_bob, public]
    assert ids(api, cid, "status=open") == [public]
    assert ids(api, ann, "status=open") == []
    assert ids(api, ann, "status=open&mine=true") == [for_bob, public]
    assert ids(api, dan, "status=open") == [public]
    assert for_bob in ids(api, cid, "")  # invitation-only, not private: listed, not joinable


def test_a_private_game_is_created_from_the_home_page(api):
    api.register("ann")
    bob = api.register("bob")
    web_sign_in(api, "ann")
    home = api.client.get("/").text
    assert 'action="/games"' in home
    created = api.client.post(
        "/games",
        data={
            "csrf": csrf_of(home),
            "seats": "3",
            "invite": "bob",
            "private": "on",
            "days_per_turn": "5",
        },
    )
    assert created.status_code == 303
    game_id = int(created.headers["Location"].rsplit("/", 1)[1])
    state = api.call("GET", f"/api/games/{game_id}", bob).json
    assert state["private"] and state["invited"] == ["bob"] and state["seats"] == 3
    assert state["clock"]["days_per_turn"] == 5
    refused = api.client.post(
        "/games", data={"csrf": csrf_of(home), "seats": "2", "invite": "nobody"}
    )
    assert refused.status_code == 303 and refused.headers["Location"] == "/"
    assert "no player is named nobody" in api.client.get("/").text
    assert api.client.post("/games", data={"seats": "2"}).status_code == 403
