"""Turning a batch of claimed events into messages, from the games as they are now.

A game change queues events (`server.mail.outgoing.Event`): who should hear of which change,
with nothing rendered. The worker prepares the rows it claimed (`Preparation`, one event
at a time) right before it sends them, so every email shows the game at send time and only
mail that still means something goes out:

- a "your turn", "another player's turn" or a reminder whose version is no longer the
  game's version, or whose game has finished, is **superseded**: a newer event (or "game
  over") says more, and a reminder of a turn already played means nothing. A reminder
  about several games (`more_games`: those due within the hour for one player) tells of
  those still waiting, in one email, and is superseded only when none is;
- an email the recipient's preferences do not want (`server.games.notify`; reminders:
  the `reminders` preference alone) is **skipped**;
- "a player joined" and "the table is full" (to a game's creator) follow the creator's
  `turn_emails` as invitations do;
- "game started", "game over", the answer to an emailed turn and the notices of a
  time-out (`timed_out`, `removed`, `auto_vacation`) are always sent.

Sign-in emails are rendered here too (`server.signin`: their code exists only from the
moment they are rendered). Rows rendered when they were queued (invitations, digests,
refusals) pass through unchanged, and the batch keeps the order it was claimed in (the order
each recipient's mail leaves in). An error while rendering one event is that event's failure
only — except a database outage (`server.transactions.outage`): it is no event's fault, so
rendering stops there, and the events not rendered go back unsent without an attempt.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from server import signin
from server.config import Settings
from server.games import notify
from server.league import labels
from server.mail import messages, outgoing
from server.mail.addresses import ReplyAddress
from server.mail.facts import DigestGame, GameFacts, LoggedTurn, OfferedTurn
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    OfferedHints,
    OutboxMessage,
    OutboxStatus,
    Player,
    TurnEmails,
    TurnRecord,
    utcnow,
)
from server.transactions import outage

log = logging.getLogger(__name__)

#: Events that are out of date once their game has moved on.
CURRENT_ONLY = frozenset({"your_turn", "turn_played", "reminder"})
#: Notices of what the service did on a player's time-out: always sent.
NOTICES = frozenset({"timed_out", "removed", "auto_vacation"})


@dataclass
class Prepared:
    """A claimed batch sorted out: messages to send (rendered), rows not to send with their
    status and reason, and rows whose rendering failed with the error."""

    ready: list[OutboxMessage] = field(default_factory=list)
    dropped: list[tuple[OutboxMessage, str, str]] = field(default_factory=list)
    broken: list[tuple[OutboxMessage, str]] = field(default_factory=list)


def unwanted(row: OutboxMessage, game: GameRecord, player: Player) -> tuple[str, str] | None:
    """Why an event is not to be sent now, as (status, reason), or None to send it."""
    if row.kind in CURRENT_ONLY:
        if game.status == GameStatus.FINISHED:
            return OutboxStatus.SUPERSEDED, f"game {game.id} is over"
        if row.version != game.version:
            return OutboxStatus.SUPERSEDED, f"game {game.id} is at version {game.version} now"
    if row.kind == "reminder":
        wanted = player.reminders
        why = f"{player.name} turned reminders off"
    else:
        wanted = row.kind in NOTICES or {
            "your_turn": player.turn_emails == TurnEmails.EACH,
            "turn_played": player.turn_emails == TurnEmails.EACH and player.others_turns,
            "turn_confirmed": True,
        }.get(row.kind, player.turn_emails != TurnEmails.NONE)
        why = f"{player.name} chose turn_emails={player.turn_emails}"
    return None if wanted else (OutboxStatus.SKIPPED, why)


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
    by one while the SMTP server reads the messages of this one (`server.worker`).

    Made, it has loaded what the events need (one session, a few queries); `render` renders
    the next few events, `finish` renders the rest, remembers the hints offered and
    closes the session; `discard` closes it without rendering more or remembering
    anything (the messages are not sent). After a database outage `render` renders nothing
    more and `finish` raises it: the events not rendered are not in `prepared`."""

    def __init__(self, engine: Engine, config: Settings, rows: Sequence[OutboxMessage]) -> None:
        self.prepared = Prepared(ready=[row for row in rows if row.body is not None])
        self._events = deque(row for row in rows if row.body is None)
        self._session: Session | None = None
        self._batch: _Batch | None = None
        self._outage: Exception | None = None  # the database went away while rendering
        if self._events:
            self._session = Session(engine, expire_on_commit=False)
            try:
                self._batch = _Batch(self._session, config, self._events)
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
                reason = self._batch.render(row)
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
                self._batch.store_offers()
        finally:
            self.discard()
        self.prepared.ready.sort(key=lambda row: row.id or 0)
        return self.prepared

    def discard(self) -> None:
        """Close the session (the events not rendered yet stay so)."""
        if self._session is not None:
            self._session.close()
            self._session = None


