"""The league and player pages in a real browser against a real gunicorn: reading a
season's table at phone and desktop widths (no horizontal scroll, axe-core clean), a
finished league game's page (its league, final standings and why it ended), joining a
season with its button, and a player's page with the rating chart. Screenshots go to
`test-artifacts/screenshots/` like those of tests/e2e/test_browser.py, whose browser,
axe-core and page checks these tests share."""

from __future__ import annotations

import re

import test_browser as shared
from playwright.sync_api import expect

PHONE, DESKTOP = shared.PHONE, shared.DESKTOP
browser = shared.browser
axe_source = shared.axe_source

#: A league name that HTML would take for markup if it were not escaped.
NAME = '<Café "Tuesday" & Co>'


def season_of(client, names: list[str], *, start: bool) -> str:
    """A league of `names` (the first organises) with season 1 open and all registered,
    started if `start`; its slug."""
    organiser = names[0]
    slug = f"l{organiser.lower()}"
    settings = {"name": NAME, "slug": slug, "game_size": 2, "division_size": 4}
    made = client.call("POST", "/api/leagues", organiser, json=settings)
    assert made.status_code == 201, made.text
    assert client.call("POST", f"/api/leagues/{slug}/seasons", organiser).status_code == 201
    for name in names:
        joined = client.call("POST", f"/api/leagues/{slug}/seasons/1/register", name)
        assert joined.status_code == 200, joined.text
    if start:
        started = client.call("POST", f"/api/leagues/{slug}/seasons/1/start", organiser)
        assert started.status_code == 200, started.text
    return slug


def test_read_a_league_table_on_a_phone_and_a_desktop(browser, axe_source, client):
    names = [client.sign_up(name) for name in ("ann", "bob", "cid", "dan")]
    slug = season_of(client, names, start=True)
    season = client.call("GET", f"/api/leagues/{slug}/seasons/1").json()
    [division] = season["divisions"]
    for game_id in division["games"][:-1]:  # the last game runs on: the season too
        players = client.call("GET", f"/api/games/{game_id}", names[0]).json()["players"]
        resigned = client.call("POST", f"/api/games/{game_id}/resign", min(players))
        assert resigned.status_code == 200, resigned.text
    first = division["games"][0]
    players = client.call("GET", f"/api/games/{first}", names[0]).json()["players"]
    winner = max(players)
    standings = client.call("GET", f"/api/leagues/{slug}/seasons/1").json()["divisions"][0]

    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    page.goto(f"{client.server.base}/leagues")
    shared.check_page(page, axe_source, "leagues")
    # this test's league: the other tests of the module share the server and the name
    page.get_by_role("link", name=NAME).and_(page.locator(f'[href="/leagues/{slug}"]')).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(NAME)
    shared.check_page(page, axe_source, "league")
    page.get_by_role("link", name="Season 1").click()
    shared.check_page(page, axe_source, "season")
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        table = page.get_by_role("table", name="Division 1 standings")
        expect(table).to_be_visible()
        rows = [
            [cell.strip() for cell in row.split("\t")]
            for row in table.locator("tbody tr").all_inner_texts()
        ]
        assert [(row[0], row[1]) for row in rows] == [
            (str(line["place"]), line["player"]) for line in standings["standings"]
        ]
        assert rows[0][2] == f"{standings['standings'][0]['points']:g}"
    expect(page.get_by_role("link", name=f"Game {first}")).to_be_visible()
    expect(page.get_by_role("row", name=f"Game {first}")).to_contain_text(f"won by {winner}")

    page.get_by_role("link", name=f"Game {first}").click()  # a finished league game
    expect(page.get_by_role("link", name=f"{NAME}, season 1, division 1")).to_have_attribute(
        "href", f"/leagues/{slug}/seasons/1"
    )
    final = page.get_by_role("table").first
    expect(final).to_contain_text("resigned")
    expect(page.get_by_text(f"The game ended because {min(players)} resigned")).to_be_visible()
    shared.check_page(page, axe_source, "league-game-finished")
    page.go_back()

    page.get_by_role("link", name=winner).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(winner)
    expect(page.get_by_role("img", name=f"Rating history of {winner}")).to_be_visible()
    shared.check_page(page, axe_source, "player")

    last = client.call("GET", f"/api/games/{division['games'][-1]}", names[0]).json()
    leaver = min(last["players"])  # withdrawing resigns the last game: the season is over
    left = client.call("POST", f"/api/leagues/{slug}/seasons/1/withdraw", leaver)
    assert left.status_code == 200, left.text
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
    table = page.get_by_role("table", name="Division 1 standings")
    expect(table.get_by_role("row", name=leaver)).to_contain_text("(withdrew)")
    expect(page.get_by_text("To verify")).to_be_visible()
    shared.check_page(page, axe_source, "season-finished")
    context.close()


