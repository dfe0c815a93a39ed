"""Every league page answers 200 to every kind of viewer in every state of a season
(issue 20 §1): signed out, a stranger, the organiser, a member of this division, a member
of the other one, a withdrawn member — while registration is open, while the season runs,
once it is finished, and when the next season is open. The season page used to answer 500
to a signed-in member of a running season whose division had games they do not play in."""

from __future__ import annotations

import pytest
from league.league_support import finish_all
from server_support import signed_in, walk

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal", "ivy"]
#: Nine players in games of three, divisions of four: divisions of 5 and 4 players, so a
#: member of division 1 plays 2 of its 4 games.
SETTINGS = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 3, "division_size": 4}


def ok(response, status=200):
    assert response.status_code == status, response.json
    return response.json


@pytest.mark.postgres
def test_every_league_page_answers_every_viewer_in_every_state(api):
    tokens = {name: api.register(name) for name in [*NAMES, "kim", "zed"]}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=SETTINGS), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    for name in [*NAMES, "kim"]:
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens[name]))
    ok(api.call("POST", "/api/leagues/tuesday/seasons/1/withdraw", tokens["kim"]))
    viewers = {
        "signed out": api.app.test_client(),
        "stranger": signed_in(api, "zed"),
        "organiser": signed_in(api, "ann"),
        "member": signed_in(api, "bob"),
        "withdrawn before the start": signed_in(api, "kim"),
    }
    league = ["/leagues", "/leagues/tuesday", "/leagues/tuesday/seasons/1"]
    walk(viewers, league, "registration")

    season = ok(api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]))
    one, two = season["divisions"]
    assert len(one["players"]) == 5 and len(one["games"]) == 4 and "bob" in one["players"]
    assert "cid" in one["players"] and "gus" in two["players"]
    viewers["member of the other division"] = signed_in(api, "gus")
    divisions = [f"/leagues/tuesday/seasons/1/divisions/{d['number']}" for d in (one, two)]
    walk(viewers, league + divisions, "running")
    ok(api.call("POST", "/api/leagues/tuesday/seasons/1/withdraw", tokens["cid"]))
    viewers["withdrawn during the season"] = signed_in(api, "cid")
    walk(viewers, league + divisions, "running, after a withdrawal")

    finish_all(api, tokens, season)
    assert ok(api.call("GET", "/api/leagues/tuesday/seasons/1"))["status"] == "finished"
    walk(viewers, league + divisions, "finished")

    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    walk(viewers, [*league, "/leagues/tuesday/seasons/2", *divisions], "the next one open")


def test_numbers_no_column_holds_are_missing_seasons_and_divisions(api):
    """(The route converter refuses them, `server.schemas.fields.StoredInt`.)"""
    tokens = {name: api.register(name) for name in NAMES[:3]}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json={**SETTINGS, "game_size": 2}), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    huge = 10**20
    said = f"nothing here has the number {huge}"
    for path in [
        f"/leagues/tuesday/seasons/{huge}",
        f"/leagues/tuesday/seasons/{huge}/divisions/1",
        f"/leagues/tuesday/seasons/1/divisions/{huge}",
        f"/api/leagues/tuesday/seasons/{huge}",
        f"/api/leagues/tuesday/seasons/1/divisions/{huge}",
        f"/leagues/nope/seasons/{huge}",
    ]:
        answer = api.client.get(path)
        assert answer.status_code == 404 and said in answer.text, path
