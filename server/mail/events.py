"""Turning a batch of claimed events into messages, from the games as they are now.

A game change queues events (`server.postbox.outgoing.Event`): who should hear of which
change, with nothing rendered. The worker prepares the rows it claimed (`Preparation`, one
event at a time) right before it sends them, so every email shows the game at send time and
only mail that still means something goes out:

- a "your turn", "another player's turn" or a reminder whose version is no longer the
  game's version, or whose game has finished, is **superseded**: a newer event (or "game
  over") says more, and a reminder of a turn already played means nothing. A reminder
  about several games (`more_games`: those due within the hour for one player) tells of
  those still waiting, in one email, and is superseded only when none is;
- an email the recipient's preferences do not want (`server.postbox.kinds.wants`, the one
  place that says it, per kind: reminders follow the `reminders` preference alone, the
  answer to an emailed turn and the notices of a time-out — `timed_out`, `removed`,
  `auto_vacation` — are always sent) is **skipped**: the change wrote only the events their
  readers wanted then (`server.postbox.recipients`), so this is a player who turned the
  email off since; "a player joined" and "the table is full" go to the game's creator, and
  follow the creator's `turn_emails`.

Each event is rendered in its reader's language and time zone (`reader`: the player it is
for, as they are when it is rendered — four players of one game each read their own), by
the renderer of its kind (`server.mail.batch.RENDERERS`), with what the batch loaded once
for all its events (`server.mail.batch.Batch`).

The email of a game's table talk (queued when its messages waited long enough,
`server.jobs.talk_mail`) carries the messages its reader was not emailed by the time it is
rendered; if another email of the game carried them all meanwhile, it is superseded.

Notices — league, vacation, invitation, the answers to emailed replies, an expired open
game — are rendered here from the facts their transaction stored (`server.mail.notices`),
and sign-in emails too (`server.mail.signin_mail`: their code exists only from the moment they are
rendered). Rows rendered when they were queued (digests) pass through
unchanged, and the batch keeps the order it was claimed in (the order each recipient's mail
leaves in). An error while rendering one event is that event's failure
only — except a database outage (`server.transactions.outage`): it is no event's fault, so
rendering stops there, and the events not rendered go back unsent without an attempt.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, select

from server.config import Settings
from server.i18n import reading
from server.mail import digest, notices, outgoing, signin_mail
from server.mail.batch import Batch
from server.models import GameRecord, GameStatus, OutboxMessage, OutboxStatus, Player
from server.postbox.kinds import EmailKind, why_unwanted
from server.transactions import outage

log = logging.getLogger(__name__)


@dataclass
class Prepared:
    """A claimed batch sorted out: messages to send (rendered), rows not to send with their
    status and reason, and rows whose rendering failed with the error."""

    ready: list[OutboxMessage] = field(default_factory=list)
    dropped: list[tuple[OutboxMessage, str, str]] = field(default_factory=list)
    broken: list[tuple[OutboxMessage, str]] = field(default_factory=list)


def unwanted(row: OutboxMessage, game: GameRecord, player: Player) -> tuple[str, str] | None:
    """Why an event is not to be sent now, as (status, reason), or None to send it."""
    if EmailKind(row.kind).rules.current_only:
        if game.status == GameStatus.FINISHED:
            return OutboxStatus.SUPERSEDED, f"game {game.id} is over"
        if row.version != game.version:
            return OutboxStatus.SUPERSEDED, f"game {game.id} is at version {game.version} now"
    why = why_unwanted(player, row.kind)
    return None if why is None else (OutboxStatus.SKIPPED, why)


def _waits_for(game: GameRecord, version: int, player: Player) -> bool:
    """Whether `game` is still at `version`, running, with `player` to move."""
    if game.version != version or game.status == GameStatus.FINISHED or game.state is None:
        return False
    return game.state["players"][game.state["to_move"]] == player.name


def prepare(engine: Engine, config: Settings, rows: Sequence[OutboxMessage]) -> Prepared:
    """Render the events among `rows` (filling in their message fields) or drop them."""
    return Preparation(engine, config, rows).finish()


class Preparation:
    """`prepare`, one event at a time: the worker renders the events of its next chunk one
    by one while the SMTP server reads the messages of this one (`server.jobs.worker`).

    Made, it has loaded what the events need (one session, a few queries); `render` renders
    the next few events, `finish` renders the rest, remembers the hints offered and
    closes the session; `discard` closes it without rendering more or remembering
    anything (the messages are not sent). After a database outage `render` renders nothing
    more and `finish` raises it: the events not rendered are not in `prepared`."""

    def __init__(self, engine: Engine, config: Settings, rows: Sequence[OutboxMessage]) -> None:
        self.prepared = Prepared(ready=[row for row in rows if row.body is not None])
        self._events = deque(row for row in rows if row.body is None)
        self._session: Session | None = None
        self._batch: Batch | None = None
        self._outage: Exception | None = None  # the database went away while rendering
        if self._events:
            self._session = Session(engine, expire_on_commit=False)
            try:
                self._batch = Batch(self._session, config, self._events)
            except BaseException:
                self._session.close()
                raise

    @property
    def waiting(self) -> int:
        """How many events are still to be rendered."""
        return len(self._events)

    def render(self, count: int = 1) -> None:
        """Render (or drop) the next `count` events, or as many as are left (none after an
        outage)."""
        for _ in range(min(count, len(self._events))):
            assert self._batch is not None and self._session is not None
            if self._outage is not None:
                return
            row = self._events.popleft()
            try:
                reason = render(self._batch, row)
            except Exception as error:  # a bug in one email must not stop the others
                if isinstance(error, SQLAlchemyError):
                    self._session.rollback()  # the next event gets a working transaction
                if outage(error):
                    self._events.appendleft(row)  # not rendered: it goes back unsent
                    self._outage = error
                    log.warning("rendering stopped: the database went away (%s)", error)
                    return
                log.exception("message %s (%s) could not be rendered", row.id, row.kind)
                failure = f"rendering failed: {type(error).__name__}: {error}"
                self.prepared.broken.append((row, failure))
                continue
            if reason is None:
                self.prepared.ready.append(row)
            else:
                self.prepared.dropped.append((row, *reason))

    def finish(self) -> Prepared:
        """Render the events left, remember the new offers of hints: the batch sorted out,
        its messages to send in the order they were claimed. Raises the database outage
        met while rendering, if any."""
        try:
            self.render(len(self._events))
            if self._outage is not None:
                raise self._outage
            if self._batch is not None:
                self._batch.store()
        finally:
            self.discard()
        self.prepared.ready.sort(key=lambda row: row.id or 0)
        return self.prepared

    def discard(self) -> None:
        """Close the session (the events not rendered yet stay so)."""
        if self._session is not None:
            self._session.close()
            self._session = None


def reader(batch: Batch, row: OutboxMessage) -> Player | None:
    """The player who will read `row`, whose language and time zone it is written in: the
    player of its seat, the game's creator for a lobby event, the player a notice or a
    sign-in email is addressed to (None: an address nobody plays with, read in English)."""
    if row.payload is not None and row.game_id is not None:
        return batch.session.get(Player, row.payload["player"])
    if row.game_id is None or row.seat is None:
        return batch.session.exec(select(Player).where(Player.email == row.to_addr)).first()
    if EmailKind(row.kind).rules.creator:
        game = batch.games.get(row.game_id)
        return None if game is None else batch.session.get(Player, game.creator_id)
    return batch.players.get((row.game_id, row.seat))


def render(batch: Batch, row: OutboxMessage) -> tuple[str, str] | None:
    """Render the event `row` into its own fields, in its reader's language and zone (all
    of it: subject, text and HTML); or why it is not to be sent."""
    player = reader(batch, row)
    if player is None:
        return _render(batch, row)
    with reading(player.language, player.timezone):
        return _render(batch, row)


def _render(batch: Batch, row: OutboxMessage) -> tuple[str, str] | None:
    if row.kind == EmailKind.DIGEST:
        return digest.render(batch.session, batch.config, row)
    if row.kind == EmailKind.TABLE_TALK:
        return _render_talk(batch, row)
    if row.payload is not None and row.game_id is None:
        outgoing.fill(row, notices.render(batch.config, row))
        return None
    if row.payload is not None:
        _render_about_game(batch, row)
        return None
    if EmailKind(row.kind).rules.signin:
        return signin_mail.render(batch.session, batch.config, row)
    assert row.game_id is not None and row.seat is not None
    if EmailKind(row.kind).rules.creator:
        return _render_lobby(batch, row)
    game = batch.games.get(row.game_id)
    player = batch.players.get((row.game_id, row.seat))
    if game is None or player is None or game.state is None:
        raise LookupError(f"game {row.game_id} has no player in seat {row.seat}")
    if row.more_games:
        return _render_reminders(batch, row, game, player)
    reason = unwanted(row, game, player)
    if reason is not None:
        return reason
    _fill(batch, row, game, player)
    return None


def _fill(batch: Batch, row: OutboxMessage, game: GameRecord, player: Player) -> None:
    """Render the game email `row.kind` about `game` for `player` into `row`."""
    turn = row.turn if EmailKind(row.kind).rules.names_turn else None
    outgoing.fill(row, batch.compose(row.kind, game, player, turn=turn, answering=row.answering))


def _render_reminders(
    batch: Batch, row: OutboxMessage, game: GameRecord, player: Player
) -> tuple[str, str] | None:
    """Render a reminder about several games (those due within the hour for one
    player): about those still waiting for the player at the version it was queued
    for — all of them in one email, or the one left as an ordinary reminder."""
    why = why_unwanted(player, row.kind)
    if why is not None:
        return OutboxStatus.SKIPPED, why
    assert game.id is not None and row.version is not None  # an event names its version
    asked = [(game.id, row.version), *((g, v) for g, v in row.more_games or ())]
    waiting = [
        batch.games[game_id]
        for game_id, version in asked
        if game_id in batch.games and _waits_for(batch.games[game_id], version, player)
    ]
    if not waiting:
        return OutboxStatus.SUPERSEDED, "every game of the reminder moved on"
    if len(waiting) == 1:
        _fill(batch, row, waiting[0], player)
    else:
        outgoing.fill(row, batch.compose_reminders(player, waiting))
    return None


def _render_talk(batch: Batch, row: OutboxMessage) -> tuple[str, str] | None:
    """Render the email of a game's table talk for the player it was queued for, from the
    messages not emailed to them by now (another email of the game may have carried them
    meanwhile: then there is nothing left to send)."""
    assert row.payload is not None and row.game_id is not None
    game = batch.games.get(row.game_id)
    player = batch.session.get(Player, row.payload["player"])
    if game is None or player is None:
        return OutboxStatus.SUPERSEDED, f"game {row.game_id} or its player is gone"
    why = why_unwanted(player, row.kind)
    if why is not None:
        return OutboxStatus.SKIPPED, why
    talk = batch.take_talk(game, player)
    if not talk:
        return OutboxStatus.SUPERSEDED, f"no table talk of game {row.game_id} left to email"
    outgoing.fill(row, batch.compose(row.kind, game, player, talk=talk))
    return None


def _render_about_game(batch: Batch, row: OutboxMessage) -> None:
    """Render a game email that tells of a moment too (the answer to a refused emailed
    turn) from the game as it is now and the facts it was queued with."""
    assert row.payload is not None and row.game_id is not None
    game = batch.games.get(row.game_id)
    player = batch.session.get(Player, row.payload["player"])
    if game is None or player is None:
        raise LookupError(f"game {row.game_id} or player {row.payload['player']} is gone")
    facts = notices.decode(EmailKind(row.kind), row.payload["facts"])
    outgoing.fill(row, batch.compose(row.kind, game, player, answering=row.answering, **facts))


def _render_lobby(batch: Batch, row: OutboxMessage) -> tuple[str, str] | None:
    """Render a `player_joined` or `table_full` event for the game's creator."""
    assert row.game_id is not None  # an event about a game
    game = batch.games.get(row.game_id)
    if game is None:
        raise LookupError(f"game {row.game_id} is gone")
    creator = batch.session.get(Player, game.creator_id)
    assert creator is not None
    why = why_unwanted(creator, row.kind)
    if why is not None:
        return OutboxStatus.SKIPPED, why
    outgoing.fill(row, batch.compose(row.kind, game, creator, join_order=row.seat))
    return None
