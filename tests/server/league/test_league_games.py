"""A league game says so (issue 20 §14): its state and its summary in the API, its page,
every email about it and its record name the league, the season and the division, and link
to the season's page; a game outside a league says nothing of the kind. A withdrawal's
resignations are marked as such in the log, the standings and the page."""

from __future__ import annotations

import pytest
from league_support import NAMES, ok, opened, start
from server_support import signed_in

from cafe.record import verify

PLACE = "Tuesday Club, season 1, division 1"
SEASON_PAGE = "/leagues/tuesday/seasons/1"


def league_game(api):
    """Season 1 of four players in one division, started; a game of it and the tokens."""
    tokens = opened(api, NAMES[:4])
    season = start(api, tokens)
    return season["divisions"][0]["games"][0], tokens


@pytest.mark.postgres
def test_a_league_game_names_its_league_in_the_api_page_emails_and_record(api, backend):
    game_id, tokens = league_game(api)
    state = ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))
    expected = {"name": "Tuesday Club", "slug": "tuesday", "season": 1, "division": 1,
                "url": SEASON_PAGE}  # fmt: skip
    assert state["league"] == expected
    listed = ok(api.call("GET", "/api/games?mine=true", tokens[state["players"][0]]))["games"]
    assert {game["id"]: game["league"] for game in listed}[game_id] == expected
    page = api.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'A league game: <a href="{SEASON_PAGE}">{PLACE}</a>.' in page
    mover = state["to_move"]
    hint = ok(api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]))["hints"][0]
    body = {"turn": hint["turn"], "version": state["version"]}
    ok(api.call("POST", f"/api/games/{game_id}/turns", tokens[mover], json=body), 201)
    api.send_events()  # each email is rendered as the game is when it is sent
    for name in state["players"][:-1]:  # the last one left wins
        ok(api.call("POST", f"/api/games/{game_id}/resign", tokens[name]))
    api.send_events()
    mails = [m for m in api.outbox() if m.game_id == game_id and m.body]
    # the season's start is one email each: the game's own come from its first turn on
    assert {"your_turn", "game_over"} <= {m.kind for m in mails}
    for mail in mails:
        assert (
            f"A game of {PLACE}; the season's page:\n  http://cafe.test/leagues/tuesday/1\n"
            in mail.body  # the short link, which leads there
        ), mail.kind
        assert f'href="http://cafe.test{SEASON_PAGE}"' in mail.html and PLACE in mail.html
    record = api.call("GET", f"/api/games/{game_id}/record", tokens["ann"]).get_data(as_text=True)
    assert record.splitlines()[0] == f'[Event "{PLACE}"]'
    assert verify(record).event == PLACE


def test_the_place_is_said_in_each_readers_language_and_the_record_keeps_english(api):
    """The game's page and its emails name the league's season and division in their
    reader's language; its record's `Event` tag, a file format's, stays English for a
    Czech reader too."""
    game_id, tokens = league_game(api)
    state = ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))
    mover, other = state["to_move"], next(p for p in state["players"] if p != state["to_move"])
    for name, language in ((mover, "cs"), (other, "de")):
        body = {"language": language}
        ok(api.call("PATCH", "/api/me/preferences", tokens[name], json=body))
    page = signed_in(api, mover).get(f"/games/{game_id}").get_data(as_text=True)
    assert f'<a href="{SEASON_PAGE}">Tuesday Club, sezóna 1, divize 1</a>' in page
    hint = ok(api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]))["hints"][0]
    body = {"turn": hint["turn"], "version": state["version"]}
    ok(api.call("POST", f"/api/games/{game_id}/turns", tokens[mover], json=body), 201)
    [(text, html)] = [
        mail for mail in api.delivered(f"{other}@example.com") if str(game_id) in mail[0]
    ][-1:]
    assert "Tuesday Club, Saison 1, Division 1" in " ".join(text.split())
    assert "Tuesday Club, Saison 1, Division 1" in html
    headers = {"Accept-Language": "cs"}
    record = api.call("GET", f"/api/games/{game_id}/record", tokens[mover], headers=headers)
    assert record.get_data(as_text=True).splitlines()[0] == f'[Event "{PLACE}"]'


def test_a_game_outside_a_league_names_none(api):
    game_id, tokens = api.started_game("ann", "bob")
    assert ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))["league"] is None
    assert "A league game" not in api.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert not any("the season's page" in (m.body or "") for m in api.outbox())
    record = api.call("GET", f"/api/games/{game_id}/record", tokens["ann"]).get_data(as_text=True)
    assert "[Event" not in record


@pytest.mark.postgres
def test_a_withdrawal_is_marked_as_one_and_never_as_an_elimination(api, backend):
    tokens = opened(api, NAMES[:4], game_size=2)
    season = start(api, tokens)
    ok(api.call("POST", "/api/leagues/tuesday/seasons/1/withdraw", tokens["dan"]))
    games = [
        ok(api.call("GET", f"/api/games/{g}", tokens["ann"]))
        for g in season["divisions"][0]["games"]
    ]
    [left] = [game for game in games if "dan" in game["players"]][:1]
    assert left["status"] == "finished" and left["ending"] == "others_left"
    [line] = [line for line in left["standings"] if line["player"] == "dan"]
    assert line["left"] == "withdrew"
    log = ok(api.call("GET", f"/api/games/{left['id']}/turns", tokens["ann"]))["turns"]
    assert log[-1]["kind"] == "resign" and log[-1]["left"] == "withdrew"
    page = api.client.get(f"/games/{left['id']}").get_data(as_text=True)
    assert "<b>dan withdrew from the season</b>" in page
    winner = next(name for name in left["players"] if name != "dan")
    assert f"because dan withdrew from the season, and only {winner} was still in" in page
    assert "eliminated" not in page.split('id="standings-heading"', 1)[1].split("</table>")[0]
