"""Table talk by email: quoted in each other player's next email about the game (never in
the writer's, never twice), alone by the `talk_emails` preference (`each`: batched within
ten minutes; `with_turns`: after a day at the latest), escaped in the HTML part; and
written by email: `say:` lines in a reply to a game's email, or a reply to an email of
table talk — never the quoted text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mail_support import reply_message
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.games import talk
from server.jobs import talk_mail
from server.mail import replies
from server.models import OutboxMessage, TableTalk, TurnRecord

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock():
    with use(FakeClock(START)) as fake:
        yield fake


def state(api, game_id, token):
    return api.call("GET", f"/api/games/{game_id}", token).json


def play(api, game_id, tokens) -> str:
    """The player to move plays their best turn; their name."""
    now = state(api, game_id, next(iter(tokens.values())))
    name = now["to_move"]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[name]).json["hints"][0]
    body = {"turn": hint["turn"], "version": now["version"]}
    assert (
        api.call("POST", f"/api/games/{game_id}/turns", tokens[name], json=body).status_code == 201
    )
    return name


def say(api, game_id, token, text):
    response = api.call("POST", f"/api/games/{game_id}/messages", token, json={"text": text})
    assert response.status_code == 201, response.json
    return response.json


def mails(api, name, kind=None) -> list[OutboxMessage]:
    """What was sent to `name` (the pending events rendered and sent first)."""
    return [m for m in api.outbox(f"{name}@example.com") if kind is None or m.kind == kind]


def talk_due(api) -> int:
    """The worker's talk job, then its mail sent."""
    queued = talk_mail.queue_due(get_engine(api.app), settings_of(api.app))
    api.send_events()
    return queued


def prefer(api, token, **changes):
    assert api.call("PATCH", "/api/me/preferences", token, json=changes).status_code == 200


def messages(api, game_id) -> list[TableTalk]:
    with Session(get_engine(api.app)) as session:
        query = select(TableTalk).where(TableTalk.game_id == game_id)
        return list(session.exec(query.order_by(col(TableTalk.id))).all())


def handle(api, to, text, message_id="<reply-1@mail.example>"):
    return replies.handle(api.app, reply_message(to, text, message_id=message_id).as_bytes())


