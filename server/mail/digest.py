"""The daily digest, rendered when the worker sends it: the games of the player that wait
for them (each with its deadline, the time left, the best turn's command and its page) and,
if they asked to hear of others' turns, the turns played since the period began. Queued by
the worker's digest job (`server.jobs.digest`) with its facts — the player, when the period
began and the moment of the digest — and rendered from the games as they are when sent,
like every other email; one with nothing left to say by then is superseded.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from server.config import Settings
from server.games import notify
from server.mail import messages, outgoing
from server.mail.batch import Batch
from server.mail.facts import DigestGame, LoggedTurn, OfferedTurn
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    OutboxMessage,
    OutboxStatus,
    Player,
    TurnRecord,
)
from server.postbox import addresses
from server.postbox.kinds import why_unwanted


def render(session: Session, config: Settings, row: OutboxMessage) -> tuple[str, str] | None:
    """Fill in the digest `row` as the worker sends it; or why it is not sent."""
    assert row.payload is not None
    player = session.get(Player, row.payload["player"])
    if player is None:
        raise LookupError(f"player {row.payload['player']} is gone")
    why = why_unwanted(player, row.kind)
    if why is not None:
        return OutboxStatus.SKIPPED, why
    since = datetime.fromisoformat(row.payload["since"])
    games = games_of(session, config, player, since=since)
    if not games:
        return OutboxStatus.SUPERSEDED, "nothing waits for the player any more"
    links = addresses.links(config, player_id=player.id)
    rendered = messages.digest(
        notify.recipient(player), games, links, datetime.fromisoformat(row.payload["at"])
    )
    headers = outgoing.headers(config, links=links)
    outgoing.fill(row, outgoing.Composed(player.email, rendered, headers))
    return None


def games_of(
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
