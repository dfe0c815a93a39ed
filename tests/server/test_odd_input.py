"""Input that once reached the database or the parser and came back as a 500 (found while
fuzzing the API for `tests/e2e/test_e2e_schemathesis.py`): each is now a 400 naming what
was wrong, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

JSON = {"Content-Type": "application/json"}


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("path", "raw", "field"),
    [
        # PostgreSQL refuses NUL in text; the name was looked up before anything checked it
        ("/api/games", rb'{"seats": 2, "invite": ["bob\u0000"]}', "invite"),
        # a lone surrogate has no UTF-8 form: neither database can store or compare it
        ("/api/games", rb'{"seats": 2, "invite": ["\ud800"]}', "invite"),
        ("/api/players", rb'{"name": "cid", "email": "c\udfff@example.com"}', "email"),
        ("/api/tokens", rb'{"email": "\ud83d@example.com", "code": "123456"}', "email"),
        ("/api/games", rb'{"seats": 2, "options": {"\ud800": 1}}', "options"),
    ],
)
def test_text_no_database_can_store_is_refused(api, path, raw, field):
    token = api.register("ann")
    response = api.call("POST", path, token, data=raw, headers=JSON)
    assert response.status_code == 400, response.json
    assert response.json["error"] == "invalid_request"
    assert response.json["message"].startswith(f"`{field}` holds a NUL character or an unpaired")


def test_a_body_nested_deeper_than_the_parser_goes_is_unreadable(api):
    raw = b"[" * 20_000 + b"]" * 20_000
    response = api.call("POST", "/api/players", data=raw, headers=JSON)
    assert response.status_code == 400
    assert response.json["error"] == "invalid_json"


@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "9" * 5000, "+5", " 5"])
def test_query_numbers_are_plain_ascii_digits(api, value):
    token = api.register("ann")
    response = api.call("GET", "/api/games", token, query_string={"limit": value})
    assert response.status_code == 400
    assert "`limit` must be a whole number from 1 to 200" in response.json["message"]
