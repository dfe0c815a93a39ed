"""Table talk on a game's page in a real browser against a real gunicorn, at 375 px: a
player writes from the page (the form, without JavaScript too), a message that is markup
shows as text and its link is marked `nofollow ugc noopener`, the muting button hides a
player, and axe-core finds nothing serious. The screenshot of the page at 375 px goes to
`test-artifacts/screenshots/` (and, when `TALK_SCREENSHOT` names a file, there too), like
those of tests/e2e/test_browser.py, whose browser, axe-core and page checks these share."""

from __future__ import annotations

import os
from pathlib import Path

import test_browser as shared
from playwright.sync_api import expect

PHONE = shared.PHONE
browser = shared.browser
axe_source = shared.axe_source

#: A message a careless page would run or show as markup.
SCRIPT = '<script>document.title="owned"</script><b>bold?</b> see https://example.org/rules.'


def test_write_at_the_table_from_the_page_on_a_phone(browser, axe_source, client):
    game_id = client.new_game("kim", "lou")
    writer, reader = list(client.tokens)[-2:]
    said = client.call(
        "POST", f"/api/games/{game_id}/messages", reader, json={"text": SCRIPT + "\nbye"}
    )
    assert said.status_code == 201, said.text
    for javascript in (True, False):
        context = browser.new_context(
            viewport=PHONE, bypass_csp=True, java_script_enabled=javascript
        )
        page = context.new_page()
        shared.sign_in(page, client, writer)
        page.goto(f"{client.server.base}/games/{game_id}")
        talk = page.get_by_role("region", name="Table talk")
        expect(talk).to_contain_text(SCRIPT)  # the markup as text, shown as written
        assert page.title() != "owned" and talk.locator("b").filter(has_text="bold?").count() == 0
        link = talk.get_by_role("link", name="https://example.org/rules")
        assert link.get_attribute("rel") == "nofollow ugc noopener"
        text = f"Good game so far ({'with' if javascript else 'without'} JavaScript)"
        page.get_by_label("Your message to the table").fill(text)
        page.get_by_role("button", name="Send to the table").click()
        page.wait_for_url(f"{client.server.base}/games/{game_id}#talk")
        items = talk.get_by_role("listitem")
        expect(items.last).to_contain_text(text)
        expect(items.last).to_contain_text(writer)
        assert shared.fits(page), "the talk scrolls sideways at 375 px"
        context.close()
    read = client.call("GET", f"/api/games/{game_id}/messages", reader).json()["messages"]
    assert [m["player"] for m in read] == [reader, writer, writer]

    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    shared.sign_in(page, client, writer)
    page.goto(f"{client.server.base}/games/{game_id}#talk")
    page.get_by_label("Your message to the table").fill("")
    talk = page.get_by_role("region", name="Table talk")
    talk.scroll_into_view_if_needed()
    shot = os.environ.get("TALK_SCREENSHOT")
    if shot:
        Path(shot).parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=shot, full_page=True)
    shared.check_page(page, axe_source, "game-talk")
    page.set_viewport_size(PHONE)
    page.get_by_text("Mute a player").click()
    page.get_by_role("button", name=f"Mute {reader}").click()
    expect(page.get_by_role("status").filter(has_text=f"You muted {reader}")).to_be_visible()
    expect(page.get_by_role("region", name="Table talk")).not_to_contain_text("bold?")
    page.get_by_text("Mute a player").click()
    page.get_by_role("button", name=f"Hear {reader} again").click()
    expect(page.get_by_role("region", name="Table talk")).to_contain_text("bold?")
    context.close()


def test_outsiders_see_no_talk(browser, client):
    game_id = client.new_game("max", "ned")
    player = list(client.tokens)[-1]
    said = client.call(
        "POST", f"/api/games/{game_id}/messages", player, json={"text": "ours-alone-zq"}
    )
    assert said.status_code == 201
    outsider = client.sign_up("oli")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{client.server.base}/games/{game_id}")  # signed out
    expect(page.get_by_role("heading", name="Table talk")).to_have_count(0)
    shared.sign_in(page, client, outsider)
    page.goto(f"{client.server.base}/games/{game_id}")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="Table talk")).to_have_count(0)
    assert "ours-alone-zq" not in page.locator("main").inner_text()
    context.close()
