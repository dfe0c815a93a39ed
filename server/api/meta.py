"""Routes about the service itself: health check and the OpenAPI description."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app
from sqlalchemy import text

from server import apispec
from server.apispec import validate
from server.clock import devclock, timesource
from server.db import get_session
from server.models import iso

bp = Blueprint("meta", __name__)


@bp.get("/healthz")
@validate(200, None, public=True)
def healthz() -> dict[str, Any]:
    """200 when the database answers (a failure becomes 503 through the error handler);
    with the development clock on, the time it shows and its shift from the system's."""
    get_session().execute(text("SELECT 1"))
    health: dict[str, Any] = {"status": "ok", "database": "ok"}
    engine = current_app.extensions.get("cafe_dev_clock")
    if engine is not None:
        offset = devclock.read_offset(engine)
        health["dev_clock"] = {
            "now": iso(timesource.system_now() + offset),
            "shift_seconds": int(offset.total_seconds()),
            "warning": devclock.WARNING,
        }
    return health


@bp.get("/api/openapi.json")
@validate(200, None, public=True)
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 description of the API."""
    return apispec.document()
