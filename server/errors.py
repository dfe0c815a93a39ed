"""One error handler: every refusal is JSON `{"error": code, "message": text}`.

Views raise `ApiError` (or let the engine's `CafeError` subclasses through); HTTP errors
from Werkzeug (404 route, 405, 413 …) and database contention get the same shape. Only a
bug in the service produces a 500, and its details go to the log, not to the client.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

from cafe import CafeError, GameOverError, IllegalTurnError, NotationError

log = logging.getLogger(__name__)

#: Stable codes for the HTTP errors Werkzeug raises by itself.
HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    500: "internal_error",
}


class ApiError(Exception):
    """A refusal with its HTTP status, stable code, message and optional extra fields."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def error_response(status: int, code: str, message: str, **extra: Any) -> Response:
    """The JSON response for an error."""
    response = jsonify({"error": code, "message": message, **extra})
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="cafe"'
    return response


def engine_error_status(exc: CafeError) -> tuple[int, str]:
    """The HTTP status and code for an engine refusal."""
    if isinstance(exc, NotationError):
        return 400, "unreadable_turn"
    if isinstance(exc, IllegalTurnError):
        return 422, "illegal_turn"
    if isinstance(exc, GameOverError):
        return 409, "game_finished"
    return 422, "rejected"


def init_app(app: Flask) -> None:
    """Register the handlers on `app`."""

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return error_response(exc.status, exc.code, exc.message, **exc.extra)

    @app.errorhandler(CafeError)
    def _engine_error(exc: CafeError) -> Response:
        status, code = engine_error_status(exc)
        return error_response(status, code, str(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        code = HTTP_CODES.get(status, "http_error")
        message = exc.description or exc.name
        if status == 413:
            limit = app.config["MAX_CONTENT_LENGTH"]
            message = f"the request body is larger than {limit} bytes; send less"
        response = error_response(status, code, message)
        allowed = getattr(exc, "valid_methods", None)
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
        return response

    @app.errorhandler(OperationalError)
    def _database_busy(exc: OperationalError) -> Response:
        log.warning("database unavailable: %s", exc.orig)
        response = error_response(
            503, "unavailable", "the database is busy or unreachable; retry in a moment"
        )
        response.headers["Retry-After"] = "1"
        return response

    @app.errorhandler(Exception)
    def _bug(exc: Exception) -> Response:
        log.exception("unhandled error")
        return error_response(500, "internal_error", "the server failed; the error is logged")
