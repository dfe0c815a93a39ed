"""The web pages in a real browser (Debian's Chromium driven by Playwright) against a real
gunicorn: signing in with the mailed code, playing a hint with one click, the stale-page
answer, the text box, naming the birthday nation, phone-sized pages (and the your-turn
email) without horizontal scroll, chairs big enough to tap on a phone, axe-core's
accessibility rules, the Content-Security-Policy, and a POST without its CSRF token refused.

Screenshots of every page at 375 and 1280 px wide go to `test-artifacts/screenshots/`
(not committed) for a person to look at.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from e2e_support import E2E_SECRET_KEY, mailed_code
from playwright.sync_api import Browser, Page, expect, sync_playwright
from sqlmodel import Session, select

from client import localgame
from server.app import create_app
from server.config import settings_of
from server.mail import events
from server.models import OutboxMessage

CHROMIUM = "/usr/bin/chromium"
AXE_VERSION = "4.10.3"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PHONE, DESKTOP = {"width": 375, "height": 812}, {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium (installed with `apt-get install chromium`; never downloaded)."""
    assert Path(CHROMIUM).exists(), "install Chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's script, installed from the npm registry into a cache folder once."""
    folder = Path(tempfile.gettempdir()) / f"cafe-axe-core-{AXE_VERSION}"
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        subprocess.run(
            ["npm", "install", "--no-save", "--silent", "--prefix", str(folder),
             f"axe-core@{AXE_VERSION}"],
            check=True,
            timeout=300,
        )  # fmt: skip
    return script.read_text(encoding="utf-8")


def sign_in(page: Page, client, name: str) -> None:
    """Sign `name` in (registered already) through the sign-in page."""
    page.goto(f"{client.server.base}/signin")
    page.get_by_label("Your email address").first.fill(f"{name}@example.com")
    page.get_by_role("button", name="Email me a code", exact=True).click()
    code_box = page.get_by_label("The code from the email")
    code_box.wait_for()  # the code page shows once the request has queued the email
    code_box.fill(mailed_code(client.engine, f"{name}@example.com"))
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"{client.server.base}/")


