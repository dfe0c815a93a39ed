"""Who reads which language (`server.i18n`): each request's language by the one rule —
pages: the signed-in player's, else the switch's cookie, else `Accept-Language`, else
English; API messages: `Accept-Language`, else the caller's, else English — a new player's
language from the request that registered them, the `language` preference (validated,
nothing changed by a wrong one), and the language restored when a request ends."""

from __future__ import annotations

import html
import re
from datetime import date

import flask_babel
import pytest
from server_support import csrf_of, signed_in
from sqlalchemy import update
from sqlmodel import col, select

from cafe import i18n
from server import auth
from server.db import get_session
from server.i18n import LANGUAGE_COOKIE, reading, request_language, zone
from server.models import Player


def player(api, name: str) -> Player:
    with api.app.app_context():
        found = get_session().exec(select(Player).where(Player.name == name)).one()
        get_session().expunge(found)
        return found


def change(api, name: str, **values: str) -> None:
    """Set columns of the player `name`, as an operator would."""
    with api.app.app_context():
        get_session().execute(update(Player).where(col(Player.name) == name).values(**values))
        get_session().commit()


def register(api, name: str, **headers: str) -> str:
    """Register `name` through the API with these headers; the new player's token."""
    email = f"{name}@example.com"
    sent = api.client.post("/api/players", json={"name": name, "email": email}, headers=headers)
    assert sent.status_code == 202, sent.json
    made = api.client.post("/api/tokens", json={"email": email, "code": api.last_code(email)})
    assert made.status_code == 201, made.json
    return made.json["token"]


def language_of(app, path: str, *, player: Player | None = None, **headers: str) -> str:
    with app.test_request_context(path, headers=headers):
        return request_language(player)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("cs-CZ,cs;q=0.9,en;q=0.8", "cs"),
        ("fr-FR, de;q=0.5, ru;q=0.7", "ru"),  # by quality, not by order
        ("de_DE", "de"),
        ("fr, it;q=0.5", "en"),
        ("ru;q=0, de;q=0.1", "de"),  # q=0 is "not this one"
        ("", "en"),
        ("!!garbage;;q=x", "en"),
    ],
)
def test_a_signed_out_page_reads_accept_language(app, header, expected):
    assert language_of(app, "/", **{"Accept-Language": header}) == expected


def test_a_page_reads_the_player_then_the_cookie_then_accept_language(api):
    api.register("ann")
    ann = player(api, "ann")
    ann.language = "de"
    cookie = {"Cookie": f"{LANGUAGE_COOKIE}=ru", "Accept-Language": "cs"}
    assert language_of(api.app, "/", player=ann, **cookie) == "de"
    assert language_of(api.app, "/", **cookie) == "ru"
    unknown = {"Cookie": f"{LANGUAGE_COOKIE}=xx"}
    assert language_of(api.app, "/", **unknown) == "en"
    assert language_of(api.app, "/", **unknown, **{"Accept-Language": "cs"}) == "cs"


def test_an_api_message_reads_accept_language_then_the_caller(api):
    token = api.register("ann")
    ann = player(api, "ann")
    ann.language = "de"
    assert language_of(api.app, "/api/me", player=ann, **{"Accept-Language": "ru"}) == "ru"
    assert language_of(api.app, "/api/me", player=ann, **{"Accept-Language": "fr"}) == "de"
    assert language_of(api.app, "/api/me", Cookie=f"{LANGUAGE_COOKIE}=cs") == "en"
    # through the request's own hooks: signed-in by token, then the header wins
    change(api, "ann", language="cs", timezone="Asia/Tokyo")
    with api.app.test_request_context("/api/me", headers={"Authorization": f"Bearer {token}"}):
        api.app.preprocess_request()
        assert (i18n.current(), zone()) == ("en", "UTC")  # nobody known yet
        assert str(flask_babel.get_locale()) == "en"
        auth.authenticate()
        assert (i18n.current(), zone()) == ("cs", "Asia/Tokyo")
        # Flask-Babel follows (its formats, if a page uses them)
        assert str(flask_babel.get_locale()) == "cs"
        assert str(flask_babel.get_timezone()) == "Asia/Tokyo"
        assert flask_babel.format_date(date(2026, 3, 5), "long") == "5. března 2026"
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": "ru"}
    with api.app.test_request_context("/api/me", headers=headers):
        api.app.preprocess_request()
        auth.authenticate()
        assert i18n.current() == "ru"
    assert (i18n.current(), zone()) == ("en", "UTC")  # the request is over: its language too


