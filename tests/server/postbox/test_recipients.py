"""A change writes the email events its readers want, and the pings of all their channels
(issue 25, `server.postbox.recipients`): "another player's turn" only for a player who
asked for it, so no turn leaves rows that are claimed just to be skipped; a digest player's
channel still hears that it is their turn."""

from __future__ import annotations

import pytest
from server_support import Api, reconfigure
from sqlmodel import Session, col, select

from server.db import get_engine
from server.models import ChannelDelivery, OutboxMessage

pytestmark = pytest.mark.postgres


def events_at(api: Api, game_id: int, version: int) -> list[tuple[str, int | None]]:
    with Session(get_engine(api.app)) as session:
        rows = session.exec(
            select(OutboxMessage)
            .where(OutboxMessage.game_id == game_id, OutboxMessage.version == version)
            .order_by(col(OutboxMessage.id))
        ).all()
        return [(row.kind, row.seat) for row in rows]


def play_best(api: Api, game_id: int, tokens: dict[str, str]) -> dict:
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    token = tokens[state["to_move"]]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
    body = {"turn": hint["turn"], "version": state["version"]}
    played = api.call("POST", f"/api/games/{game_id}/turns", token, json=body)
    assert played.status_code == 201, played.json
    return {**played.json, "mover": state["players"].index(state["to_move"])}


def prefer(api: Api, token: str, **body: object) -> None:
    assert api.call("PATCH", "/api/me/preferences", token, json=body).status_code == 200


def test_turns_write_turn_played_only_for_whoever_asked(api):
    game_id, tokens = api.started_game("ann", "bob", "cid", "dan")
    played = play_best(api, game_id, tokens)
    assert [kind for kind, _ in events_at(api, game_id, played["version"])] == ["your_turn"]
    prefer(api, tokens["dan"], others_turns=True)
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    dan = state["players"].index("dan")
    for _ in range(4):
        played = play_best(api, game_id, tokens)
        after = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
        to_move = after["players"].index(after["to_move"])
        told = [
            seat
            for kind, seat in events_at(api, game_id, played["version"])
            if kind == "turn_played"
        ]
        assert told == ([] if dan in (played["mover"], to_move) else [dan])
    api.send_events()
    with Session(get_engine(api.app)) as session:
        skipped = session.exec(select(OutboxMessage).where(OutboxMessage.status == "skipped")).all()
    assert skipped == []  # nothing was written to be skipped


def test_a_digest_player_gets_no_your_turn_email_but_their_channel_is_pinged(api):
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    waiting = next(name for name in state["players"] if name != state["to_move"])
    made = api.call(
        "POST",
        "/api/me/channels",
        tokens[waiting],
        json={"kind": "webhook", "url": "http://127.0.0.1:9/hook"},
    )
    assert made.status_code == 201, made.json
    prefer(api, tokens[waiting], turn_emails="digest")
    played = play_best(api, game_id, tokens)
    assert events_at(api, game_id, played["version"]) == []  # the digest tells them
    with Session(get_engine(api.app)) as session:
        pings = session.exec(
            select(ChannelDelivery).where(ChannelDelivery.version == played["version"])
        ).all()
    assert [(ping.event, ping.game_id) for ping in pings] == [("your_turn", game_id)]