@pytest.mark.postgres
def test_a_message_is_in_the_next_your_turn_email_of_each_other_player_not_the_writers(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    api.send_events()  # the start's emails are out
    writer = state(api, game_id, tokens["ann"])["to_move"]
    say(api, game_id, tokens[writer], "Good luck <everyone> & have fun")
    quoted = "Good luck <everyone> & have fun"
    movers = []
    for _ in range(3):  # each "your turn" sent before the next turn supersedes it
        movers.append(play(api, game_id, tokens))
        api.send_events()
    assert movers[0] == writer
    for name in movers[1:]:
        [your_turn] = mails(api, name, "your_turn")
        assert quoted in your_turn.body
        assert "At the table, since our last email:" in your_turn.body
        assert f"{writer}, " in your_turn.body
        assert "Good luck &lt;everyone&gt; &amp; have fun" in your_turn.html
        assert "<everyone>" not in your_turn.html
    first, again = mails(api, writer, "your_turn")  # at the start, and after the round
    assert quoted not in again.body and "At the table" not in again.body
    play(api, game_id, tokens)
    first, again = mails(api, movers[1], "your_turn")  # the next one quotes it no more
    assert quoted in first.body and quoted not in again.body


def test_each_sends_one_email_per_message_and_batches_those_within_ten_minutes(api, clock):
    game_id, tokens = api.started_game("ann", "bob")
    prefer(api, tokens["bob"], talk_emails="each", turn_emails="digest")  # no turn emails
    api.send_events()
    say(api, game_id, tokens["ann"], "first")
    clock.advance(timedelta(minutes=9))
    assert talk_due(api) == 0
    say(api, game_id, tokens["ann"], "second, within the ten minutes")
    clock.advance(timedelta(minutes=1))
    assert talk_due(api) == 1
    [both] = mails(api, "bob", "table_talk")
    assert "first" in both.body and "second, within the ten minutes" in both.body
    assert both.subject.endswith(": 2 new messages")
    clock.advance(timedelta(minutes=30))
    say(api, game_id, tokens["ann"], "third")
    clock.advance(timedelta(minutes=10))
    assert talk_due(api) == 1
    first, second = mails(api, "bob", "table_talk")
    assert first.id == both.id
    assert "third" in second.body and "first" not in second.body
    assert second.subject.endswith(": 1 new message")
    assert mails(api, "ann", "table_talk") == []  # never the writer's own


def test_with_turns_sends_a_lone_email_after_a_day_unless_a_turn_carried_it(api, clock):
    game_id, tokens = api.started_game("ann", "bob")
    api.send_events()
    waiting = next(n for n in ("ann", "bob") if n != state(api, game_id, tokens["ann"])["to_move"])
    writer = "ann" if waiting == "bob" else "bob"
    say(api, game_id, tokens[writer], "away until Sunday")
    clock.advance(timedelta(hours=23, minutes=59))
    assert talk_due(api) == 0
    clock.advance(timedelta(minutes=1))
    assert talk_due(api) == 1
    [alone] = mails(api, waiting, "table_talk")
    assert "away until Sunday" in alone.body
    assert alone.headers["Reply-To"].startswith("play+t")
    # a message a turn email carries within the day goes alone no more
    say(api, game_id, tokens[writer], "my turn now")
    assert play(api, game_id, tokens) == writer
    assert "my turn now" in mails(api, waiting, "your_turn")[-1].body
    clock.advance(timedelta(hours=24))
    assert talk_due(api) == 0
    assert len(mails(api, waiting, "table_talk")) == 1


def test_off_mutes_and_unsubscribing_keep_talk_out_of_email(api, clock):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    prefer(api, tokens["bob"], talk_emails="off")
    assert api.call("PUT", "/api/me/mutes/ann", tokens["cid"]).status_code == 200
    api.send_events()
    say(api, game_id, tokens["ann"], "from ann")
    clock.advance(timedelta(days=2))
    assert talk_due(api) == 0
    for _ in range(3):
        play(api, game_id, tokens)
    for name in ("bob", "cid"):
        assert not any("from ann" in mail.body for mail in mails(api, name))


def test_a_reply_with_a_turn_and_a_say_line_plays_the_turn_then_posts_the_message(api):
    game_id, tokens = api.started_game("ann", "bob")
    api.send_events()
    mover = state(api, game_id, tokens["ann"])["to_move"]
    [your_turn] = mails(api, mover, "your_turn")
    text = "1\nsay: Sorry for the slow turn!\n\nOn Mon, 2 Mar 2026, Café wrote:\n> say: old\n"
    outcome = handle(api, your_turn.headers["Reply-To"], text)
    assert outcome.kind == "applied", outcome
    with Session(get_engine(api.app)) as session:
        [turn] = session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)).all()
    [said] = messages(api, game_id)
    assert said.text == "Sorry for the slow turn!" and said.created_at >= turn.created_at
    assert said.version == turn.number + 2  # written after the turn, at the game's new version
    assert [mail.kind for mail in mails(api, mover)][-1] == "turn_confirmed"
    other = "bob" if mover == "ann" else "ann"
    assert "Sorry for the slow turn!" in mails(api, other, "your_turn")[-1].body
    assert handle(api, your_turn.headers["Reply-To"], text).kind == "duplicate"
    assert len(messages(api, game_id)) == 1


