"""The daily digest for players who chose `turn_emails = digest`, queued by the worker.

Every `DIGEST_HOURS` a digest player gets one email listing their running games that wait
for them (each with its deadline, the time left, the best turn's command and its page)
and, if they asked to hear of others' turns, the turns played since the last digest. A
digest with nothing to say is not sent. Taking the period is a compare-and-set on
`Player.last_digest_at`, so with several workers each digest is queued once. The digest
has no reply address: several games cannot share one. It is rendered when queued, in its
reader's language and time zone.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, or_, update
from sqlmodel import Session, col, select

from server.config import Settings
from server.games import notify
from server.i18n import reading
from server.mail import messages, outgoing
from server.mail.batch import Batch
from server.mail.facts import DigestGame, LoggedTurn, OfferedTurn
from server.models import GameRecord, GameSeat, GameStatus, Player, TurnEmails, TurnRecord, utcnow


def _due(period: timedelta, now: datetime) -> Any:
    # the digest's audience (`server.mail.kinds.Audience.DIGEST`), as a query
    return (col(Player.turn_emails) == TurnEmails.DIGEST) & or_(
        col(Player.last_digest_at).is_(None), col(Player.last_digest_at) <= now - period
    )


def queue_due(engine: Engine, config: Settings, now: datetime | None = None) -> int:
    """Queue every digest that is due; how many were queued."""
    now = now or utcnow()
    period = timedelta(hours=config.digest_hours)
    with Session(engine) as session:
        due = session.exec(select(Player).where(_due(period, now))).all()
    queued = 0
    for player in due:
        with Session(engine, expire_on_commit=False) as session:
            taken = session.execute(
                update(Player)
                .where(col(Player.id) == player.id, _due(period, now))
                .values(last_digest_at=now)
            )
            if taken.rowcount != 1:  # type: ignore[attr-defined]
                continue  # another worker took this period
            games = _games(session, config, player, since=player.last_digest_at or now - period)
            if games:
                links = outgoing.links(config, player_id=player.id)
                with reading(player.language, player.timezone):
                    rendered = messages.digest(notify.recipient(player), games, links, now)
                outgoing.queue(
                    session, config, kind="digest", to=player.email, rendered=rendered, links=links
                )
                queued += 1
            session.commit()
    return queued


def _games(
    session: Session, config: Settings, player: Player, *, since: datetime
) -> list[DigestGame]:
    """The player's running games that wait for them or (if wanted) saw turns since."""
    game_ids = session.exec(
        select(GameRecord.id)
        .join(GameSeat, col(GameSeat.game_id) == GameRecord.id)
        .where(GameSeat.player_id == player.id, GameRecord.status == GameStatus.ACTIVE)
        .order_by(col(GameRecord.id))
    ).all()
    batch = Batch(session, config, (), games=filter(None, game_ids))
    found = []
    for game_id in game_ids:
        assert game_id is not None
        game = batch.facts(batch.games[game_id])
        state = game.state
        your_turn = state["players"][state["to_move"]] == player.name
        played = _played_since(session, game_id, state["players"], player, since)
        if not your_turn and not played:
            continue
        best = None
        if your_turn:
            turns = game.engine.best_turns(1)
            best = OfferedTurn(str(turns[0][0]), turns[0][1]) if turns else None
        found.append(DigestGame(game=game, your_turn=your_turn, best=best, played=played))
    return found


def _played_since(
    session: Session, game_id: int, names: list[str], player: Player, since: datetime
) -> list[LoggedTurn]:
    """Others' turns since `since`, for a player who wants to hear of them."""
    if not player.others_turns:
        return []
    rows = session.exec(
        select(TurnRecord)
        .where(TurnRecord.game_id == game_id, col(TurnRecord.created_at) > since)
        .order_by(col(TurnRecord.number))
    ).all()
    entries = [
        LoggedTurn(row.number, names[row.seat], row.kind, row.notation, row.points, row.detail)
        for row in rows
    ]
    return [entry for entry in entries if entry.player != player.name]
