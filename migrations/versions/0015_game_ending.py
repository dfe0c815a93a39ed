"""Why a game ended and how its players left: `games.ending` (a `cafe.endings.Ending`), and
`left` (a `cafe.endings.Departure`) on each line of a finished game's standings.

Finished games get both from what is stored: the ending from the final position (rulebook
§10), or `others_left` when the game's last log entry took a player out; each player out
of the game left as their own last log entry says (`server.models.departure_of`).
Resignations logged before this revision do not say whether they came of a withdrawal from
a season, so they read as resignations.

Revision ID: 0015
Revises: 0013
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

from cafe import CafeError, Game
from cafe.endings import Departure, Ending
from server.models import departure_of

revision: str = '0015'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_GAMES = sa.table(
    'games',
    sa.column('id', sa.Integer),
    sa.column('status', sa.String),
    sa.column('state', sa.JSON),
    sa.column('standings', sa.JSON),
    sa.column('ending', sa.String),
)
_TURNS = sa.table(
    'turns',
    sa.column('game_id', sa.Integer),
    sa.column('number', sa.Integer),
    sa.column('seat', sa.Integer),
    sa.column('kind', sa.String),
    sa.column('detail', sa.JSON),
)


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('ending', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True)
        )
    connection = op.get_bind()
    finished = connection.execute(
        sa.select(_GAMES.c.id, _GAMES.c.state, _GAMES.c.standings).where(
            _GAMES.c.status == 'finished', _GAMES.c.state.is_not(None)
        )
    ).all()
    for game_id, state, standings in finished:
        if state is None:
            continue
        ending, left = _ending_and_departures(connection, game_id, state)
        lines = [{**line, 'left': left.get(line['player'])} for line in standings or []]
        connection.execute(
            _GAMES.update().where(_GAMES.c.id == game_id).values(ending=ending, standings=lines)
        )


def _ending_and_departures(
    connection: sa.Connection, game_id: int, state: dict
) -> tuple[str | None, dict[str, str]]:
    """Why the finished game ended, and how each player out of it left, from its log."""
    log = connection.execute(
        sa.select(_TURNS.c.seat, _TURNS.c.kind, _TURNS.c.detail)
        .where(_TURNS.c.game_id == game_id)
        .order_by(_TURNS.c.number)
    ).all()
    last = {seat: departure_of(kind, detail or {}) for seat, kind, detail in log}
    names = state['players']
    left = {
        names[seat]: str(how)
        for seat, how in last.items()
        if how is not None and state['eliminated'][seat]
    }
    final = departure_of(log[-1][1], log[-1][2] or {}) if log else None
    try:
        ending = (
            Ending.OTHERS_LEFT
            if final not in (None, Departure.ELIMINATED)
            else Game.from_position(state).ending
        )
    except CafeError:  # a snapshot the engine no longer reads keeps no ending
        ending = None
    return (None if ending is None else str(ending)), left


def downgrade() -> None:
    connection = op.get_bind()
    finished = connection.execute(
        sa.select(_GAMES.c.id, _GAMES.c.standings).where(_GAMES.c.standings.is_not(None))
    ).all()
    for game_id, standings in finished:
        lines = [{k: v for k, v in line.items() if k != 'left'} for line in standings or []]
        connection.execute(_GAMES.update().where(_GAMES.c.id == game_id).values(standings=lines))
    # In place (SQLite 3.35 drops a column itself): copying the table, as batch mode would,
    # cannot drop it while the turns and seats refer to it.
    with op.batch_alter_table('games', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('ending')
