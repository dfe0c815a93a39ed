"""`/players/<name>`: what anyone may see of a player (the API's profile): the rating, its
history as a chart with the same figures as a table, the leagues and recent games."""

from __future__ import annotations

from flask import Blueprint, render_template

from server.apispec import page
from server.db import get_session
from server.league import views
from server.web.rating_chart import rating_chart

bp = Blueprint("player_pages", __name__)


@bp.get("/players/<name>")
@page(200, 404)
def show(name: str) -> str:
    """A player's public page (the name's case does not matter)."""
    profile = views.player_profile(get_session(), name)
    return render_template(
        "web/player.html", profile=profile, chart=rating_chart(profile.name, profile.history)
    )
