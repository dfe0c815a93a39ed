"""A member the organiser removed from a running season is said so in their games too.

Until now the resignations a removal made were logged as a withdrawal's (`detail`
`{"withdrew": true}`), so a game's history and standings said "withdrew from the season"
where the season's table said "removed by the organiser". From here such a resignation
carries `"by_organiser": true` as well (`server.models.RESIGNATION_DETAILS`) and reads as
`removed`. The ones logged before get it from the membership: a member whose `departure` is
`removed` left every game of theirs in that season they had not finished by that removal
(a removed member cannot have withdrawn too), so their withdrawal resignations in the
season's games become removals, and the `left` of their line in a finished game's
standings with them. Nothing else changes: the games' versions, snapshots and logs' order
stay.

Revision ID: 0028
Revises: 0027
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: Written out here, as a migration must keep saying what it said.
WITHDREW, REMOVED = "withdrew", "removed"
BY_ORGANISER = "by_organiser"

_MEMBERS = sa.table(
    "season_members",
    sa.column("season_id", sa.Integer),
    sa.column("player_id", sa.Integer),
    sa.column("departure", sa.String),
)
_GAMES = sa.table(
    "games",
    sa.column("id", sa.Integer),
    sa.column("season_id", sa.Integer),
    sa.column("standings", sa.JSON),
)
_SEATS = sa.table(
    "game_seats",
    sa.column("game_id", sa.Integer),
    sa.column("player_id", sa.Integer),
    sa.column("seat", sa.Integer),
)
_PLAYERS = sa.table("players", sa.column("id", sa.Integer), sa.column("name", sa.String))
_TURNS = sa.table(
    "turns",
    sa.column("id", sa.Integer),
    sa.column("game_id", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("detail", sa.JSON),
)


def _removed_members_games(connection: sa.Connection) -> list[sa.Row[Any]]:
    """Each league game of a member the organiser removed from its season: the game, the
    member's seat and name, and the game's standings."""
    return list(
        connection.execute(
            sa.select(_GAMES.c.id, _SEATS.c.seat, _PLAYERS.c.name, _GAMES.c.standings)
            .join(_SEATS, _SEATS.c.game_id == _GAMES.c.id)
            .join(
                _MEMBERS,
                (_MEMBERS.c.season_id == _GAMES.c.season_id)
                & (_MEMBERS.c.player_id == _SEATS.c.player_id),
            )
            .join(_PLAYERS, _PLAYERS.c.id == _SEATS.c.player_id)
            .where(_MEMBERS.c.departure == REMOVED, _SEATS.c.seat.is_not(None))
            .order_by(_GAMES.c.id)
        )
    )


def _relabel(removing: bool) -> None:
    """Mark the removed members' withdrawal resignations and standings as removals
    (`removing`), or back as withdrawals."""
    connection = op.get_bind()
    old, new = (WITHDREW, REMOVED) if removing else (REMOVED, WITHDREW)
    for game_id, seat, name, standings in _removed_members_games(connection):
        resignations = connection.execute(
            sa.select(_TURNS.c.id, _TURNS.c.detail).where(
                _TURNS.c.game_id == game_id, _TURNS.c.seat == seat, _TURNS.c.kind == "resign"
            )
        ).all()
        for turn_id, detail in resignations:
            if not (detail or {}).get(WITHDREW):
                continue  # a resignation of their own, before the removal
            changed = {key: value for key, value in detail.items() if key != BY_ORGANISER}
            if removing:
                changed[BY_ORGANISER] = True
            connection.execute(
                _TURNS.update().where(_TURNS.c.id == turn_id).values(detail=changed)
            )
        if standings and any(line.get("player") == name for line in standings):
            lines = [
                {**line, "left": new}
                if line.get("player") == name and line.get("left") == old
                else line
                for line in standings
            ]
            connection.execute(
                _GAMES.update().where(_GAMES.c.id == game_id).values(standings=lines)
            )


def upgrade() -> None:
    _relabel(removing=True)


def downgrade() -> None:
    _relabel(removing=False)
