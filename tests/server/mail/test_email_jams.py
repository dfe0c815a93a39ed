"""No message can jam delivery: an address that cannot be encoded, a 550 and an email whose
rendering raises each fail alone while the rest of the batch goes out at once; and in fast
play with the recipient limit on, nobody gets a "your turn" that is out of date when it is
sent, nor one after "game over", and everybody gets "game over"."""

from __future__ import annotations

import pytest
from mail_support import make_due, outbox_rows
from sqlalchemy import update
from sqlmodel import Session

from server.config import settings_of
from server.db import get_engine
from server.devmail import CatchingHandler
from server.jobs.worker import Worker, smtp_offers_utf8
from server.mail import batch
from server.models import MailRecipient, OutboxMessage
from server.postbox.addresses import read_reply_address
from server.postbox.kinds import EmailKind


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: the SMTP server runs in a thread


class BouncingHandler(CatchingHandler):
    """Keeps what it receives, but refuses `bounce@example.com` for good."""

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address == "bounce@example.com":
            return "550 5.1.1 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"


def queue(app, *addresses):
    with Session(get_engine(app)) as session:
        for n, address in enumerate(addresses):
            session.add(
                OutboxMessage(
                    kind="test",
                    to_addr=address,
                    subject=f"to {address}",
                    body="hello\n",
                    message_id=f"<jam-{n}@cafe.test>",
                )
            )
        session.commit()


@pytest.mark.postgres
def test_bad_messages_fail_alone_and_the_rest_of_the_batch_goes_out(
    api, dead_port, monkeypatch, smtp_catcher
):
    game_id, tokens = api.started_game("ann", "bob")  # events: game started ×2, your turn
    first = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    queue(api.app, "müller@example.com", "bounce@example.com", "cid@example.com")
    real = batch.RENDERERS[EmailKind.GAME_STARTED]

    def broken_for_the_first(mail):
        if mail.to.name == first:
            raise RuntimeError("template bug")
        return real(mail)

    monkeypatch.setitem(batch.RENDERERS, EmailKind.GAME_STARTED, broken_for_the_first)
    handler, _ = smtp_catcher.start(BouncingHandler(), port=dead_port, smtputf8=False)
    try:
        config = settings_of(api.app).replace(SMTP_PORT=dead_port, MAIL_PER_MINUTE=0)
        assert Worker(get_engine(api.app), config).run_once() == len(outbox_rows(api.app))
    finally:
        smtp_catcher.stop(dead_port)
    got = sorted((m["To"], m["Subject"]) for m in handler.messages)
    to = [address for address, _ in got]
    assert "cid@example.com" in to and "ann@example.com" in to  # one round: the rest went out
    assert len(got) == len(outbox_rows(api.app)) - 4  # and the first's turn waits behind it
    rows = {row.to_addr or f"seat {row.seat}": row for row in outbox_rows(api.app)}
    unicode, bounce = rows["müller@example.com"], rows["bounce@example.com"]
    assert (unicode.status, unicode.attempts) == ("failed", 1)
    assert "does not offer SMTPUTF8" in unicode.last_error
    assert (bounce.status, bounce.attempts) == ("failed", 1) and "550" in bounce.last_error
    [broken] = [r for r in outbox_rows(api.app, "game_started") if r.status == "pending"]
    assert (
        broken.attempts == 1 and "rendering failed: RuntimeError: template bug" in broken.last_error
    )
    assert broken.game_id == game_id
    [turn] = outbox_rows(api.app, "your_turn")  # it must not overtake "game started"
    assert (turn.to_addr, turn.status, turn.attempts) == (f"{first}@example.com", "pending", 0)


def test_an_international_address_goes_out_where_the_server_offers_smtputf8(
    app, dead_port, smtp_catcher
):
    queue(app, "müller@example.com")
    handler, _ = smtp_catcher.start(BouncingHandler(), port=dead_port, smtputf8=True)
    try:
        config = settings_of(app).replace(SMTP_PORT=dead_port)
        assert smtp_offers_utf8(config)
        assert Worker(get_engine(app), config).run_once() == 1
    finally:
        smtp_catcher.stop(dead_port)
    [message] = handler.messages
    assert message["To"] == "müller@example.com"
    assert [row.status for row in outbox_rows(app)] == ["sent"]


def a_minute_passes(app):
    """The recipient limit's window moves on (instead of waiting for it)."""
    with Session(get_engine(app)) as session:
        session.execute(update(MailRecipient).values(recent=[]))
        session.commit()
    make_due(app)


@pytest.mark.postgres
def test_fast_play_with_the_recipient_limit_sends_no_stale_turn_and_every_game_over(
    api, dead_port, smtp_catcher
):
    game_id, tokens = api.started_game("ann", "bob")
    config = settings_of(api.app)
    handler, _ = smtp_catcher.start(BouncingHandler(), port=dead_port, smtputf8=False)
    worker = Worker(get_engine(api.app), config.replace(SMTP_PORT=dead_port, MAIL_PER_MINUTE=2))
    received: list[tuple[str, str, int, bool]] = []  # to, subject, version when sent, over

    def deliver_round() -> None:
        before = len(handler.messages)
        worker.run_once()
        state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
        for message in handler.messages[before:]:
            reply = message["Reply-To"]
            version = (
                read_reply_address(config.secret_key, config.mail_domain, reply).version
                if reply
                else -1
            )
            received.append(
                (message["To"], message["Subject"], version, state["status"] == "finished")
            )
            if "your turn" in message["Subject"]:
                assert version == state["version"] and state["status"] == "active"

    try:
        number = 0
        while (state := api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json)[
            "status"
        ] == "active":
            number += 1
            token = tokens[state["to_move"]]
            hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
            body = {"turn": hint["turn"], "version": state["version"]}
            assert api.call("POST", f"/api/games/{game_id}/turns", token, json=body).status_code
            if number % 5 == 0:
                a_minute_passes(api.app)
            deliver_round()
        for _ in range(3):
            a_minute_passes(api.app)
            deliver_round()
    finally:
        smtp_catcher.stop(dead_port)
    statuses = {row.status for row in outbox_rows(api.app)}
    assert "superseded" in statuses and statuses <= {"sent", "superseded", "skipped"}
    for name in ("ann", "bob"):
        mine = [(subject, version) for to, subject, version, _ in received if to.startswith(name)]
        over = [i for i, (subject, _) in enumerate(mine) if subject.endswith(": game over")]
        assert len(over) == 1, mine  # every player gets "game over", once
        assert not [s for s, _ in mine[over[0] :] if "your turn" in s]  # nothing after it
        assert sum("your turn" in s for s, _ in mine) >= 1
