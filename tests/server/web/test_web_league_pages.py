"""The league and player pages through the test client: the list, a league, a season's
tables, schedules, moves and seed; joining, leaving, starting and opening seasons by form
with the CSRF token (and refusals said on the page); 404s; escaping of a league's name;
the player's rating, chart and games. (A league table in a real browser is in
tests/e2e/test_browser_league.py.)"""

from __future__ import annotations

import re

import pytest
from server_support import csrf_of, web_sign_in

from server.web import player_pages

NAME = '<script>alert("x")</script> Club'
ESCAPED = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; Club"
SETTINGS = {
    "name": NAME,
    "slug": "tuesday",
    "game_size": 4,
    "division_size": 4,
    "promote": 1,
    "relegate": 1,
}
NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]


def league_with_season(api, names=NAMES, **settings):
    """A league organised by the first of `names`, its season 1 open with all registered;
    everyone's token."""
    tokens = {name: api.register(name) for name in names}
    made = api.call("POST", "/api/leagues", tokens[names[0]], json={**SETTINGS, **settings})
    assert made.status_code == 201, made.json
    assert api.call("POST", "/api/leagues/tuesday/seasons", tokens[names[0]]).status_code == 201
    for name in names:
        joined = api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens[name])
        assert joined.status_code == 200, joined.json
    return tokens


def finished_season(api):
    """Season 1 of eight players in two divisions of one four-player game each, every game
    won by the last name alphabetically (the others resign in name order)."""
    tokens = league_with_season(api)
    started = api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"])
    assert started.status_code == 200, started.json
    for division in started.json["divisions"]:
        for game_id in division["games"]:
            players = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["players"]
            for name in sorted(players)[:-1]:
                resigned = api.call("POST", f"/api/games/{game_id}/resign", tokens[name])
                assert resigned.status_code == 200, resigned.json
    return tokens, api.call("GET", "/api/leagues/tuesday/seasons/1").json


def cells(html: str, caption: str) -> list[list[str]]:
    """The text of each body row of the table with this caption (tags dropped)."""
    table = html.split(f">{caption}</caption>", 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
        ]
        for row in rows
    ]


@pytest.mark.postgres
def test_a_finished_season_shows_tables_games_moves_and_the_seed(api):
    _, season = finished_season(api)
    page = api.client.get("/leagues/tuesday/seasons/1")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.text
    assert "Finished on" in html and "the tables are final" in html
    for division in season["divisions"]:
        rows = cells(html, f"Division {division['number']} standings")
        expected = [
            [str(r["place"]), r["player"], f"{r['points']:g}", str(r["score_sum"]),
             str(r["wins"]), str(r["played"])]
            for r in division["standings"]
        ]  # fmt: skip
        assert rows == expected
        assert rows[0][1] == max(division["players"])  # the last name won
        [game_id] = division["games"]
        games = cells(html, f"Division {division['number']} games")
        assert games[0][0] == f"Game {game_id}" and games[0][2] == f"won by {rows[0][1]}"
        assert f'href="/games/{game_id}"' in html
        assert f'href="/players/{rows[0][1]}"' in html
    up = [m for m in season["moves"] if m["direction"] == "up"]
    assert f"{up[0]['player']}</a>: up from division 2 to division 1" in html
    assert season["seed"] in html and season["seed_commitment"] in html
    assert "To verify" in html
    assert "Join season" not in html and "Leave season" not in html  # signed out


def test_a_running_season_offers_leaving_and_says_it_resigns(api):
    tokens = league_with_season(api)
    assert (
        api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]).status_code == 200
    )
    web_sign_in(api, "bob")
    page = api.client.get("/leagues/tuesday/seasons/1").text
    assert "Running since" in page and "Join season" not in page
    assert "Leaving now resigns your 1 running game of this season" in page
    assert "Sign in to join" not in page and "Start season" not in page
    left = api.client.post("/leagues/tuesday/seasons/1/leave", data={"csrf": csrf_of(page)})
    assert left.status_code == 303
    after = api.client.get(left.headers["Location"]).text
    assert "You have left season 1" in after and "(withdrew)" in after
    assert 'class="withdrawn"' in after
    assert api.call("GET", "/api/leagues/tuesday/seasons/1").json["withdrawn"] == ["bob"]


