"""Turns by reply: messages sent over real SMTP to `cafe-server mail-in --listen` (aiosmtpd
on loopback), and piped to `cafe-server mail-in`. Only a legal turn under a valid signed
address changes the game; every reply a person wrote gets an answer."""

from __future__ import annotations

import os
import random
import re
import signal
import smtplib
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
from mail_support import game_row, outbox_rows, read_html, reply_message
from server_support import TEST_CONFIG, Api, csrf_of, free_port, reconfigure, web_sign_in
from sqlmodel import Session, select
from typer.testing import CliRunner

from server.app import create_app
from server.cli import app as cli
from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs.sweep import sweep
from server.mail import times
from server.models import OfferedHints, TurnRecord
from server.postbox.addresses import ReplyAddress, reply_address, thread_root

ANSWERS = ("turn_confirmed", "turn_refused", "reply_unrecognised")
#: The version of a two-player game when it starts (created 0, joined 1, started 2).
START = 2


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: replies are handled in threads


@pytest.fixture
def game(api):
    """A started game of ann and bob; (id, tokens, name of the first player)."""
    game_id, tokens = api.started_game("ann", "bob")
    first = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    return game_id, tokens, first


def latest(api, kind, name):
    api.send_events()
    return [r for r in outbox_rows(api.app, kind) if r.to_addr == f"{name}@example.com"][-1]


def send(port, message, to=None, sender="player@mail.example"):
    """Deliver `message` (a MIME message, or raw bytes for `to`) over real SMTP."""
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        if isinstance(message, bytes):
            refused = smtp.sendmail(sender, [to], message)
        else:
            refused = smtp.send_message(message, sender, [to or message["To"]])
        assert refused == {}


def answers(api):
    api.send_events()
    return [r for r in outbox_rows(api.app) if r.kind in ANSWERS]


def turns_in(api, game_id):
    with Session(get_engine(api.app)) as session:
        return list(session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)).all())


def offered(api, game_id, player_name, version=START):
    """The turns the player's "your turn" email at `version` offered, as stored and shown."""
    your_turn = latest(api, "your_turn", player_name)
    with Session(get_engine(api.app)) as session:
        row = session.exec(
            select(OfferedHints).where(
                OfferedHints.game_id == game_id, OfferedHints.version == version
            )
        ).one()
    assert all(f"{n}. {h['turn']}   (" in your_turn.body for n, h in enumerate(row.hints, 1))
    return [hint["turn"] for hint in row.hints]


def unchanged(api, game_id, version):
    game = game_row(api.app, game_id)
    return game.version == version and turns_in(api, game_id) == []


@pytest.mark.postgres
def test_a_legal_turn_is_played_and_confirmed(api, game, receiver):
    game_id, _, first = game
    your_turn = latest(api, "your_turn", first)
    turn = offered(api, game_id, first)[0]
    send(receiver, reply_message(your_turn.headers["Reply-To"], f"{turn}\n\nThanks!\n"))
    [entry] = turns_in(api, game_id)
    assert entry.notation == turn and entry.submitted == turn
    assert game_row(api.app, game_id).version == START + 1
    [answer] = answers(api)
    assert answer.kind == "turn_confirmed" and answer.to_addr == f"{first}@example.com"
    assert f"({entry.points:+d})" in answer.subject or entry.points == 0
    assert turn in answer.body and "was played" in answer.html
    root = thread_root(settings_of(api.app).secret_key, settings_of(api.app).mail_domain, game_id)
    assert answer.headers["In-Reply-To"] == "<reply-1@mail.example>"
    assert answer.headers["References"] == f"{root} <reply-1@mail.example>"
    assert answer.headers["Auto-Submitted"] == "auto-replied"
    other = "bob" if first == "ann" else "ann"
    assert f"{first} played {turn}" in latest(api, "your_turn", other).body  # as by the API


def test_a_number_plays_the_hint_the_email_offered(api, game, receiver):
    game_id, _, first = game
    second = offered(api, game_id, first)[1]
    your_turn = latest(api, "your_turn", first)
    send(receiver, reply_message(your_turn.headers["Reply-To"], "2\n"))
    [entry] = turns_in(api, game_id)
    assert entry.submitted == second
    assert answers(api)[0].kind == "turn_confirmed"


@pytest.mark.postgres
def test_the_same_message_twice_is_applied_and_answered_once(api, game, receiver):
    game_id, _, first = game
    reply = reply_message(latest(api, "your_turn", first).headers["Reply-To"], "1")
    send(receiver, reply)
    send(receiver, reply)
    assert len(turns_in(api, game_id)) == 1
    assert [a.kind for a in answers(api)] == ["turn_confirmed"]