def test_join_a_season_with_its_button(browser, client):
    names = [client.sign_up(name) for name in ("eve", "fay")]
    slug = season_of(client, names, start=False)
    newcomer = client.sign_up("gus")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    shared.sign_in(page, client, newcomer)
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
    page.get_by_role("button", name="Join season 1").click()
    expect(page.get_by_role("status")).to_contain_text("You are registered for season 1")
    expect(page.get_by_role("button", name="Leave season 1")).to_be_visible()
    registered = client.call("GET", f"/api/leagues/{slug}/seasons/1").json()["registered"]
    assert newcomer in registered
    context.close()


def test_the_organiser_pauses_a_season_with_its_button_and_reads_the_log(
    browser, axe_source, client
):
    """The organiser's tools at phone and desktop widths (no sideways scroll, axe-core
    clean): pausing with the button and its reason, then the season's log, also after a
    removal and an adjudication."""
    organiser = client.sign_up("oscar")  # organises without playing
    members = [client.sign_up(name) for name in ("pia", "quin", "rosa", "sven")]
    slug = season_of(client, [organiser, *members], start=False)
    left = client.call("POST", f"/api/leagues/{slug}/seasons/1/withdraw", organiser)
    assert left.status_code == 200, left.text
    started = client.call("POST", f"/api/leagues/{slug}/seasons/1/start", organiser)
    assert started.status_code == 200, started.text
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    shared.sign_in(page, client, organiser)
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
    expect(page.get_by_role("heading", name="Organiser’s tools")).to_be_visible()
    page.get_by_label("Reason").first.fill("the winter holidays")
    page.get_by_role("button", name="Pause every clock").click()
    expect(page.get_by_role("status").first).to_contain_text("Season 1 is paused")
    expect(page.get_by_role("button", name="Resume the clocks")).to_be_visible()
    removed = client.call(
        "POST",
        f"/api/leagues/{slug}/seasons/1/remove",
        organiser,
        json={"player": members[3], "reason": "moved abroad and cannot play on"},
    )
    assert removed.status_code == 200, removed.text
    game_id = next(
        g
        for g in started.json()["divisions"][0]["games"]
        if client.call("GET", f"/api/games/{g}", organiser).json()["status"] == "active"
    )
    ended = client.call(
        "POST",
        f"/api/games/{game_id}/adjudicate",
        organiser,
        json={"reason": "a dispute over a misdelivered email"},
    )
    assert ended.status_code == 200, ended.text
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
    log = page.get_by_role("region", name="Organiser’s log")
    expect(log.get_by_role("listitem")).to_have_count(3)
    expect(log).to_contain_text("paused every clock: “the winter holidays”")
    expect(log).to_contain_text(f"adjudicated game {game_id}")
    shared.check_page(page, axe_source, "season-organiser")


