"""Private games and the lobby: a private game exists only for its players and invitees (a
404 to anyone else, on the API and the web, and absent from their lists); the lobby lists
only the open games the caller could join."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from league import league_support
from server_support import Api, csrf_of, web_sign_in


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


#: An id no game has.
MISSING = 987_654
#: A body every game action can read (those without one ignore it).
TURN = {"turn": "bar USm", "version": 1}


def _answer(api, rule, method: str, game_id: int, token: str, csrf: str) -> tuple:
    """What `method` on `rule` for `game_id` answers the holder of `token` (API) or of the
    client's web session (pages), with the id written as ID."""
    path = rule.rule.replace("<int:game_id>", str(game_id))
    if path.startswith("/api/"):
        response = api.call(method, path, token, json=TURN)
    else:
        response = api.client.open(path, method=method, data={"csrf": csrf, **TURN})
    text = re.sub(rf"(game |games/){game_id}\b", r"\1ID", response.get_data(as_text=True))
    return response.status_code, response.mimetype, text


@pytest.mark.postgres
def test_every_action_on_a_private_game_answers_a_stranger_as_a_missing_game(api):
    running, tokens = api.started_game("ann", "bob", private=True, invite=["bob"], seats=2)
    waiting = api.call(
        "POST", "/api/games", tokens["ann"], json={"seats": 3, "private": True, "invite": ["bob"]}
    ).json["id"]
    cid = api.register("cid")
    web_sign_in(api, "cid")
    csrf = csrf_of(api.client.get("/").text)
    rules = [rule for rule in api.app.url_map.iter_rules() if "game_id" in rule.arguments]
    actions = [(rule, method) for rule in rules for method in rule.methods - {"HEAD", "OPTIONS"}]
    assert len(actions) >= 14  # every route of a game: 9 of the API, 5 of the pages
    for rule, method in actions:
        missing = _answer(api, rule, method, MISSING, cid, csrf)
        assert missing[0] in (303, 400, 403, 404), (method, rule.rule, missing)
        for game_id in (running, waiting):
            got = _answer(api, rule, method, game_id, cid, csrf)
            assert got == missing, (method, rule.rule, game_id)


def test_a_private_game_cannot_be_rated(api):
    ann = api.register("ann")
    api.register("bob")
    body = {"seats": 2, "private": True, "invite": ["bob"], "rated": True}
    refused = api.call("POST", "/api/games", ann, json=body)
    assert refused.status_code == 422 and refused.json["error"] == "private_rated"
    assert "ratings" in refused.json["message"]
    assert api.call("GET", "/api/games?mine=true", ann).json["games"] == []


def mentions(text: str, data: Any, game_id: int, finished_at: str) -> bool:
    """Whether an answer (its `text`, and `data` if it is JSON) names the game: its id as a
    game's (JSON fields, links, "Game N") or the moment it finished. `benchmarks/attack.py`
    scans a deployment with it too. An `id` is a game's in an object that lists its
    players; a player's or a token's own `id` (`/api/me`) may equal the game's by chance."""
    if finished_at in text or re.search(rf"(/games/|Game ){game_id}\b", text):
        return True
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                named = key in ("game", "game_id") or (key == "id" and "players" in item)
                if named and value == game_id:
                    return True
                if key == "games" and isinstance(value, list) and game_id in value:
                    return True
                pending.append(value)
        elif isinstance(item, list):
            pending.extend(item)
    return False


def test_the_scan_tells_a_game_id_from_another_id_that_equals_it():
    me = {"id": 18, "name": "eve", "email": "eve@example.com"}
    assert not mentions("{}", me, 18, "2026-12-02T13:41:00Z")
    listed = {"games": [{"id": 18, "players": ["ann", "bob"]}]}
    assert mentions("{}", listed, 18, "2026-12-02T13:41:00Z")
    assert mentions("{}", {"history": [{"game": 18}]}, 18, "2026-12-02T13:41:00Z")


#: GET routes the scan below does not read, and why.
NOT_SCANNED = {
    "/unsubscribe/<token>": "a player's own signed link, about their mail only",
    "/signin/link/<code>": "a player's own sign-in link, naming only them",
}
#: The scan's path arguments: the league and the player the test makes, a language.
SCAN_ARGS = {"name": "ann", "slug": "tuesday", "number": "1", "division": "1", "code": "cs"}


def scanned_paths(app: Flask) -> list[str]:
    """Every GET route but a game's own (the test above) and `NOT_SCANNED`, its arguments
    `SCAN_ARGS`, with each of the list queries."""
    paths = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or "game_id" in rule.arguments or rule.rule in NOT_SCANNED:
            continue
        path = rule.rule
        for argument in rule.arguments:
            path = re.sub(rf"<(\w+:)?{argument}>", SCAN_ARGS[argument], path)
        paths += [path + query for query in ("", "?mine=true", "?status=finished", "?limit=200")]
    return paths


@pytest.mark.postgres
def test_no_list_of_games_players_or_ratings_shows_a_private_game_to_others(api):
    tokens = league_support.opened(api, ["ann", "bob", "cid", "dan"], game_size=2, division_size=4)
    league_support.start(api, tokens, 1)
    public = api.call("POST", "/api/games", tokens["ann"], json={"seats": 2, "rated": True}).json
    private = api.call(
        "POST", "/api/games", tokens["ann"], json={"seats": 2, "private": True, "invite": ["bob"]}
    ).json
    for game in (public, private):
        assert api.call("POST", f"/api/games/{game['id']}/join", tokens["bob"]).status_code == 200
        assert api.call("POST", f"/api/games/{game['id']}/start", tokens["ann"]).status_code == 200
        assert api.call("POST", f"/api/games/{game['id']}/resign", tokens["bob"]).status_code == 200
    pid = private["id"]
    finished_at = api.call("GET", f"/api/games/{pid}", tokens["ann"]).json["finished_at"]
    eve = api.register("eve")
    viewers = {}
    for name, token in (("signed out", None), ("stranger eve", eve), ("player ann", tokens["ann"])):
        viewer = Api(api.app, api.app.test_client())
        if token is not None:
            web_sign_in(viewer, name.split()[-1])
        viewers[name] = (viewer, token)
    scanned = []
    for path in scanned_paths(api.app):
        for name, (viewer, token) in viewers.items():
            response = viewer.call("GET", path, token)
            assert response.status_code < 500, (path, name)
            data = response.json if response.is_json else None
            seen = mentions(response.get_data(as_text=True), data, pid, finished_at)
            scanned.append((path, name, response.status_code, seen))
            if name != "player ann":
                assert not seen, (path, name, response.get_data(as_text=True))
    paths = {path for path, *_ in scanned}
    assert {"/api/ratings", "/api/players/ann", "/players/ann", "/ratings", "/"} <= {
        path.split("?")[0] for path in paths
    }
    # the scan does find the game where its players may see it: their lists and home page
    shown = {path for path, name, status, seen in scanned if seen and name == "player ann"}
    assert {"/", "/api/games", "/api/games?mine=true"} <= shown
    profile = api.call("GET", "/api/players/ann").json
    assert profile["rating"]["games"] == 1 and [p["game"] for p in profile["history"]] == [
        public["id"]
    ]
    assert public["id"] in [g["id"] for g in profile["recent_games"]]
