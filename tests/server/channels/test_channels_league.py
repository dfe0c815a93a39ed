"""A season on the channels (issue 26, `server.league.pings`): its start and its end each
ping, in the transaction that makes them true, every member's channel that takes `league`
(a channel without it hears nothing of the season), said in the owner's language and
linking to the season's page."""

from __future__ import annotations

import time
from typing import Any

import pytest
from channels_support import hook_receiver
from server_support import Api, reconfigure
from sqlmodel import Session, col, select

from server.config import settings_of
from server.db import get_engine
from server.jobs.deliveries import Deliveries
from server.models import ChannelDelivery

pytestmark = pytest.mark.postgres

NAMES = ("ann", "bob", "cid")


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.json
    return response.json


def league_pings(api: Api) -> list[ChannelDelivery]:
    with Session(get_engine(api.app)) as session:
        return list(
            session.exec(
                select(ChannelDelivery)
                .where(ChannelDelivery.event == "league")
                .order_by(col(ChannelDelivery.id))
            )
        )


def drain(api: Api) -> None:
    sender = Deliveries(get_engine(api.app), settings_of(api.app))
    end = time.monotonic() + 15
    while sender.run_once(wait_for=0.1) and time.monotonic() < end:
        pass
    sender.close()


def test_a_seasons_start_and_end_ping_the_members_who_chose_league(api: Api) -> None:
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    tokens = {name: api.register(name) for name in NAMES}
    ok(api.call("PATCH", "/api/me/preferences", tokens["bob"], json={"language": "de"}))
    settings = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 3, "division_size": 4}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=settings), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    for token in tokens.values():
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", token))
    with hook_receiver() as hook:
        events = {"ann": ["league"], "bob": ["league", "your_turn"], "cid": ["your_turn"]}
        channels = {
            name: ok(
                api.call(
                    "POST",
                    "/api/me/channels",
                    tokens[name],
                    json={"kind": "webhook", "url": hook.url(f"/{name}"), "events": events[name]},
                ),
                201,
            )["id"]
            for name in NAMES
        }
        season = ok(api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]))
        started = league_pings(api)
        assert sorted(row.channel_id for row in started) == [channels["ann"], channels["bob"]]
        assert {row.payload["status"] for row in started if row.payload} == {"started"}
        [game_id] = season["divisions"][0]["games"]
        ok(api.call("POST", f"/api/games/{game_id}/resign", tokens["ann"]))
        ok(api.call("POST", f"/api/games/{game_id}/resign", tokens["bob"]))
        assert ok(api.call("GET", "/api/leagues/tuesday/seasons/1"))["status"] == "finished"
        finished = league_pings(api)[len(started) :]
        assert sorted(row.channel_id for row in finished) == [channels["ann"], channels["bob"]]
        assert {row.payload["status"] for row in finished if row.payload} == {"finished"}
        drain(api)
    said = {
        (r.path, r.json()["data"]["text"]) for r in hook.received if r.json()["type"] == "league"
    }
    link = f"{settings_of(api.app).base_url}/leagues/tuesday/seasons/1"
    assert said == {
        ("/ann", f"Season 1 of Tuesday Club has started: see your division and games at {link}"),
        ("/ann", f"Season 1 of Tuesday Club is over: see the final tables at {link}"),
        (
            "/bob",
            f"Saison 1 von Tuesday Club hat begonnen: Ihre Division und Ihre Spiele unter {link}",
        ),
        ("/bob", f"Saison 1 von Tuesday Club ist vorbei: die Abschlusstabellen unter {link}"),
    }
