"""`cafe-server`: every operator command through Typer's CliRunner on a temporary database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from server_support import TEST_CONFIG, Api
from sqlmodel import Session, select
from typer.testing import CliRunner

from server.app import create_app
from server.cli import app as cli
from server.db import get_engine
from server.models import GameRecord, OutboxMessage, utcnow


@pytest.fixture
def env(tmp_path):
    """The environment of the commands: a SQLite file, migrated."""
    environ = {
        "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "CAFE_LOG_LEVEL": "WARNING",
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
    }
    result = CliRunner().invoke(cli, ["db", "upgrade"], env=environ)
    assert result.exit_code == 0, result.output
    assert "database is up to date: sqlite" in result.output
    return environ


def run(env, *args):
    return CliRunner().invoke(cli, list(args), env=env)


def web(env):
    """The app on the commands' database, as gunicorn would build it."""
    return create_app({**TEST_CONFIG, "DATABASE_URL": env["CAFE_DATABASE_URL"]})


def test_players_add_and_tokens_create(env):
    added = run(env, "players", "add", "ann", "Ann@Example.com")
    assert added.exit_code == 0
    assert added.stdout.strip() == "player 1: ann <ann@example.com>"
    made = run(env, "tokens", "create", "ann", "--label", "bot")
    assert made.exit_code == 0
    token = made.stdout.strip()
    app = web(env)
    me = app.test_client().get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json["name"] == "ann"
    assert (
        app.test_client()
        .get("/api/tokens", headers={"Authorization": f"Bearer {token}"})
        .json["tokens"][0]["label"]
        == "bot"
    )
    with Session(get_engine(app)) as session:
        assert session.exec(select(OutboxMessage)).all() == []  # no sign-in mail for this


def test_refusals_are_one_line_on_stderr(env):
    run(env, "players", "add", "ann", "ann@example.com")
    taken = run(env, "players", "add", "ann", "other@example.com")
    assert taken.exit_code == 1
    assert taken.stderr.startswith("cafe-server: the name 'ann' is taken")
    assert "Traceback" not in taken.output
    unknown = run(env, "tokens", "create", "zoe")
    assert unknown.exit_code == 1
    assert "no player is named 'zoe'" in unknown.stderr


def test_bad_configuration_is_one_line(env):
    result = run({**env, "CAFE_SMTP_TLS": "maybe"}, "db", "upgrade")
    assert result.exit_code == 1
    assert result.stderr.startswith("cafe-server: CAFE_SMTP_TLS='maybe'")


def test_games_check_replays_every_game(env):
    app = web(env)
    api = Api(app, app.test_client())
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    token = tokens[state["to_move"]]
    turn = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]["turn"]
    api.call("POST", f"/api/games/{game_id}/turns", token, json={"turn": turn, "version": 2})
    good = run(env, "games", "check")
    assert good.exit_code == 0
    assert good.stdout.strip() == "1 games checked, 0 inconsistent"
    with Session(get_engine(app)) as session:  # docs/formats.md lets these two be left out
        game = session.get(GameRecord, game_id)
        assert (game.state["birthday_player"], game.state["elimination_order"]) == (None, [])
        game.state = {
            k: v for k, v in game.state.items() if k not in ("birthday_player", "elimination_order")
        }
        session.add(game)
        session.commit()
    same = run(env, "games", "check")
    assert same.stdout.strip() == "1 games checked, 0 inconsistent"
    with Session(get_engine(app)) as session:
        game = session.get(GameRecord, game_id)
        game.state = {**game.state, "scores": [999, 999]}
        session.add(game)
        session.commit()
    bad = run(env, "games", "check")
    assert bad.exit_code == 3
    assert f"game {game_id}: snapshot differs from the replayed log in scores" in bad.stdout


def test_worker_once_delivers_the_outbox(env, smtp_server):
    handler, port = smtp_server
    app = web(env)
    app.test_client().post("/api/players", json={"name": "ann", "email": "ann@example.com"})
    result = run({**env, "CAFE_SMTP_PORT": str(port)}, "worker", "--once")
    assert result.exit_code == 0
    [mail] = handler.messages
    assert mail["To"] == "ann@example.com"


def test_worker_once_on_a_database_it_cannot_reach_says_so_in_one_line(env, tmp_path):
    """An outage is no bug: one line and the exit status that asks to try again later
    (a cron job or a supervisor retries), not a traceback."""
    gone = {**env, "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'missing' / 'cli.db'}"}
    result = run(gone, "worker", "--once")
    assert result.exit_code == 75, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    [line] = result.stderr.splitlines()
    assert line.startswith("cafe-server: the database cannot be reached (")
    assert line.endswith("); nothing was lost: run it again")


def test_help_lists_the_commands():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("db", "serve", "worker", "players", "tokens", "games", "dev"):
        assert command in result.stdout


def outbox_states(env):
    with Session(get_engine(web(env))) as session:
        rows = session.exec(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        return [(row.status, row.attempts) for row in rows]


def test_mail_retry_requeues_failed_messages(env):
    with Session(get_engine(web(env))) as session:
        for n, (status, age) in enumerate([("failed", 1), ("failed", 72), ("pending", 1)]):
            session.add(
                OutboxMessage(
                    kind="test",
                    to_addr=f"p{n}@example.com",
                    subject="s",
                    body="b\n",
                    message_id=f"<r{n}@cafe.test>",
                    status=status,
                    attempts=8 if status == "failed" else 3,
                    available_at=utcnow() + timedelta(hours=1),
                    created_at=utcnow() - timedelta(hours=age),
                )
            )
        session.commit()
    waiting = run(env, "mail", "retry")
    assert waiting.exit_code == 0, waiting.output
    assert waiting.stdout.strip() == "1 pending messages are due now; a running worker sends them"
    recent = run(env, "mail", "retry", "--failed", "--since", "2d")
    assert recent.stdout.startswith("2 pending or failed messages are due now")
    assert outbox_states(env) == [("pending", 0), ("failed", 8), ("pending", 3)]
    assert run(env, "mail", "retry", "--failed", "--since", "2020-01-01").stdout.startswith("3 ")
    assert outbox_states(env) == [("pending", 0), ("pending", 0), ("pending", 3)]
    bad = run(env, "mail", "retry", "--since", "yesterday")
    assert bad.exit_code == 2 and "use a time ago like 6h" in bad.output
