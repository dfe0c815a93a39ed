"""The emails a game change causes: events queued in the change's own transaction, which the
worker renders from the game as it is when it sends them (`server.mail.events`, with the
renderers of `server.mail.batch`), and the invitations (notices: `server.postbox.notices`).

Who hears what follows the players' preferences (`Player.turn_emails`, `others_turns`),
applied when the change is written (an event nobody wants is not written:
`server.postbox.recipients`) and again when the worker sends; the rules of each kind are in
`server.postbox.kinds`:

| email | `each` | `digest` | `none` |
|---|---|---|---|
| invitation, game started, game over | yes | yes | no |
| to a game's creator: a player joined, the table is full | yes | yes | no |
| your turn | yes | in the digest | no |
| another player's turn (if `others_turns`) | yes | in the digest | no |
| the answer to an emailed turn | yes | yes | yes |

A turn made by an emailed reply (`server.mail.replies`) comes with that reply (`by_email`):
the event of its confirmation and the record that the reply was handled are written in the
very transaction of the turn, so an emailed turn is applied and answered exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from server.config import Settings
from server.models import GameRecord, InboundMail, Player
from server.postbox import addresses, notices, outgoing
from server.postbox.addresses import ReplyAddress
from server.postbox.facts import Recipient
from server.postbox.kinds import EmailKind, wants


@dataclass(frozen=True, slots=True)
class EmailTurn:
    """A turn arriving by email: which message it was, to answer it and to handle it once."""

    message_key: str
    message_id: str | None
    player_id: int


def recipient(player: Player) -> Recipient:
    """The player as an email recipient."""
    assert player.id is not None
    return Recipient(
        player_id=player.id, name=player.name, email=player.email, timezone=player.timezone
    )


def players_named(session: Session, names: list[str]) -> dict[str, Player]:
    """The players with these names, by name."""
    rows = session.exec(select(Player).where(col(Player.name).in_(names))).all()
    return {player.name: player for player in rows}


def invitations(session: Session, *, game: GameRecord, creator: str, config: Settings) -> None:
    """Invite each player named in `game.invited`."""
    assert game.id is not None
    for player in players_named(session, game.invited).values():
        if not wants(player, EmailKind.INVITE):
            continue
        assert player.id is not None  # a reply of `join` takes the seat (`server.mail.replies`)
        reply = ReplyAddress(game.id, game.version, player.id)
        notices.queue(
            session,
            config,
            EmailKind.INVITE,
            to=player.email,
            recipient=recipient(player),
            creator=creator,
            game_id=game.id,
            seats=game.seats,
            options=game.options,
            links=addresses.links(config, player_id=player.id, reply=reply),
        )


def joined(
    session: Session, *, game: GameRecord, join_order: int, full: bool, config: Settings
) -> None:
    """Tell the creator of `game` that the player `join_order` took a seat (`table_full`
    when it was the last one); rendered by the worker (`server.mail.events`)."""
    assert game.id is not None
    outgoing.queue_events(
        session,
        config,
        [
            outgoing.Event(
                kind=EmailKind.TABLE_FULL if full else EmailKind.PLAYER_JOINED,
                game_id=game.id,
                version=game.version,
                seat=join_order,
            )
        ],
    )


def after_change(
    session: Session,
    *,
    game_id: int,
    version: int,
    state: dict[str, Any],
    finished: bool,
    mover: int | None,
    turn: int | None,
    by_email: EmailTurn | None = None,
    timed_out: str | None = None,
    config: Settings,
) -> None:
    """Queue the events of a game change (`change_events`) in one statement, and record an
    emailed turn as handled.
    """
    if by_email is not None and mover is not None:
        handled(session, by_email, game_id=game_id)
    outgoing.queue_events(
        session,
        config,
        change_events(
            game_id=game_id,
            version=version,
            state=state,
            finished=finished,
            mover=mover,
            turn=turn,
            by_email=by_email,
            timed_out=timed_out,
        ),
    )


def handled(session: Session, by_email: EmailTurn, *, game_id: int) -> None:
    """Record the emailed turn `by_email` as applied (in the change's transaction)."""
    session.add(
        InboundMail(
            message_key=by_email.message_key,
            player_id=by_email.player_id,
            game_id=game_id,
            outcome="applied",
        )
    )


def change_events(
    *,
    game_id: int,
    version: int,
    state: dict[str, Any],
    finished: bool,
    mover: int | None,
    turn: int | None,
    by_email: EmailTurn | None = None,
    timed_out: str | None = None,
) -> list[outgoing.Event]:
    """The events of a game's start (`mover` is None) or of a turn or resignation by seat
    `mover` that wrote log entry `turn`: one small row per recipient. `timed_out` is the
    kind of the dedicated notice to `mover` when the service acted for them on time-out
    (`timed_out`: a turn played for them, `removed`); the others hear of it in their usual
    emails.

    Nothing is rendered or read here: the events are written for the readers who want them
    (`server.postbox.recipients`), and the worker renders each from the game as it is when
    it sends it, applying the recipient's preferences again (`server.mail.events`).
    """
    seats = range(len(state["players"]))
    events: list[tuple[EmailKind, int]] = []  # in the order each recipient is to read them
    if by_email is not None and mover is not None:
        events.append((EmailKind.TURN_CONFIRMED, mover))
    if timed_out is not None and mover is not None:  # before "game over": what ended it
        events.append((EmailKind(timed_out), mover))
    if finished:
        events += [(EmailKind.GAME_OVER, seat) for seat in seats]
    else:
        to_move: int = state["to_move"]
        if mover is None:
            events += [(EmailKind.GAME_STARTED, seat) for seat in seats]
        events.append((EmailKind.YOUR_TURN, to_move))
        if mover is not None:
            events += [(EmailKind.TURN_PLAYED, s) for s in seats if s not in (mover, to_move)]
    answering = by_email.message_id if by_email is not None else None
    return [
        outgoing.Event(
            kind=kind,
            game_id=game_id,
            version=version,
            seat=seat,
            turn=turn if kind.rules.names_turn else None,
            answering=answering if kind is EmailKind.TURN_CONFIRMED else None,
        )
        for kind, seat in events
    ]
