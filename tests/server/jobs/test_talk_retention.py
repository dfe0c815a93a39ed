"""Table talk is kept as long as its game and deleted with it: the retention job and
`cafe-server purge --dry-run` count the messages of the open games nobody joined."""

from __future__ import annotations

from datetime import timedelta

import pytest
from server_support import TEST_CONFIG, Api
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from server.app import create_app
from server.cli import app as cli
from server.config import settings_of
from server.db import get_engine
from server.jobs import retention
from server.models import GameRecord, TableTalk, utcnow


def talk_of(app) -> dict[int, list[str]]:
    """Each game's messages."""
    with Session(get_engine(app)) as session:
        found: dict[int, list[str]] = {}
        for message in session.exec(select(TableTalk).order_by(col(TableTalk.id))):
            found.setdefault(message.game_id, []).append(message.text)
        return found


def say(api, game_id, token, text):
    sent = api.call("POST", f"/api/games/{game_id}/messages", token, json={"text": text})
    assert sent.status_code == 201, sent.json


@pytest.mark.postgres
def test_messages_go_with_their_game_and_the_purge_counts_them(api):
    game_id, tokens = api.started_game("ann", "bob")
    opened = api.call("POST", "/api/games", tokens["ann"], json={"seats": 3}).json["id"]
    say(api, game_id, tokens["ann"], "kept with its game")
    say(api, opened, tokens["ann"], "anyone there?")
    say(api, opened, tokens["ann"], "hello?")
    later = utcnow() + timedelta(days=31)
    with api.app.app_context(), Session(get_engine(api.app)) as session:
        would = retention.purge(session, settings_of(api.app), later, dry_run=True)
    assert would["open games expired"] == 1 and would["table talk deleted"] == 2
    assert talk_of(api.app) == {
        game_id: ["kept with its game"],
        opened: ["anyone there?", "hello?"],
    }
    with api.app.app_context(), Session(get_engine(api.app)) as session:
        done = retention.purge(session, settings_of(api.app), later)
    assert done["table talk deleted"] == 2
    assert talk_of(api.app) == {game_id: ["kept with its game"]}
    with Session(get_engine(api.app)) as session:
        assert [game.id for game in session.exec(select(GameRecord))] == [game_id]


def test_purge_dry_run_prints_the_talk_it_would_delete(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {"CAFE_DATABASE_URL": url, "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"]}
    assert CliRunner().invoke(cli, ["db", "upgrade"], env=env).exit_code == 0
    app = create_app({**TEST_CONFIG, "DATABASE_URL": url})
    api = Api(app, app.test_client())
    token = api.register("ann")
    opened = api.call("POST", "/api/games", token, json={"seats": 2}).json["id"]
    say(api, opened, token, "nobody came")
    with Session(get_engine(app)) as session:  # the game was opened 31 days ago
        game = session.get_one(GameRecord, opened)
        game.created_at = utcnow() - timedelta(days=31)
        session.add(game)
        session.commit()
    dry = CliRunner().invoke(cli, ["purge", "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    assert "table talk deleted: 1" in dry.stdout and "nothing was changed" in dry.stdout
    assert talk_of(app) == {opened: ["nobody came"]}
    done = CliRunner().invoke(cli, ["purge"], env=env)
    assert done.exit_code == 0 and "table talk deleted: 1" in done.stdout
    assert talk_of(app) == {}
    api.close()
    get_engine(app).dispose()
