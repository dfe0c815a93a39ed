"""Playing: POST turns (version, idempotency), the log, the record, hints, resigning."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from cafe import Game
from cafe.record import verify
from cafe.render.quantities import points
from server.db import get_engine
from server.models import GameRecord, TurnRecord


@pytest.fixture
def game(api):
    """A started two-player game: (id, tokens, state as the player to move sees it)."""
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    return game_id, tokens, state


def stored(api, game_id):
    with Session(get_engine(api.app)) as session:
        record = session.get(GameRecord, game_id)
        log = session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)).all()
        return record, list(log)


def best_turn(api, game_id, token):
    return api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]["turn"]


def seating_turn(api, game_id, token):
    hints = api.call("GET", f"/api/games/{game_id}/hints?n=50", token).json["hints"]
    return next(h["turn"] for h in hints if not h["turn"].startswith(("bar", "swap")))


def play(api, game_id, token, turn, version, **kwargs):
    body = {"turn": turn, "version": version}
    return api.call("POST", f"/api/games/{game_id}/turns", token, json=body, **kwargs)


@pytest.mark.postgres
def test_turn_is_applied_and_described(api, game):
    game_id, tokens, state = game
    mover, other = state["to_move"], next(p for p in state["players"] if p != state["to_move"])
    turn = seating_turn(api, game_id, tokens[mover])
    response = play(api, game_id, tokens[mover], turn, state["version"])
    assert response.status_code == 201
    result = response.json
    assert result["number"] == 1
    assert result["player"] == mover
    assert result["turn"] == turn
    assert result["version"] == state["version"] + 1
    assert result["to_move"] == other
    assert result["game_over"] is False
    assert sum(t["points"] for t in result["tables"]) == result["points"]
    assert len(result["drawn"]) == len(turn.split())
    after = api.call("GET", f"/api/games/{game_id}", tokens[other]).json
    assert after["version"] == result["version"]
    assert after["to_move"] == other
    assert after["turns"] == 1
    assert after["scores"][after["players"].index(mover)] == result["points"]
    seated = [p.split("@")[0].split("=")[0] for p in turn.split()]
    assert sorted(v.split("=")[0] for v in after["board"].values()) == sorted(seated)
    mail = api.outbox(f"{other}@example.com")[-1]
    assert mail.kind == "your_turn"
    assert f"{mover} played {turn} for {points(result['points'])}" in mail.body


def test_unreadable_turn_is_400_and_changes_nothing(api, game):
    game_id, tokens, state = game
    mover = tokens[state["to_move"]]
    response = play(api, game_id, mover, "USm@nowhere!!", state["version"])
    assert response.status_code == 400
    assert response.json["error"] == "unreadable_turn"
    record, log = stored(api, game_id)
    assert record.version == state["version"] and log == []


@pytest.mark.postgres
def test_illegal_turn_is_422_with_the_rule_and_changes_nothing(api, game):
    game_id, tokens, state = game
    hand = state["hands"][0]
    absent = next(t for t in ("USf", "USm", "DEf", "DEm", "Jf") if t not in hand)
    mails_before = len(api.outbox())
    response = play(api, game_id, tokens[state["to_move"]], f"bar {absent}", state["version"])
    assert response.status_code == 422
    assert response.json["error"] == "illegal_turn"
    assert f"{absent} is not in {state['to_move']}'s hand" in response.json["message"]
    record, log = stored(api, game_id)
    assert record.version == state["version"] and log == []
    assert len(api.outbox()) == mails_before  # a refused turn queues no email


@pytest.mark.parametrize(
    "body",
    [
        {"version": 2},
        {"turn": "bar USf"},
        {"turn": 5, "version": 2},
        {"turn": "", "version": 2},
        {"turn": "x" * 201, "version": 2},
        {"turn": "bar USf\x00", "version": 2},
        {"turn": "bar USf", "version": "2"},
        {"turn": "bar USf", "version": True},
        {"turn": "bar USf", "version": -1},
        {"turn": "bar USf", "version": 2**31},
        {"turn": "bar USf", "version": 2.5},
        ["bar USf", 2],
    ],
)
def test_malformed_turn_requests_are_400(api, game, body):
    game_id, tokens, state = game
    response = api.call("POST", f"/api/games/{game_id}/turns", tokens[state["to_move"]], json=body)
    assert response.status_code == 400
    assert response.json["error"] == "invalid_request"


def test_malformed_json_is_400(api, game):
    game_id, tokens, state = game
    response = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        tokens[state["to_move"]],
        data=b'{"turn": "bar',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json["error"] == "invalid_json"


def test_huge_body_is_413(api, game):
    game_id, tokens, state = game
    body = {"turn": "bar USf", "version": state["version"], "pad": "x" * 70_000}
    response = api.call("POST", f"/api/games/{game_id}/turns", tokens[state["to_move"]], json=body)
    assert response.status_code == 413
    assert response.json["error"] == "too_large"


@pytest.mark.postgres
def test_stale_version_is_409_with_current_version_and_mover(api, game):
    game_id, tokens, state = game
    mover = state["to_move"]
    response = play(api, game_id, tokens[mover], best_turn(api, game_id, tokens[mover]), 1)
    assert response.status_code == 409
    body = response.json
    assert body["error"] == "stale_version"
    assert body["version"] == state["version"] and body["to_move"] == mover
    assert f"version {state['version']}" in body["message"] and f"{mover}'s turn" in body["message"]


def test_not_your_turn_is_409(api, game):
    game_id, tokens, state = game
    waiting = next(p for p in state["players"] if p != state["to_move"])
    response = play(api, game_id, tokens[waiting], "bar USf", state["version"])
    assert response.status_code == 409
    assert response.json["error"] == "not_your_turn"
    assert response.json["to_move"] == state["to_move"]


@pytest.mark.postgres
def test_turn_refusals_for_strangers_unknown_and_open_games(api, game):
    game_id, _tokens, state = game
    cid = api.register("cid")
    stranger = play(api, game_id, cid, "bar USf", state["version"])
    assert stranger.status_code == 403 and stranger.json["error"] == "not_a_player"
    unknown = play(api, 999, cid, "bar USf", 0)
    assert unknown.status_code == 404 and unknown.json["error"] == "game_not_found"
    assert play(api, game_id, None, "bar USf", state["version"]).status_code == 401
    open_id = api.call("POST", "/api/games", cid, json={"seats": 2}).json["id"]
    not_started = play(api, open_id, cid, "bar USf", 0)
    assert not_started.status_code == 409 and not_started.json["error"] == "game_not_started"


def test_revoked_token_cannot_play(api, game):
    game_id, tokens, state = game
    token = tokens[state["to_move"]]
    turn = best_turn(api, game_id, token)
    token_id = api.call("GET", "/api/tokens", token).json["tokens"][0]["id"]
    api.call("DELETE", f"/api/tokens/{token_id}", token)
    response = play(api, game_id, token, turn, state["version"])
    assert response.status_code == 401
    assert stored(api, game_id)[1] == []


@pytest.mark.postgres
def test_idempotent_retry_returns_the_first_response(api, game):
    game_id, tokens, state = game
    token = tokens[state["to_move"]]
    turn = best_turn(api, game_id, token)
    headers = {"Idempotency-Key": "move-1"}
    first = play(api, game_id, token, turn, state["version"], headers=headers)
    assert first.status_code == 201
    for _ in range(3):
        retry = play(api, game_id, token, turn, state["version"], headers=headers)
        assert retry.status_code == 201
        assert retry.json == first.json
    record, log = stored(api, game_id)
    assert len(log) == 1 and record.version == state["version"] + 1
    other = play(api, game_id, token, "bar USf", state["version"], headers=headers)
    assert other.status_code == 422
    assert other.json["error"] == "idempotency_key_reused"


def test_a_twin_that_won_the_race_answers_for_the_loser(api, game, monkeypatch):
    """The loser of a race between two requests with one key gets the winner's response:
    the key is looked up only once the loser meets the conflict."""
    from server import idempotency

    game_id, tokens, state = game
    token = tokens[state["to_move"]]
    turn = best_turn(api, game_id, token)
    headers = {"Idempotency-Key": "twin"}
    first = play(api, game_id, token, turn, state["version"], headers=headers)
    real_recall = idempotency.recall
    calls = []

    def counted_recall(session, idem):
        calls.append(idem.key)
        return real_recall(session, idem)

    monkeypatch.setattr(idempotency, "recall", counted_recall)
    second = play(api, game_id, token, turn, state["version"], headers=headers)
    assert second.status_code == 201
    assert second.json == first.json
    assert calls == ["twin"]
    assert len(stored(api, game_id)[1]) == 1


@pytest.mark.parametrize("key", ["", "x" * 101, "tab\there", "ünï"])
def test_malformed_idempotency_key_is_400(api, game, key):
    game_id, tokens, state = game
    token = tokens[state["to_move"]]
    response = play(
        api, game_id, token, best_turn(api, game_id, token), state["version"],
        headers={"Idempotency-Key": key},
    )  # fmt: skip
    assert response.status_code == 400
    assert response.json["error"] == "invalid_idempotency_key"


@pytest.mark.postgres
def test_turn_log(api, game):
    game_id, tokens, state = game
    first = state["to_move"]
    turn = best_turn(api, game_id, tokens[first])
    played = play(api, game_id, tokens[first], turn, state["version"]).json
    log = api.call("GET", f"/api/games/{game_id}/turns", tokens["ann"])
    assert log.status_code == 200
    [entry] = log.json["turns"]
    assert entry["number"] == 1 and entry["player"] == first and entry["kind"] == "turn"
    assert entry["turn"] == turn and entry["points"] == played["points"]
    assert entry["drawn"] == played["drawn"] and entry["tables"] == played["tables"]
    assert api.call("GET", "/api/games/999/turns", tokens["ann"]).status_code == 404


def test_record_hides_the_seed_until_the_end(api, game):
    game_id, tokens, state = game
    mover = state["to_move"]
    play(api, game_id, tokens[mover], best_turn(api, game_id, tokens[mover]), state["version"])
    response = api.call("GET", f"/api/games/{game_id}/record", tokens["ann"])
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    text = response.data.decode()
    record, _ = stored(api, game_id)
    assert f'[Commitment "{record.commitment}"]' in text
    assert "[Seed" not in text and record.seed_hex not in text
    assert f"1. {mover}: " in text
    assert api.call("GET", "/api/games/999/record", tokens["ann"]).status_code == 404


def test_record_of_an_open_game_is_409(api):
    ann = api.register("ann")
    game_id = api.call("POST", "/api/games", ann, json={"seats": 2}).json["id"]
    response = api.call("GET", f"/api/games/{game_id}/record", ann)
    assert response.status_code == 409
    assert response.json["error"] == "game_not_started"


@pytest.mark.postgres
def test_hints(api, game):
    game_id, tokens, state = game
    mover = tokens[state["to_move"]]
    response = api.call("GET", f"/api/games/{game_id}/hints?n=3", mover)
    assert response.status_code == 200
    hints = response.json["hints"]
    assert len(hints) == 3
    assert [h["points"] for h in hints] == sorted((h["points"] for h in hints), reverse=True)
    assert len(api.call("GET", f"/api/games/{game_id}/hints", mover).json["hints"]) == 5
    played = play(api, game_id, mover, hints[0]["turn"], state["version"])
    assert played.json["points"] == hints[0]["points"]


def test_hints_for_a_waiting_player_are_as_if_it_were_their_turn(api, game):
    game_id, tokens, state = game
    mover = api.call("GET", f"/api/games/{game_id}/hints", tokens[state["to_move"]]).json
    assert mover["as_if_your_turn"] is False
    waiting = next(p for p in state["players"] if p != state["to_move"])
    response = api.call("GET", f"/api/games/{game_id}/hints?n=3", tokens[waiting])
    assert response.status_code == 200 and response.json["as_if_your_turn"] is True
    hand = api.call("GET", f"/api/games/{game_id}", tokens[waiting]).json["hands"]
    mine = hand[state["players"].index(waiting)]
    for found in response.json["hints"]:
        assert set(found["turn"].replace("bar ", "").split()) <= {*mine} or "@" in found["turn"]
        assert found["lowers_limit"] == 0 and found["may_name_birthday"] is False
    preview = api.call(
        "POST",
        f"/api/games/{game_id}/preview",
        tokens[waiting],
        json={"turn": response.json["hints"][0]["turn"], "version": state["version"]},
    )
    assert preview.status_code == 200 and preview.json["as_if_your_turn"] is True
    assert preview.json["points"] == response.json["hints"][0]["points"]


def test_hint_refusals(api, game):
    game_id, tokens, state = game
    for n in ("0", "51", "x"):
        bad = api.call("GET", f"/api/games/{game_id}/hints?n={n}", tokens[state["to_move"]])
        assert bad.status_code == 400
    cid = api.register("cid")
    assert api.call("GET", f"/api/games/{game_id}/hints", cid).status_code == 403
    assert api.call("GET", "/api/games/999/hints", cid).status_code == 404


@pytest.mark.postgres
def test_resign_ends_a_two_player_game(api, game):
    game_id, tokens, state = game
    quitter, winner = state["players"][1], state["players"][0]
    response = api.call("POST", f"/api/games/{game_id}/resign", tokens[quitter])
    assert response.status_code == 200
    final = response.json
    assert final["status"] == "finished"
    assert final["to_move"] is None
    assert [(s["player"], s["eliminated"]) for s in final["standings"]] == [
        (winner, False),
        (quitter, True),
    ]
    record, log = stored(api, game_id)
    assert final["seed"] == record.seed_hex
    assert [entry.kind for entry in log] == ["resign"]
    for name in ("ann", "bob"):
        mail = api.outbox(f"{name}@example.com")[-1]
        assert mail.kind == "game_over" and record.seed_hex in mail.body
    again = api.call("POST", f"/api/games/{game_id}/resign", tokens[quitter])
    assert again.status_code == 409 and again.json["error"] == "game_finished"
    late = play(api, game_id, tokens[winner], "bar USf", final["version"])
    assert late.status_code == 409 and late.json["error"] == "game_finished"
    record_response = api.call("GET", f"/api/games/{game_id}/record", tokens[winner])
    assert record_response.status_code == 200
    assert f"-- {quitter} resigns" in record_response.text
    assert verify(record_response.text).players == tuple(state["players"])


@pytest.mark.postgres
def test_resign_of_the_player_to_move_passes_the_turn(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    after = api.call("POST", f"/api/games/{game_id}/resign", tokens[mover]).json
    assert after["status"] == "active"
    assert after["to_move"] == state["players"][1]
    assert after["eliminated"] == [True, False, False]
    assert after["version"] == state["version"] + 1
    again = api.call("POST", f"/api/games/{game_id}/resign", tokens[mover])
    assert again.status_code == 409 and again.json["error"] == "already_out"
    turn = best_turn(api, game_id, tokens[after["to_move"]])
    assert play(api, game_id, tokens[after["to_move"]], turn, after["version"]).status_code == 201
    record, _ = stored(api, game_id)
    from server.games.turns import replay

    with api.app.app_context(), Session(get_engine(api.app)) as session:
        assert replay(session, record).to_position() == record.state


def test_resign_refusals(api, game):
    game_id, _tokens, _state = game
    cid = api.register("cid")
    assert api.call("POST", f"/api/games/{game_id}/resign", cid).status_code == 403
    assert api.call("POST", "/api/games/999/resign", cid).status_code == 404
    open_id = api.call("POST", "/api/games", cid, json={"seats": 2}).json["id"]
    response = api.call("POST", f"/api/games/{open_id}/resign", cid)
    assert response.status_code == 409 and response.json["error"] == "game_not_started"


def test_version_zero_of_an_open_game_cannot_take_turns(api):
    game_id, tokens = api.started_game("ann", "bob")
    response = play(api, game_id, tokens["ann"], "bar USf", 0)
    assert response.status_code == 409


@pytest.mark.postgres
def test_replayed_record_of_a_finished_game_verifies(api):
    """A whole game through the API; its record re-checks with the engine."""

    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    while state["status"] == "active":
        token = tokens[state["to_move"]]
        played = play(api, game_id, token, best_turn(api, game_id, token), state["version"])
        assert played.status_code == 201, played.json
        state = api.call("GET", f"/api/games/{game_id}", token).json
    text = api.call("GET", f"/api/games/{game_id}/record", tokens["ann"]).data.decode()
    assert f'[Seed "{state["seed"]}"]' in text
    verify(text)
    assert Game.from_record(text).to_position() == stored(api, game_id)[0].state


@pytest.mark.postgres
def test_a_preview_scores_the_turn_as_playing_it_would_and_applies_nothing(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    [hint] = api.call("GET", f"/api/games/{game_id}/hints?n=1", mover).json["hints"]
    body = {"turn": hint["turn"], "version": state["version"]}
    preview = api.call("POST", f"/api/games/{game_id}/preview", mover, json=body)
    assert preview.status_code == 200, preview.json
    assert "drawn" not in preview.json
    unchanged = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert unchanged["version"] == state["version"] and unchanged["hands"] == state["hands"]
    played = api.call("POST", f"/api/games/{game_id}/turns", mover, json=body).json
    assert preview.json["points"] == played["points"] == hint["points"]
    assert preview.json["tables"] == played["tables"]
    assert preview.json["turn"] == played["turn"]


def test_a_preview_gives_the_engines_refusal(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    path = f"/api/games/{game_id}/preview"
    bad = api.call("POST", path, mover, json={"turn": "bar XXm", "version": state["version"]})
    assert bad.status_code == 400 and bad.json["error"] == "unreadable_turn"
    stale = api.call("POST", path, mover, json={"turn": "bar DEm", "version": 0})
    assert stale.status_code == 409 and stale.json["error"] == "stale_version"
    noshrink = api.call(
        "POST", path, mover, json={"turn": "bar DEm noshrink", "version": state["version"]}
    )
    assert noshrink.status_code == 400 and "noshrink" in noshrink.json["message"]


def test_noshrink_on_a_turn_that_completes_nothing_is_refused_and_not_recorded(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    hand = state["hands"][state["players"].index(state["to_move"])]
    tile = next(t for t in hand if not t.startswith("J"))
    body = {"turn": f"{tile}@{tile[:2]}1 noshrink", "version": state["version"]}
    refused = api.call("POST", f"/api/games/{game_id}/turns", mover, json=body)
    assert refused.status_code == 422, refused.json
    assert "noshrink" in refused.json["message"] and "completes none" in refused.json["message"]
    assert api.call("GET", f"/api/games/{game_id}", mover).json["version"] == state["version"]
