"""Routes for the caller's email preferences: `GET` and `PATCH /api/me/preferences`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g

from server import preferences
from server.auth import login_required
from server.db import get_session
from server.validation import json_body

bp = Blueprint("preferences", __name__, url_prefix="/api/me")


@bp.get("/preferences")
@login_required
def show() -> dict[str, Any]:
    """The caller's preferences."""
    return preferences.preferences_json(g.player)


@bp.patch("/preferences")
@login_required
def change() -> dict[str, Any]:
    """Change some preferences (`{"turn_emails": "digest"}`); answers with all of them."""
    changes = preferences.read_changes(json_body())
    player = preferences.update(get_session(), g.player, changes)
    return preferences.preferences_json(player)
