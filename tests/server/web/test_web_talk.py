"""Table talk on a game's page (`server.web.talk_pages`, `talk_view`): only its players
and invitees see it, a player writes with the page's form (CSRF checked, a refusal keeping
what was written), the text is escaped and its links marked, the muting buttons, and the
settings' one field for talk by email."""

from __future__ import annotations

from datetime import datetime

import pytest
from server_support import csrf_of, signed_in

from server.mail import times

SECRET = "only-for-the-table"


def say(api, game_id, token, text):
    sent = api.call("POST", f"/api/games/{game_id}/messages", token, json={"text": text})
    assert sent.status_code == 201, sent.json


@pytest.mark.postgres
def test_only_players_and_invitees_see_the_talk(api):
    game_id, tokens = api.started_game("ann", "bob")
    say(api, game_id, tokens["ann"], SECRET)
    assert SECRET not in api.client.get(f"/games/{game_id}").text  # signed out
    api.register("cid")
    outsider = signed_in(api, "cid")
    page = outsider.get(f"/games/{game_id}")
    assert page.status_code == 200 and SECRET not in page.text and 'id="talk"' not in page.text
    bob = signed_in(api, "bob")
    page = bob.get(f"/games/{game_id}")
    assert SECRET in page.text and f'action="/games/{game_id}/messages"' in page.text
    api.register("dan")
    opened = api.call(
        "POST", "/api/games", tokens["ann"], json={"seats": 3, "invite": ["dan"], "private": True}
    ).json["id"]
    say(api, opened, tokens["ann"], "for dan's eyes")
    dan = signed_in(api, "dan")
    invited = dan.get(f"/games/{opened}")
    assert "for dan&#39;s eyes" in invited.text
    assert f'action="/games/{opened}/messages"' not in invited.text  # an invitee only reads
    assert outsider.get(f"/games/{opened}").status_code == 404


def test_the_form_posts_a_message_with_its_csrf_token_only(api):
    game_id, tokens = api.started_game("ann", "bob")
    bob = signed_in(api, "bob")
    page = bob.get(f"/games/{game_id}").text
    forged = bob.post(f"/games/{game_id}/messages", data={"text": "forged"})
    assert forged.status_code == 403
    sent = bob.post(f"/games/{game_id}/messages", data={"csrf": csrf_of(page), "text": "hi ann"})
    assert sent.status_code == 303 and sent.headers["Location"].endswith(f"/games/{game_id}#talk")
    read = api.call("GET", f"/api/games/{game_id}/messages", tokens["ann"]).json["messages"]
    assert [(m["player"], m["text"]) for m in read] == [("bob", "hi ann")]
    signed_out = api.app.test_client()
    form = signed_out.get("/signin").text  # a form of this session
    asked = signed_out.post(f"/games/{game_id}/messages", data={"csrf": csrf_of(form), "text": "x"})
    assert asked.status_code == 302 and "/signin" in asked.headers["Location"]


def test_a_refused_message_is_said_and_kept_in_the_box(api):
    game_id, _ = api.started_game("ann", "bob")
    bob = signed_in(api, "bob")
    csrf = csrf_of(bob.get(f"/games/{game_id}").text)
    long = "<i>" + "x" * 600
    refused = bob.post(f"/games/{game_id}/messages", data={"csrf": csrf, "text": long})
    assert refused.status_code == 400
    assert "the message has 603 characters; a message has at most 500" in refused.text
    assert "&lt;i&gt;" + "x" * 600 + "</textarea>" in refused.text
    api.register("cid")
    outsider = signed_in(api, "cid")
    csrf = csrf_of(outsider.get(f"/games/{game_id}").text)
    refused = outsider.post(f"/games/{game_id}/messages", data={"csrf": csrf, "text": "hi"})
    assert refused.status_code == 403 and "read its table talk" in refused.text


def test_markup_is_text_and_only_web_addresses_are_links(api):
    game_id, tokens = api.started_game("ann", "bob")
    say(
        api,
        game_id,
        tokens["ann"],
        '<img src=x onerror=alert(1)> javascript:alert(2) see https://example.org/a?b=1&c="2".',
    )
    page = signed_in(api, "bob").get(f"/games/{game_id}").text
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert 'href="javascript' not in page
    assert (
        '<a href="https://example.org/a?b=1&amp;c=" rel="nofollow ugc noopener">'
        "https://example.org/a?b=1&amp;c=</a>&#34;2&#34;." in page
    )


def test_the_mute_buttons_hide_and_show_a_player(api):
    game_id, tokens = api.started_game("ann", "bob")
    say(api, game_id, tokens["ann"], SECRET)
    bob = signed_in(api, "bob")
    csrf = csrf_of(bob.get(f"/games/{game_id}").text)
    muted = bob.post(f"/games/{game_id}/mutes", data={"csrf": csrf, "player": "ann"})
    assert muted.status_code == 303
    page = bob.get(f"/games/{game_id}").text
    assert SECRET not in page and "whom you muted" in page and "Hear ann again" in page
    assert api.call("GET", "/api/me/mutes", tokens["bob"]).json == {"muted": ["ann"]}
    heard = bob.post(
        f"/games/{game_id}/mutes", data={"csrf": csrf, "player": "ann", "action": "unmute"}
    )
    assert heard.status_code == 303 and SECRET in bob.get(f"/games/{game_id}").text
    myself = bob.post(f"/games/{game_id}/mutes", data={"csrf": csrf, "player": "bob"})
    assert myself.status_code == 422


def test_the_settings_choose_how_talk_comes_by_email(api):
    token = api.register("ann")
    ann = signed_in(api, "ann")
    page = ann.get("/settings").text
    assert 'name="talk_emails" value="with_turns" checked' in page
    saved = ann.post(
        "/settings/preferences",
        data={
            "csrf": csrf_of(page),
            "turn_emails": "each",
            "timezone": "UTC",
            "talk_emails": "off",
        },
    )
    assert saved.status_code == 303
    assert api.call("GET", "/api/me/preferences", token).json["talk_emails"] == "off"
    assert 'name="talk_emails" value="off" checked' in ann.get("/settings").text


def test_each_message_shows_its_time_in_the_readers_zone(api):
    game_id, tokens = api.started_game("ann", "bob")
    say(api, game_id, tokens["ann"], "what time is it?")
    prefs = {"timezone": "Asia/Tokyo"}
    assert api.call("PATCH", "/api/me/preferences", tokens["bob"], json=prefs).status_code == 200
    [said] = api.call("GET", f"/api/games/{game_id}/messages", tokens["bob"]).json["messages"]
    at = datetime.fromisoformat(said["at"])
    page = signed_in(api, "bob").get(f"/games/{game_id}").text
    assert f'<time datetime="{said["at"]}" class="muted">{times.local(at, "Asia/Tokyo")}' in page
    assert "JST" in times.local(at, "Asia/Tokyo")