QUOTED_ONLY = (
    "\nOn Mon, 6 May 2024 at 10:00, Café International <cafe@cafe.test> wrote:\n"
    "> 1. USm@US1   (+6 points)\n> 2. bar USf\n"
)


@pytest.mark.parametrize(
    ("text", "problem", "phrase"),
    [
        (QUOTED_ONLY, "no_turn", "we found no turn in your reply"),
        ("> 1\n> quoted only\n", "no_turn", "we found no turn in your reply"),
        ("USm@US1 USf@US1 USm@US1\n", "illegal", "is against the rules"),
        ("USm@XX9\n", "unreadable", "could not be read"),
        ("7\n", "no_such_hint", "did not offer a turn number 7"),
        ("Thanks, see you!\n-- \nann\n", "no_turn", "we found no turn in your reply"),
    ],
)
def test_a_reply_that_cannot_be_played_is_answered_with_the_reason_and_hints(
    api, game, receiver, text, problem, phrase
):
    game_id, _, first = game
    version = game_row(api.app, game_id).version
    send(receiver, reply_message(latest(api, "your_turn", first).headers["Reply-To"], text))
    assert unchanged(api, game_id, version)
    [answer] = answers(api)
    assert answer.kind == "turn_refused" and answer.to_addr == f"{first}@example.com"
    assert phrase in answer.body and "Nothing was played." in answer.body
    for number, turn in enumerate(offered(api, game_id, first), start=1):
        assert f"  {number}. {turn}   (" in answer.body  # the hints again
    assert answer.headers["Reply-To"] == latest(api, "your_turn", first).headers["Reply-To"]


def test_the_engine_says_which_rule_was_broken(api, game, receiver):
    game_id, tokens, first = game
    hand = api.call("GET", f"/api/games/{game_id}", tokens[first]).json["hands"][0]
    absent = next(t for t in ("USf", "USm", "DEf", "DEm", "Jf") if t not in hand)
    send(
        receiver,
        reply_message(latest(api, "your_turn", first).headers["Reply-To"], f"bar {absent}"),
    )
    [answer] = answers(api)
    assert f"{absent} is not in {first}'s hand" in answer.body


def forged(api, address):
    return address.rsplit("-", 1)[0] + "-aaaaaaaaaaaaaaaa@" + address.split("@")[1]


def altered(api, address):
    return address.replace(f"-v{START}-", f"-v{START + 1}-")


def foreign(api, address):
    return reply_address("another-installation", "cafe.test", ReplyAddress(1, START, 1))


@pytest.mark.parametrize("tamper", [forged, altered, foreign])
def test_addresses_we_did_not_sign_play_nothing_and_tell_no_secrets(api, game, receiver, tamper):
    game_id, _, first = game
    version = game_row(api.app, game_id).version
    address = tamper(api, latest(api, "your_turn", first).headers["Reply-To"])
    message = reply_message(address, "1", sender=f"Player <{first}@example.com>")
    send(receiver, message, sender=f"{first}@example.com")
    assert unchanged(api, game_id, version)
    [answer] = answers(api)
    assert (answer.kind, answer.to_addr) == ("reply_unrecognised", f"{first}@example.com")
    assert "Nothing was played." in answer.body
    assert "Reply-To" not in answer.headers and "List-Unsubscribe" not in answer.headers
    said = answer.body + answer.html
    other = "bob" if first == "ann" else "ann"
    for secret in (f"game {game_id}", "hand", "BAR", "version", first, other):
        assert not re.search(rf"\b{secret}\b", said)


def test_strangers_with_forged_addresses_are_not_answered(api, game, receiver):
    game_id, _, first = game
    address = forged(api, latest(api, "your_turn", first).headers["Reply-To"])
    send(receiver, reply_message(address, "1", sender="Mallory <mallory@evil.example>"))
    assert unchanged(api, game_id, START) and answers(api) == []


