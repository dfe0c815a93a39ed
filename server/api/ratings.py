"""Routes for ratings and players' public profiles (docs/league.md)."""

from __future__ import annotations

from flask import Blueprint

from server.apispec import validate
from server.db import get_session
from server.league import public
from server.schemas.leagues import PlayerProfile, RatingList, RatingsQuery

bp = Blueprint("ratings", __name__, url_prefix="/api")


@bp.get("/ratings")
@validate(200, RatingList, public=True, query=RatingsQuery)
def rating_list(query: RatingsQuery) -> RatingList:
    """The rated players, best ordinal (mu − 3·sigma) first."""
    rows, total = public.rating_list(get_session(), limit=query.limit, offset=query.offset)
    return RatingList(ratings=rows, total=total)


@bp.get("/players/<name>")
@validate(200, PlayerProfile, 404, public=True)
def profile(name: str) -> PlayerProfile:
    """A player's public profile: rating and its history, leagues, recent finished games."""
    return public.player_profile(get_session(), name)
