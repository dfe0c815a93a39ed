"""The public JSON of games and turns: stored rows into `server.schemas.games` models.

The one place that turns a stored game into what a client may see. The snapshot holds the
bag's order and the record holds the seed: only the listed public fields are copied out,
and the seed only once the game is finished.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from cafe.endings import Ending
from server.clock.store import SeatClocks
from server.league.labels import LeagueLabel
from server.models import GameRecord, GameStatus, TurnRecord, departure_of
from server.schemas.clock import ClockSettings
from server.schemas.games import (
    ClockPause,
    GamePublic,
    GameSummary,
    LeagueRef,
    Standing,
    TurnPublic,
)


def to_move_name(game: GameRecord) -> str | None:
    """The name of the player to move, or None when the game is not running."""
    if game.status != GameStatus.ACTIVE or game.state is None:
        return None
    return game.state["players"][game.state["to_move"]]


def etag(game: GameRecord, viewer_id: int) -> str:
    """The entity tag of `game` as `viewer_id` sees it (it changes with every version, and
    with the players' clock facts)."""
    return f"g{game.id}-v{game.version}.{game.clock_serial}-p{viewer_id}"


def list_etag(games: Sequence[GameRecord], query: str, viewer_id: int) -> str:
    """The entity tag of a list of games: it changes when any listed game changes, or the
    list's membership does."""
    listed = ",".join(f"{game.id}.{game.version}.{game.clock_serial}" for game in games)
    digest = hashlib.sha256(f"{viewer_id}?{query}|{listed}".encode()).hexdigest()
    return f"l{digest[:32]}"


def clock_of(game: GameRecord) -> ClockSettings | None:
    """The game's time control, or None for a game without a clock."""
    return None if game.clock is None else ClockSettings.model_validate(game.clock)


def deadline_of(game: GameRecord) -> datetime | None:
    """The deadline of the running game's player to move (None when not running)."""
    return game.deadline if game.status == GameStatus.ACTIVE else None


def league_ref(league: LeagueLabel | None) -> LeagueRef | None:
    """A league game's league, season and division as the API shows them."""
    if league is None:
        return None
    return LeagueRef(
        name=league.name,
        slug=league.slug,
        season=league.season,
        division=league.division,
        url=league.path,
    )


def summary(
    game: GameRecord, names: list[str], clocks: SeatClocks, league: LeagueLabel | None = None
) -> GameSummary:
    """A game in a list: enough to choose one to open or join."""
    assert game.id is not None
    return GameSummary(
        id=game.id,
        status=game.status,
        version=game.version,
        seats=game.seats,
        private=game.private,
        league=league_ref(league),
        players=names,
        to_move=to_move_name(game),
        scores=None if game.state is None else game.state["scores"],
        invited=game.invited,
        options=game.options,
        clock=clock_of(game),
        deadline=deadline_of(game),
        vacation_until=clocks.vacation_until,
        timeouts=clocks.timeouts,
        created_at=game.created_at,
    )


def public_state(
    game: GameRecord,
    names: list[str],
    creator: str,
    viewer: str,
    clocks: SeatClocks,
    league: LeagueLabel | None = None,
) -> GamePublic:
    """The full public state of a game as `viewer` sees it.

    `names` are the players in seat order once started, in join order before; `clocks`
    their clock facts in the same order; `league` the league of a league game.
    """
    assert game.id is not None
    view = GamePublic(
        id=game.id,
        status=game.status,
        version=game.version,
        seats=game.seats,
        creator=creator,
        options=game.options,
        invited=game.invited,
        rated=game.rated or game.season_id is not None,
        computers=list(game.computers),
        private=game.private,
        league=league_ref(league),
        players=names,
        your_seat=names.index(viewer) if viewer in names else None,
        to_move=to_move_name(game),
        clock=clock_of(game),
        deadline=deadline_of(game),
        vacation_until=clocks.vacation_until,
        timeouts=clocks.timeouts,
        created_at=game.created_at,
        started_at=game.started_at,
        finished_at=game.finished_at,
    )
    state = game.state
    if state is not None:
        view.turns = game.turn_count
        view.scores = state["scores"]
        view.hands = state["hands"]
        view.hand_limits = state["hand_limits"]
        view.eliminated = state["eliminated"]
        view.board = state["chairs"]
        view.bar = state["bar"]
        view.bag_size = len(state["bag"])
        view.birthday_nation = state.get("birthday_nation")
        view.birthday_player = state.get("birthday_player")
        view.elimination_order = state.get("elimination_order", [])
        view.commitment = game.commitment
    if game.status == GameStatus.FINISHED:
        view.standings = [Standing.model_validate(line) for line in game.standings or []]
        view.ending = None if game.ending is None else Ending(game.ending)
        view.seed = game.seed_hex
    held = next((hold for hold in game.clock_holds if hold["end"] is None), None)
    if held is not None and game.status == GameStatus.ACTIVE:
        view.clock_paused = ClockPause(since=held["start"], reason=held["reason"])
    return view


def turn_entry(turn: TurnRecord, player: str) -> TurnPublic:
    """One entry of a game's log (`left` only on an entry that took its player out)."""
    left = departure_of(turn.kind, turn.detail)
    return TurnPublic.model_validate(
        {
            "number": turn.number,
            "player": player,
            "kind": turn.kind,
            "turn": turn.notation,
            "points": turn.points,
            **turn.detail,
            **({"left": left} if left else {}),
            "created_at": turn.created_at,
        }
    )
