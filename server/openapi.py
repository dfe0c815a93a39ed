"""The OpenAPI 3.1 description served at `/api/openapi.json`.

Written by hand next to the routes it describes; `tests/server/test_openapi.py` checks that
every route of the app is described (and nothing else) and that every status a test sees
is documented, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any

ERROR_STATUSES = {
    "400": "Unreadable request: malformed JSON, a missing or wrongly typed field, bad notation",
    "401": "Missing, unknown or revoked token, or a wrong sign-in code",
    "403": "Authenticated but not allowed",
    "404": "No such game, token or player",
    "409": "Conflict: stale version, not your turn, game not open or already finished",
    "413": "Request body too large",
    "422": "Understood but refused: an illegal turn, a reused idempotency key, a bad invitation",
    "429": "Too many sign-in codes or attempts",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _op(
    summary: str,
    ok: dict[str, Any],
    errors: tuple[int, ...],
    *,
    body: str | None = None,
    auth: bool = True,
    params: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": summary, "responses": dict(ok)}
    for status in (*errors, *((401,) if auth else ())):
        operation["responses"][str(status)] = {
            "description": ERROR_STATUSES[str(status)],
            **_json(_ref("Error")),
        }
    if body is not None:
        operation["requestBody"] = {"required": True, **_json(_ref(body))}
    if not auth:
        operation["security"] = []
    if params:
        operation["parameters"] = params
    return operation


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


def _ok(status: int, description: str, schema: str | None) -> dict[str, Any]:
    return {str(status): {"description": description, **(_json(_ref(schema)) if schema else {})}}


GAME_ID = {
    "name": "game_id",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 1},
}
TOKEN_ID = {
    "name": "token_id",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 1},
}
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "pattern": "^[!-~]{1,100}$"},
    "description": "Retrying with the same key and body returns the first response "
    "(1 to 100 printable ASCII characters, e.g. a UUID)",
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
}

STR = {"type": "string"}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}
TIME = {"type": "string", "format": "date-time"}
TILES = {"type": "array", "items": STR}
EMAIL = {"type": "string", "format": "email", "maxLength": 254}
NAME = {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_.-]{0,23}$"}


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


SCHEMAS: dict[str, Any] = {
    "Error": _obj(
        {
            "error": STR,
            "message": STR,
            "version": INT,
            "to_move": _nullable(STR),
            "game_status": STR,
        },
        ("error", "message"),
    ),
    "NewPlayer": _obj(
        {"name": NAME, "email": EMAIL},
        ("name", "email"),
    ),
    "Player": _obj(
        {"id": INT, "name": STR, "email": STR, "created_at": TIME}, ("id", "name", "email")
    ),
    "CodeRequest": _obj({"email": EMAIL}, ("email",)),
    "CodeSent": _obj({"sent_to": STR}, ("sent_to",)),
    "TokenRequest": _obj(
        {
            "email": EMAIL,
            "code": {"type": "string", "pattern": "^[0-9]{6}$"},
            "label": {"type": "string", "minLength": 1, "maxLength": 64},
        },
        ("email", "code"),
    ),
    "NewToken": _obj({"id": INT, "token": STR, "label": STR, "created_at": TIME}, ("id", "token")),
    "TokenList": _obj(
        {
            "tokens": {
                "type": "array",
                "items": _obj(
                    {"id": INT, "label": STR, "created_at": TIME, "revoked": BOOL, "current": BOOL}
                ),
            }
        },
        ("tokens",),
    ),
    "Options": {
        **_obj(
            {
                "birthday": _nullable({"type": "integer", "minimum": 1, "maximum": 1000}),
                "coffee_klatsch": BOOL,
            }
        ),
        "additionalProperties": False,  # the server refuses any other key
    },
    "NewGame": _obj(
        {
            "seats": {"type": "integer", "minimum": 2, "maximum": 4},
            "options": _nullable(_ref("Options")),
            "invite": _nullable({"type": "array", "items": NAME}),
        },
        ("seats",),
    ),
    "Standing": _obj(
        {
            "place": INT,
            "player": STR,
            "score": INT,
            "penalty": INT,
            "final": INT,
            "eliminated": BOOL,
        }
    ),
    "Game": _obj(
        {
            "id": INT,
            "status": {"enum": ["open", "active", "finished"]},
            "version": INT,
            "seats": INT,
            "creator": STR,
            "options": _ref("Options"),
            "invited": {"type": "array", "items": STR},
            "players": {"type": "array", "items": STR},
            "your_seat": _nullable(INT),
            "to_move": _nullable(STR),
            "deadline": _nullable(TIME),
            "created_at": TIME,
            "started_at": _nullable(TIME),
            "finished_at": _nullable(TIME),
            "turns": INT,
            "scores": {"type": "array", "items": INT},
            "hands": {"type": "array", "items": TILES},
            "hand_limits": {"type": "array", "items": INT},
            "eliminated": {"type": "array", "items": BOOL},
            "board": {
                "type": "object",
                "additionalProperties": STR,
                "description": "chair number -> tile",
            },
            "bar": TILES,
            "bag_size": INT,
            "birthday_nation": _nullable(STR),
            "commitment": _nullable(STR),
            "standings": {"type": "array", "items": _ref("Standing")},
            "seed": _nullable(STR),
        },
        ("id", "status", "version", "seats", "players", "to_move"),
    ),
    "GameList": _obj(
        {
            "games": {
                "type": "array",
                "items": _obj(
                    {
                        "id": INT,
                        "status": STR,
                        "version": INT,
                        "seats": INT,
                        "players": {"type": "array", "items": STR},
                        "to_move": _nullable(STR),
                        "options": _ref("Options"),
                        "created_at": TIME,
                    }
                ),
            }
        },
        ("games",),
    ),
    "TurnRequest": _obj(
        {
            "turn": {"type": "string", "minLength": 1, "maxLength": 200},
            "version": {"type": "integer", "minimum": 0},
        },
        ("turn", "version"),
    ),
    "TableScore": _obj(
        {
            "table": STR,
            "points": INT,
            "guests": INT,
            "single_nation": BOOL,
            "birthday": BOOL,
            "tile": _nullable(STR),
            "chair": _nullable(INT),
        }
    ),
    "TurnResult": _obj(
        {
            "summary": STR,
            "game_id": INT,
            "number": INT,
            "player": STR,
            "turn": STR,
            "points": INT,
            "tables": {"type": "array", "items": _ref("TableScore")},
            "drawn": TILES,
            "completed": {"type": "array", "items": STR},
            "hand_limit": INT,
            "stool": _nullable(INT),
            "eliminated": BOOL,
            "game_over": BOOL,
            "version": INT,
            "to_move": _nullable(STR),
            "scores": {"type": "array", "items": INT},
        },
        ("number", "turn", "points", "version", "to_move"),
    ),
    "TurnLog": _obj(
        {
            "turns": {
                "type": "array",
                "items": _obj(
                    {
                        "number": INT,
                        "player": STR,
                        "kind": {"enum": ["turn", "resign"]},
                        "turn": STR,
                        "points": INT,
                        "created_at": TIME,
                    }
                ),
            }
        },
        ("turns",),
    ),
    "Hints": _obj(
        {
            "hints": {
                "type": "array",
                "items": _obj({"turn": STR, "points": INT}, ("turn", "points")),
            }
        },
        ("hints",),
    ),
    "EmailStatus": _obj(
        {
            "state": {"enum": ["ok", "retrying", "failing"]},
            "last_error": _nullable(STR),
            "since": _nullable(TIME),
        },
        ("state", "last_error", "since"),
    ),
    "Me": {
        "allOf": [
            _ref("Player"),
            _obj({"email_status": {"$ref": "#/components/schemas/EmailStatus"}}, ("email_status",)),
        ]
    },
    "Preferences": _obj(
        {"turn_emails": {"enum": ["each", "digest", "none"]}, "others_turns": BOOL},
        ("turn_emails", "others_turns"),
    ),
    "PreferencesChange": {
        **_obj({"turn_emails": {"enum": ["each", "digest", "none"]}, "others_turns": BOOL}),
        "additionalProperties": False,
    },
}

HTML_PAGE = {"content": {"text/html": {"schema": STR}}}
UNSUBSCRIBE_TOKEN = {"name": "token", "in": "path", "required": True, "schema": STR}
#: The development mail viewer, described only where it is served (`CAFE_DEV_MAIL=1`).
DEV_MAIL_PATHS = {
    "/dev/mail": {
        "get": {
            "summary": "The caught mail (development only)",
            "security": [],
            "responses": {"200": {"description": "List", **HTML_PAGE}},
        }
    },
    "/dev/mail/{number}": {
        "get": {
            "summary": "One caught message (development only)",
            "security": [],
            "parameters": [{"name": "number", "in": "path", "required": True, "schema": INT}],
            "responses": {
                "200": {"description": "Message", **HTML_PAGE},
                "404": {"description": "No such message", **_json(_ref("Error"))},
            },
        }
    },
    "/dev/mail/{number}/reply": {
        "post": {
            "summary": "Answer a caught game email as a mail program would (development only)",
            "security": [],
            "parameters": [{"name": "number", "in": "path", "required": True, "schema": INT}],
            "responses": {
                "200": {"description": "What became of the reply", **HTML_PAGE},
                "400": {"description": "The email has no reply address", **HTML_PAGE},
                "404": {"description": "No such message", **_json(_ref("Error"))},
            },
        }
    },
}


def spec(*, dev_mail: bool = False) -> dict[str, Any]:
    """The whole document (with the development mail viewer if it is served)."""
    game_param = [GAME_ID]
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Café International by correspondence", "version": "1"},
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/healthz": {
                "get": _op("Database reachable", {"200": {"description": "OK"}}, (), auth=False)
            },
            "/api/openapi.json": {
                "get": _op("This document", {"200": {"description": "OpenAPI 3.1"}}, (), auth=False)
            },
            "/api/players": {
                "post": _op(
                    "Register; a sign-in code is mailed",
                    _ok(201, "Registered", "Player"),
                    (400, 409, 413, 429),
                    body="NewPlayer",
                    auth=False,
                )
            },
            "/api/signin-codes": {
                "post": _op(
                    "Mail a new sign-in code",
                    _ok(202, "Sent", "CodeSent"),
                    (400, 404, 413, 429),
                    body="CodeRequest",
                    auth=False,
                )
            },
            "/api/tokens": {
                "post": _op(
                    "Exchange a sign-in code for a token (shown once)",
                    _ok(201, "Token", "NewToken"),
                    (400, 401, 413, 429),
                    body="TokenRequest",
                    auth=False,
                ),
                "get": _op("The caller's tokens", _ok(200, "Tokens", "TokenList"), ()),
            },
            "/api/tokens/{token_id}": {
                "delete": _op(
                    "Revoke a token", {"204": {"description": "Revoked"}}, (404,), params=[TOKEN_ID]
                )
            },
            "/api/me": {"get": _op("The caller", _ok(200, "Player", "Me"), ())},
            "/api/me/preferences": {
                "get": _op("The caller's email preferences", _ok(200, "Prefs", "Preferences"), ()),
                "patch": _op(
                    "Change email preferences",
                    _ok(200, "Prefs", "Preferences"),
                    (400, 413),
                    body="PreferencesChange",
                ),
            },
            "/unsubscribe/{token}": {
                "get": {
                    "summary": "Confirmation page of a one-click unsubscribe link",
                    "security": [],
                    "parameters": [UNSUBSCRIBE_TOKEN],
                    "responses": {
                        "200": {"description": "Asks to confirm", **HTML_PAGE},
                        "400": {"description": "Not a valid link", **HTML_PAGE},
                    },
                },
                "post": {
                    "summary": "Unsubscribe from game emails (RFC 8058 one-click; no sign-in)",
                    "security": [],
                    "parameters": [UNSUBSCRIBE_TOKEN],
                    "responses": {
                        "200": {"description": "Unsubscribed", **HTML_PAGE},
                        "400": {"description": "Not a valid link; nothing changed", **HTML_PAGE},
                        "413": {"description": ERROR_STATUSES["413"], **_json(_ref("Error"))},
                    },
                },
            },
            "/api/games": {
                "post": _op(
                    "Open a game", _ok(201, "Created", "Game"), (400, 413, 422), body="NewGame"
                ),
                "get": _op(
                    "List games",
                    _ok(200, "Games", "GameList"),
                    (400,),
                    params=[
                        _query(
                            "status",
                            {"enum": ["open", "active", "finished"]},
                            "only games in this status",
                        ),
                        _query("mine", {"enum": ["true", "false"]}, "only the caller's games"),
                        _query(
                            "limit",
                            {"type": "integer", "minimum": 1, "maximum": 200},
                            "at most this many (50)",
                        ),
                    ],
                ),
            },
            "/api/games/{game_id}": {
                "get": _op(
                    "Public state (ETag)",
                    {**_ok(200, "State", "Game"), "304": {"description": "Not modified"}},
                    (404,),
                    params=[GAME_ID, IF_NONE_MATCH],
                )
            },
            "/api/games/{game_id}/join": {
                "post": _op(
                    "Take a seat", _ok(200, "State", "Game"), (403, 404, 409), params=game_param
                )
            },
            "/api/games/{game_id}/start": {
                "post": _op(
                    "Deal and begin (creator)",
                    _ok(200, "State", "Game"),
                    (403, 404, 409),
                    params=game_param,
                )
            },
            "/api/games/{game_id}/turns": {
                "post": _op(
                    "Play a turn",
                    _ok(201, "Played", "TurnResult"),
                    (400, 403, 404, 409, 413, 422),
                    body="TurnRequest",
                    params=[GAME_ID, IDEMPOTENCY_KEY],
                ),
                "get": _op("The turn log", _ok(200, "Log", "TurnLog"), (404,), params=game_param),
            },
            "/api/games/{game_id}/record": {
                "get": _op(
                    "Text game record",
                    {"200": {"description": "Record", "content": {"text/plain": {"schema": STR}}}},
                    (404, 409),
                    params=game_param,
                )
            },
            "/api/games/{game_id}/hints": {
                "get": _op(
                    "The caller's best turns",
                    _ok(200, "Hints", "Hints"),
                    (400, 403, 404, 409),
                    params=[
                        GAME_ID,
                        _query(
                            "n", {"type": "integer", "minimum": 1, "maximum": 50}, "how many (5)"
                        ),
                    ],
                )
            },
            "/api/games/{game_id}/resign": {
                "post": _op(
                    "Leave a running game",
                    _ok(200, "State", "Game"),
                    (403, 404, 409),
                    params=game_param,
                )
            },
        },
    }
    if dev_mail:
        document["paths"].update(DEV_MAIL_PATHS)
    return document
