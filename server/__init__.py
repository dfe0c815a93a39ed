"""The Café International correspondence service: a Flask app over SQLModel.

`create_app()` is the application factory (gunicorn: `server:create_app()`); the operators'
console script is `server.cli` (`cafe-server`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from cafe.render.palette import PALETTE
from server import api, apispec, config, db, errors, logs, web

#: The repository's `templates/` (email pairs under `email/`, pages under `web/`).
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then `CAFE_*` environment variables, then `test_config`."""
    app = Flask(
        __name__, instance_relative_config=True, static_folder=None, template_folder=TEMPLATES
    )
    app.config.update(config.load(app.instance_path, overrides=test_config))
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.jinja_env.globals["palette"] = PALETTE
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)  # the default SQLite file's home
    logs.configure(app.config["LOG_LEVEL"])
    db.init_app(app)
    apispec.init_app(app)
    errors.init_app(app)
    logs.init_app(app)
    api.init_app(app)
    web.init_app(app)
    return app
