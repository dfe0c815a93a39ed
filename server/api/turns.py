"""Routes for playing: turns, the log, the record, hints, resigning."""

from __future__ import annotations

from flask import Blueprint, Response, g
from spectree.plugins.base import RawResponsePayload

from server import idempotency
from server.api.games import state_of, with_etag
from server.apispec import as_json, validate
from server.auth import login_required
from server.config import current_settings
from server.db import get_session, reads_then_one_write
from server.games import store, turns
from server.games.preview import preview_turn
from server.games.public import turn_entry
from server.schemas.games import (
    GamePublic,
    Hint,
    Hints,
    HintsQuery,
    TurnCreate,
    TurnHeaders,
    TurnLog,
    TurnPreview,
    TurnResult,
)

bp = Blueprint("turns", __name__, url_prefix="/api/games/<int:game_id>")


@bp.post("/turns")
@reads_then_one_write
@login_required
@validate(201, TurnResult, 403, 404, 409, 422, json=TurnCreate, headers=TurnHeaders)
def play(game_id: int, json: TurnCreate) -> tuple[RawResponsePayload, int]:
    """Play the caller's turn against the version they saw (`Idempotency-Key` makes it safe
    to retry)."""
    idem = idempotency.from_request(g.player.id, json.model_dump())
    result = turns.play_turn(
        get_session(),
        game_id=game_id,
        player=g.player,
        notation=json.turn,
        version=json.version,
        idem=idem,
        config=current_settings(),
    )
    return as_json(result), 201


@bp.post("/preview")
@login_required
@validate(200, TurnPreview, 403, 404, 409, 422, json=TurnCreate)
def preview(game_id: int, json: TurnCreate) -> TurnPreview:
    """What the caller's turn would score now, applying nothing (the engine's refusal if
    it is not legal)."""
    found = preview_turn(
        get_session(), game_id=game_id, player=g.player, notation=json.turn, version=json.version
    )
    return TurnPreview.model_validate(found)


@bp.get("/turns")
@login_required
@validate(200, TurnLog, 404)
def history(game_id: int) -> TurnLog:
    """The game's log, oldest first (a private game's only for its players and invitees)."""
    session = get_session()
    game = store.visible_game(session, store.load_game(session, game_id), g.player)
    names = game.state["players"] if game.state is not None else []
    return TurnLog(turns=[turn_entry(t, names[t.seat]) for t in store.turn_log(session, game)])


@bp.get("/record")
@login_required
@validate(200, None, 404, 409)
def record(game_id: int) -> Response:
    """The text game record; the seed appears in it only once the game is over (a private
    game's only for its players and invitees)."""
    session = get_session()
    game = store.visible_game(session, store.load_game(session, game_id), g.player)
    text = turns.record_text(session, game, config=current_settings())
    return Response(text, mimetype="text/plain")


@bp.get("/hints")
@login_required
@validate(200, Hints, 403, 404, 409, query=HintsQuery)
def hints(game_id: int, query: HintsQuery) -> Hints:
    """The caller's best turns now, best first (`?n=5`); while waiting for their turn, as
    if it were (`as_if_your_turn`)."""
    found, waiting = turns.hints(get_session(), game_id=game_id, player=g.player, n=query.n)
    return Hints(
        hints=[
            Hint(
                turn=str(h.turn),
                points=h.points,
                lowers_limit=h.lowers_limit,
                may_name_birthday=h.may_name_birthday,
            )
            for h in found
        ],
        as_if_your_turn=waiting,
    )


@bp.post("/resign")
@login_required
@validate(200, GamePublic, 403, 404, 409)
def resign(game_id: int) -> tuple[GamePublic, int, dict[str, str]]:
    """Leave a running game: the caller resigns, out of it and ranked below everyone still
    in."""
    game = turns.resign(get_session(), game_id=game_id, player=g.player, config=current_settings())
    return state_of(game, g.player), 200, with_etag(game, g.player)
