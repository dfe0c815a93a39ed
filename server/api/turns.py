"""Routes for playing: turns, the log, the record, hints, resigning."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g

from server import idempotency
from server.api.games import state_response
from server.auth import login_required
from server.db import get_session
from server.games import store, turns
from server.games.views import turn_json
from server.validation import MAX_INT, int_field, json_body, query_int, text_field

bp = Blueprint("turns", __name__, url_prefix="/api/games/<int:game_id>")


@bp.post("/turns")
@login_required
def play(game_id: int) -> tuple[dict[str, Any], int]:
    """Play the caller's turn against the version they saw (`Idempotency-Key` makes it safe
    to retry)."""
    data = json_body()
    notation = text_field(data, "turn", max_length=200, hint=' (e.g. "USm@US1-US2 USf@DE2-US1")')
    version = int_field(data, "version", low=0, high=MAX_INT)
    assert version is not None
    idem = idempotency.from_request(g.player.id, data)
    result = turns.play_turn(
        get_session(),
        game_id=game_id,
        player=g.player,
        notation=notation,
        version=version,
        idem=idem,
    )
    return result, 201


@bp.get("/turns")
@login_required
def history(game_id: int) -> dict[str, Any]:
    """The game's log, oldest first."""
    session = get_session()
    game = store.load_game(session, game_id)
    names = game.state["players"] if game.state is not None else []
    return {"turns": [turn_json(t, names[t.seat]) for t in store.turn_log(session, game)]}


@bp.get("/record")
@login_required
def record(game_id: int) -> Response:
    """The text game record; the seed appears in it only once the game is over."""
    session = get_session()
    text = turns.record_text(session, store.load_game(session, game_id))
    return Response(text, mimetype="text/plain")


@bp.get("/hints")
@login_required
def hints(game_id: int) -> dict[str, Any]:
    """The caller's best turns now, best first (`?n=5`)."""
    n = query_int("n", default=5, low=1, high=50)
    found = turns.hints(get_session(), game_id=game_id, player=g.player, n=n)
    return {"hints": [{"turn": str(h.turn), "points": h.points} for h in found]}


@bp.post("/resign")
@login_required
def resign(game_id: int) -> Response:
    """Leave a running game; the caller ranks as eliminated now."""
    return state_response(turns.resign(get_session(), game_id=game_id, player=g.player), g.player)
