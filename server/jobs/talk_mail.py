"""The table talk that waited long enough, emailed alone (`server.games.talk`).

A message makes each other player's seat due (`GameSeat.talk_due`) after the wait their
`talk_emails` preference says: ten minutes for `each`, a day for `with_turns`. Every sweep
of the worker queues the email of each seat that is due and still has messages not
emailed to its player (another email of the game may have carried them meanwhile), and
clears the seat. Taking a seat is a compare-and-set on its `talk_due`, each in its own
short transaction, so with several workers each email is queued once.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from server.config import Settings
from server.games import talk
from server.models import GameSeat, Player, utcnow
from server.postbox import outgoing

#: At most this many seats are taken in one sweep (the rest in the next).
BATCH = 500


def queue_due(engine: Engine, config: Settings, now: datetime | None = None) -> int:
    """Queue the email of every seat whose talk is due; how many were queued."""
    now = now or utcnow()
    with Session(engine) as session:
        due = session.exec(
            select(GameSeat.id, GameSeat.talk_due)
            .where(col(GameSeat.talk_due) <= now)
            .order_by(col(GameSeat.talk_due))
            .limit(BATCH)
        ).all()
    queued = 0
    for seat_id, seen in due:
        with Session(engine, expire_on_commit=False) as session:
            taken = session.exec(
                update(GameSeat)
                .where(col(GameSeat.id) == seat_id, col(GameSeat.talk_due) == seen)
                .values(talk_due=None)
            )
            if taken.rowcount != 1:
                continue  # another worker took it
            seat = session.get_one(GameSeat, seat_id)
            player = session.get_one(Player, seat.player_id)
            waiting, _newest = talk.unmailed(session, seat.game_id, player)
            if waiting:
                outgoing.queue_talk(session, config, game_id=seat.game_id, player=player)
                queued += 1
            session.commit()
    return queued
