"""Routes for the lobby and game state: create, list, join, start, show."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g, jsonify, request

from cafe import Options
from server.auth import login_required
from server.db import get_session
from server.games import store
from server.games.views import etag, game_json, summary_json
from server.models import GameRecord, Player
from server.validation import (
    bad_request,
    bool_field,
    int_field,
    json_body,
    query_bool,
    query_choice,
    query_int,
)

bp = Blueprint("games", __name__, url_prefix="/api/games")

STATUSES = ("open", "active", "finished")
OPTION_KEYS = frozenset({"birthday", "coffee_klatsch"})


def read_options(value: Any) -> Options:
    """The variants of RULES §11 from the request's `options` object."""
    if value is None:
        return Options()
    if not isinstance(value, dict) or not set(value) <= OPTION_KEYS:
        raise bad_request(
            "`options` must be an object with `birthday` (null or a points threshold) "
            "and `coffee_klatsch` (true or false)"
        )
    birthday = int_field(value, "birthday", low=1, high=1000, required=False)
    return Options(
        birthday=birthday, coffee_klatsch=bool_field(value, "coffee_klatsch", default=False)
    )


def read_invite(value: Any) -> list[str]:
    """The names in the request's `invite` list."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(
        isinstance(n, str) and 0 < len(n) <= 24 for n in value
    ):
        raise bad_request("`invite` must be a list of player names")
    return value


def state_response(
    game: GameRecord, viewer: Player, status: int = 200, creator: str | None = None
) -> Response:
    """The game's public state with its ETag (`creator`: the creator's name, if known)."""
    session = get_session()
    names = store.names_of(session, game)
    if creator is None:
        found = session.get(Player, game.creator_id)
        assert found is not None
        creator = found.name
    assert viewer.id is not None
    response = jsonify(game_json(game, names, creator, viewer.name))
    response.status_code = status
    response.set_etag(etag(game, viewer.id))
    return response


@bp.post("")
@login_required
def create() -> Response:
    """Open a new game with the caller seated."""
    data = json_body()
    seats = int_field(data, "seats", low=2, high=4)
    assert seats is not None
    game = store.create_game(
        get_session(),
        creator=g.player,
        seats=seats,
        options=read_options(data.get("options")),
        invite=read_invite(data.get("invite")),
    )
    response = state_response(game, g.player, 201)
    response.headers["Location"] = f"/api/games/{game.id}"
    return response


@bp.get("")
@login_required
def list_games() -> dict[str, Any]:
    """Games newest first: `?status=open|active|finished`, `?mine=true`, `?limit=N`."""
    found = store.list_games(
        get_session(),
        player=g.player,
        status=query_choice("status", STATUSES),
        mine=query_bool("mine"),
        limit=query_int("limit", default=50, low=1, high=200),
    )
    return {"games": [summary_json(game, names) for game, names in found]}


@bp.get("/<int:game_id>")
@login_required
def show(game_id: int) -> Response:
    """The public state; 304 when `If-None-Match` names the current ETag."""
    game, creator = store.load_game_and_creator(get_session(), game_id)
    tag = etag(game, g.player.id)
    if request.if_none_match.contains(tag):
        response = Response(status=304)
        response.set_etag(tag)
        return response
    return state_response(game, g.player, creator=creator)


@bp.post("/<int:game_id>/join")
@login_required
def join(game_id: int) -> Response:
    """Take a seat in an open game."""
    return state_response(
        store.join_game(get_session(), game_id=game_id, player=g.player), g.player
    )


@bp.post("/<int:game_id>/start")
@login_required
def start(game_id: int) -> Response:
    """Deal and begin (creator only)."""
    return state_response(
        store.start_game(get_session(), game_id=game_id, player=g.player), g.player
    )
