"""The API's refusals in the reader's language (issue 23): the same bad request asked in
English, Czech, German and Russian gets the same status and the same `error` code, and a
`message` in each language — the service's own refusals, the request checks quoting a
field's rule, the engine's reasons and Werkzeug's HTTP errors alike."""

from __future__ import annotations

import pytest

from cafe import i18n


def asked(api, code, method, path, token=None, **kwargs):
    """The answer to a request in language `code`: sent with `Accept-Language` (the
    service's choice of language, `server.i18n`) and, for as long as that is not read,
    inside `cafe.i18n.speaking`."""
    headers = {"Accept-Language": code}
    with i18n.speaking(code):
        return api.call(method, path, token, headers=headers, **kwargs)


def in_each_language(api, method, path, token=None, **kwargs):
    """The status, the code and the message of the answer in each language."""
    answers = {}
    for code in i18n.LANGUAGES:
        response = asked(api, code, method, path, token, **kwargs)
        answers[code] = (response.status_code, response.json["error"], response.json["message"])
    return answers


def check(answers, expected):
    """One status and one code in every language; a message of its own in each, the one
    the catalogs give (`expected`: a part of each language's message)."""
    assert len({(status, error) for status, error, _ in answers.values()}) == 1, answers
    messages = [message for _, _, message in answers.values()]
    assert len(set(messages)) == len(messages), messages
    for code, part in expected.items():
        assert part in answers[code][2], (code, answers[code])


@pytest.fixture
def token(api):
    return api.register("ann")


def test_a_game_that_does_not_exist(api, token):
    answers = in_each_language(api, "GET", "/api/games/999999", token)
    assert answers["en"][:2] == (404, "game_not_found")
    check(
        answers,
        {
            "en": "there is no game 999999",
            "cs": "hra 999999 neexistuje",
            "de": "es gibt kein Spiel 999999",
            "ru": "игры 999999 нет",
        },
    )


def test_a_field_out_of_range_quotes_its_rule_in_each_language(api, token):
    answers = in_each_language(api, "POST", "/api/games", token, json={"seats": 9})
    assert answers["en"] == (400, "invalid_request", "`seats` must be a whole number from 2 to 4")
    check(
        answers,
        {
            "cs": "`seats` musí být celé číslo od 2 do 4",
            "de": "eine ganze Zahl von 2 bis 4",
            "ru": "целое число от 2 до 4",
        },
    )


def test_a_missing_token(api):
    answers = in_each_language(api, "GET", "/api/me/preferences")
    assert answers["en"][:2] == (401, "missing_token")
    check(answers, {"cs": "token API", "de": "API-Token", "ru": "токен API"})


def test_an_address_with_no_route(api):
    answers = in_each_language(api, "GET", "/api/nothing-here")
    assert answers["en"][:2] == (404, "not_found")
    check(
        answers,
        {
            "en": "there is nothing at this address",
            "cs": "na této adrese nic není",
            "de": "unter dieser Adresse gibt es nichts",
            "ru": "по этому адресу ничего нет",
        },
    )


def test_the_engines_reason_for_an_unreadable_turn(api):
    game_id, tokens = api.started_game("ann", "bob")
    game = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[game["to_move"]]
    body = {"turn": "XXf@DE1", "version": game["version"]}
    answers = in_each_language(api, "POST", f"/api/games/{game_id}/turns", mover, json=body)
    assert answers["en"][:2] == (400, "unreadable_turn")
    check(
        answers,
        {
            "en": "cannot read tile 'XXf'",
            "cs": "nelze přečíst kartičku 'XXf'",
            "de": "Kärtchen 'XXf' ist nicht lesbar",
            "ru": "не удаётся прочитать гостя 'XXf'",
        },
    )


def test_a_turn_out_of_turn_says_whose_turn_it_is(api):
    game_id, tokens = api.started_game("ann", "bob")
    game = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    waiting = "bob" if game["to_move"] == "ann" else "ann"
    body = {"turn": "DEf@DE1", "version": game["version"]}
    answers = in_each_language(
        api, "POST", f"/api/games/{game_id}/turns", tokens[waiting], json=body
    )
    assert answers["en"][:2] == (409, "not_your_turn")
    mover = game["to_move"]
    check(
        answers,
        {
            "en": f"it is not your turn; the game is at version {game['version']}",
            "cs": f"nejste na tahu; hra je ve verzi {game['version']} a na tahu je {mover}",
            "de": f"Sie sind nicht am Zug; das Spiel ist bei Version {game['version']}",
            "ru": f"сейчас не ваш ход; игра в версии {game['version']}, ходит {mover}",
        },
    )


def test_a_rule_with_a_number_in_it_is_quoted_in_each_language(api):
    """A field's rule that holds a number (`server.schemas.fields.rule`) is translated too,
    while the OpenAPI document keeps its English words."""
    game_id, tokens = api.started_game("ann", "bob")
    body = {"turn": "DEf@DE1", "version": -1}
    answers = in_each_language(api, "POST", f"/api/games/{game_id}/turns", tokens["ann"], json=body)
    assert answers["en"] == (
        400,
        "invalid_request",
        "`version` must be a whole number from 0 to 2147483647",
    )
    check(
        answers,
        {
            "cs": "celé číslo od 0 do 2147483647",
            "de": "eine ganze Zahl von 0 bis 2147483647",
            "ru": "целое число от 0 до 2147483647",
        },
    )
    with i18n.speaking("cs"):
        document = api.client.get("/api/openapi.json").json
    assert "a whole number from 0 to 2147483647" in str(document)
