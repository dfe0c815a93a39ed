"""The application factory of the service (gunicorn: `server.app:create_app()`): the Flask
app with its settings, database, error handlers, API and pages. Only the processes that
serve HTTP (or build the app for a command) import it, and with it every blueprint.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from cafe.render.palette import PALETTE
from server import api, apispec, bodies, config, db, errors, i18n, logs, web
from server.clock import devclock

# Imported for what importing it does: it hands the domain the encoder of notices' facts
# (`server.postbox.notices`), which gunicorn's workers, loading this module only, lacked.
from server.mail import notices  # noqa: F401
from server.schemas.fields import StoredInt
from server.web import sessions


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then `CAFE_*` environment variables, then `overrides`
    (keyed like the variables without `CAFE_`: `{"SMTP_PORT": 2525}`); the settings are
    built once, here (`config.load`), and kept on the app (`config.settings_of`).

    Its instance folder (`config.instance_path()`) is created if missing: it is where the
    default SQLite file and the caught mail go.
    """
    # Pages render from the package data `server/templates/` (Flask resolves the folder
    # against the installed package's directory, wherever pip put it).
    app = Flask(
        __name__,
        instance_path=str(config.instance_path()),
        instance_relative_config=True,
        static_folder=None,
        template_folder="templates",
    )
    app.url_map.converters["int"] = StoredInt  # before any route: each one's ids checked
    settings = config.load(app.instance_path, overrides=overrides)
    config.attach(app, settings)
    app.json = apispec.JsonProvider(app)
    app.json.sort_keys = False
    app.jinja_env.globals["palette"] = PALETTE
    i18n.install(app.jinja_env)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)  # the default SQLite file's home
    logs.configure(settings.log_level)
    db.init_app(app)
    devclock.init_app(app)
    i18n.init_app(app, viewer=sessions.signed_in)  # before anything that may refuse a request
    bodies.init_app(app)  # an oversized body is a 413 before anything reads it as JSON
    apispec.init_app(app)
    errors.init_app(app)
    logs.init_app(app)
    api.init_app(app)
    web.init_app(app)
    proxies = settings.trusted_proxies
    if proxies:  # believe X-Forwarded-For/-Proto only from that many proxies in front
        behind = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)
        app.wsgi_app = behind  # type: ignore[method-assign]  # Flask's way to add middleware
    return app
