"""Every kind of email has one renderer, and the emails that are not about a game as it is
now (notices) are rendered when they are sent: their transaction stores the facts, never a
body (`server.mail.notices`)."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

import pytest
from mail_support import reply_message
from sqlmodel import Session, select

from server.config import settings_of
from server.db import get_engine
from server.mail import batch, notices, outgoing, replies
from server.models import OutboxMessage
from server.postbox.facts import Links, Recipient, VacationGame
from server.postbox.kinds import SIGNIN_KINDS, EmailKind

SERVER = Path(__file__).resolve().parents[3] / "server"
#: Rendered by one renderer of its own (`server.mail.digest.render`): the daily digest.
DIGESTS = {EmailKind.DIGEST}


def test_every_kind_has_exactly_one_renderer():
    """A game event's renderer (`batch.RENDERERS`), a notice's builder (`notices.BUILDERS`),
    a sign-in email's (`server.mail.signin_mail.render`) or the digest's: one of them."""
    paths = [set(batch.RENDERERS), set(notices.BUILDERS), set(SIGNIN_KINDS), DIGESTS]
    for kind in EmailKind:
        assert sum(kind in path for path in paths) == 1, kind


def _calling(call: str) -> list[str]:
    """The modules under server/ whose code calls `call` (`module.function`)."""
    owner, name = call.split(".")
    found = set()
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == name
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == owner
            ):
                found.add(str(path.relative_to(SERVER)))
    return sorted(found)


def test_no_transaction_queues_a_rendered_body():
    """No rendered body is queued: every email, the daily digest too, is queued as an
    event, a notice, a sign-in request or a digest's facts and rendered when sent."""
    assert not hasattr(outgoing, "queue") and not hasattr(outgoing, "queue_composed")
    assert _calling("outgoing.queue_digest") == ["jobs/digest.py"]
    assert _calling("notices.queue_about_game") == ["mail/replies.py"]
    assert len(_calling("notices.queue")) >= 6


@pytest.mark.postgres
def test_a_notice_is_stored_as_facts_and_rendered_when_sent(api, backend):
    """Declaring a vacation queues "vacation started" with its facts and no body; the worker
    renders it from them, the same email as rendering the facts directly."""
    game_id, tokens = api.started_game("ann", "bob")
    assert api.call("POST", "/api/me/vacation", tokens["bob"], json={"days": 3}).status_code == 201
    with Session(get_engine(api.app)) as session:
        [row] = session.exec(
            select(OutboxMessage).where(OutboxMessage.kind == EmailKind.VACATION_STARTED)
        ).all()
    assert row.to_addr == "bob@example.com"
    assert (row.subject, row.body, row.html, row.headers) == (None, None, None, None)
    assert row.payload is not None and row.payload["facts"]["recipient"]["name"] == "bob"
    assert [game["id"] for game in row.payload["facts"]["games"]] == [game_id]
    [sent] = [m for m in api.outbox("bob@example.com") if m.kind == EmailKind.VACATION_STARTED]
    assert sent.status == "sent" and f"game {game_id} with " in sent.body
    again = notices.render(settings_of(api.app), row)
    assert (again.rendered.subject, again.rendered.text) == (sent.subject, sent.body)


def test_the_facts_come_back_as_the_builder_declares_them():
    facts = {
        "recipient": Recipient(player_id=1, name="ann", email="ann@example.com"),
        "until": datetime(2026, 3, 5, 9, tzinfo=UTC),
        "games": [VacationGame(id=4, opponents=("bob",), paused=True)],
        "bank_days": 11.5,
        "links": Links(base_url="http://cafe.test"),
    }
    stored = notices.encode(EmailKind.VACATION_STARTED, facts)
    back = notices.decode(EmailKind.VACATION_STARTED, stored)
    assert back["until"] == facts["until"] and back["links"] == facts["links"]
    assert back["games"][0].opponents == ["bob"] and back["recipient"] == facts["recipient"]


def test_a_fact_the_builder_does_not_take_is_refused_when_queued():
    with pytest.raises(TypeError, match="takes no colour"):
        notices.encode(EmailKind.GAME_EXPIRED, {"colour": "red"})


@pytest.mark.postgres
def test_the_answer_to_a_refused_turn_is_queued_with_its_facts_and_rendered_when_sent(api, backend):
    """A reply with no turn queues the refusal's facts, no body; the worker renders it from
    the game as it is then, with the reason and the hints."""
    game_id, tokens = api.started_game("ann", "bob")
    first = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    [your_turn] = [m for m in api.outbox(f"{first}@example.com") if m.kind == "your_turn"]
    raw = reply_message(your_turn.headers["Reply-To"], "Thanks, see you!\n").as_bytes()
    assert replies.handle(api.app, raw, envelope_from=f"{first}@example.com").kind == "refused"
    with Session(get_engine(api.app)) as session:
        [row] = session.exec(
            select(OutboxMessage).where(OutboxMessage.kind == EmailKind.TURN_REFUSED)
        ).all()
    assert (row.body, row.subject, row.game_id) == (None, None, game_id)
    assert row.payload is not None and row.payload["facts"]["problem"] == "no_turn"
    [sent] = [m for m in api.outbox(f"{first}@example.com") if m.kind == "turn_refused"]
    assert sent.status == "sent" and "we found no turn in your reply" in sent.body
    assert "  1. " in sent.body  # the hints, from the game as it was when sent
