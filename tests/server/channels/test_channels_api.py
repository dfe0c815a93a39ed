"""`/api/me/channels` (issue 26): add, list, remove and test a channel; at most 5; a URL the
guard refuses is refused at creation (422, nothing stored); secrets are never shown after
creation (only masked) and go with the player."""

from __future__ import annotations

import pytest
from channels_support import Reply, hook_receiver
from server_support import Api, reconfigure
from sqlmodel import Session, select

from server.db import get_engine
from server.models import Channel, ChannelDelivery

pytestmark = pytest.mark.postgres

ALLOW = "127.0.0.1/32"


@pytest.fixture
def token(api: Api) -> str:
    reconfigure(api.app, CHANNELS_ALLOW=ALLOW)
    return api.register("ann")


def channels(api: Api) -> list[Channel]:
    with Session(get_engine(api.app)) as session:
        return list(session.exec(select(Channel)).all())


def test_a_channel_is_added_listed_masked_and_removed(api: Api, token: str) -> None:
    url = "http://127.0.0.1:9/api/webhooks/123/very-secret-token"
    made = api.call("POST", "/api/me/channels", token, json={"kind": "discord", "url": url})
    assert made.status_code == 201, made.json
    body = made.json
    assert body["url"] == "http://127.0.0.1/…"
    assert body["events"] == ["your_turn", "reminder", "game_over"]
    assert body["state"] == "active" and "secret" not in body
    listed = api.call("GET", "/api/me/channels", token)
    assert listed.status_code == 200
    assert [c["id"] for c in listed.json["channels"]] == [body["id"]]
    assert "very-secret-token" not in listed.get_data(as_text=True)
    gone = api.call("DELETE", f"/api/me/channels/{body['id']}", token)
    assert gone.status_code == 204
    assert api.call("DELETE", f"/api/me/channels/{body['id']}", token).status_code == 404
    assert channels(api) == []


def test_a_webhooks_secret_is_shown_once(api: Api, token: str) -> None:
    made = api.call(
        "POST",
        "/api/me/channels",
        token,
        json={"kind": "webhook", "url": "http://127.0.0.1:9/in", "events": ["game_over"]},
    ).json
    assert made["secret"].startswith("whsec_")
    listed = api.call("GET", "/api/me/channels", token)
    assert made["secret"] not in listed.get_data(as_text=True)
    assert listed.json["channels"][0]["events"] == ["game_over"]


def test_matrix_and_ntfy_tokens_are_never_shown(api: Api, token: str) -> None:
    for body in (
        {"kind": "matrix", "url": "http://127.0.0.1:9", "room": "!r:x", "token": "syt_abc"},
        {"kind": "ntfy", "url": "http://127.0.0.1:9", "topic": "hidden-topic", "token": "tk_x"},
    ):
        made = api.call("POST", "/api/me/channels", token, json=body)
        assert made.status_code == 201, made.json
        assert body["token"] not in made.get_data(as_text=True)
    text = api.call("GET", "/api/me/channels", token).get_data(as_text=True)
    assert "syt_abc" not in text and "tk_x" not in text and "hidden-topic" not in text


def test_at_most_five_channels(api: Api, token: str) -> None:
    for number in range(5):
        url = f"http://127.0.0.1:9/{number}"
        made = api.call("POST", "/api/me/channels", token, json={"kind": "slack", "url": url})
        assert made.status_code == 201
    sixth = api.call(
        "POST", "/api/me/channels", token, json={"kind": "slack", "url": "http://127.0.0.1:9/6"}
    )
    assert sixth.status_code == 409
    assert sixth.json["error"] == "too_many_channels"
    assert "5" in sixth.json["message"]
    assert len(channels(api)) == 5


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("https://10.0.0.1/hook", "10.0.0.1"),
        ("http://93.184.215.14/hook", "https://"),
        ("https://good@127.0.0.1/", "user name"),
        ("https://2130706433/", "decimal"),
        ("https://[::ffff:127.0.0.1]/", "IPv4-mapped"),
        ("https://127.0.0.2/", "loopback"),  # outside the allowed 127.0.0.1/32
    ],
)
def test_a_url_inside_the_network_is_refused_at_creation(
    api: Api, token: str, url: str, words: str
) -> None:
    refused = api.call("POST", "/api/me/channels", token, json={"kind": "webhook", "url": url})
    assert refused.status_code == 422
    assert refused.json["error"] == "channel_refused"
    assert words in refused.json["message"]
    assert channels(api) == []


