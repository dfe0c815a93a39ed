"""The rules of table talk below the API (`server.games.talk`, `server.jobs.talk_mail`):
what a message keeps, that an email's mark of what it quoted never moves back, and that
the worker's job queues each lone email once however often it runs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from server.config import settings_of
from server.db import get_engine
from server.domain import Unreadable
from server.games import talk
from server.jobs import talk_mail
from server.models import GameSeat, OutboxMessage, Player, utcnow


@pytest.mark.parametrize(
    ("written", "kept"),
    [
        ("  hello  ", "hello"),
        ("a\r\nb\rc\u2028d", "a\nb\nc\nd"),
        ("tab\there\x00\x1b[31m", "tabhere[31m"),
        ("\u202eevil\u202c name\u2066", "evil name"),
        ("one   \n\n\n\n\ntwo", "one\n\ntwo"),
        ("é" * 500, "é" * 500),
    ],
)
def test_what_a_message_keeps(written, kept):
    assert talk.clean(written) == kept


@pytest.mark.parametrize(("written", "code"), [("\x07 \u202e\n", "empty_message"),
                                               ("é" * 501, "message_too_long")])  # fmt: skip
def test_what_a_message_may_not_be(written, code):
    with pytest.raises(Unreadable) as refused:
        talk.clean(written)
    assert refused.value.code == code


def seat(app, game_id, name) -> GameSeat:
    with Session(get_engine(app)) as session:
        return session.exec(
            select(GameSeat)
            .join(Player, Player.id == GameSeat.player_id)  # type: ignore[arg-type]
            .where(GameSeat.game_id == game_id, Player.name == name)
        ).one()


@pytest.mark.postgres
def test_the_mark_of_what_was_emailed_never_moves_back(api):
    game_id, _ = api.started_game("ann", "bob")
    bob = seat(api.app, game_id, "bob")
    with Session(get_engine(api.app)) as session:
        talk.mark_mailed(session, [(game_id, bob.player_id, 7)])
        talk.mark_mailed(session, [(game_id, bob.player_id, 5)])  # an older email, later
        session.commit()
    assert seat(api.app, game_id, "bob").talk_mailed == 7


@pytest.mark.postgres
def test_a_due_seat_is_queued_once_however_often_the_job_runs(api):
    game_id, tokens = api.started_game("ann", "bob")
    sent = api.call("POST", f"/api/games/{game_id}/messages", tokens["ann"], json={"text": "x"})
    assert sent.status_code == 201
    due = seat(api.app, game_id, "bob").talk_due
    assert due is not None and seat(api.app, game_id, "ann").talk_due is None  # not the writer's
    engine, config = get_engine(api.app), settings_of(api.app)
    later = utcnow() + talk.LONE_AFTER + timedelta(seconds=1)
    assert talk_mail.queue_due(engine, config, later) == 1
    assert talk_mail.queue_due(engine, config, later) == 0
    with Session(engine) as session:
        rows = session.exec(select(OutboxMessage).where(OutboxMessage.kind == "table_talk")).all()
    assert [(row.to_addr, row.game_id) for row in rows] == [("bob@example.com", game_id)]
    assert seat(api.app, game_id, "bob").talk_due is None
