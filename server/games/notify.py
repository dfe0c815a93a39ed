"""The emails a game change causes: events queued in the change's own transaction, and
the facts and hints the worker renders them from (`server.mail.events`).

Who hears what follows the players' preferences (`Player.turn_emails`, `others_turns`),
applied when the worker sends:

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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from server.clock.store import seat_clocks
from server.config import Settings
from server.league import labels
from server.league.labels import LeagueLabel
from server.mail import messages, outgoing
from server.mail.addresses import ReplyAddress
from server.mail.facts import GameFacts, LoggedTurn, OfferedTurn, Recipient
from server.mail.templates import Rendered
from server.models import (
    GameRecord,
    GameStatus,
    InboundMail,
    OfferedHints,
    Player,
    TurnEmails,
    TurnRecord,
    utcnow,
)

#: The key in `Session.info` under which an emailed turn waits for its confirmation.
#: How many turns a "your turn" email offers.
HINTS = 3
#: The emails about a game, by kind (the outbox's `kind`), and their builders.
GAME_EMAILS: dict[str, Callable[..., Rendered]] = {
    "game_started": messages.game_started,
    "your_turn": messages.your_turn,
    "turn_played": messages.turn_played,
    "turn_confirmed": messages.turn_confirmed,
    "turn_refused": messages.turn_refused,
    "game_over": messages.game_over,
    "reminder": messages.reminder,
    "timed_out": messages.timed_out,
    "removed": messages.removed,
    "auto_vacation": messages.auto_vacation,
}


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


#: The end of a game's log, newest first; plain columns, built once (the worker runs it for
#: every game it writes to).
_RECENT = (
    select(
        TurnRecord.number,
        TurnRecord.seat,
        TurnRecord.kind,
        TurnRecord.notation,
        TurnRecord.points,
        TurnRecord.detail,
    )
    .where(col(TurnRecord.game_id) == bindparam("game_id"))
    .order_by(col(TurnRecord.number).desc())
    .limit(bindparam("count"))
)


def recent_turns(session: Session, game_id: int, names: list[str]) -> list[LoggedTurn]:
    """The end of the game's log, oldest first: long enough to reach back past everyone's
    last turn (a round, plus room for resignations). Pending entries are included."""
    rows = session.execute(_RECENT, {"game_id": game_id, "count": 2 * len(names) + 2}).all()
    return [
        LoggedTurn(
            number=row.number,
            player=names[row.seat],
            kind=row.kind,
            notation=row.notation,
            points=row.points,
            detail=row.detail,
        )
        for row in reversed(rows)
    ]


def game_facts(session: Session, game_id: int) -> GameFacts:
    """The facts of a started game as it is stored now (for emails outside a change)."""
    game = session.get(GameRecord, game_id, populate_existing=True)
    assert game is not None and game.state is not None
    recent = recent_turns(session, game_id, game.state["players"])
    return facts_of(game, recent, labels.label(session, game))


def facts_of(
    game: GameRecord, recent: list[LoggedTurn], league: LeagueLabel | None = None
) -> GameFacts:
    """The facts of the started `game` as its row has them, with the end of its log and
    the league of a league game."""
    assert game.id is not None and game.state is not None
    finished = game.status == GameStatus.FINISHED
    names = list(game.state["players"])
    clocks = seat_clocks(game, names, utcnow())
    return GameFacts(
        id=game.id,
        version=game.version,
        state=game.state,
        commitment=game.commitment,
        seed_hex=game.seed_hex if finished else None,
        standings=game.standings or (),
        recent=recent,
        deadline=None if finished else game.deadline,
        away={
            name: until for name, until in zip(names, clocks.vacation_until, strict=True) if until
        },
        clock=game.clock,
        timeouts=dict(zip(names, clocks.timeouts, strict=True)),
        turn_count=game.turn_count,
        ending=game.ending if finished else None,
        league=league,
    )


def offered(session: Session, *, game_id: int, version: int, player_id: int) -> list[OfferedTurn]:
    """The turns offered to the player in the emails of this game version (none yet: [])."""
    stored = session.exec(
        select(OfferedHints.hints).where(
            OfferedHints.game_id == game_id,
            OfferedHints.version == version,
            OfferedHints.player_id == player_id,
        )
    ).first()
    return [OfferedTurn(**hint) for hint in stored or ()]


def offer_hints(session: Session, game: GameFacts, player: Player) -> list[OfferedTurn]:
    """The best turns for the player to move, remembered for a reply of `1`, `2` or `3`.

    An email at the same version offers the same turns (the first offer is kept).
    """
    assert player.id is not None
    stored = offered(session, game_id=game.id, version=game.version, player_id=player.id)
    if stored:
        return stored
    best = game.engine.best_turns(HINTS)
    hints = [OfferedTurn(turn=str(turn), points=points) for turn, points in best]
    session.add(
        OfferedHints(
            game_id=game.id,
            version=game.version,
            player_id=player.id,
            hints=[{"turn": h.turn, "points": h.points} for h in hints],
        )
    )
    return hints


def invitations(session: Session, *, game: GameRecord, creator: str, config: Settings) -> None:
    """Invite each player named in `game.invited`."""
    assert game.id is not None
    for player in players_named(session, game.invited).values():
        if player.turn_emails == TurnEmails.NONE:
            continue
        assert player.id is not None  # a reply of `join` takes the seat (`server.mail.replies`)
        reply = ReplyAddress(game.id, game.version, player.id)
        links = outgoing.links(config, player_id=player.id, reply=reply)
        rendered = messages.invite(
            recipient(player),
            creator=creator,
            game_id=game.id,
            seats=game.seats,
            options=game.options,
            links=links,
        )
        outgoing.queue(
            session, config, kind="invite", to=player.email, rendered=rendered, links=links
        )


#: Events about an open game, for its creator: a player took a seat, or the last one.
#: Their outbox row's `seat` is the join order of the player who joined.
LOBBY_EMAILS = frozenset({"player_joined", "table_full"})


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
                kind="table_full" if full else "player_joined",
                game_id=game.id,
                version=game.version,
                seat=join_order,
            )
        ],
    )


def send_game_email(
    session: Session,
    game: GameFacts,
    player: Player,
    kind: str,
    *,
    answering: str | None = None,
    config: Settings,
    **extra: Any,
) -> None:
    """Render one game email (`kind`, one of `GAME_EMAILS`) for `player` and queue it; its
    reply address names the version in `game` while the game runs."""
    running = not game.seed_hex
    assert player.id is not None
    links = outgoing.links(
        config,
        player_id=player.id,
        reply=ReplyAddress(game.id, game.version, player.id) if running else None,
    )
    rendered = GAME_EMAILS[kind](game, recipient(player), links=links, **extra)
    outgoing.queue(
        session,
        config,
        kind=kind,
        to=player.email,
        rendered=rendered,
        links=links,
        game_id=game.id,
        answering=answering,
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
    emailed turn as handled. `config`: the app's, when there is no app context (the sweep).
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

    Nothing is rendered or read here: the worker renders each event from the game as it is
    when it sends it, and applies the recipient's preferences then (`server.mail.events`).
    """
    seats = range(len(state["players"]))
    events: list[tuple[str, int]] = []  # in the order each recipient is to read them
    if by_email is not None and mover is not None:
        events.append(("turn_confirmed", mover))
    if timed_out is not None and mover is not None:  # before "game over": what ended it
        events.append((timed_out, mover))
    if finished:
        events += [("game_over", seat) for seat in seats]
    else:
        to_move: int = state["to_move"]
        if mover is None:
            events += [("game_started", seat) for seat in seats]
        events.append(("your_turn", to_move))
        if mover is not None:
            events += [("turn_played", s) for s in seats if s not in (mover, to_move)]
    answering = by_email.message_id if by_email is not None else None
    noticed = ("turn_confirmed", "timed_out", "removed")
    return [
        outgoing.Event(
            kind=kind,
            game_id=game_id,
            version=version,
            seat=seat,
            turn=turn if kind in noticed else None,
            answering=answering if kind == "turn_confirmed" else None,
        )
        for kind, seat in events
    ]
