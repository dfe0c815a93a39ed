"""The web pages through the test client: public game pages, sign-in by code, playing by
form with its CSRF token, the record's visibility, escaping, and the security headers.
(The same flows in a real browser are in tests/e2e/test_browser.py.)"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from server_support import csrf_of, web_sign_in


@pytest.mark.postgres
def test_a_game_page_is_public_and_offers_the_mover_one_click_turns(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    signed_out = api.client.get(f"/games/{game_id}")
    assert signed_out.status_code == 200
    assert "<svg" in signed_out.text and "The board in words" in signed_out.text
    assert "one click plays it" not in signed_out.text
    assert "Content-Security-Policy" in signed_out.headers
    mover = state["to_move"]
    web_sign_in(api, mover)
    page = api.client.get(f"/games/{game_id}").text
    assert f"Game {game_id}: Your turn" in page
    turn = re.search(r'name="hint" value="([^"]+)"', page).group(1)
    played = api.client.post(
        f"/games/{game_id}/play",
        data={"csrf": csrf_of(page), "version": state["version"], "hint": turn, "turn": "junk"},
    )
    assert played.status_code == 303
    after = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert after["version"] == state["version"] + 1
    again = api.client.post(
        f"/games/{game_id}/play",
        data={"csrf": csrf_of(page), "version": state["version"], "turn": turn},
    )
    assert again.status_code == 409 and "The game moved on" in again.text
    assert (
        api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["version"] == after["version"]
    )


def test_a_form_without_its_csrf_token_changes_nothing(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    web_sign_in(api, state["to_move"])
    forged = api.client.post(
        f"/games/{game_id}/play", data={"version": state["version"], "turn": "bar DEm"}
    )
    assert forged.status_code == 403 and "did not come from this site" in forged.text
    assert (
        api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["version"] == state["version"]
    )


def test_a_refused_turn_is_said_and_what_was_typed_comes_back_escaped(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    web_sign_in(api, state["to_move"])
    page = api.client.get(f"/games/{game_id}").text
    typed = '<script>alert("x")</script>'
    refused = api.client.post(
        f"/games/{game_id}/play",
        data={"csrf": csrf_of(page), "version": state["version"], "turn": typed},
    )
    assert refused.status_code == 400
    assert "<script>alert" not in refused.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in refused.text


def test_the_record_is_for_the_players_until_the_game_is_over(api):
    game_id, tokens = api.started_game("ann", "bob")
    assert api.client.get(f"/games/{game_id}/record").status_code == 403
    web_sign_in(api, "ann")
    record = api.client.get(f"/games/{game_id}/record")
    assert record.status_code == 200 and record.mimetype == "text/plain"
    assert "attachment" in record.headers["Content-Disposition"]
    assert api.call("POST", f"/api/games/{game_id}/resign", tokens["bob"]).status_code == 200
    api.client.post("/signout", data={"csrf": csrf_of(api.client.get("/").text)})
    assert api.client.get(f"/games/{game_id}/record").status_code == 200


def test_signing_out_revokes_the_sessions_token(api):
    token = api.register("ann")
    web_sign_in(api, "ann")
    home = api.client.get("/")
    assert "Your games" in home.text
    api.client.post("/signout", data={"csrf": csrf_of(home.text)})
    assert "Sign in or register" in api.client.get("/").text
    tokens = api.call("GET", "/api/tokens", token).json["tokens"]
    assert [t["revoked"] for t in tokens if t["label"] == "web sign-in"] == [True]


def test_the_sign_in_page_does_not_tell_who_has_an_account(api):
    api.register("ann")
    form = api.client.get("/signin").text
    known = api.client.post("/signin", data={"csrf": csrf_of(form), "email": "ann@example.com"})
    unknown = api.client.post("/signin", data={"csrf": csrf_of(form), "email": "zed@example.com"})
    assert known.status_code == unknown.status_code == 200
    assert known.text.replace("ann@", "zed@") == unknown.text


def test_a_missing_game_is_a_page_not_json(api):
    response = api.client.get("/games/999")
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "there is no game 999" in response.text


def test_the_deadline_shows_in_the_viewers_zone_with_the_time_left(api):
    game_id, tokens = api.started_game("ann", "bob")
    prefs = api.call("PATCH", "/api/me/preferences", tokens["ann"], json={"timezone": "Asia/Tokyo"})
    assert prefs.status_code == 200, prefs.json
    web_sign_in(api, "ann")
    page = api.client.get(f"/games/{game_id}").text
    found = re.search(r"(\d+ days?(?: \d+ hours?)?) left: the deadline is ([^<]+)\.", page)
    assert found, page
    assert found.group(1).startswith(("2 days", "3 days")) and found.group(2).endswith("JST")


def test_settings_change_the_zone_and_reminders_and_take_a_vacation(api):
    token = api.register("ann")
    web_sign_in(api, "ann")
    page = api.client.get("/settings").text
    assert "<b>14 days</b>" in page
    saved = api.client.post(
        "/settings/preferences",
        data={"csrf": csrf_of(page), "turn_emails": "digest", "timezone": "Europe/Prague"},
    )
    assert saved.status_code == 303
    prefs = api.call("GET", "/api/me/preferences", token).json
    assert prefs["timezone"] == "Europe/Prague" and prefs["reminders"] is False
    assert prefs["turn_emails"] == "digest"
    refused = api.client.post(
        "/settings/preferences",
        data={"csrf": csrf_of(page), "turn_emails": "each", "timezone": "Mars/Olympus"},
    )
    assert refused.status_code == 303
    assert api.call("GET", "/api/me/preferences", token).json["timezone"] == "Europe/Prague"
    assert "timezone" in api.client.get("/settings").text
    today = datetime.now(ZoneInfo("Europe/Prague")).date().isoformat()  # the player's zone
    away = api.client.post(
        "/settings/vacation", data={"csrf": csrf_of(page), "days": "3", "start": today}
    )
    assert away.status_code == 303
    assert api.call("GET", "/api/me/vacation", token).json["current"] is not None
    ended = api.client.post("/settings/vacation", data={"csrf": csrf_of(page), "action": "end"})
    assert ended.status_code == 303
    assert api.call("GET", "/api/me/vacation", token).json["current"] is None


def test_playing_after_signing_out_elsewhere_leads_to_the_sign_in_page(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    web_sign_in(api, state["to_move"])
    page = api.client.get(f"/games/{game_id}").text
    [web] = [t for t in api.call("GET", "/api/tokens", tokens[state["to_move"]]).json["tokens"]
             if t["label"] == "web sign-in"]  # fmt: skip
    api.call("DELETE", f"/api/tokens/{web['id']}", tokens[state["to_move"]])  # revoked elsewhere
    played = api.client.post(
        f"/games/{game_id}/play",
        data={"csrf": csrf_of(page), "version": state["version"], "turn": "bar DEm"},
    )
    assert played.status_code == 302
    assert played.headers["Location"].startswith(f"/signin?next=/games/{game_id}")
    now = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert now["version"] == state["version"]


def test_a_versions_board_is_drawn_once_and_redrawn_after_a_turn(api, monkeypatch):
    from server.web import game_view

    game_id, tokens = api.started_game("ann", "bob")
    first = api.client.get(f"/games/{game_id}").text
    drawn = []
    monkeypatch.setattr(game_view, "svg", lambda *args, **kw: drawn.append(1) or "<svg>new</svg>")
    assert api.client.get(f"/games/{game_id}").text == first and not drawn
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    [hint] = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[state["to_move"]]).json[
        "hints"
    ]
    body = {"turn": hint["turn"], "version": state["version"]}
    assert api.call("POST", f"/api/games/{game_id}/turns", tokens[state["to_move"]], json=body)
    after = api.client.get(f"/games/{game_id}").text
    assert drawn == [1] and "<svg>new</svg>" in after and hint["turn"] in after


def test_the_mover_may_name_the_birthday_nation_and_keep_the_hand_limit(api):
    game_id, tokens = api.started_game("ann", "bob", options={"birthday": 1})
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    web_sign_in(api, state["to_move"])
    page = api.client.get(f"/games/{game_id}").text
    assert "name the birthday nation" in page and 'name="birthday"' in page
    assert 'name="noshrink"' not in page  # no table can be completed on an empty board
    best = re.search(r'name="hint" value="([^"]+)"', page).group(1)
    form = {"csrf": csrf_of(page), "version": state["version"], "hint": best}
    preview = api.client.post(
        f"/games/{game_id}/preview", data={**form, "turn": best, "birthday": "IT"}
    )
    assert preview.status_code == 200 and preview.json["turn"].endswith(" birthday=IT")
    played = api.client.post(f"/games/{game_id}/play", data={**form, "birthday": "IT"})
    assert played.status_code == 303
    after = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert after["birthday_nation"] == "IT"
    [entry] = api.call("GET", f"/api/games/{game_id}/turns", tokens["ann"]).json["turns"]
    assert entry["turn"] == f"{best} birthday=IT"
    web_sign_in(api, after["to_move"])
    page = api.client.get(f"/games/{game_id}").text
    assert 'name="birthday"' not in page  # named once per game
    hand = after["hands"][after["players"].index(after["to_move"])]
    # not a joker: one may go to the bar only when its owner has no other legal turn
    tile = next(t for t in hand if not t.startswith("J"))
    bar = {"csrf": csrf_of(page), "version": after["version"], "turn": f"bar {tile}"}
    played = api.client.post(f"/games/{game_id}/play", data={**bar, "noshrink": "on"})
    assert played.status_code == 303
    [_, last] = api.call("GET", f"/api/games/{game_id}/turns", tokens["ann"]).json["turns"]
    assert last["turn"] == f"bar {tile}"  # noshrink is for seating turns only


def test_noshrink_is_offered_when_a_table_of_one_nation_can_be_completed():
    from cafe import Game
    from cafe.board import TABLES
    from server.web.game_view import _may_complete_one_nation_table

    empty = Game.new(["ann", "bob"], seed=bytes(32))
    position = empty.to_position()
    first, second = TABLES["DE1"].chairs[:2]
    for tile in ("DEf", "DEm"):
        position["bag"].remove(tile)
    position["chairs"] = {str(first): "DEf", str(second): "DEm"}
    assert not _may_complete_one_nation_table(empty)
    assert _may_complete_one_nation_table(Game.from_position(position))
    position["bag"].append("DEm")
    position["bag"].remove("TRm")
    position["chairs"][str(second)] = "TRm"
    assert not _may_complete_one_nation_table(Game.from_position(position))


def test_home_lists_time_left_invitations_with_a_join_button_and_leagues(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    api.register("cid")
    invite = {"seats": 2, "invite": ["cid"]}
    open_id = api.call("POST", "/api/games", tokens["ann"], json=invite).json["id"]
    league = {"name": "Club", "slug": "club", "game_size": 2, "division_size": 4}
    assert api.call("POST", "/api/leagues", tokens["ann"], json=league).status_code == 201
    assert api.call("POST", "/api/leagues/club/seasons", tokens["ann"]).status_code == 201
    assert (
        api.call("POST", "/api/leagues/club/seasons/1/register", tokens[mover]).status_code == 200
    )

    web_sign_in(api, mover)
    home = api.client.get("/").text
    assert "Time left" in home and "2 days 23 hours" in home
    assert '<a href="/leagues/club/seasons/1">season 1</a>' in home
    api.client.post("/signout", data={"csrf": csrf_of(home)})

    web_sign_in(api, "cid")
    home = api.client.get("/").text
    assert f"Take a seat in game {open_id}" in home
    refused = api.client.post(f"/games/{open_id}/join", data={})
    assert refused.status_code == 403
    joined = api.client.post(f"/games/{open_id}/join", data={"csrf": csrf_of(home)})
    assert joined.status_code == 303 and joined.headers["Location"] == f"/games/{open_id}"
    assert f"You took a seat in game {open_id}." in api.client.get(joined.headers["Location"]).text
    again = api.client.post(f"/games/{open_id}/join", data={"csrf": csrf_of(home)})
    assert again.status_code == 303 and again.headers["Location"] == "/"
    assert f"you are already in game {open_id}" in api.client.get("/").text
    assert api.call("GET", f"/api/games/{open_id}", tokens["ann"]).json["players"] == ["ann", "cid"]


def test_a_preview_answered_after_the_turn_keeps_its_message(api):
    """The page asks for a preview as the player leaves the box for the play button; an
    answer that came back after the turn's redirect must not put back a cookie without
    the turn's "You played" message."""
    game_id, tokens = api.started_game("ann", "bob")
    web_sign_in(api, api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"])
    page = api.client.get(f"/games/{game_id}").text
    best = re.search(r'name="hint" value="([^"]+)"', page).group(1)
    version = re.search(r'name="version" value="(\d+)"', page).group(1)
    form = {"csrf": csrf_of(page), "version": version, "turn": best}
    preview = api.client.post(f"/games/{game_id}/preview", data=form)
    assert preview.status_code == 200
    assert "Set-Cookie" not in preview.headers  # nothing changed in the session
    played = api.client.post(f"/games/{game_id}/play", data={**form, "hint": best})
    assert played.status_code == 303 and "Set-Cookie" in played.headers  # the flash
    assert "You played" in api.client.get(f"/games/{game_id}").text


def test_the_sign_in_link_opens_a_page_whose_button_signs_in(api):
    api.register("ann")
    api.client.post("/api/signin-codes", json={"email": "ann@example.com"})
    link = api.last_code("ann@example.com", link=True)
    for _ in range(2):  # a mail scanner opening the link signs nobody in, nor uses it
        page = api.client.get(f"/signin/link/{link}")
        assert page.status_code == 200 and "Sign in as ann" in page.text
    assert "Sign out" not in api.client.get("/").text
    done = api.client.post(f"/signin/link/{link}", data={"csrf": csrf_of(page.text)})
    assert done.status_code == 303 and done.headers["Location"] == "/"
    assert "Signed in as ann." in api.client.get("/").text
    used = api.client.get(f"/signin/link/{link}")
    assert "used, expired or damaged" in used.text and "Sign in as" not in used.text
    again = api.client.post(f"/signin/link/{link}", data={"csrf": csrf_of(used.text)})
    assert again.status_code == 400 and "used, expired or damaged" in again.text
    assert api.client.post(f"/signin/link/{link}", data={}).status_code == 403  # no CSRF


def test_the_sign_in_page_takes_the_link_in_place_of_the_code(api):
    api.register("ann")
    form = api.client.get("/signin").text
    sent = api.client.post("/signin", data={"csrf": csrf_of(form), "email": "ann@example.com"})
    link = f"http://cafe.test/signin/link/{api.last_code('ann@example.com', link=True)}"
    done = api.client.post(
        "/signin/code",
        data={"csrf": csrf_of(sent.text), "email": "ann@example.com", "code": f" {link} "},
    )
    assert done.status_code == 303
    assert "Signed in as ann." in api.client.get("/").text
