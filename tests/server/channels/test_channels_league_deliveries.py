"""A league's shared channels on the worker (issue 26): each game event of the league's
seasons is one delivery per league channel that takes it — not one per player it is for —
written with the event, said as an onlooker (whose move it is, the result: never anyone's
hand), in the organiser's language; a season's start and end reach them too; 410 disables
one, and its failure email goes to the league's organiser, naming the league."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from channels_support import Reply, hook_receiver
from server_support import Api, reconfigure
from sqlalchemy import event, insert
from sqlmodel import Session, col, select

from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs import deliveries
from server.jobs.deliveries import Deliveries
from server.models import Channel, ChannelDelivery, utcnow
from server.postbox import pings
from server.postbox.pings import ChannelEvent

pytestmark = pytest.mark.postgres

NAMES = ("ann", "bob", "cid")
CLUB = "/api/leagues/tuesday/channels"


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.json
    return response.json


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A database file: the worker's threads share it."""
    return f"sqlite:///{tmp_path / 'league-channels.db'}"


@pytest.fixture
def tokens(api: Api) -> dict[str, str]:
    """ann organises `tuesday` (games of three); all three registered for season 1."""
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    made = {name: api.register(name) for name in NAMES}
    league = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 3, "division_size": 4}
    ok(api.call("POST", "/api/leagues", made["ann"], json=league), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", made["ann"]), 201)
    for token in made.values():
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", token))
    return made


def deliveries_of(api: Api, channel_id: int) -> list[ChannelDelivery]:
    with Session(get_engine(api.app)) as session:
        return list(
            session.exec(
                select(ChannelDelivery)
                .where(ChannelDelivery.channel_id == channel_id)
                .order_by(col(ChannelDelivery.id))
            )
        )


def drain(api: Api, seconds: float = 15) -> None:
    sender = Deliveries(get_engine(api.app), settings_of(api.app))
    end = time.monotonic() + seconds
    while sender.run_once(wait_for=0.1) and time.monotonic() < end:
        pass
    sender.close()


def play_best(api: Api, game_id: int, tokens: dict[str, str]) -> None:
    shown = ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))
    token = tokens[shown["to_move"]]
    hint = ok(api.call("GET", f"/api/games/{game_id}/hints?n=1", token))["hints"][0]
    body = {"turn": hint["turn"], "version": shown["version"]}
    ok(api.call("POST", f"/api/games/{game_id}/turns", token, json=body), 201)


def test_each_game_event_is_one_delivery_per_league_channel_never_a_hand(
    api: Api, tokens: dict[str, str]
) -> None:
    with hook_receiver() as hook:
        club = ok(
            api.call(
                "POST", CLUB, tokens["ann"], json={"kind": "webhook", "url": hook.url("/club")}
            ),
            201,
        )["id"]
        results = ok(
            api.call(
                "POST",
                CLUB,
                tokens["ann"],
                json={"kind": "slack", "url": hook.url("/results"), "events": ["game_over"]},
            ),
            201,
        )["id"]
        own = {
            name: ok(
                api.call(
                    "POST",
                    "/api/me/channels",
                    tokens[name],
                    json={"kind": "webhook", "url": hook.url(f"/{name}")},
                ),
                201,
            )["id"]
            for name in NAMES
        }
        season = ok(api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]))
        [game_id] = season["divisions"][0]["games"]
        assert [d.event for d in deliveries_of(api, club)] == ["league"]
        play_best(api, game_id, tokens)
        shown = ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))
        mover, players = shown["to_move"], shown["players"]
        mover_view = ok(api.call("GET", f"/api/games/{game_id}", tokens[mover]))
        hand = [tile for tiles in mover_view["hands"] or [] for tile in tiles]
        assert hand  # the mover sees their own tiles: the ping must not
        assert [d.event for d in deliveries_of(api, club)] == ["league", "your_turn"]
        drain(api)
        club_said = {r.json()["type"]: r for r in hook.received if r.path == "/club"}
        assert sorted(club_said) == ["league", "your_turn"]  # sent at once, in any order
        link = f"{settings_of(api.app).base_url}/games/{game_id}"
        turn = club_said["your_turn"].json()["data"]
        assert turn["text"] == (
            f"Game {game_id} ({', '.join(players)}): it is {mover}'s move. Follow it at {link}"
        )
        assert set(turn) == {"title", "text", "url", "game", "version", "players"}
        assert turn["players"] == players and sorted(players) == list(NAMES)
        body = club_said["your_turn"].body.decode()
        assert not [tile for tile in hand if f'"{tile}"' in body or f" {tile} " in body]
        assert (
            "Season 1 of Tuesday Club has started: see its divisions and games at"
            in (club_said["league"].json()["data"]["text"])
        )
        play_best(api, game_id, tokens)
        assert [d.event for d in deliveries_of(api, club)] == ["league", "your_turn", "your_turn"]
        for name in ("ann", "bob"):  # two resign: the game, and the season, are over
            ok(api.call("POST", f"/api/games/{game_id}/resign", tokens[name]))
        club_rows = deliveries_of(api, club)
        events = [d.event for d in club_rows]
        assert events[-2:] == ["game_over", "league"] and events.count("game_over") == 1
        assert set(events[1:-2]) == {"your_turn"}  # one for each turn, whoever moves
        assert [d.event for d in deliveries_of(api, results)] == ["game_over"]  # once, not 3×
        assert all(  # every player's own channel hears of the end, as before
            "game_over" in [d.event for d in deliveries_of(api, own[name])] for name in NAMES
        )
        hook.received.clear()
        drain(api)
    over = next(r for r in hook.received if r.path == "/results").json()["text"]
    assert over.startswith(f"Game {game_id} is over: cid ") and f"See it at {link}" in over
    statuses = [d.status for d in deliveries_of(api, club)]
    superseded = ["superseded"] * (len(events) - 4)  # the game moved on before they went
    assert statuses == ["sent", "sent", *superseded, "sent", "sent"]
    finished = next(r for r in hook.received if r.path == "/club" and r.json()["type"] == "league")
    assert "Season 1 of Tuesday Club is over" in finished.json()["data"]["text"]