def test_join_and_leave_by_form_with_refusals_on_the_page(api):
    league_with_season(api, names=["ann", "bob"])
    api.register("cid")
    signed_out = api.client.get("/leagues/tuesday/seasons/1").text
    assert "Sign in</a> to join this season" in signed_out
    web_sign_in(api, "cid")
    page = api.client.get("/leagues/tuesday/seasons/1").text
    assert "Join season 1" in page and "Start season" not in page
    joined = api.client.post("/leagues/tuesday/seasons/1/join", data={"csrf": csrf_of(page)})
    assert joined.status_code == 303
    assert joined.headers["Location"] == "/leagues/tuesday/seasons/1"
    after = api.client.get("/leagues/tuesday/seasons/1").text
    assert "You are registered for season 1" in after and "Leave season 1" in after
    assert "Join season 1" not in after
    again = api.client.post("/leagues/tuesday/seasons/1/join", data={"csrf": csrf_of(page)})
    assert again.status_code == 409 and 'role="alert"' in again.text
    assert "you are registered for season 1 of tuesday" in again.text
    left = api.client.post("/leagues/tuesday/seasons/1/leave", data={"csrf": csrf_of(page)})
    assert left.status_code == 303
    registered = api.call("GET", "/api/leagues/tuesday/seasons/1").json["registered"]
    assert registered == ["ann", "bob"]


def test_the_organiser_starts_a_season_and_opens_the_next(api):
    tokens = league_with_season(api, names=["ann", "bob", "cid", "dan"], game_size=2)
    web_sign_in(api, "bob")
    page = api.client.get("/leagues/tuesday/seasons/1").text
    assert "Start season 1" not in page
    forged = api.client.post("/leagues/tuesday/seasons/1/start", data={"csrf": csrf_of(page)})
    assert forged.status_code == 403 and "only the organiser of tuesday can" in forged.text
    api.client.post("/signout", data={"csrf": csrf_of(page)})
    web_sign_in(api, "ann")
    page = api.client.get("/leagues/tuesday/seasons/1").text
    assert "Start season 1" in page and "Open the next season" not in page
    started = api.client.post("/leagues/tuesday/seasons/1/start", data={"csrf": csrf_of(page)})
    assert started.status_code == 303
    assert "Season 1 has started" in api.client.get("/leagues/tuesday/seasons/1").text
    league = api.client.get("/leagues/tuesday").text
    assert "Open season 2" not in league
    early = api.client.post("/leagues/tuesday/seasons", data={"csrf": csrf_of(league)})
    assert early.status_code == 409 and "a new season opens once it is finished" in early.text
    for game_id in api.call("GET", "/api/leagues/tuesday/seasons/1").json["divisions"][0]["games"]:
        players = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["players"]
        api.call("POST", f"/api/games/{game_id}/resign", tokens[players[0]])
    league = api.client.get("/leagues/tuesday").text
    assert "Open season 2 for registration" in league
    opened = api.client.post("/leagues/tuesday/seasons", data={"csrf": csrf_of(league)})
    assert opened.status_code == 303
    assert opened.headers["Location"] == "/leagues/tuesday/seasons/2"
    assert api.call("GET", "/api/leagues/tuesday/seasons/2").json["status"] == "registration"


def test_a_form_without_its_csrf_token_or_signed_out_changes_nothing(api):
    league_with_season(api, names=["ann", "bob"])
    api.register("cid")
    anonymous = api.client.get("/signin").text  # a signed-out form's token
    bounced = api.client.post("/leagues/tuesday/seasons/1/join", data={"csrf": csrf_of(anonymous)})
    assert bounced.status_code == 302
    assert bounced.headers["Location"].startswith("/signin?next=/leagues/tuesday/seasons/1")
    web_sign_in(api, "cid")
    forged = api.client.post("/leagues/tuesday/seasons/1/join", data={})
    assert forged.status_code == 403 and "did not come from this site" in forged.text
    assert "cid" not in api.call("GET", "/api/leagues/tuesday/seasons/1").json["registered"]


def test_missing_leagues_seasons_and_players_are_pages(api):
    league_with_season(api, names=["ann"])
    for path, said in [
        ("/leagues/nope", "there is no league"),
        ("/leagues/tuesday/seasons/9", "has no season 9"),
        ("/players/nobody", "there is no player named"),
    ]:
        response = api.client.get(path)
        assert response.status_code == 404 and response.mimetype == "text/html", path
        assert said in response.text
    web_sign_in(api, "ann")
    page = api.client.get("/leagues/tuesday").text
    missing = api.client.post("/leagues/tuesday/seasons/9/join", data={"csrf": csrf_of(page)})
    assert missing.status_code == 404


def test_the_league_name_is_escaped_everywhere(api):
    league_with_season(api, names=["ann", "bob"])
    for path in ["/leagues", "/leagues/tuesday", "/leagues/tuesday/seasons/1", "/players/ann"]:
        html = api.client.get(path).text
        assert "<script>alert" not in html, path
        assert ESCAPED in html, path


