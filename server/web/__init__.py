"""The web side: every game's page, signing in, the player's games and settings, the
one-click unsubscribe, and the development mail viewer (`/dev/mail`, only with
`DEV_MAIL`). Server-rendered from `templates/web/`; every page works without JavaScript."""

from __future__ import annotations

from flask import Flask

from server.web import account_pages, devmail, game_pages, sessions, unsubscribe


def init_app(app: Flask) -> None:
    """Register the pages (the mail viewer only when `DEV_MAIL` is on)."""
    sessions.init_app(app)
    app.register_blueprint(account_pages.bp)
    app.register_blueprint(game_pages.bp)
    app.register_blueprint(unsubscribe.bp)
    if app.config["DEV_MAIL"]:
        app.register_blueprint(devmail.bp)
