"""The JSON API: one blueprint per area, all under `/api`."""

from __future__ import annotations

from flask import Flask

from server.api import accounts, games, leagues, meta, preferences, ratings, turns, vacation


def init_app(app: Flask) -> None:
    """Register the API blueprints."""
    for module in (accounts, preferences, vacation, games, turns, leagues, ratings, meta):
        app.register_blueprint(module.bp)
