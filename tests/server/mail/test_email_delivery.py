"""Delivering a game's real emails over SMTP (aiosmtpd): an outage loses and doubles
nothing, two workers never send a message twice, no address gets more than
`MAIL_PER_MINUTE` a minute, a failing address shows in `GET /api/me`, digests go out once."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from mail_support import deliver, make_due, outbox_rows, read_html
from sqlmodel import Session, select

from cafe.render.quantities import time_left
from server.config import settings_of
from server.db import get_engine
from server.jobs import digest, outbox
from server.jobs.worker import Worker
from server.mail import times
from server.models import OutboxMessage, Player, utcnow


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: workers run in threads


def play_turns(api, game_id, tokens, count):
    for _ in range(count):
        state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
        token = tokens[state["to_move"]]
        hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
        body = {"turn": hint["turn"], "version": state["version"]}
        assert api.call("POST", f"/api/games/{game_id}/turns", token, json=body).status_code == 201


@pytest.fixture
def busy_game(api):
    """A three-player game some turns in, everyone hearing of every turn: a full outbox."""
    game_id, tokens = api.started_game("ann", "bob", "cid")
    for token in tokens.values():
        api.call("PATCH", "/api/me/preferences", token, json={"others_turns": True})
    play_turns(api, game_id, tokens, 6)
    return game_id, tokens


def due_message_ids(app):
    """The Message-IDs of everything waiting to be sent, game events included."""
    with Session(get_engine(app)) as session:
        return set(
            session.exec(select(OutboxMessage.message_id).where(OutboxMessage.status == "pending"))
        )


@pytest.mark.postgres
def test_an_outage_longer_than_the_backoff_schedule_loses_and_doubles_nothing(
    api, busy_game, dead_port, smtp_catcher
):
    """SMTP down for longer than all the retries of a message would take, then up: everything
    queued is delivered, each once, with no manual step."""
    queued = due_message_ids(api.app)
    assert len(queued) > 15
    policy = {"OUTBOX_MAX_ATTEMPTS": 2, "OUTBOX_BACKOFF": 0, "WORKER_OUTAGE_MAX": 0}
    worker = Worker(
        get_engine(api.app), settings_of(api.app).replace(SMTP_PORT=dead_port, **policy)
    )
    worker.run_once()  # drops the events that are out of date already; sends nothing
    waiting = outbox.counts(get_engine(api.app))["pending"]
    for _ in range(5):  # more rounds against a dead server than a message has attempts
        assert worker.run_once() == 0
        assert outbox.counts(get_engine(api.app))["pending"] == waiting
    assert {row.attempts for row in outbox_rows(api.app)} == {0}
    handler, _ = smtp_catcher.start(port=dead_port)  # back up
    try:
        while worker.run_once():  # the same worker resumes by itself
            pass
        assert deliver(api.app, dead_port) == 0
    finally:
        smtp_catcher.stop(dead_port)
    ids = [message["Message-ID"] for message in handler.messages]
    sent = {row.message_id for row in outbox_rows(api.app) if row.status == "sent"}
    assert sorted(ids) == sorted(sent)  # each once
    counts = outbox.counts(get_engine(api.app))
    assert set(counts) <= {"sent", "superseded", "skipped"}  # nothing left, nothing failed
    assert sum(counts.values()) == len(queued)


@pytest.mark.postgres
def test_two_workers_never_send_a_message_twice(api, busy_game, smtp_server):
    handler, port = smtp_server
    errors: list[BaseException] = []

    def work() -> None:
        try:
            deliver(api.app, port, MAIL_PER_MINUTE=0)
        except BaseException as error:  # surfaced by the assertion below
            errors.append(error)

    workers = [threading.Thread(target=work) for _ in range(2)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=60)
    assert errors == []
    sent = sorted(row.message_id for row in outbox_rows(api.app) if row.status == "sent")
    assert sorted(message["Message-ID"] for message in handler.messages) == sent
    assert set(outbox.counts(get_engine(api.app))) <= {"sent", "superseded", "skipped"}


def queue_to(app, address, count):
    with Session(get_engine(app)) as session:
        for n in range(count):
            session.add(
                OutboxMessage(
                    kind="test",
                    to_addr=address,
                    subject=f"message {n}",
                    body="hello\n",
                    message_id=f"<limit-{n}@cafe.test>",
                )
            )
        session.commit()


@pytest.mark.postgres
def test_no_address_gets_more_than_the_limit_a_minute(app, smtp_server):
    handler, port = smtp_server
    queue_to(app, "busy@example.com", 5)
    queue_to(app, "calm@example.com", 1)
    before = utcnow()

    def work() -> None:
        deliver(app, port, MAIL_PER_MINUTE=2)

    workers = [threading.Thread(target=work) for _ in range(2)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=60)
    to_busy = [m for m in handler.messages if m["To"] == "busy@example.com"]
    assert len(to_busy) == 2 and any(m["To"] == "calm@example.com" for m in handler.messages)
    waiting = [row for row in outbox_rows(app) if row.status == "pending"]
    assert len(waiting) == 3
    for row in waiting:  # held back, not failed: no attempt counted, due a minute later
        assert row.attempts == 0 and row.last_error is None
        assert before + timedelta(seconds=55) < row.available_at < utcnow() + timedelta(seconds=61)
    make_due(app)
    assert deliver(app, port, MAIL_PER_MINUTE=2) == 3  # still within the same minute: held again
    assert len(handler.messages) == 3


class RefusingHandler:
    """An SMTP server that refuses every recipient for good."""

    async def handle_RCPT(self, server, session, envelope, address, options):
        return "550 5.1.1 no such mailbox"


def test_a_failing_address_shows_in_me_until_mail_gets_through(
    api, dead_port, smtp_server, smtp_catcher
):
    handler, port = smtp_server
    token = api.register("ann")
    assert api.call("GET", "/api/me", token).json["email_status"] == {
        "state": "ok",
        "last_error": None,
        "since": None,
    }
    api.client.post("/api/signin-codes", json={"email": "ann@example.com"})
    deliver(api.app, dead_port)  # the sign-in mails wait: the server is down, not the address
    assert api.call("GET", "/api/me", token).json["email_status"]["state"] == "ok"
    smtp_catcher.start(RefusingHandler(), port=dead_port)
    try:
        make_due(api.app)
        deliver(api.app, dead_port)
    finally:
        smtp_catcher.stop(dead_port)
    status = api.call("GET", "/api/me", token).json["email_status"]
    assert status["state"] == "failing" and "550" in status["last_error"]
    assert status["since"].endswith("Z")
    api.client.post("/api/signin-codes", json={"email": "ann@example.com"})
    deliver(api.app, port)
    assert api.call("GET", "/api/me", token).json["email_status"]["state"] == "ok"
    assert handler.messages


@pytest.mark.postgres
def test_a_digest_instead_of_an_email_each_turn(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    waiting = next(name for name in state["players"] if name != state["to_move"])
    change = {"turn_emails": "digest", "others_turns": True}
    changed = api.call("PATCH", "/api/me/preferences", tokens[waiting], json=change).json
    assert changed.items() >= change.items()
    mails_before = len(api.outbox(f"{waiting}@example.com"))
    play_turns(api, game_id, tokens, 1)  # now it is the digest player's turn
    assert len(api.outbox(f"{waiting}@example.com")) == mails_before  # no "your turn" email
    engine, config = get_engine(api.app), settings_of(api.app)
    assert digest.queue_due(engine, config) == 0  # the first day has not passed
    tomorrow = utcnow() + timedelta(hours=24, seconds=1)
    assert digest.queue_due(engine, config, now=tomorrow) == 1
    assert digest.queue_due(engine, config, now=tomorrow) == 0  # once per period
    [mail] = [m for m in api.outbox(f"{waiting}@example.com") if m.kind == "digest"]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[waiting]).json["hints"][0]
    assert f'cafe move {game_id} "{hint["turn"]}"' in mail.body
    assert f"Game {game_id} (turn 2): your turn" in mail.body  # one turn played: turn 2
    mover = state["to_move"]
    assert f"1. {mover} played" in mail.body  # others' turns, as asked
    assert "List-Unsubscribe" in mail.headers and "Reply-To" not in mail.headers
    shown = api.call("GET", f"/api/games/{game_id}", tokens[waiting]).json
    deadline = datetime.fromisoformat(shown["deadline"])
    told = f"Deadline: {times.local(deadline, 'UTC')}, {time_left(deadline - tomorrow)}"
    page = f"http://cafe.test/games/{game_id}"
    assert told in " ".join(mail.body.split()) and f"\n  {page}\n" in mail.body
    html = " ".join("".join(read_html(mail.html).text).split())
    assert told in html and f'href="{page}"' in mail.html


def test_the_worker_queues_due_digests(api):
    game_id, tokens = api.started_game("ann", "bob")
    mover = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    change = {"turn_emails": "digest"}
    api.call("PATCH", "/api/me/preferences", tokens[mover], json=change)
    with Session(get_engine(api.app)) as session:
        player = session.exec(select(Player).where(Player.name == mover)).one()
        player.last_digest_at = utcnow() - timedelta(days=2)
        session.add(player)
        session.commit()
    Worker(get_engine(api.app), settings_of(api.app)).run_once()
    assert [m.kind for m in api.outbox(f"{mover}@example.com")][-1] == "digest"


def test_a_digest_is_queued_as_its_facts_and_rendered_when_sent(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    api.call("PATCH", "/api/me/preferences", tokens[mover], json={"turn_emails": "digest"})
    engine, config = get_engine(api.app), settings_of(api.app)
    tomorrow = utcnow() + timedelta(hours=24, seconds=1)
    assert digest.queue_due(engine, config, now=tomorrow) == 1
    with Session(engine) as session:
        [row] = session.exec(select(OutboxMessage).where(OutboxMessage.kind == "digest")).all()
    assert row.body is None and row.subject is None  # nothing rendered when queued
    assert row.payload is not None and set(row.payload) == {"player", "since", "at"}
    [mail] = [m for m in api.outbox(f"{mover}@example.com") if m.kind == "digest"]
    assert mail.status == "sent" and f"Game {game_id} (turn 1): your turn" in mail.body


def test_a_digest_whose_games_moved_on_before_it_was_sent_is_superseded(api):
    game_id, tokens = api.started_game("ann", "bob")
    mover = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    api.call("PATCH", "/api/me/preferences", tokens[mover], json={"turn_emails": "digest"})
    engine, config = get_engine(api.app), settings_of(api.app)
    assert digest.queue_due(engine, config, now=utcnow() + timedelta(hours=24, seconds=1)) == 1
    play_turns(api, game_id, tokens, 1)  # the digest player's own turn: nothing waits now
    api.send_events()
    with Session(engine) as session:
        [row] = session.exec(select(OutboxMessage).where(OutboxMessage.kind == "digest")).all()
    assert row.status == "superseded" and row.body is None
