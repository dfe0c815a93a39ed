"""The league through its API (issue 12 §1–§2): leagues, seasons, registration, the start
with divisions and games, standings kept as games finish, withdrawals, the season's end
with its moves, and the next season's divisions."""

from __future__ import annotations

from fractions import Fraction

import pytest
from sqlmodel import Session, select

from cafe.league import division_seed, schedule
from cafe.league.scheduling import default_rounds, seed_commitment
from server.db import get_engine
from server.league import check
from server.models import GameRecord

SETTINGS = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 3, "division_size": 4}


def league(api, token, **settings):
    response = api.call("POST", "/api/leagues", token, json={**SETTINGS, **settings})
    assert response.status_code == 201, response.json
    return response.json


def season_of(api, number=1, slug="tuesday"):
    response = api.call("GET", f"/api/leagues/{slug}/seasons/{number}")
    assert response.status_code == 200, response.json
    return response.json


def finish_by_resigning(api, tokens, game_id, order):
    """Finish the game by resignations in `order` (the first resigns first, so places last)."""
    for name in order:
        response = api.call("POST", f"/api/games/{game_id}/resign", tokens[name])
        assert response.status_code == 200, response.json


def test_leagues_are_created_listed_and_shown(api):
    ann = api.register("ann")
    made = league(api, ann)
    assert made["organiser"] == "ann"
    assert (made["game_size"], made["division_size"], made["promote"], made["relegate"]) == (
        3,
        4,
        2,
        2,
    )
    assert made["clock"]["days_per_turn"] == 3 and made["seasons"] == []
    listed = api.call("GET", "/api/leagues").json["leagues"]
    assert [(row["slug"], row["season"], row["players"]) for row in listed] == [
        ("tuesday", None, 0)
    ]
    taken = api.call("POST", "/api/leagues", ann, json=SETTINGS)
    assert taken.status_code == 409 and taken.json["error"] == "slug_taken"
    bad = api.call("POST", "/api/leagues", ann, json={**SETTINGS, "slug": "Tues day"})
    assert bad.status_code == 400 and "`slug` must be 2 to 32 lowercase" in bad.json["message"]
    crowded = api.call(
        "POST", "/api/leagues", ann, json={**SETTINGS, "slug": "x2", "promote": 3, "relegate": 2}
    )
    assert crowded.status_code == 422
    assert crowded.json["message"] == "promote + relegate (5) is more than a division of 4 holds"
    assert api.call("GET", "/api/leagues/nope").status_code == 404


@pytest.mark.postgres
def test_a_season_from_registration_to_its_end_and_the_next_one(api):
    names = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal", "ivy"]
    tokens = {name: api.register(name) for name in names}
    league(api, tokens["ann"])
    opened = api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"])
    assert opened.status_code == 201 and opened.json["status"] == "registration"
    assert api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]).status_code == 409
    for name in names:
        response = api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens[name])
        assert response.status_code == 200, response.json
    again = api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens["bob"])
    assert again.status_code == 409 and again.json["error"] == "already_registered"
    assert (
        api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["bob"]).status_code == 403
    )

    started = api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"])
    assert started.status_code == 200, started.json
    season = started.json
    assert season["status"] == "running" and season["seed"] is None
    assert [len(d["players"]) for d in season["divisions"]] == [5, 4]
    assert (
        api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]).status_code == 409
    )
    late = api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens["bob"])
    assert late.status_code == 409
    for division in season["divisions"]:
        rounds = default_rounds(len(division["players"]), 3)
        assert division["rounds"] == rounds
        played = dict.fromkeys(division["players"], 0)
        for game_id in division["games"]:
            game = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
            assert game["status"] == "active" and game["rated"] is True
            assert game["clock"]["days_per_turn"] == 3 and game["deadline"] is not None
            for name in game["players"]:
                played[name] += 1
        assert set(played.values()) == {rounds}

    # every game ends by resignations in name order: the first name places last
    games = [g for d in season["divisions"] for g in d["games"]]
    for game_id in games:
        players = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["players"]
        finish_by_resigning(api, tokens, game_id, sorted(players)[:-1])
    finished = season_of(api)
    assert finished["status"] == "finished"
    assert finished["seed"] is not None
    assert seed_commitment(bytes.fromhex(finished["seed"])) == finished["seed_commitment"]
    for division in finished["divisions"]:
        expected = schedule(
            division["players"],
            3,
            seed=division_seed(bytes.fromhex(finished["seed"]), division["number"]),
        )
        with Session(get_engine(api.app)) as session:
            stored = session.exec(
                select(GameRecord).where(col_in(GameRecord.id, division["games"]))
            ).all()
            assert sorted(sorted(g.state["players"]) for g in stored) == sorted(
                sorted(game) for game in expected
            )
    # a game of k players in a 3-player league gives (k - p)(3 - 1)/(k - 1) for place p:
    # 2, 1, 0 or 2, 0; k points in all. The last name alphabetically wins each game.
    top = finished["divisions"][0]
    points = {
        row["player"]: Fraction(row["points"]).limit_denominator(36) for row in top["standings"]
    }
    assert [row["place"] for row in top["standings"]] == list(range(1, 6))
    assert [row["points"] for row in top["standings"]] == sorted(points.values(), reverse=True)
    sizes = [
        len(api.call("GET", f"/api/games/{g}", tokens["ann"]).json["players"]) for g in top["games"]
    ]
    assert sum(points.values()) == sum(sizes)
    assert points[max(top["players"])] == 2 * top["rounds"]  # won every game
    moves = finished["moves"]
    assert {m["direction"] for m in moves} == {"up", "down"}
    assert len([m for m in moves if m["direction"] == "up"]) == 2
    assert len([m for m in moves if m["direction"] == "down"]) == 2

    with Session(get_engine(api.app)) as session:
        seasons, found = check.differences(session)
    assert (seasons, found) == (1, [])

    second = api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"])
    assert second.status_code == 201
    assert sorted(second.json["registered"]) == sorted(names)
    out = api.call("POST", "/api/leagues/tuesday/seasons/2/withdraw", tokens["ivy"])
    assert out.status_code == 200 and out.json["withdrawn"] == ["ivy"]
    started = api.call("POST", "/api/leagues/tuesday/seasons/2/start", tokens["ann"]).json
    divisions = [set(d["players"]) for d in started["divisions"]]
    ups = {m["player"] for m in moves if m["direction"] == "up"}
    downs = {m["player"] for m in moves if m["direction"] == "down"}
    assert [len(d) for d in divisions] == [4, 4] and "ivy" not in set().union(*divisions)
    assert ups & divisions[0] and not (downs & divisions[0])


def col_in(column, values):
    return column.in_(values)
