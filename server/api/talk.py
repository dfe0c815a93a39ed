"""Routes for table talk and mutes: `POST`/`GET /api/games/<id>/messages` and
`/api/me/mutes` (`server.games.talk`)."""

from __future__ import annotations

from flask import Blueprint, g

from server.apispec import validate
from server.auth import login_required
from server.db import get_session, reads_only
from server.games import talk
from server.games.talk import Said
from server.schemas.talk import MuteList, TalkCreate, TalkList, TalkMessage, TalkQuery

bp = Blueprint("talk", __name__, url_prefix="/api")


def _public(said: Said) -> TalkMessage:
    return TalkMessage(
        id=said.id, player=said.player, text=said.text, at=said.at, version=said.version
    )


@bp.post("/games/<int:game_id>/messages")
@login_required
@validate(201, TalkMessage, 403, 404, 429, json=TalkCreate)
def write(game_id: int, json: TalkCreate) -> tuple[TalkMessage, int]:
    """Write a message at the game's table (its players only, also once it is over); 429
    with `retry_after` past 30 messages in the game within the hour or 200 in all games
    within a day. The game's version and ETag do not change."""
    said = talk.post(get_session(), game_id=game_id, player=g.player, text=json.text)
    return _public(said), 201


@bp.get("/games/<int:game_id>/messages")
@reads_only
@login_required
@validate(200, TalkList, 403, 404, query=TalkQuery)
def read(game_id: int, query: TalkQuery) -> TalkList:
    """The game's table talk after the message `?after=ID`, oldest first, for its players
    and invitees (a private game is a 404 to anyone else, a public one a 403); the
    messages of the players the caller muted are left out."""
    session = get_session()
    game = talk.readable_game(session, game_id, g.player)
    said = talk.read(session, game, g.player, after=query.after)
    return TalkList(messages=[_public(one) for one in said])


@bp.get("/me/mutes")
@login_required
@validate(200, MuteList)
def mutes() -> MuteList:
    """The players the caller muted."""
    return MuteList(muted=talk.muted(get_session(), g.player))


@bp.put("/me/mutes/<name>")
@login_required
@validate(200, MuteList, 404, 422)
def mute(name: str) -> MuteList:
    """Mute a player: their messages are hidden from the caller in every game and never
    emailed to them (muting again changes nothing)."""
    return MuteList(muted=talk.mute(get_session(), g.player, name))


@bp.delete("/me/mutes/<name>")
@login_required
@validate(200, MuteList, 404)
def unmute(name: str) -> MuteList:
    """Hear a muted player again (one not muted: nothing changes)."""
    return MuteList(muted=talk.unmute(get_session(), g.player, name))
