"""The organiser's tools on the season page (issue 20 item 18): the forms only the organiser
sees, each action by form with the session's CSRF token (a form without it, or from anyone
else, changes nothing), refusals said on the page, the season's log for everyone, and how
to open the next season once one is over."""

from __future__ import annotations

import html
import re

from server_support import csrf_of, web_sign_in

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
#: Two divisions of four, each playing one game of four.
LEAGUE = {"name": "Holiday Club", "slug": "club", "game_size": 4, "division_size": 4}
PAGE = "/leagues/club/seasons/1"


def season(api, *, start=True):
    """ann's league, season 1 with everyone registered (and started); everyone's token."""
    tokens = {name: api.register(name) for name in NAMES}
    assert api.call("POST", "/api/leagues", tokens["ann"], json=LEAGUE).status_code == 201
    assert api.call("POST", "/api/leagues/club/seasons", tokens["ann"]).status_code == 201
    for name in NAMES:
        assert api.call("POST", "/api/leagues/club/seasons/1/register", tokens[name]).status_code
    if start:
        started = api.call("POST", "/api/leagues/club/seasons/1/start", tokens["ann"])
        assert started.status_code == 200, started.json
    return tokens


def shown(api):
    return api.call("GET", "/api/leagues/club/seasons/1").json


def log_of(api):
    return api.call("GET", "/api/leagues/club/seasons/1/log").json["entries"]


def running_games(api, tokens):
    games = [g for division in shown(api)["divisions"] for g in division["games"]]
    return [
        g
        for g in games
        if api.call("GET", f"/api/games/{g}", tokens["ann"]).json["status"] == "active"
    ]


def post(api, action, page, **form):
    return api.client.post(f"{PAGE}/{action}", data={"csrf": csrf_of(page), **form})


def text(page: str) -> str:
    """The page's words as a reader sees them: tags dropped, entities read."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


def test_the_organiser_pauses_resumes_removes_and_adjudicates_by_form(api):
    tokens = season(api)
    web_sign_in(api, "ann")
    page = api.client.get(PAGE).text
    assert "Organiser’s tools" in page and "Pause every clock" in page
    assert "Nothing yet: the organiser has removed no one" in page

    paused = post(api, "pause", page, reason="winter holidays")
    assert paused.status_code == 303 and paused.headers["Location"] == PAGE
    page = api.client.get(PAGE).text
    assert "Season 1 is paused" in page and "Resume the clocks" in page
    assert "every clock of the season’s games is stopped" in page
    assert "paused every clock: “winter holidays”" in page
    assert shown(api)["paused_since"] is not None

    game_page = text(api.client.get(f"/games/{running_games(api, tokens)[0]}").text)
    assert "organiser has paused every clock of this season’s games since" in game_page
    assert "winter holidays" in game_page and "left: the deadline is" not in game_page
    resumed = post(api, "resume", page)
    assert resumed.status_code == 303 and shown(api)["paused_since"] is None

    page = api.client.get(PAGE).text
    removed = post(api, "remove", page, player="bob", reason="left the club")
    assert removed.status_code == 303
    assert shown(api)["withdrawn"] == ["bob"]
    assert "bob (removed by the organiser)" in text(api.client.get(PAGE).text)

    page = api.client.get(PAGE).text
    game_id = running_games(api, tokens)[0]
    assert f'<option value="{game_id}">Game {game_id}</option>' in page
    ended = post(api, "adjudicate", page, game=str(game_id), reason="unreachable player")
    assert ended.status_code == 303
    assert api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["status"] == "finished"
    page = text(api.client.get(PAGE).text)
    assert f"Game {game_id} is adjudicated" in page
    game_page = text(api.client.get(f"/games/{game_id}").text)
    assert "Game over:" in game_page
    assert "the game was adjudicated by ann: unreachable player" in game_page
    for line in (
        "ann paused every clock: “winter holidays”",
        "ann resumed the clocks",
        "ann removed bob: “left the club”",
        f"ann adjudicated game {game_id}: “unreachable player”",
    ):
        assert line in page
    assert [e["action"] for e in log_of(api)] == ["pause", "resume", "remove", "adjudicate"]


def test_refusals_are_said_on_the_page_and_change_nothing(api):
    tokens = season(api)
    web_sign_in(api, "ann")
    page = api.client.get(PAGE).text
    blank = post(api, "pause", page, reason="")
    assert blank.status_code == 400 and 'role="alert"' in blank.text
    assert "`reason` must be the reason, 1 to 500 characters on one line" in blank.text
    no_game = post(api, "adjudicate", page, game="99999", reason="x")
    assert no_game.status_code == 404 and "has no running game '99999'" in text(no_game.text)
    odd = post(api, "adjudicate", page, game="²", reason="x")
    assert odd.status_code == 404
    stranger = post(api, "remove", page, player="zed", reason="x")
    assert stranger.status_code == 404 and "there is no player named" in stranger.text
    assert post(api, "resume", page).status_code == 409
    assert log_of(api) == [] and shown(api)["withdrawn"] == []
    assert len(running_games(api, tokens)) == 2


def test_without_the_token_or_as_another_player_nothing_changes(api):
    tokens = season(api)
    web_sign_in(api, "bob")
    page = api.client.get(PAGE).text
    assert "Organiser’s tools" not in page and "Pause every clock" not in page
    assert "Organiser’s log" in page  # the log is for everyone
    game_id = running_games(api, tokens)[0]
    for action, form in (
        ("pause", {"reason": "mine now"}),
        ("remove", {"player": "cid", "reason": "x"}),
        ("adjudicate", {"game": str(game_id), "reason": "x"}),
    ):
        forged = post(api, action, page, **form)
        assert forged.status_code == 403 and "only the organiser of club can" in forged.text
    api.client.post("/signout", data={"csrf": csrf_of(page)})
    web_sign_in(api, "ann")
    for action, form in (
        ("pause", {"reason": "x"}),
        ("remove", {"player": "cid", "reason": "x"}),
        ("adjudicate", {"game": str(game_id), "reason": "x"}),
    ):
        unsigned = api.client.post(f"{PAGE}/{action}", data=form)
        assert unsigned.status_code == 403 and "did not come from this site" in unsigned.text
    assert log_of(api) == [] and shown(api)["paused_since"] is None
    assert shown(api)["withdrawn"] == [] and len(running_games(api, tokens)) == 2


def test_removing_from_the_registration_by_form(api):
    season(api, start=False)
    web_sign_in(api, "ann")
    page = api.client.get(PAGE).text
    assert "They are not placed when the season starts" in page
    assert "Pause every clock" not in page and "Adjudicate a game" not in page
    assert post(api, "remove", page, player="dan", reason="asked to").status_code == 303
    assert "dan" not in shown(api)["registered"]


def test_a_finished_season_says_how_to_open_the_next(api):
    tokens = season(api)
    for game_id in running_games(api, tokens):
        players = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["players"]
        for name in players[1:]:
            api.call("POST", f"/api/games/{game_id}/resign", tokens[name])
    assert shown(api)["status"] == "finished"
    league = text(api.client.get("/leagues/club").text)
    assert "Season 1 is over. Its organiser, ann, opens season 2" in league
    web_sign_in(api, "ann")
    league = text(api.client.get("/leagues/club").text)
    assert "Season 1 is over. To open season 2 for registration, press the button below" in league
    assert "cafe league open club" in league
    page = text(api.client.get(PAGE).text)
    assert "open the league’s next season" in page and "cafe league open club" in page
    assert "Organiser’s tools" not in page