def test_a_season_with_a_withdrawal_running_finished_and_the_next_placed(
    browser, axe_source, client
):
    """Nine players in divisions of 5 and 4: one wins a game and withdraws. The running
    season's page lists them last, marked, and says whose turn it is and the time left;
    the finished one too, with the moves as things stand; season 2, with a newcomer, says
    why each member plays where they do. Screenshots at 375 and 1280 px of each."""
    names = [client.sign_up(name) for name in ("ann", "bob", "cid", "dan", "eve", "fay",
                                               "gus", "hal", "ivy")]  # fmt: skip
    organiser = names[0]
    slug = f"w{organiser.lower()}"
    settings = {"name": "Wednesday Club", "slug": slug, "game_size": 3, "division_size": 4}
    assert client.call("POST", "/api/leagues", organiser, json=settings).status_code == 201
    assert client.call("POST", f"/api/leagues/{slug}/seasons", organiser).status_code == 201
    for name in names:
        assert client.call("POST", f"/api/leagues/{slug}/seasons/1/register", name).ok
    started = client.call("POST", f"/api/leagues/{slug}/seasons/1/start", organiser).json()
    one = started["divisions"][0]
    leaver = sorted(one["players"])[1]
    won = next(g for g in one["games"] if leaver in client.state(g)["players"])
    for name in sorted(client.state(won)["players"]):
        if name != leaver and client.state(won)["status"] == "active":
            assert client.call("POST", f"/api/games/{won}/resign", name).ok
    assert client.call("POST", f"/api/leagues/{slug}/seasons/1/withdraw", leaver).ok

    context = browser.new_context(viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
    table = page.get_by_role("table", name="Division 1 standings")
    last = table.locator("tbody tr").last
    expect(last).to_contain_text(f"{leaver} (withdrew)")
    expect(last.locator("td").first).to_have_text("–")
    expect(page.get_by_text("8 players; 1 has left").first).to_be_visible()
    running = next(g for g in one["games"] if client.state(g)["status"] == "active")
    mover = client.state(running)["to_move"]
    expect(page.get_by_role("row", name=f"Game {running}")).to_contain_text(
        re.compile(rf"{mover} to move, (3 days|2 days 23 hours) left")
    )
    shared.check_page(page, axe_source, "season-running-withdrawn")

    for division in started["divisions"]:
        for game_id in division["games"]:
            state = client.state(game_id)
            seats = zip(state["players"], state["eliminated"], strict=True)
            for name in sorted(name for name, out in seats if not out)[:-1]:
                if client.state(game_id)["status"] == "active":
                    assert client.call("POST", f"/api/games/{game_id}/resign", name).ok
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
    expect(page.get_by_text("Finished on")).to_be_visible()
    expect(page.get_by_text("As things stand; refilling can change them")).to_be_visible()
    expect(table.locator("tbody tr").last).to_contain_text(f"{leaver} (withdrew)")
    shared.check_page(page, axe_source, "season-finished-withdrawn")

    assert client.call("POST", f"/api/leagues/{slug}/seasons", organiser).status_code == 201
    newcomer = client.sign_up("jo")
    assert client.call("POST", f"/api/leagues/{slug}/seasons/2/register", newcomer).ok
    assert client.call("POST", f"/api/leagues/{slug}/seasons/2/start", organiser).ok
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/2")
    expect(page.get_by_text("new this season")).to_be_visible()
    expect(page.get_by_text("moved up from division 2").first).to_be_visible()
    shared.check_page(page, axe_source, "season-2-placed")
    context.close()


def test_a_season_of_the_longest_names_keeps_every_column_in_view(browser, client):
    """Players' names of 24 characters (the most there may be) break in the season's
    tables rather than push a column out of view: at 375 and 1280 px, no table region
    needs scrolling sideways (it did, even at 1280 px, for the standings' last column)."""
    names = [client.sign_up(f"{letter * 18}") for letter in "pqrs"]
    assert all(len(name) == 24 for name in names)
    slug = season_of(client, names, start=True)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        hidden = page.evaluate(
            "[...document.querySelectorAll('.scroll')]"
            ".map(region => region.scrollWidth - region.clientWidth)"
        )
        assert hidden and all(width <= 0 for width in hidden), (size, hidden)
        shared.SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=shared.SCREENSHOTS / f"season-longest-names-{size['width']}.png")
    context.close()