def test_a_league_channel_speaks_the_organisers_language(api: Api, tokens: dict[str, str]) -> None:
    ok(api.call("PATCH", "/api/me/preferences", tokens["ann"], json={"language": "de"}))
    with hook_receiver() as hook:
        ok(
            api.call(
                "POST",
                CLUB,
                tokens["ann"],
                json={"kind": "slack", "url": hook.url("/club"), "events": ["your_turn"]},
            ),
            201,
        )
        season = ok(api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]))
        [game_id] = season["divisions"][0]["games"]
        play_best(api, game_id, tokens)
        shown = ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))
        drain(api)
    [said] = hook.received
    players, mover = ", ".join(shown["players"]), shown["to_move"]
    assert f"Spiel {game_id} ({players}): {mover} ist am Zug." in said.json()["text"]


def queue_test_delivery(api: Api, channel_id: int) -> None:
    with Session(get_engine(api.app)) as session:
        session.execute(
            insert(pings.TABLE), [pings.delivery_row(channel_id, ChannelEvent.TEST, utcnow())]
        )
        session.commit()


def test_410_disables_a_league_channel_and_tells_the_organiser(
    api: Api, tokens: dict[str, str]
) -> None:
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(410, body=b"gone")
        made = ok(
            api.call("POST", CLUB, tokens["ann"], json={"kind": "discord", "url": hook.url()}), 201
        )["id"]
        queue_test_delivery(api, made)
        drain(api)
    with Session(get_engine(api.app)) as session:
        channel = session.get_one(Channel, made)
    assert channel.state == "disabled" and "410" in (channel.disabled_reason or "")
    [mail] = [m for m in api.outbox() if m.kind == "channel_disabled"]
    assert mail.to_addr == "ann@example.com"  # the organiser: the channel has no player
    assert "Tuesday Club" in (mail.subject or "") and "Tuesday Club" in (mail.body or "")
    assert f"cafe league notify test tuesday {made}" in (mail.body or "")
    listed = ok(api.call("GET", CLUB, tokens["ann"]))["channels"][0]
    assert listed["state"] == "disabled" and listed["last_error"] == "HTTP 410: gone"


def test_after_three_days_of_failures_the_organiser_is_emailed(
    api: Api, tokens: dict[str, str]
) -> None:
    start = datetime.now(UTC)
    with hook_receiver() as hook, use(FakeClock(start)) as clock:
        hook.answer = lambda _r: Reply(503, body=b"down")
        made = ok(
            api.call("POST", CLUB, tokens["ann"], json={"kind": "slack", "url": hook.url()}), 201
        )["id"]
        queue_test_delivery(api, made)
        for _ in range(len(deliveries.SCHEDULE) + 1):
            drain(api)
            [row] = deliveries_of(api, made)
            if row.status != "pending":
                break
            clock.at = row.available_at.replace(tzinfo=UTC) + timedelta(seconds=1)
        mail = [m for m in api.outbox() if m.kind == "channel_disabled"]
    assert timedelta(days=2.5) < clock.at - start < timedelta(days=3.5)
    assert [m.to_addr for m in mail] == ["ann@example.com"]
    assert "HTTP 503" in (mail[0].body or "") and "Tuesday Club" in (mail[0].body or "")


def turn_statements(api: Api, game_id: int, tokens: dict[str, str]) -> list[str]:
    """The SQL statements of one turn of the game."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        seen.append(statement)

    engine = get_engine(api.app)
    event.listen(engine, "before_cursor_execute", record)
    try:
        play_best(api, game_id, tokens)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return seen


def test_a_turn_looks_for_league_channels_in_one_read_and_only_in_a_league_game(
    api: Api, tokens: dict[str, str]
) -> None:
    casual = ok(api.call("POST", "/api/games", tokens["ann"], json={"seats": 2}), 201)["id"]
    ok(api.call("POST", f"/api/games/{casual}/join", tokens["bob"]))
    ok(api.call("POST", f"/api/games/{casual}/start", tokens["ann"]))
    looked = [s for s in turn_statements(api, casual, tokens) if "channels.league_id" in s]
    assert looked == []  # a game of no league: not even the read
    season = ok(api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]))
    [league_game] = season["divisions"][0]["games"]
    looked = [s for s in turn_statements(api, league_game, tokens) if "channels.league_id" in s]
    assert len(looked) == 1 and "seasons" in looked[0], looked
