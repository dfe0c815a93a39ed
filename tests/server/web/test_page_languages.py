"""Every page of ours in Czech, German and Russian (issue 23): each page, rendered for the
same viewer in English and in another language, keeps no English sentence of its English
render in what a reader sees — its text, and the words of its `title`, `aria-label`, `alt`
and `placeholder` attributes and of the words `play.js` shows (`data-scoring`,
`data-unreachable`) — its `<html lang>` is the language, and nothing is mojibake.

The pages: the front door and the sign-in steps signed out, a player's home and settings
signed in (with the flashed answers to what they did), an open, a running (the mover's view,
with the birthday and coffee-klatsch choices) and a finished game, a player's page and the
rating list, the rules, unsubscribing, the refusals a form gets, and the 404 and 403 pages.
What is the same in every language is left out of the comparison (`translation_support`):
names, tile codes, the notation, commands, numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient
from page_support import english_kept
from server_support import csrf_of, signed_in
from sqlmodel import Session, select
from translation_support import MOJIBAKE, english_left

from cafe.i18n import speaking
from cafe.render import quantities
from server.config import settings_of
from server.db import get_engine
from server.models import Player
from server.postbox.addresses import unsubscribe_token

LANGUAGES = ("cs", "de", "ru")

#: Whole pieces of a page that are words of ours, and the same in a language of ours
#: (a heading, the glossary's "bar"; the rating's figures are OpenSkill's names).
SAME_IN_A_LANGUAGE = {"Limit", "Hand", "Status", "mu", "sigma", "bar", "Bar", "BAR"}


def check(english: str, translated: str, language: str, what: str, not_ours=()) -> None:
    """`translated` (a page in `language`) keeps no English sentence of `english` (the same
    page in English) and no piece of it with words, says its language and holds no
    mojibake."""
    assert f'<html lang="{language}">' in translated, what
    assert not MOJIBAKE.search(translated), (what, MOJIBAKE.findall(translated))
    left = english_kept(english, translated, not_ours=not_ours, same=SAME_IN_A_LANGUAGE)
    assert not left, f"{what} ({language}): {left}"


def player_id(api, name: str) -> int:
    with Session(get_engine(api.app)) as session:
        player = session.exec(select(Player).where(Player.name == name)).one()
        assert player.id is not None
        return player.id


def speak(api, token: str, language: str) -> None:
    """Make `language` the player's (their pages follow it)."""
    body = {"language": language}
    assert api.call("PATCH", "/api/me/preferences", token, json=body).status_code == 200


@pytest.fixture
def world(api) -> Iterator[dict]:
    """Players and games in every state a page shows: ann's invitation from cid, a running
    game of ann and bob with the birthday table at 1 point and the coffee klatsch (a turn
    played), ann's open game, and a finished rated game bob resigned from."""
    game_id, tokens = api.started_game(
        "ann", "bob", options={"birthday": 1, "coffee_klatsch": True}
    )
    tokens["cid"] = api.register("cid")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    [hint] = api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]).json["hints"]
    body = {"turn": hint["turn"], "version": state["version"]}
    assert (
        api.call("POST", f"/api/games/{game_id}/turns", tokens[mover], json=body).status_code < 300
    )
    finished = api.call("POST", "/api/games", tokens["ann"], json={"seats": 2, "rated": True})
    finished_id = finished.json["id"]
    assert api.call("POST", f"/api/games/{finished_id}/join", tokens["bob"]).status_code < 300
    assert api.call("POST", f"/api/games/{finished_id}/start", tokens["ann"]).status_code < 300
    assert api.call("POST", f"/api/games/{finished_id}/resign", tokens["bob"]).status_code < 300
    open_id = api.call("POST", "/api/games", tokens["ann"], json={"seats": 3}).json["id"]
    invited = {"seats": 2, "invite": ["ann"]}
    invite_id = api.call("POST", "/api/games", tokens["cid"], json=invited).json["id"]
    yield {
        "tokens": tokens,
        "running": game_id,
        "finished": finished_id,
        "open": open_id,
        "invitation": invite_id,
        "mover": api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"],
    }


NAMES = ("ann", "bob", "cid")


