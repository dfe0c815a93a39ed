"""`/players/<name>`: what anyone may see of a player (the API's profile): the rating, its
history as a chart with the same figures as a table, the leagues and recent games; and
`/ratings`, the rating list."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from server.apispec import page
from server.db import get_session
from server.league import public
from server.web.rating_chart import rating_chart
from server.web.sessions import signed_in

#: Players on one page of the rating list.
RATINGS_PAGE = 50

bp = Blueprint("player_pages", __name__)


@bp.get("/players/<name>")
@page(200, 404)
def show(name: str) -> str:
    """A player's public page (the name's case does not matter)."""
    profile = public.player_profile(get_session(), name)
    return render_template(
        "web/player.html",
        profile=profile,
        chart=rating_chart(profile.name, profile.history),
        ratings_page=RATINGS_PAGE,
    )


@bp.get("/ratings")
@page(200)
def ratings() -> str:
    """The rated players, best ordinal first, a page at a time (`?page=2`); the signed-in
    player's own row is marked, or, when it is on another page, their rank links there."""
    number = request.args.get("page", "1")
    current = int(number) if number.isdigit() and 0 < int(number) < 10**6 else 1
    rows, total = public.rating_list(
        get_session(), limit=RATINGS_PAGE, offset=(current - 1) * RATINGS_PAGE
    )
    viewer = signed_in()
    off_page = viewer is not None and all(row.player != viewer.name for row in rows)
    my_rank = public.rank_of(get_session(), viewer) if off_page and viewer is not None else None
    return render_template(
        "web/ratings.html",
        rows=rows,
        first_place=(current - 1) * RATINGS_PAGE + 1,
        page=current,
        pages=max(1, -(-total // RATINGS_PAGE)),
        me=None if viewer is None else viewer.name,
        my_rank=my_rank,
        my_page=None if my_rank is None else (my_rank - 1) // RATINGS_PAGE + 1,
    )
