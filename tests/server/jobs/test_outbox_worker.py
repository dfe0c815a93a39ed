"""The outbox worker against a real SMTP server (aiosmtpd): delivery, retries with backoff,
permanent failures, lapsed claims, and several workers never sending a message twice."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from mail_support import make_due
from server_support import Api
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from server.config import settings_of
from server.db import get_engine, make_engine
from server.jobs import outbox
from server.jobs import worker as worker_module
from server.jobs.worker import Worker
from server.mail import batch
from server.models import OutboxMessage, utcnow
from server.transactions import outage


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file, so that threads share it


def worker_for(app, port, **config):
    return Worker(get_engine(app), settings_of(app).replace(SMTP_PORT=port, **config))


def rows(app):
    with Session(get_engine(app)) as session:
        return list(session.exec(select(OutboxMessage).order_by(OutboxMessage.id)).all())


def queue(app, count):
    with Session(get_engine(app)) as session:
        for n in range(count):
            session.add(
                OutboxMessage(
                    kind="test",
                    to_addr=f"p{n}@example.com",
                    subject=f"message {n}",
                    body=f"body {n}\n",
                    message_id=f"<m{n}@cafe.test>",
                )
            )
        session.commit()


@pytest.mark.postgres
def test_worker_delivers_the_signin_code(api, smtp_server):
    handler, port = smtp_server
    api.client.post("/api/players", json={"name": "ann", "email": "ann@example.com"})
    code = api.last_code("ann@example.com")
    assert worker_for(api.app, port).run_once() == 1
    [mail] = handler.messages
    [row] = rows(api.app)
    assert mail["To"] == "ann@example.com"
    assert mail["From"] == "Cafe <cafe@cafe.test>"
    assert mail["Message-ID"] == row.message_id
    assert code not in mail["Subject"]
    assert code in mail.get_body().get_content()
    assert (row.status, row.attempts, row.claimed_by) == ("sent", 1, None)
    assert row.sent_at is not None
    assert worker_for(api.app, port).run_once() == 0


def test_an_unreachable_server_costs_no_attempt_and_pauses_the_worker(app, smtp_server, dead_port):
    handler, port = smtp_server
    queue(app, 2)
    worker = worker_for(app, dead_port)
    assert worker.run_once() == 0
    assert [(row.status, row.attempts) for row in rows(app)] == [("pending", 0)] * 2
    assert all("ConnectionRefusedError" in row.last_error for row in rows(app))
    assert all(row.available_at <= utcnow() for row in rows(app))  # due at once
    assert 0 < worker.waiting <= 1  # the worker as a whole waits: 1 s, then doubling
    assert worker.run_once() == 0 and outbox.counts(get_engine(app)) == {"pending": 2}
    assert worker_for(app, port).run_once() == 2
    assert sorted(m["Subject"] for m in handler.messages) == ["message 0", "message 1"]


class TempFailHandler:
    """An SMTP server that answers every recipient "try again later"."""

    async def handle_RCPT(self, server, session, envelope, address, options):
        return "451 4.3.0 try again later"


def test_a_temporary_refusal_is_retried_with_backoff(app, dead_port, smtp_catcher):
    smtp_catcher.start(TempFailHandler(), port=dead_port)
    try:
        queue(app, 1)
        before = utcnow()
        assert worker_for(app, dead_port, OUTBOX_BACKOFF=60).run_once() == 1
    finally:
        smtp_catcher.stop(dead_port)
    [row] = rows(app)
    assert (row.status, row.attempts) == ("pending", 1)
    assert "451" in row.last_error
    assert row.available_at >= before + timedelta(seconds=59)


def test_delay_doubles_per_attempt():
    policy = outbox.RetryPolicy(backoff_seconds=30)
    assert [policy.delay(n).total_seconds() for n in (1, 2, 3)] == [30, 60, 120]


def test_gives_up_after_max_attempts(app, dead_port, smtp_catcher):
    smtp_catcher.start(TempFailHandler(), port=dead_port)
    try:
        queue(app, 1)
        for attempt in (1, 2):
            make_due(app)
            worker_for(app, dead_port, OUTBOX_MAX_ATTEMPTS=2).run_once()
            assert rows(app)[0].attempts == attempt
    finally:
        smtp_catcher.stop(dead_port)
    assert rows(app)[0].status == "failed"


class RefusingHandler:
    """An SMTP server that refuses every recipient permanently."""

    async def handle_RCPT(self, server, session, envelope, address, options):
        return "550 5.1.1 no such mailbox"


def test_permanent_refusal_is_not_retried(app, dead_port, smtp_catcher):
    smtp_catcher.start(RefusingHandler(), port=dead_port)
    try:
        queue(app, 1)
        worker_for(app, dead_port).run_once()
    finally:
        smtp_catcher.stop(dead_port)
    [row] = rows(app)
    assert (row.status, row.attempts) == ("failed", 1)
    assert "550" in row.last_error


def test_a_lapsed_claim_passes_to_another_worker(app, smtp_server):
    handler, port = smtp_server
    queue(app, 1)
    engine = get_engine(app)
    [stale] = outbox.claim(engine, claimer="crashed", limit=5, lease_seconds=-1)
    assert worker_for(app, port).run_once() == 1  # the lease has run out: retaken
    outbox.mark_sent(engine, [stale], "crashed")  # the first claimer wakes up: ignored
    [row] = rows(app)
    assert row.status == "sent" and len(handler.messages) == 1


def test_claims_do_not_overlap(app):
    queue(app, 5)
    engine = get_engine(app)
    first = outbox.claim(engine, claimer="a", limit=3, lease_seconds=60)
    second = outbox.claim(engine, claimer="b", limit=3, lease_seconds=60)
    assert [m.id for m in first] == [1, 2, 3]
    assert [m.id for m in second] == [4, 5]
    assert outbox.claim(engine, claimer="c", limit=3, lease_seconds=60) == []
    assert outbox.counts(engine) == {"sending": 5}


@pytest.mark.postgres
def test_concurrent_workers_send_each_message_once(app, smtp_server):
    handler, port = smtp_server
    queue(app, 60)
    errors: list[BaseException] = []

    def drain() -> None:
        try:
            worker = worker_for(app, port)
            while worker.run_once():
                pass
        except BaseException as error:  # surfaced by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=drain) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    ids = sorted(m["Message-ID"] for m in handler.messages)
    assert ids == sorted(f"<m{n}@cafe.test>" for n in range(60))
    assert outbox.counts(get_engine(app)) == {"sent": 60}


def test_run_stops_when_told(app, smtp_server):
    handler, port = smtp_server
    queue(app, 2)
    stop = threading.Event()
    thread = threading.Thread(target=worker_for(app, port, WORKER_POLL=0.05).run, args=(stop,))
    thread.start()
    for _ in range(100):
        if len(handler.messages) == 2:
            break
        stop.wait(0.05)
    stop.set()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert len(handler.messages) == 2


def test_the_worker_leaves_no_sign_in_code_at_rest_once_it_is_sent(api, smtp_server):
    handler, port = smtp_server
    api.client.post("/api/players", json={"name": "ann", "email": "ann@example.com"})
    code = api.last_code("ann@example.com")
    assert worker_for(api.app, port).run_once() == 1
    assert code in handler.messages[0].get_body().get_content()
    [row] = rows(api.app)
    assert row.status == "sent" and code not in row.body + (row.html or "") + row.subject


def test_a_database_that_is_down_is_logged_once_and_retried_with_backoff(app, caplog, tmp_path):
    down = make_engine(f"sqlite:///{tmp_path / 'missing' / 'cafe.db'}")
    worker = Worker(down, settings_of(app))
    rounds = []
    real_round = worker.run_once
    worker.run_once = lambda: rounds.append(1) or real_round()  # type: ignore[method-assign]
    stop = threading.Event()
    runner = threading.Thread(target=worker.run, args=(stop,))
    caplog.set_level("INFO", logger="server.jobs.worker")
    runner.start()
    threading.Timer(3.5, stop.set).start()
    runner.join(timeout=10)
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and errors[0].exc_info is None
    assert "the database cannot be reached" in errors[0].getMessage()
    assert 2 <= len(rounds) <= 3  # at 0 s, 1 s and 3 s: waits of 1 s, then 2 s


def test_a_connection_lost_while_events_are_rendered_costs_no_attempt(
    postgres_app, smtp_server, monkeypatch
):
    """The worker's connection ends while it renders (PostgreSQL ends it, as a restart or a
    failover would): that is the database's outage, no email's fault — every message goes
    back unsent without an attempt, and the next round delivers them all."""
    handler, port = smtp_server
    api = Api(postgres_app, postgres_app.test_client())
    api.started_game("ann", "bob", "cid")  # sign-in codes, "joined" to ann, the start
    loaded = batch.Batch.__init__

    def then_the_connection_ends(self, session, config, rows):
        loaded(self, session, config, rows)
        monkeypatch.setattr(batch.Batch, "__init__", loaded)  # once
        backend = session.execute(text("SELECT pg_backend_pid()")).scalar_one()
        with get_engine(postgres_app).connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})

    monkeypatch.setattr(batch.Batch, "__init__", then_the_connection_ends)
    worker = worker_for(postgres_app, port)
    with pytest.raises(OperationalError) as lost:
        worker.run_once()
    assert outage(lost.value)
    waiting = rows(postgres_app)
    assert {(row.status, row.attempts) for row in waiting} == {("pending", 0)}
    assert handler.messages == []
    while worker.run_once():
        pass
    assert {(row.status, row.attempts) for row in rows(postgres_app)} == {("sent", 1)}
    assert len(handler.messages) == len(waiting)


@pytest.mark.postgres
def test_an_error_that_is_no_outage_leaves_no_claimed_batch_behind(app, smtp_server, monkeypatch):
    """A bug (or an abort retried to the end) after the first chunk was sent: the round
    fails, but what the SMTP server accepted is marked sent and the rest is handed back at
    once, without an attempt — nothing stays `sending` to be sent again after the lease."""
    handler, port = smtp_server
    queue(app, 30)  # a first chunk of 5, then chunks of 20
    reserve = worker_module.quota.reserve
    chunks = []

    def fails_the_second_time(*args, **kwargs):
        chunks.append(1)
        if len(chunks) == 2:
            raise RuntimeError("a bug in the second chunk")
        return reserve(*args, **kwargs)

    monkeypatch.setattr(worker_module.quota, "reserve", fails_the_second_time)
    with pytest.raises(RuntimeError):
        worker_for(app, port).run_once()
    states = [(row.status, row.attempts, row.claimed_by) for row in rows(app)]
    assert states == [("sent", 1, None)] * 5 + [("pending", 0, None)] * 25
    assert len(handler.messages) == 5
    monkeypatch.setattr(worker_module.quota, "reserve", reserve)
    while worker_for(app, port).run_once():
        pass
    assert len(handler.messages) == 30
    assert len({m["Message-ID"] for m in handler.messages}) == 30