@pytest.mark.postgres
def test_a_say_line_not_posted_when_the_process_stopped_after_the_turn_is_posted_next_time(
    api, monkeypatch
):
    """The turn and the message are two transactions: a process that stops between them
    (here: the message's write fails) leaves the message to the reply's next delivery,
    which posts it once and plays nothing again."""
    game_id, tokens = api.started_game("ann", "bob")
    api.send_events()
    mover = state(api, game_id, tokens["ann"])["to_move"]
    [your_turn] = mails(api, mover, "your_turn")
    text = "1\nsay: Sorry for the slow turn!\n"
    real_post = talk.post

    def stopped(*args, **kwargs):
        raise OperationalError("INSERT INTO table_talk", {}, Exception("the server went away"))

    monkeypatch.setattr(talk, "post", stopped)
    with pytest.raises(OperationalError):
        handle(api, your_turn.headers["Reply-To"], text)
    assert state(api, game_id, tokens["ann"])["turns"] == 1 and messages(api, game_id) == []
    monkeypatch.setattr(talk, "post", real_post)
    again = handle(api, your_turn.headers["Reply-To"], text)  # the mail server delivers again
    assert again.kind == "applied" and "its turn was handled before" in again.note, again
    [said] = messages(api, game_id)
    assert said.text == "Sorry for the slow turn!"
    assert state(api, game_id, tokens["ann"])["turns"] == 1
    assert handle(api, your_turn.headers["Reply-To"], text).kind == "duplicate"
    assert len(messages(api, game_id)) == 1
    assert [m.kind for m in mails(api, mover)].count("turn_confirmed") == 1


def test_a_reply_of_say_lines_only_posts_and_plays_nothing(api):
    game_id, tokens = api.started_game("ann", "bob")
    api.send_events()
    waiting = next(n for n in ("ann", "bob") if n != state(api, game_id, tokens["ann"])["to_move"])
    [started] = mails(api, waiting, "game_started")
    outcome = handle(api, started.headers["Reply-To"], "Sag: Viel Glück!\nřekni: a hodně štěstí\n")
    assert outcome.kind == "applied"
    [said] = messages(api, game_id)
    assert said.text == "Viel Glück!\na hodně štěstí"
    assert state(api, game_id, tokens["ann"])["turns"] == 0
    assert not any(m.kind in ("turn_refused", "talk_refused") for m in mails(api, waiting))


def test_a_reply_to_an_email_of_table_talk_posts_its_text_not_the_quote(api, clock):
    game_id, tokens = api.started_game("ann", "bob")
    prefer(api, tokens["bob"], talk_emails="each")
    api.send_events()
    say(api, game_id, tokens["ann"], "Shall we play faster?")
    clock.advance(timedelta(minutes=10))
    talk_due(api)
    [talk_email] = mails(api, "bob", "table_talk")
    text = (
        "Yes, gladly.\nI have more time now.\n\n-- \nBob\n\n"
        "On Mon, 2 Mar 2026, Café International wrote:\n> ann: Shall we play faster?\n"
        "> say: old\n"
    )
    assert handle(api, talk_email.headers["Reply-To"], text).kind == "applied"
    [asked, answered] = messages(api, game_id)
    assert asked.text == "Shall we play faster?"
    assert answered.text == "Yes, gladly.\nI have more time now."
    assert state(api, game_id, tokens["ann"])["turns"] == 0


def test_a_quoted_say_line_is_never_posted(api):
    game_id, tokens = api.started_game("ann", "bob")
    api.send_events()
    mover = state(api, game_id, tokens["ann"])["to_move"]
    address = mails(api, mover, "your_turn")[0].headers["Reply-To"]
    text = "1\n\n> say: old words\n>say: older\n\nOn Mon, 2 Mar 2026, x wrote:\n> say: oldest\n"
    assert handle(api, address, text).kind == "applied"
    assert messages(api, game_id) == []


def test_a_message_by_email_that_is_refused_is_answered_with_the_reason(api):
    game_id, tokens = api.started_game("ann", "bob")
    api.send_events()
    mover = state(api, game_id, tokens["ann"])["to_move"]
    address = mails(api, mover, "your_turn")[0].headers["Reply-To"]
    outcome = handle(api, address, "say: " + "x" * 600)
    assert outcome.kind == "refused"
    assert messages(api, game_id) == []
    [answer] = mails(api, mover, "talk_refused")
    assert "the message has 600 characters; a message has at most 500" in " ".join(
        answer.body.split()
    )
    assert state(api, game_id, tokens["ann"])["turns"] == 0