def test_the_refusal_is_in_the_readers_language(api: Api, token: str) -> None:
    refused = api.call(
        "POST",
        "/api/me/channels",
        token,
        json={"kind": "slack", "url": "https://10.0.0.1/x"},
        headers={"Accept-Language": "ru"},
    )
    assert refused.status_code == 422
    assert "никогда не обращается внутрь сети" in refused.json["message"]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"kind": "matrix", "url": "http://127.0.0.1:9"}, "channel_fields"),
        ({"kind": "ntfy", "url": "http://127.0.0.1:9"}, "channel_fields"),
        ({"kind": "slack", "url": "http://127.0.0.1:9", "token": "x"}, "channel_fields"),
        ({"kind": "sms", "url": "http://127.0.0.1:9"}, None),
        ({"kind": "slack", "url": "http://127.0.0.1:9", "events": ["everything"]}, None),
        ({"kind": "slack", "url": "http://127.0.0.1:9", "events": []}, None),
    ],
)
def test_a_channel_missing_or_with_a_stray_field_is_refused(
    api: Api, token: str, body: dict[str, object], error: str | None
) -> None:
    refused = api.call("POST", "/api/me/channels", token, json=body)
    assert 400 <= refused.status_code < 500
    assert refused.json["message"]
    if error is not None:
        assert refused.json["error"] == error
    assert channels(api) == []


def test_another_players_channel_is_nobodys(api: Api, token: str) -> None:
    made = api.call(
        "POST", "/api/me/channels", token, json={"kind": "slack", "url": "http://127.0.0.1:9/x"}
    ).json
    bob = api.register("bob")
    assert api.call("DELETE", f"/api/me/channels/{made['id']}", bob).status_code == 404
    assert api.call("POST", f"/api/me/channels/{made['id']}/test", bob).status_code == 404
    assert api.call("GET", "/api/me/channels", bob).json == {"channels": []}


def test_send_a_test_reports_the_receivers_answer(api: Api, token: str) -> None:
    with hook_receiver() as hook:
        made = api.call(
            "POST", "/api/me/channels", token, json={"kind": "discord", "url": hook.url()}
        ).json
        hook.answer = lambda _r: Reply(200, body=b"thanks")
        tested = api.call("POST", f"/api/me/channels/{made['id']}/test", token)
        assert tested.status_code == 200
        assert tested.json == {"delivered": True, "status": 200, "body": "thanks", "error": None}
        hook.answer = lambda _r: Reply(500, body=b"x" * 1000)
        failed = api.call("POST", f"/api/me/channels/{made['id']}/test", token).json
    assert failed["delivered"] is False and failed["status"] == 500
    assert failed["body"] == "x" * 200
    assert len(hook.received) == 2
    assert hook.received[0].json()["allowed_mentions"] == {"parse": []}
    listed = api.call("GET", "/api/me/channels", token).json["channels"][0]
    assert listed["last_error"].startswith("HTTP 500")


def test_send_a_test_to_nobody_listening_says_so(api: Api, token: str, dead_port: int) -> None:
    made = api.call(
        "POST",
        "/api/me/channels",
        token,
        json={"kind": "slack", "url": f"http://127.0.0.1:{dead_port}/x"},
    ).json
    tested = api.call("POST", f"/api/me/channels/{made['id']}/test", token).json
    assert tested["delivered"] is False and tested["status"] is None
    assert "refused" in tested["error"]


def test_a_removed_player_loses_their_channels_and_deliveries(api: Api, token: str) -> None:
    api.call(
        "POST", "/api/me/channels", token, json={"kind": "slack", "url": "http://127.0.0.1:9/x"}
    )
    from server.config import settings_of
    from server.league import departure
    from server.models import Player

    with Session(get_engine(api.app)) as session:
        ann = session.exec(select(Player).where(Player.name == "ann")).one()
        departure.remove_player(session, ann, config=settings_of(api.app))
    assert channels(api) == []
    with Session(get_engine(api.app)) as session:
        assert session.exec(select(ChannelDelivery)).all() == []