def test_the_list_and_a_league_page(api):
    league_with_season(api, names=["ann", "bob"])
    listed = api.client.get("/leagues").text
    assert 'href="/leagues/tuesday"' in listed and "Season 1</a>: registration" in listed
    assert 'href="/players/ann"' in listed
    page = api.client.get("/leagues/tuesday").text
    assert "Organised by" in page and "1 up, 1 down" in page
    assert "4 as a target: the players are cut into the fewest divisions of at most 4" in page
    assert "sizes differ by at most one" in page and "up to 4" not in page
    assert "Season 1</a>: registration, 2 players" in page
    assert "Open season" not in page  # signed out, and season 1 is not over


@pytest.mark.postgres
def test_a_players_page_has_the_rating_its_chart_leagues_and_games(api):
    finished_season(api)
    page = api.client.get("/players/HAL")  # any case
    assert page.status_code == 200
    html = page.text
    profile = api.call("GET", "/api/players/hal").json
    assert "<h1>hal</h1>" in html
    assert (
        f"Ordinal <b>{profile['rating']['ordinal']:.1f}</b> after 1 rated game: "
        f"number {profile['rank']} in" in html
    )
    chart = html.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert 'role="img"' in chart and "<title" in chart and "<desc" in chart
    assert "1 rated game: the ordinal went from" in chart
    [point] = profile["history"]
    assert f'href="/games/{point["game"]}"' in html and f"{point['ordinal']:.1f}" in html
    assert "/leagues/tuesday/seasons/1" in html and "division 2" in html
    assert html.count('href="/players/') >= 4  # the recent game's players
    czech = api.client.get("/players/hal", headers={"Accept-Language": "cs"}).text
    ordinal = f"{profile['rating']['ordinal']:.1f}".replace(".", ",")
    assert f"<b>{ordinal}</b>" in czech  # the decimal comma of Czech
    czech_chart = czech.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert len(re.findall(r">-?\d+,\d</text>", czech_chart)) == 3  # the axis, in Czech too
    newcomer = api.client.get("/players/ann").text
    assert "after 1 rated game" in newcomer
    api.register("zed")
    unrated = api.client.get("/players/zed").text
    assert "No rated game yet" in unrated and "<svg" not in unrated.split("<main", 1)[1]


def test_an_invitation_only_league_offers_no_join_button_to_strangers(api):
    league_with_season(api, names=["ann"], open=False)
    api.register("bob")
    web_sign_in(api, "bob")
    page = api.client.get("/leagues/tuesday/seasons/1").text
    assert "Join season 1" not in page
    assert "By invitation" in api.client.get("/leagues/tuesday").text
    asked = api.client.post("/leagues/tuesday/seasons/1/join", data={"csrf": csrf_of(page)})
    assert asked.status_code == 403 and "tuesday is by invitation" in asked.text
    assert api.call("GET", "/api/leagues/tuesday/seasons/1").json["registered"] == ["ann"]


def test_the_rating_list_page_marks_the_viewers_row(api):
    game_id, tokens = api.started_game("ann", "bob", "cid", rated=True)
    for name in ("ann", "bob"):
        assert api.call("POST", f"/api/games/{game_id}/resign", tokens[name]).status_code == 200
    page = api.client.get("/ratings")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert html.index(">cid<") < html.index(">bob<") < html.index(">ann<")
    assert 'class="me"' not in html
    web_sign_in(api, "bob")
    mine = api.client.get("/ratings").get_data(as_text=True)
    assert re.search(
        r'<tr class="me" aria-current="true"><td class="num">2</td><td><a[^>]*>bob<', mine
    )
    assert api.client.get("/ratings?page=x").status_code == 200
    assert "You are number" not in mine  # the row is on the page
    profile = api.client.get("/players/bob").text
    assert 'number 2 in <a href="/ratings?page=1">the rating list</a>' in profile


def test_the_rating_list_page_links_a_viewer_on_another_page_to_it(api, monkeypatch):
    monkeypatch.setattr(player_pages, "RATINGS_PAGE", 1)
    game_id, tokens = api.started_game("ann", "bob", "cid", rated=True)
    for name in ("ann", "bob"):
        assert api.call("POST", f"/api/games/{game_id}/resign", tokens[name]).status_code == 200
    web_sign_in(api, "ann")
    first = api.client.get("/ratings").text
    assert 'You are number 3: <a href="/ratings?page=3">page 3</a>.' in first
    assert "You are number" not in api.client.get("/ratings?page=3").text


def test_the_short_link_of_plain_text_email_leads_to_the_season(api):
    league_with_season(api, names=["ann"])
    moved = api.client.get("/leagues/tuesday/1")
    assert moved.status_code == 301 and moved.location == "/leagues/tuesday/seasons/1"
    followed = api.client.get("/leagues/tuesday/1", follow_redirects=True)
    assert followed.status_code == 200 and "<h1>" in followed.text
    assert api.client.get("/leagues/tuesday/9", follow_redirects=True).status_code == 404
