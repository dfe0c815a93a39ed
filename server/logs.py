"""Request logging: one line per request with a request id, echoed as `X-Request-Id`.

The line holds the method, path, status, duration and player id; never a body, a header
value or a query string, and a path that carries a secret (the unsubscribe link's token) is
logged as its route, so no token, code or secret state can reach the log.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from flask import Flask, Response, g, has_request_context, request

log = logging.getLogger("server.request")

_CLIENT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every log record (`-` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = g.get("request_id", "-") if has_request_context() else "-"
        return True


def configure(level: str) -> None:
    """Log to stderr with the request id in every line (once per process)."""
    root = logging.getLogger()
    if any(isinstance(f, RequestIdFilter) for h in root.handlers for f in h.filters):
        return
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s")
    )
    root.addHandler(handler)
    root.setLevel(level)


#: Path parts that are credentials: the route is logged instead of the path.
_SECRET_VIEW_ARGS = frozenset({"token"})


def _loggable_path() -> str:
    """The request's path, or its route where the path holds a secret."""
    if request.url_rule is not None and _SECRET_VIEW_ARGS & set(request.view_args or ()):
        return request.url_rule.rule
    return request.path


def init_app(app: Flask) -> None:
    """Give each request an id (the client's `X-Request-Id` if sane) and log it when done."""

    @app.before_request
    def _start() -> None:
        offered = request.headers.get("X-Request-Id", "")
        g.request_id = offered if _CLIENT_ID.fullmatch(offered) else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers["X-Request-Id"] = g.get("request_id", "-")
        elapsed_ms = (time.perf_counter() - g.get("started", time.perf_counter())) * 1000
        player = g.get("player")
        log.info(
            "%s %s %s %.1fms player=%s",
            request.method,
            _loggable_path(),
            response.status_code,
            elapsed_ms,
            player.id if player is not None else "-",
        )
        return response
