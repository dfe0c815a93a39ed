"""Ratings (docs/league.md): OpenSkill Plackett–Luce with default parameters, updated when a
rated game finishes, and a pure function of the rated games (`ratings rebuild`)."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from server_support import TEST_CONFIG, Api, transaction_states
from sqlmodel import Session, select
from typer.testing import CliRunner

from server.app import create_app
from server.cli import app as cli
from server.db import get_engine
from server.league import ratings
from server.models import Player, Rating


def test_rate_is_openskill_plackett_luce_with_default_parameters():
    model = PlackettLuce()
    teams = [[model.rating()], [model.create_rating([27.0, 6.0])], [model.rating()]]
    direct = model.rate(teams, ranks=[1, 1, 3])
    ours = ratings.rate([ratings.DEFAULT, ratings.Skill(27.0, 6.0), ratings.DEFAULT], [1, 1, 3])
    assert ours == [ratings.Skill(team[0].mu, team[0].sigma) for team in direct]
    assert ours[0].ordinal == pytest.approx(direct[0][0].ordinal())
    assert ratings.Skill(25.0, 25.0 / 3) == ratings.DEFAULT


def resign_in_order(api, tokens, game_id, order):
    for name in order:
        assert api.call("POST", f"/api/games/{game_id}/resign", tokens[name]).status_code == 200


@pytest.mark.postgres
def test_a_rated_game_updates_ratings_and_history_an_unrated_one_does_not(api):
    game_id, tokens = api.started_game("ann", "bob", "cid", rated=True)
    resign_in_order(api, tokens, game_id, ["ann", "bob"])  # cid 1st, bob 2nd, ann 3rd
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(3)], ranks=[3, 2, 1])  # ann, bob, cid
    board = api.call("GET", "/api/ratings").json
    assert [row["player"] for row in board["ratings"]] == ["cid", "bob", "ann"]
    assert board["total"] == 3
    by_name = {row["player"]: row for row in board["ratings"]}
    for name, team in zip(["ann", "bob", "cid"], expected, strict=True):
        assert by_name[name]["mu"] == team[0].mu and by_name[name]["sigma"] == team[0].sigma
        assert by_name[name]["ordinal"] == pytest.approx(team[0].ordinal())
        assert by_name[name]["games"] == 1
    profile = api.call("GET", "/api/players/CID").json
    assert profile["name"] == "cid" and profile["rating"]["games"] == 1
    assert [point["game"] for point in profile["history"]] == [game_id]
    assert profile["recent_games"][0] == {
        **profile["recent_games"][0],
        "id": game_id,
        "place": 1,
    }

    casual, casual_tokens = api.started_game("dan", "eve")
    resign_in_order(api, casual_tokens, casual, ["dan"])
    assert api.call("GET", "/api/ratings").json["total"] == 3
    assert api.call("GET", "/api/players/dan").json["rating"]["games"] == 0
    assert api.call("GET", "/api/players/dan").json["rank"] is None
    for place, name in enumerate(["cid", "bob", "ann"], start=1):  # as the list orders them
        assert api.call("GET", f"/api/players/{name}").json["rank"] == place
    assert api.call("GET", "/api/players/nobody").status_code == 404
    page = api.call("GET", "/api/ratings?limit=1&offset=1").json
    assert [row["player"] for row in page["ratings"]] == ["bob"]


def duel(api, tokens, host, guest, loser):
    """A rated two-player game of `host` and `guest` that `loser` resigns."""
    game = api.call("POST", "/api/games", tokens[host], json={"seats": 2, "rated": True}).json
    assert api.call("POST", f"/api/games/{game['id']}/join", tokens[guest]).status_code == 200
    assert api.call("POST", f"/api/games/{game['id']}/start", tokens[host]).status_code == 200
    resign_in_order(api, tokens, game["id"], [loser])


def test_ratings_rebuild_reproduces_the_stored_values(tmp_path):
    env = {
        "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'ratings.db'}",
        "CAFE_LOG_LEVEL": "WARNING",
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
    }
    assert CliRunner().invoke(cli, ["db", "upgrade"], env=env).exit_code == 0
    app = create_app({**TEST_CONFIG, "DATABASE_URL": env["CAFE_DATABASE_URL"]})
    api = Api(app, app.test_client())
    first, tokens = api.started_game("ann", "bob", "cid", rated=True)
    resign_in_order(api, tokens, first, ["bob", "ann"])
    for host, guest, loser in (("ann", "bob", "ann"), ("bob", "cid", "cid"), ("cid", "ann", "cid")):
        duel(api, tokens, host, guest, loser)
    api.close()

    rebuilt = CliRunner().invoke(cli, ["ratings", "rebuild"], env=env)
    assert rebuilt.exit_code == 0, rebuilt.output
    assert rebuilt.stdout.strip().endswith("3 ratings rebuilt, 0 differed from the stored")
    checked = CliRunner().invoke(cli, ["league", "check"], env=env)
    assert checked.exit_code == 0 and "0 differences" in checked.stdout

    with Session(get_engine(app)) as session:
        row = session.exec(select(Rating)).first()
        row.mu += 1e-9
        session.add(row)
        session.commit()
    tampered = CliRunner().invoke(cli, ["league", "check"], env=env)
    assert tampered.exit_code == 3 and "1 differences" in tampered.stdout
    fixed = CliRunner().invoke(cli, ["ratings", "rebuild"], env=env)
    assert "1 differed from the stored" in fixed.stdout
    again = CliRunner().invoke(cli, ["league", "check"], env=env)
    assert again.exit_code == 0


@pytest.mark.postgres
def test_a_profiles_rank_is_its_place_in_the_list_ties_by_name(api):
    with Session(get_engine(api.app)) as session:
        skills = {"zed": (30.0, 5.0), "amy": (30.0, 5.0), "bea": (31.0, 5.0), "cat": (40.0, 5.0)}
        for name, (mu, sigma) in skills.items():
            player = Player(name=name, email=f"{name}@example.com")
            session.add(player)
            session.flush()
            games = 0 if name == "cat" else 2  # cat's row was never rated: not in the list
            session.add(Rating(player_id=player.id, mu=mu, sigma=sigma, games=games))
        session.commit()
    listed = [row["player"] for row in api.call("GET", "/api/ratings").json["ratings"]]
    assert listed == ["bea", "amy", "zed"]
    ranks = {name: api.call("GET", f"/api/players/{name}").json["rank"] for name in skills}
    assert ranks == {"bea": 1, "amy": 2, "zed": 3, "cat": None}


@pytest.mark.postgres
def test_a_rated_game_played_out_by_turns_rates_its_players(api):
    """The turn that ends a game writes its results with it, in one transaction (on
    PostgreSQL its other turns are one statement each, outside any)."""
    game_id, tokens = api.started_game("ann", "bob", rated=True)
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json

    def writes_ratings(statement: str) -> bool:
        return "rating" in statement and not statement.startswith("SELECT")

    with transaction_states(api.app, only=writes_ratings) as rating_writes:
        while state["status"] == "active":
            token = tokens[state["to_move"]]
            hints = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"]
            played = api.call(
                "POST",
                f"/api/games/{game_id}/turns",
                token,
                json={"turn": hints[0]["turn"], "version": state["version"]},
            )
            assert played.status_code == 201, played.json
            state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert played.json["game_over"] is True
    assert rating_writes and all(rating_writes)
    board = api.call("GET", "/api/ratings").json
    assert sorted(row["player"] for row in board["ratings"]) == ["ann", "bob"]
    assert all(row["games"] == 1 for row in board["ratings"])
    for name in ("ann", "bob"):
        history = api.call("GET", f"/api/players/{name}").json["history"]
        assert [point["game"] for point in history] == [game_id]
