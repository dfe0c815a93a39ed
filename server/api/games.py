"""Routes for the lobby and game state: create, list, join, start, show."""

from __future__ import annotations

from flask import Blueprint, Response, g, request

from cafe import Options
from server.apispec import validate
from server.auth import login_required
from server.clock.store import seat_clocks
from server.config import current_settings
from server.db import get_session, reads_only
from server.games import store
from server.games.public import etag, list_etag, public_state, summary
from server.league import labels
from server.league.labels import LeagueLabel
from server.models import GameRecord, Player, utcnow
from server.schemas.games import (
    CacheHeaders,
    ComputerFill,
    GameCreate,
    GameList,
    GameListQuery,
    GamePublic,
)

bp = Blueprint("games", __name__, url_prefix="/api/games")


def state_of(
    game: GameRecord,
    viewer: Player,
    creator: str | None = None,
    league: LeagueLabel | None = None,
) -> GamePublic:
    """The game's public state as `viewer` sees it (`creator` and `league`: the creator's
    name and the game's league, if known; else they are looked up)."""
    session = get_session()
    if creator is None:
        found = session.get(Player, game.creator_id)
        assert found is not None
        creator = found.name
        league = labels.label(session, game)
    names = store.names_of(session, game)
    clocks = seat_clocks(game, names, utcnow())
    return public_state(game, names, creator, viewer.name, clocks, league)


def with_etag(game: GameRecord, viewer: Player) -> dict[str, str]:
    """The headers of a game's state: its entity tag for this viewer."""
    assert viewer.id is not None
    return {"ETag": f'"{etag(game, viewer.id)}"'}


def _not_modified(tag: str) -> Response:
    response = Response(status=304)
    response.set_etag(tag)
    return response


@bp.post("")
@login_required
@validate(201, GamePublic, 422, json=GameCreate)
def create(json: GameCreate) -> tuple[GamePublic, int, dict[str, str]]:
    """Open a new game with the caller seated."""
    options = json.options
    game = store.create_game(
        get_session(),
        creator=g.player,
        seats=json.seats,
        options=Options() if options is None else Options(**options.model_dump()),
        invite=json.invite or [],
        clock=None if json.clock is None else json.clock.model_dump(),
        rated=json.rated,
        private=json.private,
        auto_start=json.auto_start,
        computers=0 if json.computer is None else json.computer.seats,
        level=None if json.computer is None else json.computer.level,
        config=current_settings(),
    )
    headers = {**with_etag(game, g.player), "Location": f"/api/games/{game.id}"}
    return state_of(game, g.player, g.player.name), 201, headers


@bp.get("")
@login_required
@validate(200, GameList, also=(304,), query=GameListQuery, headers=CacheHeaders)
def list_games(query: GameListQuery) -> Response | tuple[GameList, int, dict[str, str]]:
    """Games newest first: `?status=open|active|finished`, `?mine=true`, `?limit=N`; each
    with its players' scores. `?status=open` without `mine` is the lobby: the games the
    caller could join. Private games are listed only to their players and invitees. The
    list's ETag changes when any listed game does."""
    found = store.list_games(
        get_session(),
        player=g.player,
        status=query.status,
        mine=query.mine == "true",
        limit=query.limit,
    )
    tag = list_etag([game for game, _ in found], request.query_string.decode(), g.player.id)
    if request.if_none_match.contains(tag):
        return _not_modified(tag)
    now = utcnow()
    leagues = labels.labels(get_session(), [game for game, _ in found])
    listed = [
        summary(game, names, seat_clocks(game, names, now), leagues.get(game.id or 0))
        for game, names in found
    ]
    return (
        GameList(games=listed),
        200,
        {"ETag": f'"{tag}"'},
    )


@bp.get("/<int:game_id>")
@reads_only
@login_required
@validate(200, GamePublic, 404, also=(304,), headers=CacheHeaders)
def show(game_id: int) -> Response | tuple[GamePublic, int, dict[str, str]]:
    """The public state; 304 when `If-None-Match` names the current ETag. A private game
    is a 404 to all but its players and invitees."""
    session = get_session()
    game, creator, league = store.load_game_and_creator(session, game_id)
    store.visible_game(session, game, g.player)
    tag = etag(game, g.player.id)
    if request.if_none_match.contains(tag):
        return _not_modified(tag)
    return state_of(game, g.player, creator, league), 200, with_etag(game, g.player)


@bp.post("/<int:game_id>/join")
@login_required
@validate(200, GamePublic, 403, 404, 409)
def join(game_id: int) -> tuple[GamePublic, int, dict[str, str]]:
    """Take a seat in an open game."""
    game = store.join_game(
        get_session(), game_id=game_id, player=g.player, config=current_settings()
    )
    return state_of(game, g.player), 200, with_etag(game, g.player)


@bp.post("/<int:game_id>/start")
@login_required
@validate(200, GamePublic, 403, 404, 409)
def start(game_id: int) -> tuple[GamePublic, int, dict[str, str]]:
    """Deal and begin (creator only)."""
    game = store.start_game(
        get_session(), game_id=game_id, player=g.player, config=current_settings()
    )
    return state_of(game, g.player), 200, with_etag(game, g.player)


@bp.post("/<int:game_id>/computers")
@login_required
@validate(200, GamePublic, 403, 404, 409, 422, json=ComputerFill)
def fill_with_computers(game_id: int, json: ComputerFill) -> tuple[GamePublic, int, dict[str, str]]:
    """Fill the open game's free seats with computer players and start it (creator only)."""
    game = store.fill_with_computers(
        get_session(), game_id=game_id, player=g.player, level=json.level, config=current_settings()
    )
    return state_of(game, g.player), 200, with_etag(game, g.player)
