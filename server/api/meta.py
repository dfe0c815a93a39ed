"""Routes about the service itself: health check and the OpenAPI description."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from sqlalchemy import text

from server import apispec
from server.apispec import validate
from server.db import get_session

bp = Blueprint("meta", __name__)


@bp.get("/healthz")
@validate(200, None, public=True)
def healthz() -> dict[str, Any]:
    """200 when the database answers (a failure becomes 503 through the error handler)."""
    get_session().execute(text("SELECT 1"))
    return {"status": "ok", "database": "ok"}


@bp.get("/api/openapi.json")
@validate(200, None, public=True)
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 description of the API."""
    return apispec.document()