def test_a_running_season_in_german_and_russian_fits_a_phone_and_a_desktop(
    browser, axe_source, client
):
    """The season page's longest words — German's and Russian's headings, a member "removed
    by the organiser", a 24-character name — break inside their tables: no table scrolls
    sideways, nor the page, at 375 and at 1280 px (where the divisions' tables stand two
    side by side; Russian's "Сумма счёта" once pushed a table out of its half)."""
    names = [client.sign_up(name) for name in ("ann", "konstantin_ziegelm", "cid", "dan",
                                               "eve", "fay", "gus", "hal", "ivy")]  # fmt: skip
    organiser, longest = names[0], names[1]
    assert len(longest) == 24
    slug = f"r{organiser.lower()}"
    settings = {"name": "Donnerstagsrunde der Kaffeehausfreunde", "slug": slug,
                "game_size": 3, "division_size": 4}  # fmt: skip
    assert client.call("POST", "/api/leagues", organiser, json=settings).status_code == 201
    assert client.call("POST", f"/api/leagues/{slug}/seasons", organiser).status_code == 201
    for name in names:
        assert client.call("POST", f"/api/leagues/{slug}/seasons/1/register", name).ok
    started = client.call("POST", f"/api/leagues/{slug}/seasons/1/start", organiser).json()
    division = next(d for d in started["divisions"] if longest in d["players"])
    removed = next(name for name in division["players"] if name not in (organiser, longest))
    body = {"player": removed, "reason": "nicht mehr erreichbar"}
    assert client.call("POST", f"/api/leagues/{slug}/seasons/1/remove", organiser, json=body).ok
    for language in ("de", "ru"):
        context = browser.new_context(
            viewport=PHONE, bypass_csp=True, extra_http_headers={"Accept-Language": language}
        )
        page = context.new_page()
        page.goto(f"{client.server.base}/leagues/{slug}/seasons/1")
        expect(page.locator("html")).to_have_attribute("lang", language)
        for size in (PHONE, DESKTOP):
            page.set_viewport_size(size)
            scrolled = page.evaluate(
                "[...document.querySelectorAll('.scroll')]"
                ".filter(e => e.scrollWidth > e.clientWidth + 1)"
                ".map(e => e.getAttribute('aria-labelledby'))"
            )
            assert not scrolled, f"{language} at {size['width']} px: {scrolled} scroll"
            assert shared.fits(page), f"{language} scrolls sideways at {size['width']} px"
        shared.check_page(page, axe_source, f"season-running-{language}")
        context.close()


def test_the_organiser_reads_and_uses_the_league_channels_section_on_a_phone(
    browser, axe_source, client
):
    names = [client.sign_up(name) for name in ("nia", "oto")]
    slug = season_of(client, names, start=False)
    url = "https://93.184.215.14/api/webhooks/1234567890/a-long-secret-token-of-the-club"
    path = f"/api/leagues/{slug}/channels"
    made = client.call("POST", path, names[0], json={"kind": "discord", "url": url})
    assert made.status_code == 201, made.text
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # to inject axe-core
    page = context.new_page()
    shared.sign_in(page, client, names[0])
    page.goto(f"{client.server.base}/leagues/{slug}")
    expect(page.get_by_role("button", name=f"Remove channel {made.json()['id']}")).to_be_visible()
    assert "a-long-secret-token" not in page.content()
    expect(page.get_by_label("reminders")).to_have_count(0)  # a player's own
    shared.check_page(page, axe_source, "league-channels")
    page.get_by_role("button", name=f"Remove channel {made.json()['id']}").click()
    expect(page.get_by_role("status")).to_have_text(f"Channel {made.json()['id']} removed.")
    context.close()
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    shared.sign_in(page, client, names[1])
    page.goto(f"{client.server.base}/leagues/{slug}")
    expect(page.get_by_role("heading", name=NAME)).to_be_visible()
    expect(page.locator("#channels")).to_have_count(0)  # the organiser's alone
    context.close()