def signed_out_pages(world: dict) -> list[str]:
    return [
        "/",
        "/signin",
        "/signin/link/nonsense",
        "/rules",
        "/ratings",
        "/players/ann",
        f"/games/{world['running']}",
        f"/games/{world['finished']}",
        f"/games/{world['open']}",
        "/games/999",  # 404
        f"/games/{world['running']}/record",  # 403: the record of a running game
        "/unsubscribe/not-a-token",
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_signed_out_page_is_in_the_browsers_language(api, world, language):
    for path in signed_out_pages(world):
        english = api.client.get(path, headers={"Accept-Language": "en"})
        translated = api.client.get(path, headers={"Accept-Language": language})
        assert english.status_code == translated.status_code, path
        check(english.text, translated.text, language, path, not_ours=NAMES)


def signed_in_pages(world: dict) -> list[str]:
    return [
        "/",
        "/settings",
        "/ratings",
        "/players/bob",
        f"/games/{world['running']}",
        f"/games/{world['finished']}",
        f"/games/{world['open']}",
        "/games/999",
    ]


@pytest.mark.postgres
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_signed_in_page_is_in_the_players_language(api, world, language):
    mover, tokens = world["mover"], world["tokens"]
    for name in dict.fromkeys((mover, "ann")):
        client = signed_in(api, name)
        for path in signed_in_pages(world):
            speak(api, tokens[name], "en")
            english = client.get(path)
            speak(api, tokens[name], language)
            translated = client.get(path, headers={"Accept-Language": "en"})
            assert english.status_code == translated.status_code, path
            check(english.text, translated.text, language, f"{path} as {name}", not_ours=NAMES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_unsubscribe_pages_are_in_the_readers_language(api, language):
    api.register("ann")
    secret = settings_of(api.app).secret_key
    path = f"/unsubscribe/{unsubscribe_token(secret, player_id(api, 'ann'))}"
    english = api.client.get(path, headers={"Accept-Language": "en"})
    translated = api.client.get(path, headers={"Accept-Language": language})
    check(english.text, translated.text, language, "confirm", not_ours=NAMES)
    english = api.client.post(path, headers={"Accept-Language": "en"})
    translated = api.client.post(path, headers={"Accept-Language": language})
    check(english.text, translated.text, language, "done", not_ours=NAMES)


def flow(api, name: str, token: str, language: str) -> list[tuple[str, str]]:
    """What `name`, speaking `language`, reads signing in, refusing and taking a vacation,
    opening a game and playing a turn, a refusal of each form: (what, page) pairs."""
    pages = []
    client = api.app.test_client()
    headers = {"Accept-Language": language}
    form = client.get("/signin", headers=headers).text
    email = f"{name}@example.com"
    code_page = client.post(
        "/signin", data={"csrf": csrf_of(form), "email": email, "next": "/"}, headers=headers
    )
    pages.append(("the code step", code_page.text))
    wrong = client.post(
        "/signin/code",
        data={"csrf": csrf_of(code_page.text), "email": email, "code": "nonsense"},
        headers=headers,
    )
    pages.append(("a wrong code", wrong.text))
    bad_email = client.post(
        "/signin", data={"csrf": csrf_of(form), "email": "nobody"}, headers=headers
    )
    pages.append(("a wrong address", bad_email.text))
    bad_name = client.post(
        "/signin", data={"csrf": csrf_of(form), "name": "9x", "email": email}, headers=headers
    )
    pages.append(("a wrong name", bad_name.text))
    client.post(
        "/signin/code",
        data={"csrf": csrf_of(code_page.text), "email": email, "code": api.last_code(email)},
        headers=headers,
    )
    pages.append(("signed in", client.get("/").text))
    csrf = csrf_of(client.get("/settings").text)
    client.post("/settings/vacation", data={"csrf": csrf, "days": "3"})
    pages.append(("a vacation declared", client.get("/settings").text))
    client.post("/settings/vacation", data={"csrf": csrf, "action": "end"})
    pages.append(("a vacation ended", client.get("/settings").text))
    client.post("/settings/vacation", data={"csrf": csrf, "days": "3", "start": "24.12."})
    pages.append(("a wrong date", client.get("/settings").text))
    client.post("/settings/vacation", data={"csrf": csrf, "days": "none"})
    pages.append(("a wrong number of days", client.get("/settings").text))
    form = {"csrf": csrf, "turn_emails": "each", "timezone": "Europe/Prague", "language": language}
    client.post("/settings/preferences", data=form)
    pages.append(("preferences saved", client.get("/settings").text))
    client.post("/settings/preferences", data={**form, "timezone": "Mars/Olympus"})
    pages.append(("a wrong zone", client.get("/settings").text))
    listed = api.call("GET", "/api/tokens", token).json["tokens"]
    [api_token] = [listed["id"] for listed in listed if listed["label"] != "web sign-in"]
    client.post(f"/settings/tokens/{api_token}/revoke", data={"csrf": csrf})
    pages.append(("a token revoked", client.get("/settings").text))
    client.post("/games", data={"csrf": csrf, "seats": "7"})
    pages.append(("a wrong game", client.get("/").text))
    pages.append(("a forged form", client.post("/games", data={"seats": "2"}).text))
    return pages


def playing(api, client: FlaskClient, game_id: int) -> list[tuple[str, str]]:
    """The mover's pages of `game_id` playing from the page: the preview's words, the
    refusals of an empty and an illegal turn, a stale page, and the played turn's flash."""
    page = client.get(f"/games/{game_id}").text
    form = {"csrf": csrf_of(page), "version": re.search(r'name="version" value="(\d+)"', page)[1]}
    best = re.search(r'name="hint" value="([^"]+)"', page)[1]
    preview, play = f"/games/{game_id}/preview", f"/games/{game_id}/play"
    pages = [
        ("the preview", f"<p>{client.post(preview, data={**form, 'turn': best}).json['said']}</p>"),
        (
            "a refused preview",
            client.post(preview, data={**form, "turn": "XXm@DE1"}).json["message"],
        ),
        ("no turn", client.post(play, data={**form, "turn": ""}).text),
        ("an illegal turn", client.post(play, data={**form, "turn": "bar"}).text),
        ("no version", client.post(play, data={"csrf": form["csrf"], "turn": best}).text),
    ]
    client.post(play, data={**form, "hint": best})
    pages.append(("a turn played", client.get(f"/games/{game_id}").text))
    pages.append(("a stale page", client.post(play, data={**form, "hint": best}).text))
    return pages


#: What each step of `flow` and `playing` says in English: that the step did what it is
#: named for (the translated render is then compared with that page).
SAID = {
    "the code step": "are on their way to it",
    "a wrong code": "must be the 10 digits",
    "a wrong address": "must be an email address",
    "a wrong name": "must be a player name",
    "signed in": "Signed in as ann.",
    "a vacation declared": "Vacation declared: 3 days.",
    "a vacation ended": "Your vacation is over",
    "a wrong date": "is not a date like",
    "a wrong number of days": "must be a whole number of days",
    "preferences saved": "Your preferences are saved.",
    "a wrong zone": "must be an IANA time zone name",
    "a token revoked": "The token is revoked",
    "a wrong game": "must be a whole number from 2 to 4",
    "a forged form": "did not come from this site",
    "the preview": "Press “Play this turn” to play it.",
    "a refused preview": "unknown nation",
    "no turn": "Write a turn first",
    "an illegal turn": "bar takes exactly one tile",
    "no version": "This form is damaged",
    "a turn played": "You played",
    "a stale page": "The game moved on",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_a_player_does_is_answered_in_their_language(api, language):
    tokens = {name: api.register(name) for name in ("ann", "bob")}
    speak(api, tokens["bob"], language)
    english = flow(api, "ann", tokens["ann"], "en")
    translated = flow(api, "bob", tokens["bob"], language)
    for (what, page), (_, other) in zip(english, translated, strict=True):
        assert SAID[what] in page, (what, page)
        check(page, other, language, what, not_ours=("ann", "bob"))
    answers = []
    for name, reading in (("cid", "en"), ("dan", language)):
        game_id, tokens = api.started_game(name, f"{name}2")
        mover = api.call("GET", f"/api/games/{game_id}", tokens[name]).json["to_move"]
        speak(api, tokens[mover], reading)
        answers.append(playing(api, signed_in(api, mover), game_id))
    names = ("cid", "cid2", "dan", "dan2")
    for (what, page), (_, other) in zip(*answers, strict=True):
        assert SAID[what] in page, (what, page)
        if what in ("the preview", "a refused preview"):
            left = english_left(page, other, not_ours=names)
            assert not left and not MOJIBAKE.search(other), (what, left, other)
        else:
            check(page, other, language, what, not_ours=names)


def test_the_preview_says_its_turn_and_points_in_the_readers_language(api):
    """`play.js` shows the preview's sentence as it comes: the points counted as Russian
    counts them (`cafe.render.quantities.points`), the button named as the page names it."""
    game_id, tokens = api.started_game("ann", "bob")
    mover = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
    speak(api, tokens[mover], "ru")
    client = signed_in(api, mover)
    page = client.get(f"/games/{game_id}").text
    version = re.search(r'name="version" value="(\d+)"', page)[1]
    best = re.search(r'name="hint" value="([^"]+)"', page)[1]
    answer = client.post(
        f"/games/{game_id}/preview", data={"csrf": csrf_of(page), "version": version, "turn": best}
    ).json
    with speaking("ru"):
        points = quantities.points(answer["points"])
    said = f"{answer['turn']} приносит {points}"
    assert answer["said"].startswith(said)  # then how the points are made up, if in parts
    assert answer["said"][len(said)] in " .", answer["said"]
    button = re.search(r'<button type="submit" name="hint" value="">([^<]+)</button>', page)[1]
    assert f"«{button}»" in answer["said"] and button == "Сыграть этот ход"