class _Batch:
    """The games, recipients and facts a batch of events needs, each loaded once."""

    def __init__(self, session: Session, config: Settings, events: Sequence[OutboxMessage]) -> None:
        self.session = session
        self.config = config
        game_ids = {row.game_id for row in events if row.game_id is not None} | {
            game_id for row in events for game_id, _ in row.more_games or ()
        }
        # the recipients of the events about a game (a lobby event's seat is the joiner's)
        seats = {
            (row.game_id, row.seat)
            for row in events
            if row.game_id is not None and row.kind not in notify.LOBBY_EMAILS
        }
        self.games = {
            game.id: game
            for game in session.exec(select(GameRecord).where(col(GameRecord.id).in_(game_ids)))
        }
        self.players: dict[tuple[int, int], Player] = {}
        if seats:
            seated = session.exec(
                select(GameSeat.game_id, GameSeat.seat, Player)
                .join(Player, col(Player.id) == GameSeat.player_id)
                .where(  # by game first: the index on game_id narrows the pairs down
                    col(GameSeat.game_id).in_(game_ids),
                    tuple_(col(GameSeat.game_id), col(GameSeat.seat)).in_(seats),
                )
            )
            self.players = {(game_id, seat): player for game_id, seat, player in seated}
        self.facts: dict[int, GameFacts] = {}
        current = [(game.id, game.version) for game in self.games.values()]
        offered = session.execute(
            select(OfferedHints.game_id, OfferedHints.player_id, OfferedHints.hints).where(
                col(OfferedHints.game_id).in_(game_ids),  # the index, as above
                tuple_(col(OfferedHints.game_id), col(OfferedHints.version)).in_(current),
            )
        )
        self.offers = {
            (game_id, player_id): [OfferedTurn(**hint) for hint in hints]
            for game_id, player_id, hints in offered
        }
        self.new_offers: list[dict[str, Any]] = []
        self.recent = self._recent_turns()
        self.leagues = labels.labels(session, self.games.values())

    def _recent_turns(self) -> dict[int, list[LoggedTurn]]:
        """The end of each game's log (as `notify.recent_turns` reads it), in one query."""
        tails: dict[int, list[LoggedTurn]] = {
            game_id: [] for game_id, game in self.games.items() if game.state is not None
        }
        if not tails:
            return tails
        logged = self.session.execute(
            select(
                TurnRecord.game_id,
                TurnRecord.number,
                TurnRecord.seat,
                TurnRecord.kind,
                TurnRecord.notation,
                TurnRecord.points,
                TurnRecord.detail,
            )
            .join(GameRecord, col(GameRecord.id) == TurnRecord.game_id)
            .where(
                col(TurnRecord.game_id).in_(list(tails)),
                col(TurnRecord.number) > GameRecord.turn_count - (2 * GameRecord.seats + 2),
            )
            .order_by(col(TurnRecord.game_id), col(TurnRecord.number))
        )
        for game_id, number, seat, kind, notation, points, detail in logged:
            names = self.games[game_id].state["players"]  # type: ignore[index]
            tails[game_id].append(LoggedTurn(number, names[seat], kind, notation, points, detail))
        return {  # the window of `notify.recent_turns`, counted in players, not seats
            game_id: tail[-(2 * len(self.games[game_id].state["players"]) + 2) :]  # type: ignore[index]
            for game_id, tail in tails.items()
        }

    def hints(self, facts: GameFacts, player: Player) -> list[OfferedTurn]:
        """The turns a "your turn" email offers: those offered at this version already, or
        the engine's best (`notify.HINTS`), remembered by `store_offers`."""
        assert player.id is not None
        key = (facts.id, player.id)
        if key not in self.offers:
            self.offers[key] = [
                OfferedTurn(turn=str(turn), points=points)
                for turn, points in facts.engine.best_turns(notify.HINTS)
            ]
            self.new_offers.append(
                {
                    "game_id": facts.id,
                    "version": facts.version,
                    "player_id": player.id,
                    "hints": [{"turn": h.turn, "points": h.points} for h in self.offers[key]],
                    "created_at": utcnow(),
                }
            )
        return self.offers[key]

    def store_offers(self) -> None:
        """Remember the new offers, so a reply of `1`, `2` or `3` means what the email
        showed: one statement; an offer made by a refusal meanwhile is kept (the same turns)."""
        if not self.new_offers:
            return
        dialect = self.session.get_bind().dialect.name
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        table = OfferedHints.__table__  # type: ignore[attr-defined]
        # in key order: a rival worker inserting some of the same offers waits, never deadlocks
        offers = sorted(self.new_offers, key=lambda o: (o["game_id"], o["version"], o["player_id"]))
        self.session.execute(insert(table).on_conflict_do_nothing(), offers)
        self.session.commit()

    def render(self, row: OutboxMessage) -> tuple[str, str] | None:
        """Render `row` into its own fields; or why it is not to be sent."""
        if row.kind in signin.SIGNIN_KINDS:
            return signin.render(self.session, self.config, row)
        assert row.game_id is not None and row.seat is not None
        if row.kind in notify.LOBBY_EMAILS:
            return self._render_lobby(row)
        game = self.games.get(row.game_id)
        player = self.players.get((row.game_id, row.seat))
        if game is None or player is None or game.state is None:
            raise LookupError(f"game {row.game_id} has no player in seat {row.seat}")
        if row.more_games:
            return self._render_reminders(row, game, player)
        reason = unwanted(row, game, player)
        if reason is not None:
            return reason
        self._fill(row, game, player)
        return None

    def _fill(self, row: OutboxMessage, game: GameRecord, player: Player) -> None:
        """Render the game email `row.kind` about `game` for `player` into `row`."""
        facts = self._facts(game)
        extra: dict[str, Any] = {}
        if row.kind in ("your_turn", "reminder"):
            extra["hints"] = self.hints(facts, player)
        if row.kind in ("turn_confirmed", "timed_out", "removed"):
            extra["played"] = self._logged(facts, row.turn)
        elif row.kind == "reminder":
            extra["now"] = utcnow()
        elif row.kind == "auto_vacation":
            extra["bank_days"] = player.vacation_hours / 24
        running = game.status != GameStatus.FINISHED
        links = outgoing.links(
            self.config,
            player_id=player.id,
            reply=ReplyAddress(game.id, game.version, player.id) if running else None,  # type: ignore[arg-type]
        )
        rendered = notify.GAME_EMAILS[row.kind](
            facts, notify.recipient(player), links=links, **extra
        )
        row.to_addr = player.email
        row.subject = rendered.subject[:200]
        row.body = rendered.text
        row.html = rendered.html
        row.headers = outgoing.headers(
            self.config, links=links, game_id=game.id, answering=row.answering
        )

    def _render_reminders(
        self, row: OutboxMessage, game: GameRecord, player: Player
    ) -> tuple[str, str] | None:
        """Render a reminder about several games (those due within the hour for one
        player): about those still waiting for the player at the version it was queued
        for — all of them in one email, or the one left as an ordinary reminder."""
        if not player.reminders:
            return OutboxStatus.SKIPPED, f"{player.name} turned reminders off"
        asked = [(game.id, row.version), *((g, v) for g, v in row.more_games or ())]
        waiting = [
            self.games[game_id]
            for game_id, version in asked
            if game_id in self.games and _waits_for(self.games[game_id], version, player)
        ]
        if not waiting:
            return OutboxStatus.SUPERSEDED, "every game of the reminder moved on"
        if len(waiting) == 1:
            self._fill(row, waiting[0], player)
            return None
        games = []
        for each in waiting:
            facts = self._facts(each)
            best = self.hints(facts, player)
            games.append(DigestGame(game=facts, your_turn=True, best=best[0] if best else None))
        links = outgoing.links(self.config, player_id=player.id)
        rendered = messages.reminders(notify.recipient(player), games, links, utcnow())
        row.to_addr = player.email
        row.subject = rendered.subject[:200]
        row.body = rendered.text
        row.html = rendered.html
        row.headers = outgoing.headers(self.config, links=links)
        return None

    def _render_lobby(self, row: OutboxMessage) -> tuple[str, str] | None:
        """Render a `player_joined` or `table_full` event for the game's creator."""
        game = self.games.get(row.game_id)
        if game is None:
            raise LookupError(f"game {row.game_id} is gone")
        creator = self.session.get(Player, game.creator_id)
        assert creator is not None
        if creator.turn_emails == TurnEmails.NONE:
            return OutboxStatus.SKIPPED, f"{creator.name} chose turn_emails=none"
        names = list(
            self.session.exec(
                select(Player.name)
                .join(GameSeat, col(GameSeat.player_id) == Player.id)
                .where(GameSeat.game_id == game.id)
                .order_by(col(GameSeat.join_order))
            )
        )
        links = outgoing.links(self.config, player_id=creator.id)
        extra = {"auto_start": game.auto_start} if row.kind == "table_full" else {}
        build = messages.table_full if row.kind == "table_full" else messages.player_joined
        joiner = names[row.seat] if row.seat is not None and row.seat < len(names) else ""
        rendered = build(
            notify.recipient(creator),
            game_id=game.id,  # type: ignore[arg-type]
            joined=joiner,
            players=names,
            seats=game.seats,
            started=game.status != GameStatus.OPEN,
            links=links,
            **extra,
        )
        row.to_addr = creator.email
        row.subject = rendered.subject[:200]
        row.body = rendered.text
        row.html = rendered.html
        row.headers = outgoing.headers(self.config, links=links, game_id=game.id)
        return None

    def _facts(self, game: GameRecord) -> GameFacts:
        assert game.id is not None and game.state is not None
        if game.id not in self.facts:
            self.facts[game.id] = notify.facts_of(
                game, self.recent[game.id], self.leagues.get(game.id)
            )
        return self.facts[game.id]

    def _logged(self, facts: GameFacts, number: int | None) -> LoggedTurn:
        """The log entry `number` (a confirmed turn), from the facts or else the log."""
        for entry in facts.recent:
            if entry.number == number:
                return entry
        row = self.session.exec(
            select(TurnRecord).where(TurnRecord.game_id == facts.id, TurnRecord.number == number)
        ).one()
        return LoggedTurn(
            number=row.number,
            player=facts.state["players"][row.seat],
            kind=row.kind,
            notation=row.notation,
            points=row.points,
            detail=row.detail,
        )
