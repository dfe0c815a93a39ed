"""The JSON API: one blueprint per area, all under `/api`."""

from __future__ import annotations

from flask import Flask

from server.api import (
    accounts,
    adjudication,
    games,
    leagues,
    meta,
    preferences,
    ratings,
    turns,
    vacation,
)


def init_app(app: Flask) -> None:
    """Register the API blueprints."""
    areas = (accounts, preferences, vacation, games, turns, adjudication, leagues, ratings, meta)
    for module in areas:
        app.register_blueprint(module.bp)
