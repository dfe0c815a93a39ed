"""`cafe-server games check` on a live database: a game and its log are read in one
snapshot, so a turn committed after the listing, or while the game is checked, raises no
false alarm; a game really inconsistent is still reported (exit 3). On SQLite and
PostgreSQL. Before, every game was read first and each log replayed later: a game that
moved on in between was reported inconsistent."""

from __future__ import annotations

import pytest
from server_support import TEST_CONFIG
from sqlmodel import Session
from typer.testing import CliRunner

from server.cli import app as cli
from server.config import settings_of
from server.db import get_engine
from server.games import turns
from server.models import GameRecord

pytestmark = pytest.mark.postgres


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    """A file: the command opens the database on its own engine."""
    return f"sqlite:///{tmp_path / 'checks.db'}"


def check_games(app):
    env = {
        "CAFE_DATABASE_URL": settings_of(app).database_url,
        "CAFE_LOG_LEVEL": "WARNING",
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
    }
    return CliRunner().invoke(cli, ["games", "check"], env=env)


def play_a_turn(api, game_id, tokens):
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    token = tokens[state["to_move"]]
    turn = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]["turn"]
    played = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        token,
        json={"turn": turn, "version": state["version"]},
    )
    assert played.status_code == 201, played.json


def test_a_turn_committed_during_the_check_is_no_false_alarm(app, api, monkeypatch):
    game_id, tokens = api.started_game("ann", "bob")
    play_a_turn(api, game_id, tokens)
    check = turns.check
    played: list[int] = []

    def a_turn_first(session, game):
        """A player's turn commits after the command listed the games and read this one."""
        if not played:
            play_a_turn(api, game.id, tokens)
            played.append(game.id)
        return check(session, game)

    monkeypatch.setattr(turns, "check", a_turn_first)
    result = check_games(app)
    assert played == [game_id]
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "1 games checked, 0 inconsistent"


def test_a_really_inconsistent_game_is_still_reported(app, api):
    game_id, tokens = api.started_game("ann", "bob")
    play_a_turn(api, game_id, tokens)
    with Session(get_engine(app)) as session:
        game = session.get(GameRecord, game_id)
        game.state = {**game.state, "scores": [999, 999]}
        session.add(game)
        session.commit()
    result = check_games(app)
    assert result.exit_code == 3
    assert f"game {game_id}: snapshot differs from the replayed log in scores" in result.stdout
