"""`POST /api/games/<id>/adjudicate`: a league's organiser ends one of its games, stuck for
a reason outside the rules, with its standings as they are (`server.league.adjudication`)."""

from __future__ import annotations

from flask import Blueprint, g

from server.api.games import state_of, with_etag
from server.apispec import validate
from server.auth import login_required
from server.config import current_settings
from server.db import get_session
from server.league import adjudication
from server.schemas.games import GamePublic
from server.schemas.leagues import AdjudicationCreate

bp = Blueprint("adjudication", __name__, url_prefix="/api/games/<int:game_id>")


@bp.post("/adjudicate")
@login_required
@validate(200, GamePublic, 403, 404, 409, 422, json=AdjudicationCreate)
def adjudicate(game_id: int, json: AdjudicationCreate) -> tuple[GamePublic, int, dict[str, str]]:
    """End a running league game now with its standings as they are (the organiser of its
    league), with a reason: it counts for the table and the ratings like any finished game,
    and its page, record and emails say it was adjudicated and why. 422: not a league game;
    409: the game is not running."""
    game = adjudication.adjudicate(
        get_session(),
        game_id=game_id,
        organiser=g.player,
        reason=json.reason,
        config=current_settings(),
    )
    return state_of(game, g.player), 200, with_etag(game, g.player)