def test_a_signed_in_page_is_in_the_players_language(api):
    api.register("ann")
    client = signed_in(api, "ann")
    change(api, "ann", language="ru")
    headers = {"Accept-Language": "cs"}
    client.set_cookie(LANGUAGE_COOKIE, "de")
    assert '<html lang="ru">' in client.get("/settings", headers=headers).text
    chosen = api.app.test_client()
    chosen.set_cookie(LANGUAGE_COOKIE, "de")
    assert '<html lang="de">' in chosen.get("/", headers=headers).text
    assert (
        '<html lang="cs">' in api.app.test_client().get("/", headers={"Accept-Language": "cs"}).text
    )


def test_reading_sets_the_language_and_the_zone_for_a_while():
    with reading("cs", "Europe/Prague"):
        assert (i18n.current(), zone()) == ("cs", "Europe/Prague")
        with reading("xx"):
            assert (i18n.current(), zone()) == ("en", "UTC")
    assert (i18n.current(), zone()) == ("en", "UTC")


@pytest.mark.postgres
def test_a_new_player_reads_the_language_that_registered_them(api):
    register(api, "ann", **{"Accept-Language": "ru-RU,ru;q=0.9"})
    register(api, "bob", **{"Accept-Language": "fr"})
    register(api, "cid")
    assert [player(api, name).language for name in ("ann", "bob", "cid")] == ["ru", "en", "en"]
    # the sign-in email of the registration is already in that language
    signin = {m.to_addr: m.subject for m in api.outbox() if m.kind == "signin_code"}
    assert signin["ann@example.com"] == "Ваш код входа в Café International"
    assert signin["bob@example.com"] == "Your Café International sign-in code"
    # on the web: the language the page was read in, the switch's choice among them
    api.client.set_cookie(LANGUAGE_COOKIE, "de")
    form = api.client.get("/signin")
    sent = api.client.post(
        "/signin",
        data={"csrf": csrf_of(form.text), "name": "dan", "email": "dan@example.com"},
        headers={"Accept-Language": "cs"},
    )
    assert sent.status_code == 200
    assert player(api, "dan").language == "de"


@pytest.mark.postgres
def test_the_language_preference(api):
    token = api.register("ann")
    assert api.call("GET", "/api/me/preferences", token).json["language"] == "en"
    changed = api.call("PATCH", "/api/me/preferences", token, json={"language": "cs"})
    assert changed.status_code == 200 and changed.json["language"] == "cs"
    assert player(api, "ann").language == "cs"


@pytest.mark.postgres
def test_the_preferences_tell_whether_the_player_chose_their_language(api):
    """A player's language is the one that registered them until they choose one: then
    `language_chosen` says so (`cafe` keeps only a chosen language, docs/languages.md),
    whichever way they chose — the API, the settings page or the switch."""
    token = api.register("ann")
    shown = api.call("GET", "/api/me/preferences", token).json
    assert (shown["language"], shown["language_chosen"]) == ("en", False)
    other = api.call("PATCH", "/api/me/preferences", token, json={"timezone": "Europe/Prague"})
    assert other.json["language_chosen"] is False  # another preference chooses no language
    chosen = api.call("PATCH", "/api/me/preferences", token, json={"language": "en"})
    assert (chosen.json["language"], chosen.json["language_chosen"]) == ("en", True)
    assert player(api, "ann").language_chosen
    bob = api.register("bob")
    client = signed_in(api, "bob")
    switch = re.search(r'href="(/language/de\?[^"]*csrf=[^"]+)"', client.get("/").text)
    assert switch, "no switch to German"
    assert client.get(html.unescape(switch[1])).status_code == 303
    assert player(api, "bob").language == "de"
    assert api.call("GET", "/api/me/preferences", bob).json["language_chosen"] is True


@pytest.mark.parametrize("wrong", ["fr", "CS", "cs-CZ", "", None, 7, ["cs"]])
def test_an_unknown_language_is_refused_naming_ours_and_changes_nothing(api, wrong):
    token = api.register("ann")
    before = api.call("GET", "/api/me/preferences", token).json
    body = {"language": wrong, "timezone": "Europe/Prague"}
    refused = api.call("PATCH", "/api/me/preferences", token, json=body)
    assert refused.status_code == 400 and refused.json["error"] == "invalid_request"
    message = refused.json["message"]
    assert message.startswith("`language`") and "en (English), cs (Čeština)" in message, message
    assert "de (Deutsch), ru (Русский)" in message
    assert api.call("GET", "/api/me/preferences", token).json == before


def test_the_openapi_description_lists_the_languages(api):
    schema = api.client.get("/api/openapi.json").json
    update = schema["components"]["schemas"]
    found = [
        model["properties"]["language"]
        for model in update.values()
        if "language" in model.get("properties", {})
    ]
    assert any(field.get("enum") == list(i18n.LANGUAGES) for field in found), found
