"""HTML pages outside the JSON API: the one-click unsubscribe, and the development mail
viewer (`/dev/mail`, only with `DEV_MAIL`). Their templates are in `templates/web/`."""

from __future__ import annotations

from flask import Flask

from server.web import devmail, unsubscribe


def init_app(app: Flask) -> None:
    """Register the pages (the mail viewer only when `DEV_MAIL` is on)."""
    app.register_blueprint(unsubscribe.bp)
    if app.config["DEV_MAIL"]:
        app.register_blueprint(devmail.bp)
