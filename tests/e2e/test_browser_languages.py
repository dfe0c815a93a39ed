"""The pages' languages in a real browser against a real gunicorn (issue 23): a Russian
browser signed out reads Russian, a Czech player who signs in reads Czech, the language
switch turns the pages (and the player's preference) German; `<html lang>` says so each
time, axe-core finds nothing serious, and at 375 px the German pages — the longest words —
never scroll sideways. Screenshots of the game page in German and Russian at 375 and
1280 px go to `test-artifacts/screenshots/` like those of tests/e2e/test_browser.py, whose
browser, axe-core and page checks these tests share."""

from __future__ import annotations

import test_browser as shared
from e2e_support import mailed_code
from playwright.sync_api import Page, expect

PHONE, DESKTOP = shared.PHONE, shared.DESKTOP
browser = shared.browser
axe_source = shared.axe_source


def language_of(page: Page) -> str | None:
    return page.locator("html").get_attribute("lang")


def sign_in(page: Page, client, name: str) -> None:
    """Sign `name` in through the sign-in page in whatever language it speaks (its fields
    by their ids, its buttons by their forms)."""
    page.goto(f"{client.server.base}/signin")
    page.locator("#email").fill(f"{name}@example.com")
    page.locator('form[action="/signin"]').first.locator("button[type=submit]").click()
    page.locator("#code").fill(mailed_code(client.engine, f"{name}@example.com"))
    page.locator('form[action="/signin/code"] button[type=submit]').click()
    page.wait_for_url(f"{client.server.base}/")


def switch_to(page: Page, code: str) -> None:
    """Choose the language `code` with the switch at the foot of the page."""
    page.locator(f'nav.languages a[hreflang="{code}"]').click()
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", code)


def on_turn(client, name: str, other: str) -> int:
    """A game of `name` and `other` with the birthday table at 1 point and the coffee
    klatsch, three turns or more played, `name` to move: its id."""
    body = {"seats": 2, "options": {"birthday": 1, "coffee_klatsch": True}}
    game_id = client.call("POST", "/api/games", name, json=body).json()["id"]
    assert client.call("POST", f"/api/games/{game_id}/join", other).status_code == 200
    assert client.call("POST", f"/api/games/{game_id}/start", name).status_code == 200
    played, state = 0, client.call("GET", f"/api/games/{game_id}", name).json()
    while played < 3 or state["to_move"] != name:
        mover = state["to_move"]
        [turn] = client.hints(game_id, mover, 1)
        body = {"turn": turn, "version": state["version"]}
        answer = client.call("POST", f"/api/games/{game_id}/turns", mover, json=body)
        assert answer.status_code == 201, answer.text
        played, state = played + 1, client.call("GET", f"/api/games/{game_id}", name).json()
    return game_id


def fits(page: Page, what: str) -> None:
    """At 375 px the page is no wider than the window: nothing scrolls sideways."""
    page.set_viewport_size(PHONE)
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"{what} is {wide} px wide at {PHONE['width']} px"


def screenshots(page: Page, name: str) -> None:
    shared.SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        path = shared.SCREENSHOTS / f"{name}-{size['width']}.png"
        page.screenshot(path=str(path), full_page=True)


