"""The language switch on every page (`server.web.languages`) and the settings page's
language: a link per language, the current one marked, `<html lang>` matching; the switch
sets the cookie and goes back to local paths only; a signed-in player's switch (with the
session's token) and settings form change their preference, a forged one does not."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from server_support import csrf_of, signed_in

from cafe import i18n
from server.i18n import LANGUAGE_COOKIE
from server.mail import times


def switch_links(html: str) -> dict[str, tuple[str, bool]]:
    """The switch's links: code -> (href, marked current)."""
    nav = re.search(r'<nav class="languages"[^>]*>(.*?)</nav>', html, re.S)
    assert nav, html
    return {
        code: (href.replace("&amp;", "&"), bool(current))
        for href, code, current in re.findall(
            r'<a href="([^"]+)" lang="(\w+)" hreflang="\w+"( aria-current="true")?>', nav.group(1)
        )
    }


def preference(api, token: str) -> str:
    return api.call("GET", "/api/me/preferences", token).json["language"]


def test_every_page_has_the_switch_and_its_language(api):
    for path in ("/", "/signin", "/rules", "/leagues", "/ratings", "/games/999"):
        page = api.client.get(path, headers={"Accept-Language": "de"})
        assert '<html lang="de">' in page.text, path
        links = switch_links(page.text)
        assert list(links) == list(i18n.LANGUAGES), path
        assert [code for code, (_, current) in links.items() if current] == ["de"], path
        assert '<nav class="languages" aria-label="Sprache">' in page.text
        for code, name in i18n.NAMES.items():
            assert f'lang="{code}" hreflang="{code}"' in page.text and f">{name}</a>" in page.text


def test_the_switch_sets_the_cookie_and_goes_back(api):
    page = api.client.get("/rules?section=notation", headers={"Accept-Language": "de"})
    href, _ = switch_links(page.text)["cs"]
    assert parse_qs(urlsplit(href).query) == {"next": ["/rules?section=notation"]}
    switched = api.client.get(href)
    assert switched.status_code == 303 and switched.headers["Location"] == "/rules?section=notation"
    cookie = switched.headers["Set-Cookie"]
    assert cookie.startswith(f"{LANGUAGE_COOKIE}=cs;") and "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie and "Max-Age=31536000" in cookie
    again = api.client.get("/rules", headers={"Accept-Language": "de"})
    assert '<html lang="cs">' in again.text
    assert switch_links(again.text)["cs"][1]


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/",
        "/\\evil.example",
        "evil",
        "",
        "/x\r\nSet-Cookie:",
    ],
)
def test_the_switch_goes_back_to_local_paths_only(api, target):
    switched = api.client.get("/language/ru", query_string={"next": target})
    assert switched.status_code == 303 and switched.headers["Location"] == "/"


def test_an_unknown_language_is_a_page_saying_ours(api):
    response = api.client.get("/language/fr?next=/")
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "en, cs, de, ru" in response.text
    russian = api.client.get("/language/fr?next=/", headers={"Accept-Language": "ru"})
    assert "fr&#39; здесь нет; есть en, cs, de, ru" in russian.text
    assert LANGUAGE_COOKIE not in response.headers.get("Set-Cookie", "")


def test_a_signed_in_players_switch_changes_their_language(api):
    token = api.register("ann")
    client = signed_in(api, "ann")
    links = switch_links(client.get("/").text)
    href, current = links["ru"]
    assert not current and "csrf=" in href
    switched = client.get(href)
    assert switched.status_code == 303
    assert preference(api, token) == "ru"
    assert '<html lang="ru">' in client.get("/", headers={"Accept-Language": "de"}).text
    # a link from elsewhere, without the session's token, sets the cookie only
    forged = client.get("/language/de?next=/")
    assert forged.status_code == 303 and preference(api, token) == "ru"
    assert '<html lang="ru">' in client.get("/").text


def test_the_settings_page_chooses_the_language(api):
    token = api.register("ann")
    client = signed_in(api, "ann")
    page = client.get("/settings").text
    select = re.search(r'<select id="language" name="language"[^>]*>(.*?)</select>', page, re.S)
    assert select, page
    options = re.findall(
        r'<option value="(\w+)" lang="\w+"( selected)?>([^<]+)</option>', select[1]
    )
    assert [(code, name) for code, _, name in options] == list(i18n.NAMES.items())
    assert [code for code, chosen, _ in options if chosen] == ["en"]
    form = {
        "csrf": csrf_of(page),
        "turn_emails": "each",
        "reminders": "on",
        "timezone": "Europe/Prague",
        "language": "cs",
    }
    saved = client.post("/settings/preferences", data=form)
    assert saved.status_code == 303 and preference(api, token) == "cs"
    after = client.get("/settings").text
    assert '<html lang="cs">' in after and '<option value="cs" lang="cs" selected>' in after
    assert '<label for="language">Můj jazyk</label>' in after
    refused = client.post("/settings/preferences", data={**form, "language": "xx"})
    assert refused.status_code == 303 and preference(api, token) == "cs"
    assert "en (English)" in client.get("/settings").text  # the flashed refusal names ours


def test_times_on_a_page_are_in_the_viewers_language_and_zone(api):
    token = api.register("ann")
    body = {"language": "de", "timezone": "Asia/Tokyo"}
    assert api.call("PATCH", "/api/me/preferences", token, json=body).status_code == 200
    client = signed_in(api, "ann")
    created = api.call("GET", "/api/tokens", token).json["tokens"][0]["created_at"]
    with i18n.speaking("de"):
        shown = times.local(datetime.fromisoformat(created), "Asia/Tokyo")
    assert shown.endswith("JST") and "., " in shown  # "Mi., 2. Dez. 2026, 15:04 JST"
    assert f"<td>{shown}</td>" in client.get("/settings").text
