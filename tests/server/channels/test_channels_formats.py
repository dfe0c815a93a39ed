"""Each kind of channel's request, as a loopback receiver gets it (issue 26): the exact
method, path, headers and JSON, with the Czech and Russian words of a ping."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from channels_support import Received, Receiver, hook_receiver

from cafe import i18n
from server.channels import formats, sending, texts
from server.channels.guard import Target
from server.postbox.pings import ChannelEvent

AT = datetime(2026, 12, 2, 15, 0, 0, tzinfo=UTC)
DELIVERY = "msg_0123456789abcdef0123456789abcdef"
OPPONENTS = ["@everyone", "Zoë <b>&</b>"]
WORDS = {"cs": "Hra 7: jste na tahu", "ru": "Игра 7: ваш ход"}


def ping(language: str) -> texts.Ping:
    with i18n.speaking(language):
        return texts.about_game(
            ChannelEvent.YOUR_TURN,
            game_id=7,
            opponents=OPPONENTS,
            link="http://cafe.test/games/7",
        )


@pytest.fixture
def hook() -> Iterator[Receiver]:
    with hook_receiver() as running:
        yield running


def send_to(
    hook: Receiver, destination: formats.Destination, language: str
) -> tuple[Received, texts.Ping]:
    """Send the your-turn ping in `language` to `destination` on `hook`; what arrived."""
    words = ping(language)
    outgoing = formats.request(
        destination,
        delivery_id=DELIVERY,
        event="your_turn",
        ping=words,
        at=AT,
        data={"game": 7, "url": words.link, "text": words.text},
    )
    target = Target(
        url=destination.url, scheme="http", host="127.0.0.1", port=hook.port, address="127.0.0.1"
    )
    answer = sending.send(
        outgoing.method, target, body=outgoing.body, headers=outgoing.headers, url=outgoing.url
    )
    assert answer.ok, answer
    [request] = hook.received
    return request, words


LANGUAGES = ["cs", "ru"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_ping_is_in_the_players_language(language: str) -> None:
    words = ping(language)
    assert words.title == WORDS[language]
    assert "7" in words.text and "@everyone" in words.text and words.link in words.text
    assert "your turn" not in words.text.lower()


@pytest.mark.parametrize("language", LANGUAGES)
def test_discord(hook: Receiver, language: str) -> None:
    request, words = send_to(
        hook, formats.Destination("discord", hook.url("/api/wh/1/t")), language
    )
    assert (request.method, request.path) == ("POST", "/api/wh/1/t")
    assert request.headers["content-type"] == "application/json"
    assert request.json() == {"content": words.text, "allowed_mentions": {"parse": []}}
    assert words.text.encode() in request.body  # UTF-8, not \u escapes


def test_discord_cuts_at_2000_characters() -> None:
    assert len(formats.discord_content("é" * 5000)) == 2000
    assert formats.discord_content("short") == "short"


@pytest.mark.parametrize("language", LANGUAGES)
def test_slack(hook: Receiver, language: str) -> None:
    request, words = send_to(
        hook, formats.Destination("slack", hook.url("/services/T/B/x")), language
    )
    assert (request.method, request.path) == ("POST", "/services/T/B/x")
    assert request.headers["content-type"] == "application/json"
    escaped = words.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert request.json() == {"text": escaped}
    assert "Zoë &lt;b&gt;&amp;&lt;/b&gt;" in request.json()["text"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_matrix(hook: Receiver, language: str) -> None:
    destination = formats.Destination(
        "matrix", hook.url("/"), target="!room:matrix.example", token="syt_secret"
    )
    request, words = send_to(hook, destination, language)
    assert request.method == "PUT"
    assert request.path == (
        f"/_matrix/client/v3/rooms/%21room%3Amatrix.example/send/m.room.message/{DELIVERY}"
    )
    assert request.headers["authorization"] == "Bearer syt_secret"
    assert request.headers["content-type"] == "application/json"
    assert request.json() == {"msgtype": "m.text", "body": words.text}


@pytest.mark.parametrize("language", LANGUAGES)
def test_ntfy(hook: Receiver, language: str) -> None:
    destination = formats.Destination("ntfy", hook.url(""), target="cafe-ann", token="tk_1")
    request, words = send_to(hook, destination, language)
    assert (request.method, request.path) == ("POST", "/")
    assert request.headers["authorization"] == "Bearer tk_1"
    assert request.json() == {
        "topic": "cafe-ann",
        "message": words.text,
        "title": words.title,
        "click": "http://cafe.test/games/7",
        "tags": ["coffee"],
    }
    assert WORDS[language] == request.json()["title"]
    assert all(value.isascii() for value in request.headers.values())


def test_ntfy_without_a_token_sends_no_authorization(hook: Receiver) -> None:
    request, _words = send_to(hook, formats.Destination("ntfy", hook.url(""), target="t"), "cs")
    assert "authorization" not in request.headers


@pytest.mark.parametrize("language", LANGUAGES)
def test_webhook_is_signed_as_standard_webhooks_says(hook: Receiver, language: str) -> None:
    secret = formats.new_secret()
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 24
    request, words = send_to(
        hook, formats.Destination("webhook", hook.url("/in"), secret=secret), language
    )
    assert (request.method, request.path) == ("POST", "/in")
    assert request.headers["webhook-id"] == DELIVERY
    assert request.headers["webhook-timestamp"] == str(int(AT.timestamp()))
    assert request.json() == {
        "type": "your_turn",
        "timestamp": "2026-12-02T15:00:00Z",
        "data": {"game": 7, "url": "http://cafe.test/games/7", "text": words.text},
    }
    # the receiver's check, as the specification gives it
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{DELIVERY}.{int(AT.timestamp())}.".encode() + request.body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    assert request.headers["webhook-signature"] == f"v1,{expected}"


def test_the_signature_matches_the_specifications_example() -> None:
    """The example of the Standard Webhooks specification (its reference libraries' test)."""
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    assert formats.signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == (
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
    assert json.loads(body)
