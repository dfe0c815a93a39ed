"""The worker hands each message over and reads the verdict on it while it renders the next
event: a connection that breaks under a message is replaced and the message sent once, and a
server that goes down in the middle of a batch gets the rest back untried, rendered again
and sent once when it is up."""

from __future__ import annotations

import pytest
from mail_support import outbox_rows
from sqlmodel import Session

from server.config import settings_of
from server.db import get_engine
from server.devmail import CatchingHandler
from server.jobs import outbox
from server.jobs.worker import CHUNK, Worker
from server.models import OutboxMessage

PLAIN = 2 * CHUNK  # plain messages, claimed first: game events come in the third chunk


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: the SMTP server runs in a thread


class FlakyHandler(CatchingHandler):
    """Keeps what it receives, except the messages `breaks` counts (1-based, every DATA
    received): for those it drops the connection instead of answering. From message
    `down_after` on it drops the connection and greets nobody any more (the server is down),
    until `down_after` is cleared."""

    def __init__(self, breaks: set[int] = frozenset(), down_after: int | None = None) -> None:
        super().__init__()
        self.breaks, self.down_after, self.received = breaks, down_after, 0

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        if self.down_after is not None and self.received >= self.down_after:
            return ["554 service unavailable"]
        session.host_name = hostname
        return responses

    async def handle_HELO(self, server, session, envelope, hostname):
        if self.down_after is not None and self.received >= self.down_after:
            return "554 service unavailable"
        session.host_name = hostname
        return f"250 {server.hostname}"

    async def handle_DATA(self, server, session, envelope):
        self.received += 1
        down = self.down_after is not None and self.received > self.down_after
        if self.received in self.breaks or down:
            server.transport.close()
            return "250 not kept"  # never written: the connection is gone
        return await super().handle_DATA(server, session, envelope)


def queue_plain(app, count):
    with Session(get_engine(app)) as session:
        for n in range(count):
            session.add(
                OutboxMessage(
                    kind="test",
                    to_addr=f"p{n}@example.com",
                    subject=f"message {n}",
                    body="hello\n",
                    message_id=f"<plain-{n}@cafe.test>",
                )
            )
        session.commit()


def a_game_with_events(api):
    """Events queued after the plain messages: a started game where everyone hears of every
    turn, some turns in (some events out of date already, the rest to render)."""
    game_id, tokens = api.started_game("ann", "bob", "cid")
    for token in tokens.values():
        api.call("PATCH", "/api/me/preferences", token, json={"others_turns": True})
    for _ in range(3):
        state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
        token = tokens[state["to_move"]]
        hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
        body = {"turn": hint["turn"], "version": state["version"]}
        assert api.call("POST", f"/api/games/{game_id}/turns", token, json=body).status_code == 201


def sent_ids(app):
    return sorted(row.message_id for row in outbox_rows(app) if row.status == "sent")


@pytest.mark.postgres
def test_a_connection_that_breaks_under_a_message_is_replaced_and_the_message_sent_once(
    api, dead_port, smtp_catcher
):
    queue_plain(api.app, PLAIN)
    a_game_with_events(api)
    handler = FlakyHandler(breaks={3, 10, CHUNK, CHUNK + 2, PLAIN + 3})
    smtp_catcher.start(handler, port=dead_port)
    try:
        config = settings_of(api.app).replace(SMTP_PORT=dead_port, MAIL_PER_MINUTE=0)
        worker = Worker(get_engine(api.app), config)
        while worker.run_once():
            pass
    finally:
        smtp_catcher.stop(dead_port)
    received = sorted(message["Message-ID"] for message in handler.messages)
    assert received == sent_ids(api.app)  # each once
    assert len(received) > PLAIN  # the events were rendered and sent too
    assert set(outbox.counts(get_engine(api.app))) <= {"sent", "superseded", "skipped"}
    assert {row.attempts for row in outbox_rows(api.app) if row.status == "sent"} == {1}


@pytest.mark.postgres
def test_a_server_that_goes_down_mid_batch_gets_the_rest_back_untried(api, dead_port, smtp_catcher):
    queue_plain(api.app, PLAIN)
    a_game_with_events(api)
    handler = FlakyHandler(down_after=CHUNK + 5)
    smtp_catcher.start(handler, port=dead_port)
    try:
        config = settings_of(api.app).replace(
            SMTP_PORT=dead_port, MAIL_PER_MINUTE=0, WORKER_OUTAGE_MAX=0
        )
        worker = Worker(get_engine(api.app), config)
        worker.run_once()
        rows = outbox_rows(api.app)
        assert [row.message_id for row in rows if row.status == "sent"] == [
            f"<plain-{n}@cafe.test>" for n in range(CHUNK + 5)
        ]
        waiting = [row for row in rows if row.status == "pending"]
        assert len(waiting) > PLAIN - CHUNK - 5  # the rest of the batch, events too
        assert all(row.attempts == 0 and "unavailable" in row.last_error for row in waiting)
        assert all(row.body is None for row in waiting if row.game_id)  # not kept rendered
        handler.down_after = None  # back up
        while worker.run_once():
            pass
    finally:
        smtp_catcher.stop(dead_port)
    received = sorted(message["Message-ID"] for message in handler.messages)
    assert received == sent_ids(api.app)  # each once
    assert set(outbox.counts(get_engine(api.app))) <= {"sent", "superseded", "skipped"}
