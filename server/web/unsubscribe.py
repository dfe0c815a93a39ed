"""`/unsubscribe/<token>`: stop a player's game emails without signing in.

The token in every game email's unsubscribe link is signed (`server.postbox.addresses`), so
it is the only credential needed. `GET` shows a confirmation page with a button (link
checkers and mail scanners only ever GET); `POST` unsubscribes — it is also what mail
programs send for `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058). A token
that was not signed by this service, or has expired, names no link of ours: a 404 that
changes nothing.
"""

from __future__ import annotations

from flask import Blueprint, render_template

from server import preferences
from server.apispec import page
from server.config import current_settings
from server.db import get_session
from server.models import Player
from server.postbox.addresses import read_unsubscribe_token

bp = Blueprint("unsubscribe", __name__)


def _player(token: str) -> Player | None:
    config = current_settings()
    player_id = read_unsubscribe_token(
        config.verifying_keys, token, max_age_days=config.unsubscribe_link_days
    )
    return None if player_id is None else get_session().get(Player, player_id)


@bp.get("/unsubscribe/<token>")
@page(200, 404)
def confirm(token: str) -> tuple[str, int]:
    """Ask to confirm (a GET must not change anything)."""
    player = _player(token)
    if player is None:
        return render_template("web/unsubscribe.html", state="invalid"), 404
    return render_template("web/unsubscribe.html", state="confirm", player=player), 200


@bp.post("/unsubscribe/<token>")
@page(200, 404, 413)
def unsubscribe(token: str) -> tuple[str, int]:
    """Unsubscribe the player the token names."""
    player = _player(token)
    if player is None:
        return render_template("web/unsubscribe.html", state="invalid"), 404
    preferences.unsubscribe(get_session(), player)
    return render_template("web/unsubscribe.html", state="done", player=player), 200
