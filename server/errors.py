"""One error handler: every refusal is JSON `{"error": code, "message": text}`.

The layers below the routes raise `server.domain` errors (or let the engine's `CafeError`
subclasses through); this module alone decides their HTTP status. HTTP errors from
Werkzeug (404 route, 405, 413 …) and database contention get the same shape. Only a bug in
the service produces a 500, and its details go to the log, not to the client.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, has_request_context, jsonify, render_template, request
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

from cafe import CafeError
from cafe.i18n import N_, gettext
from server.config import settings_of
from server.domain import (
    Conflict,
    DomainError,
    Forbidden,
    NotFound,
    RateLimited,
    Refused,
    Unauthenticated,
    Unreadable,
    from_engine,
)

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


#: The HTTP status of each kind of refusal.
DOMAIN_STATUSES: dict[type[DomainError], int] = {
    Unreadable: 400,
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Refused: 422,
    RateLimited: 429,
}


#: Paths answered with JSON even outside `/api`.
_JSON_PATHS = ("/api/", "/healthz")
_HEADINGS = {403: N_("Not allowed"), 404: N_("Not found"), 413: N_("Too large")}
#: What we say for the HTTP errors Werkzeug raises with its own (English) description.
_HTTP_MESSAGES = {
    400: N_("the request could not be read"),
    404: N_("there is nothing at this address"),
    405: N_("this address does not take this method"),
    415: N_("this request's body has a type the service does not read; send JSON"),
}


def _wants_page() -> bool:
    """Whether the refused request came from a browser page rather than the API."""
    return has_request_context() and not request.path.startswith(_JSON_PATHS)


def error_response(status: int, code: str, message: str, **extra: Any) -> Response:
    """The response for an error: JSON for the API, a page for the web side."""
    if _wants_page():
        heading = gettext(_HEADINGS.get(status, N_("That did not work")))
        html = render_template("web/error.html", status=status, heading=heading, message=message)
        return Response(html, status=status, mimetype="text/html")
    response = jsonify({"error": code, "message": message, **extra})
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="cafe"'
    return response


def domain_status(exc: DomainError) -> int:
    """The HTTP status of a refusal."""
    return next(status for kind, status in DOMAIN_STATUSES.items() if isinstance(exc, kind))


def init_app(app: Flask) -> None:
    """Register the handlers on `app`."""

    @app.errorhandler(DomainError)
    def _refusal(exc: DomainError) -> Response:
        response = error_response(domain_status(exc), exc.code, exc.message, **exc.facts)
        if "retry_after" in exc.facts:  # a rate limit that knows the wait
            response.headers["Retry-After"] = str(exc.facts["retry_after"])
        return response

    @app.errorhandler(CafeError)
    def _engine_error(exc: CafeError) -> Response:
        return _refusal(from_engine(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        code = HTTP_CODES.get(status, "http_error")
        ours = exc.description is not None and exc.description != type(exc).description
        message = str(exc.description) if ours else gettext(_HTTP_MESSAGES.get(status, exc.name))
        if status == 413:
            limit = settings_of(app).max_content_length
            message = gettext(
                "the request body is larger than %(limit)s bytes; send less", limit=limit
            )
        response = error_response(status, code, message)
        allowed = getattr(exc, "valid_methods", None)
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
        return response

    @app.errorhandler(OperationalError)
    def _database_busy(exc: OperationalError) -> Response:
        log.warning("database unavailable: %s", exc.orig)
        response = error_response(
            503, "unavailable", gettext("the database is busy or unreachable; retry in a moment")
        )
        response.headers["Retry-After"] = "1"
        return response

    @app.errorhandler(Exception)
    def _bug(exc: Exception) -> Response:
        log.exception("unhandled error")
        return error_response(
            500, "internal_error", gettext("the server failed; the error is logged")
        )