def test_the_browsers_language_then_the_players_then_the_switch(browser, axe_source, client):
    petr, olga = client.sign_up("petr"), client.sign_up("olga")
    chosen = client.call("PATCH", "/api/me/preferences", petr, json={"language": "cs"})
    assert chosen.status_code == 200, chosen.text
    game_id = on_turn(client, petr, olga)
    context = browser.new_context(viewport=PHONE, locale="ru-RU", bypass_csp=True)  # axe-core
    page = context.new_page()

    page.goto(f"{client.server.base}/")  # signed out: the browser's Russian
    assert language_of(page) == "ru"
    expect(page.get_by_role("heading", level=1)).to_have_text("Café International, по переписке")
    expect(page.get_by_role("link", name="Войти или зарегистрироваться")).to_be_visible()
    shared.check_page(page, axe_source, "welcome-ru")

    sign_in(page, client, petr)  # the player's Czech, whatever the browser asks for
    assert language_of(page) == "cs"
    expect(page.get_by_role("status")).to_have_text(f"Jste přihlášeni jako {petr}.")
    expect(page.get_by_role("heading", level=1)).to_have_text("Vaše hry")
    shared.check_page(page, axe_source, "home-cs")

    switch_to(page, "de")  # the switch: German pages, and the player's language too
    expect(page.get_by_role("heading", level=1)).to_have_text("Ihre Spiele")
    assert client.call("GET", "/api/me/preferences", petr).json()["language"] == "de"
    shared.check_page(page, axe_source, "home-de")
    for path in ("/settings", "/ratings", f"/players/{petr}", "/rules", "/leagues"):
        page.goto(f"{client.server.base}{path}")
        assert language_of(page) == "de", path
        fits(page, path)

    page.goto(f"{client.server.base}/games/{game_id}")
    assert language_of(page) == "de"
    expect(page.get_by_role("heading", name=f"Spiel {game_id}: Sie sind am Zug")).to_be_visible()
    expect(page.get_by_label("Ein beliebiger Zug in Notation")).to_be_visible()
    [best] = client.hints(game_id, petr, 1)
    page.get_by_label("Ein beliebiger Zug in Notation").fill(best)
    page.get_by_label("Ein beliebiger Zug in Notation").dispatch_event("change")
    expect(page.locator("#preview")).to_contain_text(f"{best} bringt ")  # the server's words
    expect(page.locator("#preview")).to_contain_text("„Diesen Zug spielen“")
    shared.check_page(page, axe_source, "game-de")
    fits(page, "the game page in German")
    screenshots(page, "game-de")

    switch_to(page, "ru")
    expect(page.get_by_role("heading", name=f"Игра {game_id}: Ваш ход")).to_be_visible()
    shared.check_page(page, axe_source, "game-ru")
    fits(page, "the game page in Russian")
    screenshots(page, "game-ru")
    context.close()


def test_a_signed_out_readers_switch_sets_the_cookie_and_their_next_page(browser, client):
    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    page = context.new_page()
    page.goto(f"{client.server.base}/signin")
    assert language_of(page) == "ru"
    switch_to(page, "de")  # back on the sign-in page, in German
    assert page.url == f"{client.server.base}/signin"
    expect(page.get_by_role("heading", level=1)).to_have_text("Anmelden")
    page.goto(f"{client.server.base}/rules")  # the cookie outranks the browser's Russian
    assert language_of(page) == "de"
    fits(page, "the rules in German")
    context.close()


def test_a_finished_game_with_departures_and_the_longest_names_fits_a_phone(browser, client):
    """The final standings of a game two players left, names of 24 characters, in every
    language at 375 px: the page never scrolls sideways (German's 'aufgegeben' under a
    name, beside 'Platz', 'Punkte', 'Abzug' and 'Ergebnis', pushed it 31 px too wide)."""
    names = [client.sign_up(letter * 18) for letter in "tuv"]
    assert all(len(name) == 24 for name in names)
    body = {"seats": 3, "options": {}}
    game_id = client.call("POST", "/api/games", names[0], json=body).json()["id"]
    for name in names[1:]:
        assert client.call("POST", f"/api/games/{game_id}/join", name).status_code == 200
    assert client.call("POST", f"/api/games/{game_id}/start", names[0]).status_code == 200
    for name in names[:2]:
        assert client.call("POST", f"/api/games/{game_id}/resign", name).status_code == 200
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    for code in ("en", "cs", "de", "ru"):
        page.goto(f"{client.server.base}/language/{code}?next=/games/{game_id}")
        assert language_of(page) == code
        expect(page.locator("#standings-heading")).to_be_visible()
        fits(page, f"the finished game's page in {code}")
    context.close()
