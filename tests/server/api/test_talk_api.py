"""Table talk through the API: `POST` and `GET /api/games/<id>/messages` and
`/api/me/mutes` — who writes and reads, what a message keeps, its order, the limits, the
mutes; and that talking changes nothing of the game."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from server.clock.timesource import FakeClock, use
from server.games import talk


def messages_url(game_id: int) -> str:
    return f"/api/games/{game_id}/messages"


def post(api, game_id, token, text):
    return api.call("POST", messages_url(game_id), token, json={"text": text})


def read(api, game_id, token, after=None):
    query = "" if after is None else f"?after={after}"
    return api.call("GET", messages_url(game_id) + query, token)


def texts(response) -> list[str]:
    assert response.status_code == 200, response.json
    return [said["text"] for said in response.json["messages"]]


@pytest.mark.postgres
def test_a_message_is_written_and_read_in_order_after_an_id(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    version = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["version"]
    first = post(api, game_id, tokens["ann"], "Good luck, everyone!")
    assert first.status_code == 201, first.json
    assert first.json["player"] == "ann" and first.json["text"] == "Good luck, everyone!"
    assert first.json["version"] == version and first.json["at"].endswith("Z")
    second = post(api, game_id, tokens["bob"], "Thanks, you too")
    third = post(api, game_id, tokens["cid"], "Hello")
    assert first.json["id"] < second.json["id"] < third.json["id"]
    everything = read(api, game_id, tokens["cid"])
    assert texts(everything) == ["Good luck, everyone!", "Thanks, you too", "Hello"]
    assert [said["player"] for said in everything.json["messages"]] == ["ann", "bob", "cid"]
    assert everything.json["messages"][0] == first.json
    assert texts(read(api, game_id, tokens["ann"], after=first.json["id"])) == [
        "Thanks, you too",
        "Hello",
    ]
    assert texts(read(api, game_id, tokens["ann"], after=third.json["id"])) == []


@pytest.mark.postgres
def test_a_message_is_trimmed_keeps_its_line_breaks_and_loses_control_characters(api):
    game_id, tokens = api.started_game("ann", "bob")
    sent = post(
        api, game_id, tokens["ann"], "  first line\r\nsecond\x07 line\u202e\tend\n\n\n\nlast  "
    )
    assert sent.status_code == 201, sent.json
    assert sent.json["text"] == "first line\nsecond lineend\n\nlast"
    markup = post(api, game_id, tokens["bob"], "<script>alert(1)</script> https://example.org")
    assert markup.json["text"] == "<script>alert(1)</script> https://example.org"  # data, as sent


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "invalid_request"),
        ("   \n  ", "invalid_request"),
        ("\x01\x02", "invalid_request"),
        ("\u202e\u2066", "empty_message"),  # direction overrides only: removed, nothing left
        ("x" * 501, "invalid_request"),
    ],
)
def test_an_empty_or_too_long_message_is_refused_and_nothing_is_kept(api, text, code):
    game_id, tokens = api.started_game("ann", "bob")
    refused = post(api, game_id, tokens["ann"], text)
    assert refused.status_code == 400, refused.json
    assert refused.json["error"] == code
    assert "500" in refused.json["message"]
    assert texts(read(api, game_id, tokens["bob"])) == []


@pytest.mark.postgres
def test_only_players_write_and_only_players_and_invitees_read(api):
    public, tokens = api.started_game("ann", "bob")
    outsider = api.register("cid")
    assert post(api, public, tokens["ann"], "hello").status_code == 201
    for refused in (post(api, public, outsider, "me too"), read(api, public, outsider)):
        assert refused.status_code == 403, refused.json
        assert refused.json["error"] == "talk_not_yours"
    assert api.call("GET", messages_url(public)).status_code == 401  # signed out
    invited = api.register("dan")
    private = api.call(
        "POST", "/api/games", tokens["ann"], json={"seats": 3, "invite": ["dan"], "private": True}
    ).json["id"]
    assert post(api, private, tokens["ann"], "a private word").status_code == 201
    for refused in (post(api, private, outsider, "hi"), read(api, private, outsider)):
        assert refused.status_code == 404, refused.json
        assert refused.json["error"] == "game_not_found"
    assert texts(read(api, private, invited)) == ["a private word"]  # an invitee reads
    not_seated = post(api, private, invited, "may I?")
    assert not_seated.status_code == 403 and not_seated.json["error"] == "not_a_player"
    assert post(api, 99999, tokens["ann"], "hi").status_code == 404


@pytest.mark.postgres
def test_players_who_left_and_players_of_a_finished_game_still_write(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    leaver = next(name for name in ("ann", "bob", "cid") if name != state["to_move"])
    assert api.call("POST", f"/api/games/{game_id}/resign", tokens[leaver]).status_code == 200
    assert post(api, game_id, tokens[leaver], "well played").status_code == 201
    other = next(name for name in ("ann", "bob", "cid") if name not in (leaver,))
    assert api.call("POST", f"/api/games/{game_id}/resign", tokens[other]).status_code == 200
    over = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert over["status"] == "finished"
    assert post(api, game_id, tokens["ann"], "thanks for the game").status_code == 201
    assert texts(read(api, game_id, tokens[other])) == ["well played", "thanks for the game"]


@pytest.mark.postgres
def test_a_message_changes_neither_the_games_version_nor_its_etag(api):
    game_id, tokens = api.started_game("ann", "bob")
    before = api.call("GET", f"/api/games/{game_id}", tokens["bob"])
    assert post(api, game_id, tokens["ann"], "hi").status_code == 201
    after = api.call("GET", f"/api/games/{game_id}", tokens["bob"])
    assert after.json["version"] == before.json["version"]
    assert after.headers["ETag"] == before.headers["ETag"]
    cached = api.call(
        "GET",
        f"/api/games/{game_id}",
        tokens["bob"],
        headers={"If-None-Match": before.headers["ETag"]},
    )
    assert cached.status_code == 304


@pytest.mark.postgres
def test_thirty_messages_a_game_within_the_hour_then_429_with_retry_after(api):
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    with use(FakeClock(start)) as clock:
        game_id, tokens = api.started_game("ann", "bob")
        for number in range(talk.PER_GAME_HOUR):
            assert post(api, game_id, tokens["ann"], f"message {number}").status_code == 201
            clock.advance(timedelta(minutes=1))
        refused = post(api, game_id, tokens["ann"], "one more")
        assert refused.status_code == 429, refused.json
        assert refused.json["error"] == "too_many_messages"
        # the first message leaves the hour at 10:00; it is 09:30 now
        assert refused.json["retry_after"] == 30 * 60
        assert refused.headers["Retry-After"] == str(30 * 60)
        assert "30 messages in game" in refused.json["message"]
        assert post(api, game_id, tokens["bob"], "my turn to talk").status_code == 201
        clock.advance(timedelta(minutes=30, seconds=1))
        assert post(api, game_id, tokens["ann"], "one more").status_code == 201
    assert len(texts(read(api, game_id, tokens["bob"]))) == talk.PER_GAME_HOUR + 2


@pytest.mark.postgres
def test_two_hundred_messages_a_day_in_all_games_then_429(api):
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    with use(FakeClock(start)) as clock:
        game_id, tokens = api.started_game("ann", "bob")
        other = api.call("POST", "/api/games", tokens["ann"], json={"seats": 2}).json["id"]
        for number in range(talk.PER_DAY):  # 12 an hour: never the limit of a game
            assert post(api, game_id, tokens["ann"], f"m{number}").status_code == 201, number
            clock.advance(timedelta(minutes=5))
        refused = post(api, other, tokens["ann"], "in another game")
        assert refused.status_code == 429, refused.json
        assert refused.json["error"] == "too_many_messages"
        assert "200 messages within a day" in refused.json["message"]
        # the first message leaves the day 24 hours after it was written
        assert refused.json["retry_after"] == 24 * 3600 - talk.PER_DAY * 5 * 60
        assert post(api, other, tokens["bob"], "bob has his own limit").status_code == 403


@pytest.mark.postgres
def test_a_muted_players_messages_are_hidden_from_the_muter_only(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    assert post(api, game_id, tokens["ann"], "from ann").status_code == 201
    muted = api.call("PUT", "/api/me/mutes/ANN", tokens["bob"])  # any case
    assert muted.status_code == 200 and muted.json == {"muted": ["ann"]}
    assert api.call("PUT", "/api/me/mutes/ann", tokens["bob"]).json == {"muted": ["ann"]}
    assert post(api, game_id, tokens["ann"], "still ann").status_code == 201
    assert post(api, game_id, tokens["cid"], "from cid").status_code == 201
    assert texts(read(api, game_id, tokens["bob"])) == ["from cid"]
    assert texts(read(api, game_id, tokens["cid"])) == ["from ann", "still ann", "from cid"]
    elsewhere = api.call("POST", "/api/games", tokens["ann"], json={"seats": 2}).json["id"]
    assert api.call("POST", f"/api/games/{elsewhere}/join", tokens["bob"]).status_code == 200
    assert post(api, elsewhere, tokens["ann"], "ann elsewhere").status_code == 201
    assert texts(read(api, elsewhere, tokens["bob"])) == []  # muted in every game
    assert api.call("GET", "/api/me/mutes", tokens["bob"]).json == {"muted": ["ann"]}
    heard = api.call("DELETE", "/api/me/mutes/ann", tokens["bob"])
    assert heard.status_code == 200 and heard.json == {"muted": []}
    assert texts(read(api, game_id, tokens["bob"])) == ["from ann", "still ann", "from cid"]


@pytest.mark.postgres
def test_muting_refusals(api):
    token = api.register("ann")
    myself = api.call("PUT", "/api/me/mutes/ann", token)
    assert myself.status_code == 422 and myself.json["error"] == "cannot_mute_yourself"
    nobody = api.call("PUT", "/api/me/mutes/nobody", token)
    assert nobody.status_code == 404 and nobody.json["error"] == "player_not_found"
    assert api.call("DELETE", "/api/me/mutes/nobody", token).status_code == 404
    assert api.call("GET", "/api/me/mutes").status_code == 401


@pytest.mark.postgres
def test_messages_appear_in_no_public_view_of_the_game(api):
    game_id, tokens = api.started_game("ann", "bob")
    secret = "a-word-only-players-read"
    assert post(api, game_id, tokens["ann"], secret).status_code == 201
    outsider = api.register("cid")
    views = [
        api.call("GET", f"/api/games/{game_id}", outsider),
        api.call("GET", f"/api/games/{game_id}/turns", outsider),
        api.call("GET", "/api/games?status=active", outsider),
        api.call("GET", f"/api/games/{game_id}", tokens["ann"]),
        api.call("GET", f"/api/games/{game_id}/record", tokens["ann"]),
        api.call("GET", "/api/players/ann", outsider),
        api.client.get(f"/games/{game_id}"),
        api.client.get("/players/ann"),
    ]
    for view in views:
        assert view.status_code == 200, view.request.path
        assert secret not in view.text, view.request.path
