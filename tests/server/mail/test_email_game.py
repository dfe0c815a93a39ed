"""A whole three-player game played through the API sends exactly the expected emails, to
the right people, with the right content in both parts; delivered over real SMTP (aiosmtpd)
they thread per game, carry a signed reply address and a working one-click unsubscribe."""

from __future__ import annotations

from collections import Counter

import pytest
from mail_support import (
    assert_text_fits,
    board_in_html,
    deliver,
    game_row,
    outbox_rows,
    read_html,
)

from cafe import Game, render
from cafe.render.quantities import points
from server.config import settings_of
from server.mail import messages
from server.postbox.addresses import read_reply_address, thread_root

NAMES = ("ann", "bob", "cid")


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: the SMTP server runs in a thread


def new_rows(api, seen: int):
    """The emails since the first `seen`, the game's events sent as the worker would (those
    the recipients' preferences do not want are skipped); and how many there are now."""
    api.send_events()
    rows = [row for row in outbox_rows(api.app) if row.status != "skipped"]
    return rows[seen:], len(rows)


def check_your_turn(api, row, game_id, state, hints, since):
    """A "your turn" email against the game it describes."""
    engine = Game.from_position(state)
    player = state["players"][state["to_move"]]
    assert row.to_addr == f"{player}@example.com"
    others = " and ".join(name for name in state["players"] if name != player)
    assert row.subject == f"Café · game {game_id} with {others}: your turn"
    assert f"it is your turn in game {game_id} (turn " in row.body and "version" not in row.body
    assert render.text(engine, layout=messages.PICTURE).rstrip("\n") in row.body
    assert f"Your hand: {' '.join(engine.hands[engine.to_move])}" in row.body
    for line in since:
        assert line in row.body and line in row.html
    for number, hint in enumerate(hints, start=1):
        assert f"  {number}. {hint['turn']}   (" in row.body
        assert f'cafe move {game_id} "{hint["turn"]}"' in row.body
        assert hint["turn"] in read_html(row.html).cells[f"hint {number}"]
    chairs, bar = board_in_html(row.html)
    assert chairs == state["chairs"] and bar == state["bar"]
    config = settings_of(api.app)
    signed = read_reply_address(config.secret_key, config.mail_domain, row.headers["Reply-To"])
    assert (signed.game_id, signed.version) == (game_id, api_state(api, game_id)["version"])


def api_state(api, game_id):
    """The stored game's version and snapshot (hands and board as the emails show them)."""
    game = game_row(api.app, game_id)
    return {"version": game.version, "state": game.state}


@pytest.mark.postgres
def test_a_whole_game_sends_exactly_the_expected_mail(api, smtp_server):
    handler, port = smtp_server
    game_id, tokens = api.started_game(*NAMES)
    wants_all = api.call("PATCH", "/api/me/preferences", tokens["cid"], json={"others_turns": True})
    assert wants_all.status_code == 200
    rows, seen = new_rows(api, 0)
    assert Counter((r.kind, r.to_addr.split("@")[0]) for r in rows) == Counter(
        [("signin_code", n) for n in NAMES]
        + [("player_joined", NAMES[0]), ("table_full", NAMES[0])]  # to the creator
        + [("game_started", n) for n in NAMES]
        + [("your_turn", api_state(api, game_id)["state"]["players"][0])]
    )
    started = next(r for r in rows if r.kind == "game_started")
    commitment = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["commitment"]
    assert commitment in started.body and commitment in started.html
    log: list[str] = []
    while True:
        state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
        if state["status"] == "finished":
            break
        mover = state["to_move"]
        hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]).json["hints"][0]
        body = {"turn": hint["turn"], "version": state["version"]}
        played = api.call("POST", f"/api/games/{game_id}/turns", tokens[mover], json=body).json
        log.append(f"{mover} played {played['turn']} for {points(played['points'])}")
        rows, seen = new_rows(api, seen)
        if played["game_over"]:
            assert sorted((r.kind, r.to_addr) for r in rows) == [
                ("game_over", f"{n}@example.com") for n in NAMES
            ]
            break
        after = api_state(api, game_id)
        following = played["to_move"]
        expected = [("your_turn", following)]
        if "cid" not in (mover, following):
            expected.append(("turn_played", "cid"))
        assert sorted((r.kind, r.to_addr.split("@")[0]) for r in rows) == sorted(expected)
        [your_turn] = [r for r in rows if r.kind == "your_turn"]
        hints = api.call("GET", f"/api/games/{game_id}/hints?n=3", tokens[following]).json
        since = log[-2:]  # the turns since the next player's own last one
        check_your_turn(api, your_turn, game_id, after["state"], hints["hints"], since)
        for row in rows:
            assert f"{mover} played {played['turn']}" in row.body
    final = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    for row in outbox_rows(api.app, "game_over"):
        assert final["seed"] in row.body and final["seed"] in row.html
        for standing in final["standings"]:
            assert f"{standing['place']}. {standing['player']}: {standing['final']} points" in (
                row.body
            )
        assert f"cafe verify game-{game_id}.txt" in row.body

    everything = [row for row in outbox_rows(api.app) if row.status != "skipped"]
    assert deliver(api.app, port, MAIL_PER_MINUTE=0) == 0  # all sent above
    delivered = api.sink.messages + handler.messages  # the game's emails were sent above
    assert len(delivered) == len(everything)
    assert len({m["Message-ID"] for m in delivered}) == len(delivered)
    root = thread_root(settings_of(api.app).secret_key, settings_of(api.app).mail_domain, game_id)
    for message in delivered:
        text = message.get_body(preferencelist=("plain",)).get_content()
        html = message.get_body(preferencelist=("html",)).get_content()
        assert message.get_content_type() == "multipart/alternative"
        assert_text_fits(text)
        read_html(html)
        if "sign-in code" in message["Subject"]:
            assert message["List-Unsubscribe"] is None and message["Reply-To"] is None
            continue
        assert message["References"] == root and message["In-Reply-To"] == root
        assert message["List-Unsubscribe"].strip().startswith("<http://cafe.test/unsubscribe/")
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert message["Auto-Submitted"] == "auto-generated"
        lobby = message["Subject"].endswith(" joined") or "table is full" in message["Subject"]
        if message["Subject"].endswith(": game over") or lobby:  # nothing to reply
            assert message["Reply-To"] is None
        else:
            assert message["Reply-To"].strip().startswith("play+g")