def test_a_reply_for_an_old_version_applies_nothing_and_shows_the_game_now(api, game, receiver):
    game_id, tokens, first = game
    second = "bob" if first == "ann" else "ann"
    old = latest(api, "game_started", second)
    turn = offered(api, game_id, first)[0]
    body = {"turn": turn, "version": START}
    api.call("POST", f"/api/games/{game_id}/turns", tokens[first], json=body)
    send(receiver, reply_message(old.headers["Reply-To"], "1"))
    assert game_row(api.app, game_id).version == START + 1 and len(turns_in(api, game_id)) == 1
    [answer] = answers(api)
    assert answer.subject == f"Café · game {game_id} with {first}: the game has moved on"
    assert "is at turn 2 now" in answer.body and "Nothing was played." in answer.body
    assert "version" not in answer.body
    now = api.call("GET", f"/api/games/{game_id}", tokens[second]).json
    assert " ".join(now["hands"][now["players"].index(second)]) in answer.body
    assert f"-v{START + 1}-" in answer.headers["Reply-To"]  # the player's turn now: new address
    send(receiver, reply_message(answer.headers["Reply-To"], "1", message_id="<reply-2@m.example>"))
    assert game_row(api.app, game_id).version == START + 2  # and replying to the answer plays


def flowed(text):
    """The text with its line breaks and indents as single spaces: where lines break
    depends on the lengths of names and numbers."""
    return " ".join(text.split())


def flowed_html(html):
    """What an HTML part says, flowed."""
    return flowed("".join(read_html(html).text))


def points(entry):
    return f"{entry.points} point" + ("" if entry.points == 1 else "s")


def test_answering_the_same_email_twice_says_already_played(api, game, receiver):
    game_id, _, first = game
    your_turn = latest(api, "your_turn", first)
    turn = offered(api, game_id, first)[0]
    send(receiver, reply_message(your_turn.headers["Reply-To"], "1"))
    again = reply_message(your_turn.headers["Reply-To"], "2", message_id="<again@m.example>")
    send(receiver, again)
    assert game_row(api.app, game_id).version == START + 1 and len(turns_in(api, game_id)) == 1
    confirmed, refused = answers(api)
    assert confirmed.kind == "turn_confirmed" and refused.kind == "turn_refused"
    assert refused.subject.endswith(": already played")
    [entry] = turns_in(api, game_id)
    assert entry.source == "email"
    said = f"already played: you played {turn} in turn 1 for {points(entry)}."
    assert f"{said} You had answered that email before." in flowed(refused.body)
    assert said in flowed_html(refused.html)
    assert "Nothing more was played." in refused.body and "moved on" not in refused.body


def play_on_the_web(api, game_id, name, turn, version):
    web_sign_in(api, name)
    page = api.client.get(f"/games/{game_id}").text
    form = {"csrf": csrf_of(page), "version": version, "turn": turn}
    assert api.client.post(f"/games/{game_id}/play", data=form).status_code == 303


@pytest.mark.parametrize(
    ("how", "said"), [("api", "with `cafe` (or the API)"), ("web", "on the game's page")]
)
def test_a_reply_after_the_turn_was_played_another_way_says_how_and_when(
    api, game, receiver, how, said
):
    game_id, tokens, first = game
    your_turn = latest(api, "your_turn", first)
    turn = offered(api, game_id, first)[0]
    if how == "api":
        body = {"turn": turn, "version": START}
        assert api.call("POST", f"/api/games/{game_id}/turns", tokens[first], json=body).json
    else:
        play_on_the_web(api, game_id, first, turn, START)
    send(receiver, reply_message(your_turn.headers["Reply-To"], "1"))
    assert len(turns_in(api, game_id)) == 1
    [refused] = answers(api)
    [entry] = turns_in(api, game_id)
    assert entry.source == how
    when = times.local(entry.created_at, "UTC")
    told = f"already played: you played {turn} in turn 1 for {points(entry)} {said} on {when}."
    assert told in flowed(refused.body) and told in flowed_html(refused.html)
    assert "answered that email before" not in refused.body + refused.html
    assert "Nothing more was played." in refused.body


def test_a_reply_after_a_time_out_says_the_service_played_and_when(api, receiver):
    with use(FakeClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))) as clock:
        clocked = {"days_per_turn": 3, "vacation": False}
        game_id, tokens = api.started_game("ann", "bob", clock=clocked)
        first = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
        your_turn = latest(api, "your_turn", first)
        clock.advance(timedelta(days=3))
        assert sweep(get_engine(api.app), settings_of(api.app)).timeouts == {"timed_out": 1}
        send(receiver, reply_message(your_turn.headers["Reply-To"], "1"))
    [refused] = [row for row in answers(api) if row.kind == "turn_refused"]
    [entry] = [e for e in turns_in(api, game_id) if e.number == 1]
    assert entry.kind == "timeout" and entry.source is None
    when = times.local(entry.created_at, "UTC")
    told = (
        f"already played: your time ran out, and on {when} the service played "
        f"{entry.notation} for you in turn 1 ({points(entry)})."
    )
    assert told in flowed(refused.body) and told in flowed_html(refused.html)


