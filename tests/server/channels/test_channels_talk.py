"""Table talk on the channels (issue 26, `server.games.talk.post`): a message pings, in the
message's transaction, each channel that takes `message` of each other player of the game
who did not mute the writer — never the writer's own, never a channel without `message` —
and the worker says it in the owner's language, quoting the message cut to fit, linking to
the game's page."""

from __future__ import annotations

import time
from typing import Any

import pytest
from channels_support import hook_receiver
from server_support import Api, csrf_of, reconfigure, signed_in
from sqlmodel import Session, col, select

from server.channels import texts
from server.config import settings_of
from server.db import get_engine
from server.jobs.deliveries import Deliveries
from server.models import ChannelDelivery

pytestmark = pytest.mark.postgres


def add_channel(api: Api, token: str, url: str, events: list[str], kind: str = "webhook") -> int:
    made = api.call(
        "POST", "/api/me/channels", token, json={"kind": kind, "url": url, "events": events}
    )
    assert made.status_code == 201, made.json
    return int(made.json["id"])


def rows(api: Api) -> list[ChannelDelivery]:
    with Session(get_engine(api.app)) as session:
        return list(session.exec(select(ChannelDelivery).order_by(col(ChannelDelivery.id))))


def write(api: Api, game_id: int, token: str, text: str) -> None:
    posted = api.call("POST", f"/api/games/{game_id}/messages", token, json={"text": text})
    assert posted.status_code == 201, posted.json


def drain(api: Api) -> None:
    sender = Deliveries(get_engine(api.app), settings_of(api.app))
    end = time.monotonic() + 15
    while sender.run_once(wait_for=0.1) and time.monotonic() < end:
        pass
    sender.close()


@pytest.fixture
def allowed(api: Api) -> Api:
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    return api


def test_a_message_pings_the_other_players_who_chose_it_in_their_language(
    allowed: Api,
) -> None:
    api = allowed
    game_id, tokens = api.started_game("ann", "bob", "cid", "dan")
    api.call("PATCH", "/api/me/preferences", tokens["bob"], json={"language": "cs"})
    assert api.call("PUT", "/api/me/mutes/ann", tokens["cid"]).status_code == 200
    with hook_receiver() as hook:
        channels: dict[str, Any] = {
            "ann": add_channel(api, tokens["ann"], hook.url("/ann"), ["message"]),
            "bob": add_channel(api, tokens["bob"], hook.url("/bob"), ["your_turn", "message"]),
            "cid": add_channel(api, tokens["cid"], hook.url("/cid"), ["message"]),
            "dan": add_channel(api, tokens["dan"], hook.url("/dan"), ["your_turn", "game_over"]),
        }
        before = {row.id for row in rows(api)}
        write(api, game_id, tokens["ann"], "Dobrý tah!\nGood luck.")
        queued = [row for row in rows(api) if row.id not in before]
        assert [(row.event, row.channel_id, row.game_id) for row in queued] == [
            ("message", channels["bob"], game_id)
        ]
        drain(api)
    [request] = [r for r in hook.received if r.json()["type"] == "message"]
    assert request.path == "/bob"
    assert request.headers["webhook-id"] == queued[0].delivery_id
    data = request.json()["data"]
    link = f"{settings_of(api.app).base_url}/games/{game_id}"
    said = "„Dobrý tah! Good luck.“"  # on one line, in Czech quotes
    assert data["text"] == f"Hra {game_id}: ann napsal(a): {said} Přečtěte si a odpovězte na {link}"
    assert (data["url"], data["game"], data["writer"]) == (link, game_id, "ann")


def test_muting_the_writer_stops_the_pings_and_unmuting_brings_them_back(allowed: Api) -> None:
    api = allowed
    game_id, tokens = api.started_game("ann", "bob")
    bobs = add_channel(api, tokens["bob"], "http://127.0.0.1:9/bob", ["message"])
    api.call("PUT", "/api/me/mutes/ann", tokens["bob"])
    write(api, game_id, tokens["ann"], "one")
    assert [row.event for row in rows(api) if row.event == "message"] == []
    api.call("DELETE", "/api/me/mutes/ann", tokens["bob"])
    write(api, game_id, tokens["ann"], "two")
    write(api, game_id, tokens["bob"], "three")  # the writer's own channel hears nothing
    [row] = [row for row in rows(api) if row.event == "message"]
    assert (row.channel_id, row.payload) == (bobs, {"writer": "ann", "text": "two"})


def test_a_message_written_on_the_games_page_pings_too(allowed: Api) -> None:
    api = allowed
    game_id, tokens = api.started_game("ann", "bob")
    anns = add_channel(api, tokens["ann"], "http://127.0.0.1:9/ann", ["message"])
    bob = signed_in(api, "bob")
    page = bob.get(f"/games/{game_id}").text
    sent = bob.post(f"/games/{game_id}/messages", data={"csrf": csrf_of(page), "text": "hi ann"})
    assert sent.status_code == 303
    [row] = [row for row in rows(api) if row.event == "message"]
    assert (row.channel_id, row.payload) == (anns, {"writer": "bob", "text": "hi ann"})


def test_a_long_message_is_cut_and_escaped_as_the_format_wants(allowed: Api) -> None:
    api = allowed
    game_id, tokens = api.started_game("ann", "bob")
    with hook_receiver() as hook:
        add_channel(api, tokens["bob"], hook.url("/slack"), ["message"], kind="slack")
        write(api, game_id, tokens["ann"], "<b>tea & cake</b> " + "x" * 480)
        drain(api)
    [request] = hook.received
    text = request.json()["text"]
    assert text.startswith(f"Game {game_id}: ann wrote: “&lt;b&gt;tea &amp; cake&lt;/b&gt; xxx")
    quote = text.split("“")[1].split("”")[0]
    assert quote.endswith("x…")
    assert len(quote.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")) == (
        texts.QUOTE_LENGTH
    )
