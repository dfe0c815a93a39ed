"""The public JSON of games and turns.

The one place that turns a stored game into what a client may see. The snapshot holds the
bag's order and the record holds the seed: only the listed public fields are copied out,
and the seed only once the game is finished.
"""

from __future__ import annotations

from typing import Any

from server.models import GameRecord, TurnRecord, iso


def to_move_name(game: GameRecord) -> str | None:
    """The name of the player to move, or None when the game is not running."""
    if game.status != "active" or game.state is None:
        return None
    return game.state["players"][game.state["to_move"]]


def etag(game: GameRecord, viewer_id: int) -> str:
    """The entity tag of `game` as `viewer_id` sees it (it changes with every version)."""
    return f"g{game.id}-v{game.version}-p{viewer_id}"


def summary_json(game: GameRecord, names: list[str]) -> dict[str, Any]:
    """A game in a list: enough to choose one to open or join."""
    return {
        "id": game.id,
        "status": game.status,
        "version": game.version,
        "seats": game.seats,
        "players": names,
        "to_move": to_move_name(game),
        "options": game.options,
        "created_at": iso(game.created_at),
    }


def game_json(game: GameRecord, names: list[str], creator: str, viewer: str) -> dict[str, Any]:
    """The full public state of a game as `viewer` sees it.

    `names` are the players in seat order once started, in join order before.
    """
    state = game.state
    data: dict[str, Any] = {
        "id": game.id,
        "status": game.status,
        "version": game.version,
        "seats": game.seats,
        "creator": creator,
        "options": game.options,
        "invited": game.invited,
        "players": names,
        "your_seat": names.index(viewer) if viewer in names else None,
        "to_move": to_move_name(game),
        "deadline": None,
        "created_at": iso(game.created_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
    }
    if state is not None:
        data.update(
            turns=game.turn_count,
            scores=state["scores"],
            hands=state["hands"],
            hand_limits=state["hand_limits"],
            eliminated=state["eliminated"],
            board=state["chairs"],
            bar=state["bar"],
            bag_size=len(state["bag"]),
            birthday_nation=state.get("birthday_nation"),
            commitment=game.commitment,
        )
    if game.status == "finished":
        data.update(standings=game.standings, seed=game.seed_hex)
    return data


def turn_json(turn: TurnRecord, player: str) -> dict[str, Any]:
    """One entry of a game's log."""
    return {
        "number": turn.number,
        "player": player,
        "kind": turn.kind,
        "turn": turn.notation,
        "points": turn.points,
        **turn.detail,
        "created_at": iso(turn.created_at),
    }
