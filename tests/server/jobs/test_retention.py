"""Retention (`server.jobs.retention`, `cafe-server purge`): every growing table is filled the
way the service fills it, time moves on (an injected clock), and the purge leaves exactly
what its rule keeps."""

from __future__ import annotations

from datetime import timedelta

import pytest
from mail_support import deliver, render_notices, reply_message
from server_support import TEST_CONFIG
from sqlmodel import Session, select
from typer.testing import CliRunner

from server.app import create_app
from server.cli import app as cli
from server.config import settings_of
from server.db import get_engine
from server.jobs import retention
from server.mail import replies
from server.models import (
    GameRecord,
    IdempotencyKey,
    InboundMail,
    OfferedHints,
    OutboxMessage,
    SignInCode,
    ThrottleEvent,
    utcnow,
)

TABLES = (IdempotencyKey, InboundMail, OfferedHints, OutboxMessage, SignInCode, ThrottleEvent)


def rows(app, model):
    render_notices(app)  # the notices as the worker will send them
    with Session(get_engine(app)) as session:
        return list(session.exec(select(model)).all())


def purge(app, days=0.0, dry_run=False):
    with app.app_context(), Session(get_engine(app)) as session:
        return retention.purge(
            session, settings_of(app), utcnow() + timedelta(days=days), dry_run=dry_run
        )


@pytest.fixture
def filled(api, smtp_server):
    """Two players signed in, a game with a turn made with an Idempotency-Key, a reply from
    a stranger, an open game nobody joined; the mail so far delivered."""
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]).json["hints"][0]
    played = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        tokens[mover],
        json={"turn": hint["turn"], "version": state["version"]},
        headers={"Idempotency-Key": "turn-1"},
    )
    assert played.status_code == 201
    stranger = reply_message("play+g1-v1-p1-aaaaaaaaaaaaaaaa@cafe.test", "1")
    assert replies.handle(api.app, stranger.as_bytes()).kind == "unrecognised"
    opened = api.call("POST", "/api/games", tokens["ann"], json={"seats": 3})
    assert opened.status_code == 201
    deliver(api.app, smtp_server[1])
    assert all(rows(api.app, model) for model in TABLES)
    return game_id, opened.json["id"]


@pytest.mark.postgres
def test_each_table_keeps_what_its_rule_keeps(api, filled):
    game_id, open_id = filled
    outbox = len(rows(api.app, OutboxMessage))
    before = {model: len(rows(api.app, model)) for model in TABLES}
    would = purge(api.app, days=40, dry_run=True)
    assert would["open games expired"] == 1 and would["mail rows deleted"] == outbox
    assert {model: len(rows(api.app, model)) for model in TABLES} == before  # a dry run

    purge(api.app)  # at once: the codes leave the sent mail (if the worker left any), dead hints go
    signins = [r for r in rows(api.app, OutboxMessage) if r.kind == "signin_code"]
    assert [(r.body, r.html) for r in signins] == [("", None), ("", None)]
    game = next(g for g in rows(api.app, GameRecord) if g.id == game_id)
    assert {h.version for h in rows(api.app, OfferedHints)} == {game.version}

    purge(api.app, days=2)  # keys, codes, stranger mail and counted attempts go
    for model in (IdempotencyKey, SignInCode, InboundMail, ThrottleEvent):
        assert rows(api.app, model) == [], model
    assert len(rows(api.app, OutboxMessage)) == outbox
    sent = [r for r in rows(api.app, OutboxMessage) if r.status == "sent"]
    assert all(r.body for r in sent if r.kind != "signin_code")  # (superseded mail had none)

    purge(api.app, days=8)  # sent mail: bodies and signed headers go, the rows stay
    kept = rows(api.app, OutboxMessage)
    assert len(kept) == outbox
    sent = [r for r in kept if r.status == "sent"]
    assert sent and all((r.body, r.html, r.headers) == ("", None, None) for r in sent)
    assert all(r.to_addr and r.subject for r in sent)
    assert all(not r.body for r in kept)  # superseded events were never rendered

    expired = purge(api.app, days=31)  # the open game nobody joined, its creator told
    assert expired["open games expired"] == 1
    assert [g.id for g in rows(api.app, GameRecord)] == [game_id]
    [told] = [r for r in rows(api.app, OutboxMessage) if r.kind == "game_expired"]
    assert told.to_addr == "ann@example.com" and f"game {open_id} expired" in told.subject

    purge(api.app, days=40)  # the sent mail's rows go; the unsent message stays
    assert [r.kind for r in rows(api.app, OutboxMessage)] == ["game_expired"]


def test_replies_of_players_are_remembered_longer_than_strangers(api):
    api.register("bob")
    for number, sender in enumerate(("bob@example.com", "mallory@evil.example")):
        message = reply_message(
            "play+g1-v1-p1-aaaaaaaaaaaaaaaa@cafe.test", "1", message_id=f"<{number}@x>"
        )
        replies.handle(api.app, message.as_bytes(), envelope_from=sender)
    purge(api.app, days=2)
    [kept] = rows(api.app, InboundMail)
    assert kept.player_id is not None
    purge(api.app, days=31)
    assert rows(api.app, InboundMail) == []


def test_purge_command_prints_counts_and_dry_run_changes_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {"CAFE_DATABASE_URL": url, "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"]}
    assert CliRunner().invoke(cli, ["db", "upgrade"], env=env).exit_code == 0
    app = create_app({**TEST_CONFIG, "DATABASE_URL": url})
    with Session(get_engine(app)) as session:
        session.add(ThrottleEvent(kind="guesses", client="x", created_at=utcnow() - timedelta(2)))
        session.commit()
    dry = CliRunner().invoke(cli, ["purge", "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    assert "throttle events deleted: 1" in dry.stdout and "nothing was changed" in dry.stdout
    assert len(rows(app, ThrottleEvent)) == 1
    done = CliRunner().invoke(cli, ["purge"], env=env)
    assert done.exit_code == 0 and "throttle events deleted: 1" in done.stdout
    assert rows(app, ThrottleEvent) == []
    get_engine(app).dispose()
