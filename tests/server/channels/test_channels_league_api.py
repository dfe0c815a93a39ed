"""`/api/leagues/<slug>/channels` (issue 26): a league's shared channels, its organiser's
only (403 `not_organiser` for anyone else, 404 for an unknown league); they take
your_turn, game_over and league (all three unless told), never a player's own reminder or
table talk (400, naming them); masked like a player's, a webhook's secret shown once; at
most 5 a league, beside its organiser's own 5."""

from __future__ import annotations

from typing import Any

import pytest
from channels_support import hook_receiver
from server_support import Api, reconfigure
from sqlmodel import Session, select

from server.db import get_engine
from server.models import Channel

pytestmark = pytest.mark.postgres

BASE = "/api/leagues/tuesday/channels"


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.json
    return response.json


@pytest.fixture
def tokens(api: Api) -> dict[str, str]:
    """ann organises the league `tuesday`; bob does not."""
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    made = {name: api.register(name) for name in ("ann", "bob")}
    league = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 2, "division_size": 4}
    ok(api.call("POST", "/api/leagues", made["ann"], json=league), 201)
    return made


def add(api: Api, token: str, **body: Any) -> Any:
    return api.call("POST", BASE, token, json={"kind": "discord", **body})


def test_the_organiser_adds_lists_and_removes_a_masked_channel(
    api: Api, tokens: dict[str, str]
) -> None:
    url = "http://127.0.0.1:9/api/webhooks/1/league-secret-token"
    made = ok(add(api, tokens["ann"], url=url), 201)
    assert made["url"] == "http://127.0.0.1/…" and "secret" not in made
    assert made["events"] == ["your_turn", "game_over", "league"]
    listed = api.call("GET", BASE, tokens["ann"])
    assert [c["id"] for c in ok(listed)["channels"]] == [made["id"]]
    assert "league-secret-token" not in listed.get_data(as_text=True)
    assert ok(api.call("GET", "/api/me/channels", tokens["ann"]))["channels"] == []  # not hers
    with Session(get_engine(api.app)) as session:
        [stored] = session.exec(select(Channel)).all()
    assert stored.player_id is None and stored.league_id is not None
    ok(api.call("DELETE", f"{BASE}/{made['id']}", tokens["ann"]), 204)
    assert api.call("DELETE", f"{BASE}/{made['id']}", tokens["ann"]).status_code == 404
    assert ok(api.call("GET", BASE, tokens["ann"]))["channels"] == []


def test_a_webhooks_secret_is_shown_once_and_tokens_never(api: Api, tokens: dict[str, str]) -> None:
    hook = ok(add(api, tokens["ann"], kind="webhook", url="http://127.0.0.1:9/in"), 201)
    assert hook["secret"].startswith("whsec_")
    ntfy = {"kind": "ntfy", "url": "http://127.0.0.1:9", "topic": "club-topic", "token": "tk_q"}
    ok(api.call("POST", BASE, tokens["ann"], json=ntfy), 201)
    text = api.call("GET", BASE, tokens["ann"]).get_data(as_text=True)
    assert hook["secret"] not in text and "club-topic" not in text and "tk_q" not in text


def test_only_the_organiser_may_touch_the_leagues_channels(
    api: Api, tokens: dict[str, str]
) -> None:
    made = ok(add(api, tokens["ann"], url="http://127.0.0.1:9/x"), 201)
    for method, path in (
        ("POST", BASE),
        ("GET", BASE),
        ("DELETE", f"{BASE}/{made['id']}"),
        ("POST", f"{BASE}/{made['id']}/test"),
    ):
        json = {"kind": "slack", "url": "http://127.0.0.1:9/y"} if path == BASE else None
        refused = api.call(method, path, tokens["bob"], json=json)
        assert refused.status_code == 403, (method, path)
        assert refused.json["error"] == "not_organiser"
        assert "organiser of tuesday" in refused.json["message"]
        assert "127.0.0.1" not in refused.get_data(as_text=True)
    assert api.call("GET", BASE).status_code == 401
    with Session(get_engine(api.app)) as session:
        assert len(session.exec(select(Channel)).all()) == 1  # nothing changed


def test_an_unknown_league_is_404(api: Api, tokens: dict[str, str]) -> None:
    missing = api.call("GET", "/api/leagues/nowhere/channels", tokens["ann"])
    assert missing.status_code == 404


def test_a_players_own_events_are_refused_naming_them(api: Api, tokens: dict[str, str]) -> None:
    for events in (["reminder"], ["your_turn", "message"]):
        refused = add(api, tokens["ann"], url="http://127.0.0.1:9/x", events=events)
        assert refused.status_code == 400, refused.json
        assert refused.json["error"] == "invalid_request"
        message = refused.json["message"]
        assert "reminder and message are each player's own" in message, message
    chosen = ok(add(api, tokens["ann"], url="http://127.0.0.1:9/x", events=["game_over"]), 201)
    assert chosen["events"] == ["game_over"]


def test_at_most_five_channels_a_league_beside_the_organisers_own(
    api: Api, tokens: dict[str, str]
) -> None:
    for number in range(5):
        ok(add(api, tokens["ann"], url=f"http://127.0.0.1:9/{number}"), 201)
    sixth = add(api, tokens["ann"], url="http://127.0.0.1:9/6")
    assert sixth.status_code == 409 and sixth.json["error"] == "too_many_channels"
    assert "tuesday has 5 channels, the most a league may have" in sixth.json["message"]
    own = api.call(
        "POST",
        "/api/me/channels",
        tokens["ann"],
        json={"kind": "slack", "url": "http://127.0.0.1:9/mine"},
    )
    assert own.status_code == 201  # her own channels are counted apart


def test_a_url_inside_the_network_is_refused(api: Api, tokens: dict[str, str]) -> None:
    refused = add(api, tokens["ann"], url="https://10.0.0.1/hook")
    assert refused.status_code == 422 and refused.json["error"] == "channel_refused"
    assert ok(api.call("GET", BASE, tokens["ann"]))["channels"] == []


def test_a_test_reaches_the_receiver_and_says_it_is_the_leagues(
    api: Api, tokens: dict[str, str]
) -> None:
    with hook_receiver() as hook:
        made = ok(add(api, tokens["ann"], kind="slack", url=hook.url("/club")), 201)
        answer = ok(api.call("POST", f"{BASE}/{made['id']}/test", tokens["ann"]))
    assert answer == {"delivered": True, "status": 200, "body": "ok", "error": None}
    [request] = hook.received
    assert request.path == "/club"
    assert "This is a test of the league's channel" in request.json()["text"]
    other = api.call("POST", f"/api/me/channels/{made['id']}/test", tokens["ann"])
    assert other.status_code == 404  # a league's channel is not its organiser's own