def test_a_reply_when_it_is_not_your_turn(api, game, receiver):
    game_id, _, first = game
    second = "bob" if first == "ann" else "ann"
    started = latest(api, "game_started", second)
    send(receiver, reply_message(started.headers["Reply-To"], "USm@US1\n"))
    assert unchanged(api, game_id, START)
    [answer] = answers(api)
    assert f"it is not your turn in game {game_id}: {first} is to move" in answer.body


def test_an_html_only_reply(api, game, receiver):
    game_id, _, first = game
    html = (
        '<div dir="ltr">2&nbsp;</div><br><div class="gmail_quote"><div class="gmail_attr">'
        "On Mon, 6 May 2024 Café International wrote:</div><blockquote>"
        "<p>1. USm@US1</p></blockquote></div>"
    )
    address = latest(api, "your_turn", first).headers["Reply-To"]
    second = offered(api, game_id, first)[1]
    send(receiver, reply_message(address, None, html=html))
    [entry] = turns_in(api, game_id)
    assert entry.submitted == second


def test_a_5_mb_attachment_is_ignored(api, game, receiver):
    game_id, _, first = game
    message = MIMEMultipart("mixed")
    message["From"] = "player@mail.example"
    message["To"] = latest(api, "your_turn", first).headers["Reply-To"]
    message["Message-ID"] = "<big@mail.example>"
    message.attach(MIMEText("1\n", "plain", "utf-8"))
    photo = MIMEApplication(random.Random(5).randbytes(5 * 1024 * 1024), "octet-stream")
    photo.add_header("Content-Disposition", "attachment", filename="holiday.jpg")
    message.attach(photo)
    first_hint = offered(api, game_id, first)[0]
    send(receiver, message)
    [entry] = turns_in(api, game_id)
    assert entry.submitted == first_hint
    assert answers(api)[0].kind == "turn_confirmed"


def test_a_message_in_iso_8859_2(api, game, receiver):
    game_id, _, first = game
    turn = offered(api, game_id, first)[0]
    text = f"Dzień dobry!\n{turn}\n\nPozdrawiam serdecznie,\n-- \nŁukasz Żółć\n"
    message = MIMEText(text, "plain", "iso-8859-2")
    message["From"] = "=?iso-8859-2?q?=A3ukasz?= <lukasz@mail.example>"
    message["To"] = latest(api, "your_turn", first).headers["Reply-To"]
    message["Subject"] = "=?iso-8859-2?q?Odpowied=BC?="
    message["Message-ID"] = "<pl@mail.example>"
    assert b'charset="iso-8859-2"' in message.as_bytes()
    send(receiver, message)
    [entry] = turns_in(api, game_id)
    assert entry.submitted == turn


def test_random_bytes_are_answered_politely(api, game, receiver):
    game_id, _, first = game
    noise = random.Random(7).randbytes(4000)
    lines = [noise[i : i + 70] for i in range(0, len(noise), 70)]
    raw = b"\r\n".join(line.replace(b"\r", b"").replace(b"\n", b"") for line in lines)
    send(receiver, raw, to=latest(api, "your_turn", first).headers["Reply-To"])
    assert unchanged(api, game_id, START)
    [answer] = answers(api)
    assert answer.kind == "turn_refused" and answer.to_addr == f"{first}@example.com"
    assert "we found no turn in your reply" in answer.body


def test_a_too_large_reply_is_answered_unread(api, game, receiver):
    game_id, _, first = game
    reconfigure(api.app, MAIL_IN_MAX_BYTES=20_000)
    text = "1\n\n" + "padding line\n" * 3000
    send(receiver, reply_message(latest(api, "your_turn", first).headers["Reply-To"], text))
    assert unchanged(api, game_id, START)
    [answer] = answers(api)
    assert "too large to read" in answer.body


def test_automatic_replies_are_neither_played_nor_answered(api, game, receiver):
    game_id, _, first = game
    message = reply_message(latest(api, "your_turn", first).headers["Reply-To"], "1")
    message["Auto-Submitted"] = "auto-replied"
    send(receiver, message)
    assert unchanged(api, game_id, START) and answers(api) == []


