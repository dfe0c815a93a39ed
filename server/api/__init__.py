"""The JSON API: one blueprint per area, all under `/api`.

Every answer says the service's time in `Server-Time` (ISO 8601 UTC, `timesource.now`: the
development clock's time when it is on), so that a client computes time left from the
service's clock, not from its own (HTTP's `Date` is the web server's system clock).
"""

from __future__ import annotations

from flask import Flask, Response

from server.api import (
    accounts,
    adjudication,
    channels,
    games,
    league_channels,
    leagues,
    meta,
    preferences,
    ratings,
    talk,
    turns,
    vacation,
)
from server.clock import timesource
from server.models import iso

#: The header that carries the service's time.
SERVER_TIME = "Server-Time"


def init_app(app: Flask) -> None:
    """Register the API blueprints, and the service's time on every answer."""
    areas = (
        accounts,
        preferences,
        channels,
        vacation,
        games,
        turns,
        talk,
        adjudication,
        leagues,
        league_channels,
        ratings,
        meta,
    )
    for module in areas:
        app.register_blueprint(module.bp)
    app.after_request(_stamp_time)


def _stamp_time(response: Response) -> Response:
    response.headers[SERVER_TIME] = iso(timesource.now()) or ""
    return response
