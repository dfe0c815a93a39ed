"""Routes for the caller's email preferences: `GET` and `PATCH /api/me/preferences`."""

from __future__ import annotations

from flask import Blueprint, g

from server import preferences
from server.apispec import validate
from server.auth import login_required
from server.db import get_session
from server.schemas.accounts import Preferences, PreferencesUpdate

bp = Blueprint("preferences", __name__, url_prefix="/api/me")


@bp.get("/preferences")
@login_required
@validate(200, Preferences)
def show() -> Preferences:
    """The caller's preferences."""
    return Preferences.model_validate(g.player)


@bp.patch("/preferences")
@login_required
@validate(200, Preferences, json=PreferencesUpdate)
def change(json: PreferencesUpdate) -> Preferences:
    """Change some preferences (`{"turn_emails": "digest"}`); answers with all of them."""
    changes = json.model_dump(exclude_unset=True)
    player = preferences.update(get_session(), g.player, changes)
    return Preferences.model_validate(player)
