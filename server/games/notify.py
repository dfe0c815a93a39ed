"""The emails a game change causes, queued in the change's own transaction.

Only public facts go in: names, scores, hands (hands are face up, RULES §3), the last turn.
The seed appears only in the game-over email, when the rules reveal it.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from server import mail
from server.models import GameRecord, Player


def _emails(session: Session, names: list[str]) -> dict[str, str]:
    rows = session.exec(select(Player.name, Player.email).where(col(Player.name).in_(names)))
    return dict(rows.all())


def invitations(session: Session, *, game: GameRecord, creator: str) -> None:
    """Invite each player named in `game.invited`."""
    for name, email in _emails(session, game.invited).items():
        mail.enqueue(
            session,
            to=email,
            template="invite",
            name=name,
            creator=creator,
            game_id=game.id,
            seats=game.seats,
        )


def after_change(
    session: Session,
    *,
    game_id: int,
    version: int,
    state: dict[str, Any],
    finished: bool,
    standings: list[dict[str, Any]] | None,
    seed_hex: str | None,
    last: str | None,
) -> None:
    """'Your turn' to the player to move, or 'game over' to everyone once it has ended.

    `last` says what just happened ("ann played … for 9 points"), None at the start.
    """
    players: list[str] = state["players"]
    emails = _emails(session, players)
    if finished:
        for name in players:
            mail.enqueue(
                session,
                to=emails[name],
                template="game_over",
                name=name,
                game_id=game_id,
                standings=standings,
                seed=seed_hex,
            )
        return
    seat = state["to_move"]
    name = players[seat]
    mail.enqueue(
        session,
        to=emails[name],
        template="your_turn",
        name=name,
        game_id=game_id,
        version=version,
        last=last,
        scores=", ".join(f"{p} {s}" for p, s in zip(players, state["scores"], strict=True)),
        hand=" ".join(state["hands"][seat]),
    )