def test_the_sender_is_known_by_the_address_never_by_from(api, game, receiver):
    game_id, _, first = game
    address = latest(api, "your_turn", first).headers["Reply-To"]
    reply = reply_message(address, "1", sender="Someone Else <else@elsewhere.example>")
    send(receiver, reply)
    [entry] = turns_in(api, game_id)
    assert entry.seat == game_row(api.app, game_id).state["players"].index(first)
    assert answers(api)[0].to_addr == f"{first}@example.com"


def test_the_receiver_takes_only_our_reply_addresses(api, receiver):
    for address in ("play+g1-v1-p1-aaaaaaaaaaaaaaaa@elsewhere.example", "cafe@cafe.test"):
        with (
            smtplib.SMTP("127.0.0.1", receiver) as smtp,
            pytest.raises(smtplib.SMTPRecipientsRefused),
        ):
            smtp.sendmail("x@mail.example", [address], b"Subject: hi\r\n\r\n1\r\n")


@pytest.fixture
def env(tmp_path):
    environ = {
        "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "CAFE_LOG_LEVEL": "WARNING",
        "CAFE_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
        "CAFE_MAIL_FROM": TEST_CONFIG["MAIL_FROM"],
    }
    assert CliRunner().invoke(cli, ["db", "upgrade"], env=environ).exit_code == 0
    return environ


def test_mail_in_reads_one_message_on_stdin(env):
    app = create_app({**TEST_CONFIG, "DATABASE_URL": env["CAFE_DATABASE_URL"]})
    api = Api(app, app.test_client())
    game_id, _ = api.started_game("ann", "bob")
    first = game_row(app, game_id).state["players"][0]
    address = latest(api, "your_turn", first).headers["Reply-To"]
    reply = reply_message("someone@example.com", "1")  # the address comes from --to
    result = CliRunner().invoke(cli, ["mail-in", "--to", address], input=reply.as_bytes(), env=env)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"applied: {first} played ")
    assert game_row(app, game_id).version == START + 1
    noise = CliRunner().invoke(cli, ["mail-in"], input=random.Random(3).randbytes(999), env=env)
    assert noise.exit_code == 0 and noise.stdout.startswith("unrecognised: ")
    again = CliRunner().invoke(cli, ["mail-in", "--to", address], input=reply.as_bytes(), env=env)
    assert again.stdout.startswith("duplicate: ")
    get_engine(app).dispose()


def test_mail_in_asks_the_mail_server_to_retry_when_the_database_is_down(env, tmp_path):
    down = {**env, "CAFE_DATABASE_URL": f"sqlite:///{tmp_path}/missing/dir/x.db"}
    message = reply_message("play+g1-v2-p1-aaaaaaaaaaaaaaaa@cafe.test", "1")
    result = CliRunner().invoke(cli, ["mail-in"], input=message.as_bytes(), env=down)
    assert result.exit_code == 75
    assert "try again" in result.stderr and "Traceback" not in result.output


def test_mail_in_listen_runs_an_smtp_server_until_stopped(env, tmp_path):
    app = create_app({**TEST_CONFIG, "DATABASE_URL": env["CAFE_DATABASE_URL"]})
    api = Api(app, app.test_client())
    game_id, _ = api.started_game("ann", "bob")
    first = game_row(app, game_id).state["players"][0]
    port = free_port()
    log = (tmp_path / "mail-in.log").open("wb")
    command = [sys.executable, "-c", "from server.cli import main; main()"]
    process = subprocess.Popen(
        [*command, "mail-in", "--listen", f"127.0.0.1:{port}"],
        env={**os.environ, **env},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(100):
            try:
                send(port, reply_message(latest(api, "your_turn", first).headers["Reply-To"], "1"))
                break
            except OSError:
                time.sleep(0.1)
        assert game_row(app, game_id).version == START + 1
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        log.close()
    assert f"receiving replies on smtp://127.0.0.1:{port}" in (tmp_path / "mail-in.log").read_text()
    get_engine(app).dispose()


def test_mail_in_listen_needs_host_and_port(env):
    result = CliRunner().invoke(cli, ["mail-in", "--listen", "2525"], env=env)
    assert result.exit_code == 1 and "HOST:PORT" in result.stderr


def test_emails_carry_the_reply_address_of_their_version(api, game):
    game_id, _, first = game
    config = settings_of(api.app)
    row = latest(api, "your_turn", first)
    player_id = 1 if first == "ann" else 2
    expected = reply_address(
        config.secret_key, config.mail_domain, ReplyAddress(game_id, START, player_id)
    )
    assert row.headers["Reply-To"] == expected
    assert isinstance(reply_message(expected, "1"), EmailMessage)
