"""The emails about a declared vacation (docs/league.md): "vacation
started" and "vacation ended", each sent once.

They are queued as notices (`server.mail.notices`: the facts of that moment, rendered by the
worker when it sends them) in the transaction that makes them true: declaring a vacation
that starts now queues "started", ending one early (`DELETE /api/me/vacation`) queues
"ended". What happens with time alone — a vacation declared for later begins, a vacation
reaches its end — the sweep (`server.jobs.sweep.announce`) finds through the index on
`vacations.notice_due` (when the next email of a vacation is due: its start, then its end;
None once it has nothing more to say) and queues in the transaction that moves
`notice_due` on.

Cancelling a vacation before it began sends nothing: nothing was paused.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from server.config import Settings
from server.games import notify
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    Player,
    Vacation,
)
from server.postbox import addresses, notices
from server.postbox.facts import VacationGame
from server.postbox.kinds import EmailKind


def games_of(session: Session, player: Player) -> list[VacationGame]:
    """The player's running games with a clock, in order, as a vacation email lists them
    (read fresh: the deadlines were just recomputed with bulk updates)."""
    rows = session.exec(
        select(GameRecord)
        .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
        .where(
            GameSeat.player_id == player.id,
            col(GameSeat.seat).is_not(None),
            GameRecord.status == GameStatus.ACTIVE,
            col(GameRecord.clock).is_not(None),
        )
        .order_by(col(GameRecord.id))
        .execution_options(populate_existing=True)
    ).all()
    listed = []
    for game in rows:
        assert game.id is not None and game.state is not None and game.clock is not None
        names = game.state["players"]
        if player.name not in names or game.state["eliminated"][names.index(player.name)]:
            continue  # removed or out of the game: no clock of theirs runs there
        moving = names[game.state["to_move"]] == player.name
        listed.append(
            VacationGame(
                id=game.id,
                opponents=[name for name in names if name != player.name],
                paused=bool(game.clock["vacation"]),
                deadline=game.deadline if moving else None,
            )
        )
    return listed


def queue(
    session: Session,
    config: Settings,
    player: Player,
    vacation: Vacation,
    notice: EmailKind,
    *,
    bank_days: float,
    early: bool = False,
) -> None:
    """Queue the `notice` about `vacation` for `player` (`vacation_started` or
    `vacation_ended`) with the facts of now (in the caller's transaction, after the
    deadlines were recomputed)."""
    moment = (
        {"until": vacation.end}
        if notice is EmailKind.VACATION_STARTED
        else {"ended": vacation.end, "early": early}
    )
    notices.queue(
        session,
        config,
        notice,
        to=player.email,
        recipient=notify.recipient(player),
        games=games_of(session, player),
        bank_days=bank_days,
        links=addresses.links(config, player_id=player.id),
        **moment,
    )