def fits(page: Page) -> bool:
    """No horizontal scrolling: the page is no wider than the window."""
    return page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def check_page(page: Page, axe_source: str, name: str) -> None:
    """Screenshots at both widths, no horizontal scroll on a phone, and no serious or
    critical axe-core violation."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
        if label == "phone":
            assert fits(page), f"{name} scrolls sideways at 375 px"
    page.add_script_tag(content=axe_source)
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, f"{name}: {bad}"


def test_register_sign_in_and_play_a_hint_with_one_click(browser, axe_source, client):
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    page.goto(client.server.base + "/")
    check_page(page, axe_source, "welcome")
    page.get_by_role("link", name="Sign in or register").click()
    check_page(page, axe_source, "signin")
    name = f"web{client.server.port}"
    page.get_by_label("Your player name").fill(name)
    page.locator("#new-email").fill(f"{name}@example.com")
    page.get_by_role("button", name="Register and email me a code").click()
    page.get_by_label("The code from the email").fill(
        mailed_code(client.engine, f"{name}@example.com")
    )
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(client.server.base + "/")
    assert f"Signed in as {name}" in page.content()

    client.tokens[name] = _api_token_for(client, name)
    other = client.sign_up("opp")
    game_id = client.call("POST", "/api/games", name, json={"seats": 2}).json()["id"]
    assert client.call("POST", f"/api/games/{game_id}/join", other).status_code == 200
    assert client.call("POST", f"/api/games/{game_id}/start", name).status_code == 200
    state = client.call("GET", f"/api/games/{game_id}", other).json()
    if state["to_move"] != name:  # let the opponent move first, through the API
        [turn] = client.hints(game_id, other, 1)
        body = {"turn": turn, "version": state["version"]}
        assert client.call("POST", f"/api/games/{game_id}/turns", other, json=body).ok
        state = client.call("GET", f"/api/games/{game_id}", other).json()

    page.goto(client.server.base + "/settings")
    check_page(page, axe_source, "settings")
    page.goto(client.server.base + "/")
    check_page(page, axe_source, "home")
    page.get_by_role("link", name=f"Game {game_id}").first.click()
    check_page(page, axe_source, "game-your-turn")
    assert page.get_by_role("heading", name=f"Game {game_id}: Your turn").is_visible()
    first = page.locator("ul.hints button").first
    shown = first.inner_text()
    turn, points = re.fullmatch(r"(.+) · ([+-]?\d+) points?", shown).groups()
    first.click()
    page.wait_for_load_state()
    assert "You played" in page.content()
    after = client.call("GET", f"/api/games/{game_id}", other).json()
    assert after["version"] == state["version"] + 1
    log = client.call("GET", f"/api/games/{game_id}/turns", other).json()["turns"]
    assert log[-1]["player"] == name and log[-1]["points"] == int(points)
    check_page(page, axe_source, "game-waiting")
    context.close()


def _api_token_for(client, name: str) -> str:
    """A fresh API token for `name`, signed in by code as `cafe login` would."""
    email = f"{name}@example.com"
    assert client.call("POST", "/api/signin-codes", json={"email": email}).status_code == 202
    response = client.call(
        "POST", "/api/tokens", json={"email": email, "code": mailed_code(client.engine, email)}
    )
    assert response.status_code == 201, response.text
    return response.json()["token"]


def test_a_stale_page_says_the_game_moved_on(browser, client):
    game_id = client.new_game("ann", "bob")
    state = client.state(game_id)
    mover = state["to_move"]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, client, mover)
    page.goto(f"{client.server.base}/games/{game_id}")
    [turn] = client.hints(game_id, mover, 1)
    played = client.call(
        "POST", f"/api/games/{game_id}/turns", mover,
        json={"turn": turn, "version": state["version"]},
    )  # fmt: skip
    assert played.status_code == 201
    page.locator("ul.hints button").first.click()
    page.wait_for_load_state()
    assert "The game moved on" in page.content()
    assert client.state(game_id)["version"] == state["version"] + 1  # nothing played twice
    context.close()


def test_any_turn_in_the_text_box_and_a_refusal_that_keeps_it(browser, client):
    game_id = client.new_game("cid", "dan")
    state = client.state(game_id)
    mover = state["to_move"]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, client, mover)
    page.goto(f"{client.server.base}/games/{game_id}")
    page.get_by_label("Any turn, in notation").fill("XXm@DE1")
    page.get_by_label("Any turn, in notation").press("Enter")  # the typed turn, not a hint
    expect(page.get_by_role("alert")).to_contain_text("XXm")
    assert page.get_by_label("Any turn, in notation").input_value() == "XXm@DE1"
    [turn] = client.hints(game_id, mover, 1)
    page.get_by_label("Any turn, in notation").fill(turn)
    page.get_by_role("button", name="Play this turn").click()
    expect(page.get_by_role("status").filter(has_text="You played")).to_be_visible()
    assert client.state(game_id)["version"] == state["version"] + 1
    context.close()


def test_pages_are_secured(client):
    game_id = client.new_game("eve", "fay")
    version = client.state(game_id)["version"]
    page = requests.get(f"{client.server.base}/games/{game_id}", timeout=10)
    assert page.status_code == 200
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("style-src")[0]
    forged = requests.post(
        f"{client.server.base}/games/{game_id}/play",
        data={"turn": "bar DEm", "version": str(version)},
        timeout=10,
    )
    assert forged.status_code == 403
    assert "did not come from this site" in forged.text
    assert client.state(game_id)["version"] == version


def test_compose_a_two_placement_turn_by_clicking(browser, axe_source, client):
    game_id = client.new_game("gus", "hal")
    for _ in range(12):  # play on until the player to move can seat two guests at once
        state = client.state(game_id)
        mover = state["to_move"]
        game = localgame.load(client.call("GET", f"/api/games/{game_id}", mover).json())
        two = [t for t in game.legal_turns() if len(t.placements) == 2 and "J" not in str(t)]
        if two:
            break
        [turn] = client.hints(game_id, mover, 1)
        body = {"turn": turn, "version": state["version"]}
        assert client.call("POST", f"/api/games/{game_id}/turns", mover, json=body).ok
    assert two, "twelve turns without a two-placement turn to compose"
    hint = {"turn": str(two[0])}
    body = {"turn": hint["turn"], "version": state["version"]}
    scored = client.call("POST", f"/api/games/{game_id}/preview", mover, json=body).json()
    placements = list(dict.fromkeys((t["tile"], t["chair"]) for t in scored["tables"]))
    assert len(placements) == 2
    context = browser.new_context(viewport=DESKTOP, bypass_csp=True)
    page = context.new_page()
    sign_in(page, client, mover)
    page.goto(f"{client.server.base}/games/{game_id}")
    composer = page.locator("#composer")
    assert composer.is_visible()
    for tile, chair in placements:
        composer.locator(f'button[data-tile="{tile}"]:not([disabled])').first.click()
        page.locator(f"#chair-{chair}").click()
    page.wait_for_function("document.getElementById('preview').dataset.points !== undefined")
    previewed = int(page.locator("#preview").get_attribute("data-points"))
    assert previewed == scored["points"]
    check_page(page, axe_source, "game-composing")
    page.get_by_role("button", name="Play this turn").click()
    expect(page.get_by_role("status").filter(has_text="You played")).to_be_visible()
    log = client.call("GET", f"/api/games/{game_id}/turns", mover).json()["turns"]
    assert log[-1]["points"] == previewed
    context.close()


def _mover_page(browser: Browser, client, game_id: int, viewport: dict[str, int]) -> Page:
    """The game page as its player to move sees it, in a fresh context at `viewport`."""
    context = browser.new_context(viewport=viewport, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    sign_in(page, client, client.state(game_id)["to_move"])
    page.goto(f"{client.server.base}/games/{game_id}")
    return page


def test_chairs_are_big_enough_to_tap_on_a_phone(browser, client):
    game_id = client.new_game("ivy", "jon")
    page = _mover_page(browser, client, game_id, PHONE)
    assert fits(page)
    # Each chair's box, and what a tap 15 px off its centre finds (the chair, every time).
    boxes = page.eval_on_selector_all(
        "svg g.chair.free",
        """chairs => chairs.map(chair => {
            chair.scrollIntoView({block: "center"});
            const box = chair.getBoundingClientRect();
            const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
            const found = [[15, 0], [0, -15], [-11, 11]].map(([dx, dy]) =>
                document.elementFromPoint(x + dx, y + dy)?.closest("g.chair")?.id);
            return [chair.id, box.width, box.height, found];
        })""",
    )
    assert len(boxes) == 68
    smallest = min(min(width, height) for _, width, height, _ in boxes)
    assert smallest >= 32, f"the smallest chair is {smallest:.1f} px across"
    missed = [(chair, found) for chair, _, _, found in boxes if found != [chair] * 3]
    assert not missed, missed
    page.locator("svg g.chair.free").first.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "game-board-phone.png"))
    page.context.close()


def test_the_birthday_nation_is_named_from_the_page(browser, axe_source, client):
    names = [client.sign_up(name) for name in ("kim", "lou")]
    body = {"seats": 2, "options": {"birthday": 1}}
    game_id = client.call("POST", "/api/games", names[0], json=body).json()["id"]
    assert client.call("POST", f"/api/games/{game_id}/join", names[1]).ok
    assert client.call("POST", f"/api/games/{game_id}/start", names[0]).ok
    page = _mover_page(browser, client, game_id, PHONE)
    mover = client.state(game_id)["to_move"]
    [best] = client.hints(game_id, mover, 1)
    page.get_by_label("name the birthday nation").select_option("IT")
    page.get_by_label("Any turn, in notation").fill(best)
    page.get_by_label("Any turn, in notation").dispatch_event("change")
    expect(page.locator("#preview")).to_contain_text(f"{best} birthday=IT scores")
    check_page(page, axe_source, "game-birthday")
    page.get_by_role("button", name="Play this turn").click()
    expect(page.get_by_role("status").filter(has_text="You played")).to_be_visible()
    assert client.state(game_id)["birthday_nation"] == "IT"
    page.context.close()


def test_the_your_turn_email_fits_a_phone(browser, client):
    game_id = client.new_game("max", "ned")
    mover = client.state(game_id)["to_move"]
    app = create_app({"DATABASE_URL": client.server.database_url, "SECRET_KEY": E2E_SECRET_KEY})
    with Session(client.engine) as session:
        rows = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.game_id == game_id, OutboxMessage.kind == "your_turn"
            )
        ).all()
        session.expunge_all()
    prepared = events.prepare(client.engine, settings_of(app), rows)
    [mail] = [row for row in prepared.ready if row.to_addr == f"{mover}@example.com"]
    assert mail.html is not None
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_content(mail.html)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.screenshot(path=str(SCREENSHOTS / f"email-your-turn-{label}.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert fits(page), "the your-turn email scrolls sideways at 375 px"
    context.close()

    # the email's button leads to the game's page, where the one-click turns are
    link = re.search(r'href="[^"]*(/games/\d+)"[^>]*>Open game', mail.html)
    assert link and link.group(1) == f"/games/{game_id}"
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, client, mover)
    page.goto(client.server.base + link.group(1))
    expect(page.get_by_role("heading", name=f"Game {game_id}: Your turn")).to_be_visible()
    assert page.locator("ul.hints button").count() >= 1
    context.close()


def test_a_vacation_is_declared_and_ended_in_the_browser(browser, axe_source, client):
    game_id = client.new_game("oli", "pat")
    oli = client.state(game_id)["players"][0]
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    sign_in(page, client, oli)
    page.goto(client.server.base + "/settings")
    page.get_by_label("Days away").fill("3")
    page.get_by_role("button", name="Declare a vacation").click()
    page.wait_for_load_state()
    expect(page.get_by_role("button", name="End my vacation now")).to_be_visible()
    check_page(page, axe_source, "settings-vacation")
    state = client.state(game_id)
    assert state["vacation_until"][state["players"].index(oli)] is not None
    page.get_by_role("button", name="End my vacation now").click()
    page.wait_for_load_state()
    expect(page.get_by_role("button", name="Declare a vacation")).to_be_visible()
    state = client.state(game_id)
    assert state["vacation_until"][state["players"].index(oli)] is None
    context.close()


def test_the_rules_are_a_footer_link_away_and_read_well_on_a_phone(browser, axe_source, client):
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    page.goto(f"{client.server.base}/")
    page.get_by_role("contentinfo").get_by_role("link", name="the notation").click()
    page.wait_for_url(f"{client.server.base}/rules#notation")
    expect(page.get_by_role("heading", name="13. Writing a turn")).to_be_in_viewport()
    check_page(page, axe_source, "rules")
    board = page.locator("figure.board pre")
    assert board.evaluate("e => e.scrollWidth <= e.clientWidth")  # the whole board, no scrolling
    context.close()


#: How far the widest number of a list's items reaches past the list's left padding, in
#: pixels (0 or less: every number shows whole), measured in the items' own font.
MARKER_OVERHANG = """list => {
    const font = getComputedStyle(list.querySelector('li')).font;
    const ruler = document.createElement('canvas').getContext('2d');
    ruler.font = font;
    const widest = Math.max(...[...list.children].map(item => ruler.measureText(
        item.value + '. ').width));
    return widest - parseFloat(getComputedStyle(list).paddingLeft);
}"""


def test_a_long_games_history_shows_every_turn_number_whole(browser, client):
    """The history scrolls within its box, which clips what reaches past it: the turn
    numbers of a long game (two and three digits) must fit the list's left padding, at
    375 and 1280 px (they were cut to their last digit and the full stop)."""
    game_id = client.new_game("ann", "bob")
    for _ in range(12):
        state = client.state(game_id)
        [turn] = client.hints(game_id, state["to_move"], 1)
        body = {"turn": turn, "version": state["version"]}
        played = client.call("POST", f"/api/games/{game_id}/turns", state["to_move"], json=body)
        assert played.status_code == 201, played.text
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{client.server.base}/games/{game_id}")
    history = page.locator("ol.history")
    expect(history.locator("li").first).to_have_attribute("value", "12")
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        assert history.evaluate(MARKER_OVERHANG) <= 0, size
        history.evaluate("list => list.firstElementChild.value = 999")  # the longest games
        assert history.evaluate(MARKER_OVERHANG) <= 0, (size, "three digits")
        history.evaluate("list => list.firstElementChild.value = 12")


def test_the_channels_section_reads_well_on_a_phone(browser, axe_source, client):
    game_id = client.new_game("quin", "ros")
    quin = client.state(game_id)["players"][0]
    url = "https://93.184.215.14/api/webhooks/1234567890/a-long-secret-token-of-the-hook"
    made = client.call("POST", "/api/me/channels", quin, json={"kind": "discord", "url": url})
    assert made.status_code == 201, made.text
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    sign_in(page, client, quin)
    page.goto(client.server.base + "/settings")
    expect(page.get_by_role("button", name=f"Remove channel {made.json()['id']}")).to_be_visible()
    assert "a-long-secret-token" not in page.content()
    check_page(page, axe_source, "settings-channels")
    context.close()
