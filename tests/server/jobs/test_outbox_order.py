"""Mail to one address leaves in the order it was queued (the order of the events it tells
of): an email rendered when it was queued does not overtake the events queued before it,
the per-recipient limit delays later mail behind earlier and never reorders it, a message
waiting for a retry holds back what follows it to its address (and only until it is sent
or given up on), and a second worker does not claim mail behind a batch being sent."""

from __future__ import annotations

import pytest
from mail_support import make_due
from sqlalchemy import update
from sqlmodel import Session, col, select

from server.config import settings_of
from server.db import get_engine
from server.devmail import CatchingHandler
from server.games import notify
from server.jobs import outbox
from server.jobs.worker import Worker
from server.models import MailRecipient, OutboxMessage


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: the SMTP server runs in a thread


class Refusing(CatchingHandler):
    """Keeps what it receives, but answers `code` to the messages whose Message-ID is in
    `refused` (each time, or `times` times)."""

    def __init__(self, code: str, refused: set[str], times: int | None = None) -> None:
        super().__init__()
        self.code, self.refused, self.times = code, refused, times

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        if any(mid.encode() in raw for mid in self.refused) and self.times != 0:
            self.times = None if self.times is None else self.times - 1
            return self.code
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def sink(dead_port, smtp_catcher):
    def start(handler: CatchingHandler | None = None) -> CatchingHandler:
        return smtp_catcher.start(handler, port=dead_port)[0]

    return start


def worker(app, port, per_minute=0):
    config = settings_of(app).replace(SMTP_PORT=port, MAIL_PER_MINUTE=per_minute)
    return Worker(get_engine(app), config)


def queue(app, to, *names):
    """Rendered messages to `to`, in this order; their Message-IDs."""
    with Session(get_engine(app)) as session:
        for name in names:
            session.add(
                OutboxMessage(
                    kind="test",
                    to_addr=to,
                    subject=name,
                    body=f"{name}\n",
                    message_id=f"<{name}@cafe.test>",
                )
            )
        session.commit()
    return [f"<{name}@cafe.test>" for name in names]


def received(handler, to):
    return [m["Message-ID"] for m in handler.messages if m["To"] == to]


def queued(app, to):
    """The Message-IDs of the mail to `to` that was sent, in the order it was queued."""
    with Session(get_engine(app)) as session:
        return list(
            session.exec(
                select(OutboxMessage.message_id)
                .where(OutboxMessage.to_addr == to, OutboxMessage.status == "sent")
                .order_by(col(OutboxMessage.id))
            )
        )


def a_minute_passes_for_the_limit(app):
    """The recipient limit's window moves on; nothing waiting is made due."""
    with Session(get_engine(app)) as session:
        session.execute(update(MailRecipient).values(recent=[]))
        session.commit()


@pytest.mark.postgres
def test_an_email_rendered_when_queued_does_not_overtake_the_events_before_it(api, sink, dead_port):
    game_id, tokens = api.started_game("ann", "bob")  # events: table full, started ×2, turn
    first = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    to = f"{first}@example.com"
    [answer] = queue(api.app, to, "answer")  # like the answer to an emailed turn, after them
    handler = sink()
    worker(api.app, dead_port).run_once()
    mine = received(handler, to)
    assert mine == queued(api.app, to) and mine[-1] == answer
    assert [m["Subject"].split(": ")[-1] for m in handler.messages if m["To"] == to][-3:] == [
        "the game has started",
        "your turn",
        "answer",
    ]


@pytest.mark.postgres
def test_the_recipient_limit_delays_later_mail_behind_earlier_never_reorders_it(
    app, sink, dead_port
):
    to = "x@example.com"
    ids = queue(app, to, "one", "two", "three")
    handler = sink()
    limited = worker(app, dead_port, per_minute=1)
    limited.run_once()  # one goes; two and three wait for the next minute
    assert received(handler, to) == ids[:1]
    a_minute_passes_for_the_limit(app)  # a slot is free, but two and three are not due yet
    ids += queue(app, to, "four")
    limited.run_once()
    assert received(handler, to) == ids[:1]  # four waits behind them
    for _ in range(4):
        a_minute_passes_for_the_limit(app)
        make_due(app)
        limited.run_once()
    assert received(handler, to) == ids


@pytest.mark.postgres
def test_a_message_waiting_for_a_retry_holds_back_its_address_only(app, sink, dead_port):
    held = queue(app, "x@example.com", "first", "second")
    [other] = queue(app, "y@example.com", "other")
    handler = sink(Refusing("451 4.3.0 try again later", {held[0]}, times=1))
    mailer = worker(app, dead_port)
    mailer.run_once()
    assert received(handler, "y@example.com") == [other]
    assert received(handler, "x@example.com") == []  # second waits behind first
    mailer.run_once()
    assert received(handler, "x@example.com") == []  # first's retry is not due yet
    make_due(app)
    mailer.run_once()
    assert received(handler, "x@example.com") == held
    assert {row.status for row in outbox_rows(app)} == {"sent"}


@pytest.mark.postgres
def test_a_message_given_up_on_holds_back_nothing(app, sink, dead_port):
    refused, after = queue(app, "x@example.com", "refused", "after")
    handler = sink(Refusing("550 5.1.1 no such mailbox", {refused}))
    mailer = worker(app, dead_port)
    mailer.run_once()
    mailer.run_once()  # the next round: nothing waits for a retry any more
    assert received(handler, "x@example.com") == [after]
    assert [row.status for row in outbox_rows(app)] == ["failed", "sent"]


@pytest.mark.postgres
def test_a_second_claim_skips_the_mail_behind_a_batch_being_sent(app):
    first, _ = queue(app, "x@example.com", "first", "second")
    [other] = queue(app, "y@example.com", "other")
    engine = get_engine(app)
    one = outbox.claim(engine, claimer="one", limit=1, lease_seconds=300)
    two = outbox.claim(engine, claimer="two", limit=10, lease_seconds=300)
    assert [m.message_id for m in one] == [first]
    assert [m.message_id for m in two] == [other]  # not "second": "first" is being sent
    outbox.mark_sent(engine, one, "one")
    three = outbox.claim(engine, claimer="three", limit=10, lease_seconds=300)
    assert [m.subject for m in three] == ["second"]


def test_a_removal_is_told_before_the_game_over_it_caused():
    events = notify.change_events(
        game_id=1,
        version=9,
        state={"players": ["ann", "bob"], "to_move": 1},
        finished=True,
        mover=0,
        turn=8,
        timed_out="removed",
    )
    assert [e.kind for e in events if e.seat == 0] == ["removed", "game_over"]


def outbox_rows(app):
    with Session(get_engine(app)) as session:
        return list(session.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))))
