"""Input that once reached the database or the parser and came back as a 500 (found while
fuzzing the API for `tests/e2e/test_e2e_schemathesis.py`): each is now a 400 naming what
was wrong, on SQLite and PostgreSQL."""

from __future__ import annotations

import re

import pytest

from server import apispec

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


@pytest.mark.parametrize("raw", [b"", b"null", b"[]", b"0", b'""', b"false"])
def test_a_route_that_reads_a_body_refuses_none_or_one_that_is_no_object(api, raw):
    token = api.register("ann")
    response = api.call("PATCH", "/api/me/preferences", token, data=raw, headers=JSON)
    assert response.status_code == 400, response.json
    assert response.json["error"] in ("invalid_json", "invalid_request")
    assert api.call("GET", "/api/me/preferences", token).json["turn_emails"] == "each"


@pytest.mark.parametrize(
    ("path", "model", "body", "field"),
    [
        (
            "/api/tokens",
            "TokenCreate",
            {"email": "ann@example.com", "code": "1234567890", "label": "a\x1bb"},
            "label",
        ),
        ("/api/leagues", "LeagueCreate", {"name": "Tues\x07day", "slug": "tuesday"}, "name"),
        ("/api/players", "PlayerCreate", {"name": "ann", "email": "a\x01n@example.com"}, "email"),
    ],
)
def test_control_characters_are_refused_as_the_published_pattern_says(
    api, path, model, body, field
):
    with api.app.test_request_context():
        published = apispec.document()["components"]["schemas"][model]["properties"][field]
    assert re.fullmatch(published["pattern"], body[field]) is None  # the schema refuses it
    token = api.register("bob")
    response = api.call("POST", path, token, json=body)
    assert response.status_code == 400, response.json  # and so does the service
    assert response.json["message"].startswith(f"`{field}` must be")


def test_the_published_description_says_what_no_field_pattern_can(api):
    """Unpaired surrogates have no pattern (many validators cannot read one naming them):
    every operation that takes a body says in its description that they and NUL are
    refused anywhere in it, with the 400 the body check answers."""
    with api.app.test_request_context():
        paths = apispec.document()["paths"]
    bodies = [op for item in paths.values() for op in item.values() if "requestBody" in op]
    assert len(bodies) >= 15
    for operation in bodies:
        said = operation["requestBody"]["description"]
        assert "NUL" in said and "unpaired surrogate (\\ud800-\\udfff)" in said
        assert "400" in said and operation["requestBody"]["required"] is True
        assert "400" in operation["responses"]
