"""Leaving a league mid-season (issue 12 §2): a withdrawal resigns the player's running
games of the season, an operator's `players remove` does the same everywhere, and either
way the tables stay what the finished games say; invitation-only leagues."""

from __future__ import annotations

import pytest
from server_support import TEST_CONFIG, Api
from sqlmodel import Session
from typer.testing import CliRunner

from server.app import create_app
from server.cli import app as cli
from server.db import get_engine
from server.league import check

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay"]
LEAGUE = {"name": "Six", "slug": "six", "game_size": 3, "division_size": 6}


def running_season(api, tokens):
    """A started season of the six players, one division (6 games of 3, 3 each)."""
    assert api.call("POST", "/api/leagues", tokens["ann"], json=LEAGUE).status_code == 201
    assert api.call("POST", "/api/leagues/six/seasons", tokens["ann"]).status_code == 201
    for name in NAMES:
        api.call("POST", "/api/leagues/six/seasons/1/register", tokens[name])
    started = api.call("POST", "/api/leagues/six/seasons/1/start", tokens["ann"])
    assert started.status_code == 200, started.json
    return started.json


def games_of(api, token, season, name):
    return [
        game
        for game_id in season["divisions"][0]["games"]
        if name in (game := api.call("GET", f"/api/games/{game_id}", token).json)["players"]
    ]


def finish_all(api, tokens, season):
    for game_id in season["divisions"][0]["games"]:
        game = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
        still_in = [
            name for name, out in zip(game["players"], game["eliminated"], strict=True) if not out
        ]
        for name in sorted(still_in)[:-1]:
            if game["status"] == "active":
                game = api.call("POST", f"/api/games/{game_id}/resign", tokens[name]).json


@pytest.mark.postgres
def test_a_withdrawal_resigns_the_running_games_and_the_table_stays_consistent(api):
    tokens = {name: api.register(name) for name in NAMES}
    season = running_season(api, tokens)
    bobs = games_of(api, tokens["bob"], season, "bob")
    assert len(bobs) == 3
    out = api.call("POST", "/api/leagues/six/seasons/1/withdraw", tokens["bob"])
    assert out.status_code == 200 and out.json["withdrawn"] == ["bob"]
    for game in bobs:
        now = api.call("GET", f"/api/games/{game['id']}", tokens["bob"]).json
        assert now["eliminated"][now["players"].index("bob")]
    again = api.call("POST", "/api/leagues/six/seasons/1/withdraw", tokens["bob"])
    assert again.status_code == 409 and again.json["error"] == "not_registered"
    with Session(get_engine(api.app)) as session:
        assert check.differences(session) == (1, [])

    finish_all(api, tokens, season)
    finished = api.call("GET", "/api/leagues/six/seasons/1").json
    assert finished["status"] == "finished"
    rows = {row["player"]: row for row in finished["divisions"][0]["standings"]}
    assert rows["bob"]["withdrawn"] and rows["bob"]["played"] == 3 and rows["bob"]["points"] == 0
    assert all(row["played"] == 3 for row in rows.values())
    assert finished["moves"] == []  # one division: nobody moves
    with Session(get_engine(api.app)) as session:
        assert check.differences(session) == (1, [])
    reopened = api.call("POST", "/api/leagues/six/seasons", tokens["ann"]).json
    assert "bob" not in reopened["registered"]


def test_invitation_only_leagues_take_only_the_invited(api):
    tokens = {name: api.register(name) for name in ("ann", "bob", "cid")}
    closed = {**LEAGUE, "open": False}
    assert api.call("POST", "/api/leagues", tokens["ann"], json=closed).status_code == 201
    assert api.call("POST", "/api/leagues/six/seasons", tokens["ann"]).status_code == 201
    refused = api.call("POST", "/api/leagues/six/seasons/1/register", tokens["bob"])
    assert refused.status_code == 403 and refused.json["error"] == "not_invited"
    not_theirs = api.call(
        "POST", "/api/leagues/six/invitations", tokens["bob"], json={"names": ["bob"]}
    )
    assert not_theirs.status_code == 403
    unknown = api.call(
        "POST", "/api/leagues/six/invitations", tokens["ann"], json={"names": ["zed"]}
    )
    assert unknown.status_code == 422 and "zed" in unknown.json["message"]
    invited = api.call(
        "POST", "/api/leagues/six/invitations", tokens["ann"], json={"names": ["bob"]}
    )
    assert invited.status_code == 200 and invited.json == {"invited": ["bob"]}
    assert api.call("POST", "/api/leagues/six/seasons/1/register", tokens["bob"]).status_code == 200
    assert api.call("POST", "/api/leagues/six/seasons/1/register", tokens["cid"]).status_code == 403
    too_few = api.call("POST", "/api/leagues/six/seasons/1/start", tokens["ann"])
    assert too_few.status_code == 409 and "at least 3" in too_few.json["message"]


def test_an_operator_removing_a_player_withdraws_and_resigns_them(tmp_path):
    env = {
        "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'remove.db'}",
        "CAFE_LOG_LEVEL": "WARNING",
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
    }
    assert CliRunner().invoke(cli, ["db", "upgrade"], env=env).exit_code == 0
    app = create_app({**TEST_CONFIG, "DATABASE_URL": env["CAFE_DATABASE_URL"]})
    api = Api(app, app.test_client())
    tokens = {name: api.register(name) for name in NAMES}
    season = running_season(api, tokens)
    casual = api.call("POST", "/api/games", tokens["ann"], json={"seats": 2}).json["id"]
    assert api.call("POST", f"/api/games/{casual}/join", tokens["cid"]).status_code == 200
    assert api.call("POST", f"/api/games/{casual}/start", tokens["ann"]).status_code == 200
    cids = [game["id"] for game in games_of(api, tokens["cid"], season, "cid")] + [casual]
    removed = CliRunner().invoke(cli, ["players", "remove", "cid"], env=env)
    assert removed.exit_code == 0, removed.output
    assert removed.stdout.strip() == (
        f"cid removed: withdrawn from 1 seasons, resigned games: {', '.join(map(str, cids))}"
    )
    assert api.call("GET", "/api/me", tokens["cid"]).status_code == 401
    view = api.call("GET", "/api/leagues/six/seasons/1").json
    assert view["withdrawn"] == ["cid"]
    assert api.call("GET", f"/api/games/{casual}", tokens["ann"]).json["status"] == "finished"
    finish_all(api, tokens, season)
    api.close()
    checked = CliRunner().invoke(cli, ["league", "check"], env=env)
    assert checked.exit_code == 0 and "0 differences" in checked.stdout
    unknown = CliRunner().invoke(cli, ["players", "remove", "nobody"], env=env)
    assert unknown.exit_code == 1 and "no player is named 'nobody'" in unknown.stderr
