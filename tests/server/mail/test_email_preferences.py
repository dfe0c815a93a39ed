"""Email preferences (`GET`/`PATCH /api/me/preferences`) and what they change, and the
one-click unsubscribe link that works without signing in and only when we signed it."""

from __future__ import annotations

import pytest
from mail_support import deliver, read_html

from server.config import settings_of
from server.postbox.addresses import unsubscribe_token

DEFAULTS = {
    "turn_emails": "each",
    "others_turns": False,
    "reminders": True,
    "timezone": "UTC",
    "language": "en",
    "talk_emails": "with_turns",
    "language_chosen": False,
}


def prefs(api, token):
    return api.call("GET", "/api/me/preferences", token)


def change(api, token, body):
    return api.call("PATCH", "/api/me/preferences", token, json=body)


@pytest.mark.postgres
def test_defaults_and_changes(api):
    token = api.register("ann")
    assert prefs(api, token).json == DEFAULTS
    assert change(api, token, {"turn_emails": "digest"}).json == {
        **DEFAULTS,
        "turn_emails": "digest",
    }
    assert change(api, token, {"others_turns": True}).json == {
        **DEFAULTS,
        "turn_emails": "digest",
        "others_turns": True,
    }
    assert change(api, token, {}).json == prefs(api, token).json  # nothing asked, nothing changed
    assert api.call("GET", "/api/me", token).json["name"] == "ann"


@pytest.mark.parametrize(
    "body",
    [
        {"turn_emails": "weekly"},
        {"talk_emails": "sometimes"},
        {"turn_emails": None},
        {"others_turns": "yes"},
        {"others_turns": 1},
        {"turns": "each"},
        ["turn_emails"],
    ],
)
def test_bad_changes_are_400_and_change_nothing(api, body):
    token = api.register("ann")
    response = change(api, token, body)
    assert response.status_code == 400
    assert response.json["error"] == "invalid_request"
    assert prefs(api, token).json == DEFAULTS


def test_preferences_need_a_token(api):
    assert api.call("GET", "/api/me/preferences").status_code == 401
    assert api.call("PATCH", "/api/me/preferences", json={}).status_code == 401


def game_of_three(api):
    game_id, tokens = api.started_game("ann", "bob", "cid")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    return game_id, tokens, state


def play_best(api, game_id, tokens, state):
    token = tokens[state["to_move"]]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", token).json["hints"][0]
    body = {"turn": hint["turn"], "version": state["version"]}
    played = api.call("POST", f"/api/games/{game_id}/turns", token, json=body)
    assert played.status_code == 201
    return played.json


def kinds(api, name, after):
    return [m.kind for m in api.outbox(f"{name}@example.com") if m.id > after]


@pytest.mark.postgres
def test_who_hears_of_a_turn(api):
    game_id, tokens, state = game_of_three(api)
    first, second, third = state["players"]
    change(api, tokens[third], {"others_turns": True})
    last = api.outbox()[-1].id
    play_best(api, game_id, tokens, state)
    assert kinds(api, first, last) == []  # the mover
    assert kinds(api, second, last) == ["your_turn"]
    assert kinds(api, third, last) == ["turn_played"]  # asked to hear of others' turns
    [told] = [m for m in api.outbox(f"{third}@example.com") if m.id > last]
    assert f"{first} played" in told.body and f"{second} is to move now." in told.body


def test_none_stops_game_emails_but_not_sign_in_codes(api):
    game_id, tokens, state = game_of_three(api)
    second = state["players"][1]
    change(api, tokens[second], {"turn_emails": "none", "others_turns": True})
    last = api.outbox()[-1].id
    play_best(api, game_id, tokens, state)
    assert kinds(api, second, last) == []
    api.client.post("/api/signin-codes", json={"email": f"{second}@example.com"})
    assert kinds(api, second, last) == ["signin_code"]


def unsubscribe_link(api, smtp_server, name):
    """The List-Unsubscribe link of the newest game email to `name`, as delivered."""
    handler, port = smtp_server
    deliver(api.app, port, MAIL_PER_MINUTE=0)
    mine = [m for m in handler.messages if m["To"] == f"{name}@example.com"]
    link = mine[-1]["List-Unsubscribe"].strip()
    assert mine[-1]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert link.startswith("<http://cafe.test/unsubscribe/") and link.endswith(">")
    html = mine[-1].get_body(preferencelist=("html",)).get_content()
    assert link[1:-1] in html  # the same link in the footer, for people
    return link[len("<http://cafe.test") : -1]


@pytest.mark.postgres
def test_one_click_unsubscribe_works_without_signing_in(api, smtp_server):
    game_id, tokens, state = game_of_three(api)
    second = state["players"][1]
    path = unsubscribe_link(api, smtp_server, second)
    page = api.client.get(path)  # what a person clicking the link sees: a question
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert '<form method="post">' in page.text and f"{second}@example.com" in page.text
    assert prefs(api, tokens[second]).json == DEFAULTS  # a GET changes nothing
    done = api.client.post(  # what a mail program sends (RFC 8058), with no session
        path, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert done.status_code == 200 and "Unsubscribed" in done.text
    read_html(done.text)
    assert prefs(api, tokens[second]).json == {**DEFAULTS, "turn_emails": "none"}
    last = api.outbox()[-1].id
    play_best(api, game_id, tokens, state)
    assert kinds(api, second, last) == []  # no more "your turn"
    api.client.post("/api/signin-codes", json={"email": f"{second}@example.com"})
    assert kinds(api, second, last) == ["signin_code"]  # sign-in codes still come


@pytest.mark.parametrize(
    "tamper",
    [
        # signature changed (not in its last character, whose low bits base64 ignores)
        lambda token: token[:-5] + ("A" if token[-5] != "A" else "B") + token[-4:],
        lambda token: "eyJwIjoyfQ" + token[token.index(".") :],  # another player, same signature
        lambda token: unsubscribe_token("another-installation", 1),
        lambda token: "not-a-token",
    ],
)
def test_a_tampered_unsubscribe_link_is_refused(api, tamper):
    token = api.register("ann")
    good = unsubscribe_token(settings_of(api.app).secret_key, 1)
    path = f"/unsubscribe/{tamper(good)}"
    for response in (api.client.get(path), api.client.post(path)):
        assert response.status_code == 404
        assert "not valid" in response.text and response.mimetype == "text/html"
    assert prefs(api, token).json == DEFAULTS
