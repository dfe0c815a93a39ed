"""Registering for a season by replying `join` to its registration email, sent over real
SMTP to `cafe-server mail-in --listen` as the emailed turns are: registered and confirmed
once, or refused with the reason; addresses we did not sign register no one."""

from __future__ import annotations

import pytest
from league_support import ok, start
from mail_support import outbox_rows, reply_message, send

from cafe.i18n import gettext, speaking
from server.config import settings_of
from server.postbox.addresses import (
    ReplyAddress,
    SeasonReplyAddress,
    read_reply_address,
    read_season_reply_address,
    reply_address,
    season_reply_address,
)

NAMES = ["ann", "bob", "cid", "dan"]
SECRET, DOMAIN = "k" * 32, "cafe.test"


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: replies are handled in threads


@pytest.fixture
def invited(api):
    """An invitation-only league of ann's with season 1 open; bob, cid and dan invited
    (and emailed). Everyone's token."""
    tokens = {name: api.register(name) for name in NAMES}
    settings = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 2, "open": False}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=settings), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    names = {"names": NAMES[1:]}
    ok(api.call("POST", "/api/leagues/tuesday/invitations", tokens["ann"], json=names))
    return tokens


def reply_to(api, name):
    [row] = [r for r in outbox_rows(api.app, "league_registration") if r.to_addr.startswith(name)]
    return row.headers["Reply-To"]


def answers(api, name):
    rows = outbox_rows(api.app)
    return [
        r for r in rows if r.kind.startswith("league_join") and r.to_addr == f"{name}@example.com"
    ]


def registered(api):
    return ok(api.call("GET", "/api/leagues/tuesday/seasons/1"))["registered"]


@pytest.mark.postgres
def test_join_registers_and_confirms_once(api, invited, receiver):
    address = reply_to(api, "bob")
    message = reply_message(address, "Join!\n\nOn Monday the service wrote:\n> join\n")
    send(receiver, message)
    assert registered(api) == ["bob"]
    [answer] = answers(api, "bob")
    assert answer.kind == "league_joined"
    assert answer.subject == "Tuesday Club: you are registered for season 1"
    assert "\n    cafe league leave tuesday\n" in answer.body
    assert answer.headers["In-Reply-To"] == "<reply-1@mail.example>"
    send(receiver, message)  # delivered twice: handled once
    assert registered(api) == ["bob"] and len(answers(api, "bob")) == 1

    again = reply_message(address, "join tuesday", message_id="<reply-2@mail.example>")
    send(receiver, again)
    refused = answers(api, "bob")[-1]
    assert refused.kind == "league_join_refused"
    assert "you are registered for season 1 of tuesday" in refused.body


def test_a_reply_without_join_is_refused_with_the_reason_and_the_address_again(
    api, invited, receiver
):
    send(receiver, reply_message(reply_to(api, "cid"), "Count me out, thanks\n"))
    assert registered(api) == []
    [answer] = answers(api, "cid")
    assert answer.kind == "league_join_refused"
    assert "we read only the word join in a reply to this email; yours said" in answer.body
    assert "'Count me out, thanks'" in " ".join(answer.body.split())
    config = settings_of(api.app)
    signed = read_season_reply_address(
        config.secret_key, config.mail_domain, answer.headers["Reply-To"]
    )
    assert signed is not None  # reply `join` to the refusal, and it counts
    send(receiver, reply_message(answer.headers["Reply-To"], "join", message_id="<r2@x.example>"))
    assert registered(api) == ["cid"]


def test_join_after_the_start_is_refused_registration_closed(api, invited, receiver):
    for name in ("ann", "bob"):
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", invited[name]))
    start(api, invited)
    send(receiver, reply_message(reply_to(api, "dan"), "join\n"))
    [answer] = answers(api, "dan")
    assert answer.kind == "league_join_refused"
    assert "season 1 of tuesday is running" in answer.body
    assert "Reply-To" not in answer.headers


def test_the_services_refusal_is_said_in_the_readers_language(api, invited, receiver):
    """The reply is read with no language in use; the refusal (`registration_closed`) is kept
    as its message and said in dan's Czech when the answer is rendered."""
    for name in ("ann", "bob"):
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", invited[name]))
    start(api, invited)
    ok(api.call("PATCH", "/api/me/preferences", invited["dan"], json={"language": "cs"}))
    send(receiver, reply_message(reply_to(api, "dan"), "join\n"))
    [answer] = answers(api, "dan")
    with speaking("cs"):
        reason = gettext("season %(season)s of %(league)s is running", season=1, league="tuesday")
    assert reason in " ".join(answer.body.split())


def test_a_forged_season_address_registers_no_one(api, invited, receiver):
    address = reply_to(api, "bob")
    local, _, domain = address.rpartition("@")
    forged = local[:-4] + ("aaaa" if not local.endswith("aaaa") else "bbbb") + "@" + domain
    send(receiver, reply_message(forged, "join\n"))
    other = address.replace("-p", "-p9", 1)  # another player's number, the same signature
    send(receiver, reply_message(other, "join\n", message_id="<r3@x.example>"))
    assert registered(api) == [] and answers(api, "bob") == []


def test_season_and_game_addresses_are_signed_apart():
    season = season_reply_address(SECRET, DOMAIN, SeasonReplyAddress(4, 3))
    assert season.startswith("play+s4-p3-") and season.endswith("@cafe.test")
    assert read_season_reply_address(SECRET, DOMAIN, season) == SeasonReplyAddress(4, 3)
    assert read_season_reply_address(SECRET, DOMAIN, season.upper()) == SeasonReplyAddress(4, 3)
    assert read_season_reply_address(["x" * 32, SECRET], DOMAIN, season) is not None
    assert read_season_reply_address("x" * 32, DOMAIN, season) is None
    assert read_season_reply_address(SECRET, "other.test", season) is None
    assert read_reply_address(SECRET, DOMAIN, season) is None
    signature = season.split("-")[-1].split("@")[0]
    assert read_reply_address(SECRET, DOMAIN, f"play+g4-v0-p3-{signature}@{DOMAIN}") is None
    game = reply_address(SECRET, DOMAIN, ReplyAddress(4, 0, 3))
    assert read_season_reply_address(SECRET, DOMAIN, game) is None
