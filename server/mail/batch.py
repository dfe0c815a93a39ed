"""Rendering game emails: the one path, for a batch of events or a batch of one.

A `Batch` loads what the emails about some games need — the games, their players by seat,
the turns offered at their current versions, the end of their logs, their leagues — each
in one query, and renders an email of a kind about a game for a player with the kind's
renderer (`RENDERERS`, one per kind, each a call of its builder in `server.mail.messages`).
The worker renders the events it claimed this way (`server.mail.events`), the answer to a
refused emailed turn too (queued with the facts of the refusal, `server.mail.notices`); the
daily digest reads its games' facts from a batch too (`server.mail.digest`).

The turns a "your turn" email offers are remembered (`OfferedHints`) so that a reply of `1`,
`2` or `3` means what the email showed: the first offer made at a version is kept, and the
new ones are written in one statement that leaves a rival's offer of the same turns alone.

An email of a kind that quotes table talk (`KindRules.talk`) carries the messages of the
game its reader was not emailed yet (`take_talk`, `server.games.talk.unmailed`): the batch
learns which of its games have talk in one query, quotes each reader's messages in the
first such email of the batch only, and remembers, with the offers, the newest message
each reader was emailed (`store`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from server.clock.store import seat_clocks
from server.config import Settings
from server.games import talk
from server.games.notify import recipient
from server.games.talk import Said
from server.league import labels
from server.league.labels import LeagueLabel
from server.mail import messages, outgoing
from server.mail.facts import DigestGame, GameFacts, LoggedTurn, OfferedTurn
from server.mail.outgoing import Composed
from server.mail.templates import Rendered
from server.models import (
    GameRecord,
    GameSeat,
    GameStatus,
    OfferedHints,
    OutboxMessage,
    Player,
    TurnRecord,
    select_columns,
    stored_id,
    table_of,
    utcnow,
)
from server.postbox import addresses
from server.postbox.addresses import ReplyAddress, TalkReplyAddress
from server.postbox.facts import Links, Recipient
from server.postbox.kinds import CREATOR_KINDS, EmailKind

#: How many turns a "your turn" email offers.
HINTS = 3


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


@dataclass(frozen=True)
class GameMail:
    """One email about a game for one player, as its renderer sees it: the game (its row,
    and the facts of a started game), the recipient, the links, the log entry it tells of
    (`turn`), the table talk it quotes (`talk`) and what the caller adds (`extra`)."""

    kind: EmailKind
    record: GameRecord
    player: Player
    links: Links
    batch: Batch
    turn: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    talk: Sequence[Said] = ()

    @property
    def game(self) -> GameFacts:
        """The facts of the started game."""
        return self.batch.facts(self.record)

    @property
    def to(self) -> Recipient:
        """The recipient."""
        return recipient(self.player)

    def hints(self) -> list[OfferedTurn]:
        """The turns the email offers (remembered)."""
        return self.batch.hints(self.game, self.player)

    def played(self) -> LoggedTurn:
        """The log entry `turn` the email tells of."""
        return self.batch.logged(self.game, self.turn)


Renderer = Callable[[GameMail], Rendered]


def _turn_refused(mail: GameMail) -> Rendered:
    state = mail.game.state
    to_move = not mail.game.seed_hex and state["players"][state["to_move"]] == mail.player.name
    hints = mail.hints() if to_move else []
    return messages.turn_refused(
        mail.game, mail.to, links=mail.links, hints=hints, talk=mail.talk, **mail.extra
    )


def _table_talk(mail: GameMail) -> Rendered:
    """The game's table talk the reader was not emailed with another email (a game that
    has not started yet too)."""
    game = mail.record
    assert game.id is not None
    players = game.state["players"] if game.state is not None else mail.batch.seated(game.id)
    return messages.table_talk(
        mail.to, game_id=game.id, players=players, talk=mail.talk, links=mail.links
    )


def _lobby(mail: GameMail) -> Rendered:
    """A player took a seat in the creator's open game (`extra["join_order"]`), or the last."""
    game = mail.record
    assert game.id is not None
    names = mail.batch.seated(game.id)
    order = mail.extra["join_order"]
    full = mail.kind is EmailKind.TABLE_FULL
    return (messages.table_full if full else messages.player_joined)(
        mail.to,
        game_id=game.id,
        joined=names[order] if order is not None and order < len(names) else "",
        players=names,
        seats=game.seats,
        started=game.status != GameStatus.OPEN,
        links=mail.links,
        **({"auto_start": game.auto_start} if full else {}),
    )


#: The renderer of each kind of game email: the worker renders the events of these kinds,
#: the answer to a refused emailed turn among them (with the facts it was queued with).
RENDERERS: dict[EmailKind, Renderer] = {
    EmailKind.PLAYER_JOINED: _lobby,
    EmailKind.TABLE_FULL: _lobby,
    EmailKind.GAME_STARTED: lambda m: messages.game_started(m.game, m.to, m.links, m.talk),
    EmailKind.YOUR_TURN: lambda m: messages.your_turn(m.game, m.to, m.hints(), m.links, m.talk),
    EmailKind.TURN_PLAYED: lambda m: messages.turn_played(m.game, m.to, m.links, m.talk),
    EmailKind.TURN_CONFIRMED: lambda m: messages.turn_confirmed(
        m.game, m.to, m.played(), m.links, m.talk
    ),
    EmailKind.TURN_REFUSED: _turn_refused,
    EmailKind.GAME_OVER: lambda m: messages.game_over(m.game, m.to, m.links, m.talk),
    EmailKind.REMINDER: lambda m: messages.reminder(
        m.game, m.to, m.hints(), utcnow(), m.links, m.talk
    ),
    EmailKind.TIMED_OUT: lambda m: messages.timed_out(m.game, m.to, m.played(), m.links, m.talk),
    EmailKind.REMOVED: lambda m: messages.removed(m.game, m.to, m.played(), m.links, m.talk),
    EmailKind.AUTO_VACATION: lambda m: messages.auto_vacation(
        m.game, m.to, m.player.vacation_hours / 24, m.links, m.talk
    ),
    EmailKind.TABLE_TALK: _table_talk,
}


class Batch:
    """The games, recipients and facts some emails about games need, each loaded once.

    `events`: the outbox rows to render (their games, and the players in their seats);
    `games`: the ids of further games to load (their players are not loaded)."""

    def __init__(
        self,
        session: Session,
        config: Settings,
        events: Sequence[OutboxMessage],
        *,
        games: Iterable[int] = (),
    ) -> None:
        self.session = session
        self.config = config
        game_ids = (
            {row.game_id for row in events if row.game_id is not None}
            | {game_id for row in events for game_id, _ in row.more_games or ()}
            | set(games)
        )
        # the recipients of the events about a game (a lobby event's seat is the joiner's)
        seats = {
            (row.game_id, row.seat)
            for row in events
            if row.game_id is not None and row.seat is not None and row.kind not in CREATOR_KINDS
        }
        self.games = dict(
            session.exec(
                select(stored_id(GameRecord.id), GameRecord)
                .where(col(GameRecord.id).in_(game_ids))
                .execution_options(populate_existing=True)  # as stored now
            ).all()
        )
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
            for game_id, seat, player in seated:
                assert seat is not None  # asked for by seat
                self.players[game_id, seat] = player
        self._facts: dict[int, GameFacts] = {}
        current = [(game.id, game.version) for game in self.games.values()]
        offers = session.execute(
            select(OfferedHints.game_id, OfferedHints.player_id, OfferedHints.hints).where(
                col(OfferedHints.game_id).in_(game_ids),  # the index, as above
                tuple_(col(OfferedHints.game_id), col(OfferedHints.version)).in_(current),
            )
        )
        self.offers = {
            (game_id, player_id): [OfferedTurn(**hint) for hint in hints]
            for game_id, player_id, hints in offers
        }
        self.new_offers: list[dict[str, Any]] = []
        self.recent = self._recent_turns()
        self.leagues = labels.labels(session, self.games.values())
        #: the newest message of each of the games that have table talk
        self.talked = talk.newest_ids(session, list(game_ids)) if game_ids else {}
        #: the (game, player) pairs whose talk an email of the batch quoted already
        self._talk_taken: set[tuple[int, int]] = set()
        #: (game, player, newest message) emailed, to remember (`stage`)
        self.talk_marks: list[tuple[int, int, int]] = []

    def _recent_turns(self) -> dict[int, list[LoggedTurn]]:
        """The end of each game's log, oldest first, in one query: long enough to reach back
        past everyone's last turn (a round, plus room for resignations); pending entries
        are included."""
        seated = {
            game_id: game.state["players"]
            for game_id, game in self.games.items()
            if game.state is not None
        }
        tails: dict[int, list[LoggedTurn]] = {game_id: [] for game_id in seated}
        if not tails:
            return tails
        logged = self.session.exec(
            select_columns(
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
            name = seated[game_id][seat]
            tails[game_id].append(LoggedTurn(number, name, kind, notation, points, detail))
        return {  # the window counted in players, not seats
            game_id: tail[-(2 * len(seated[game_id]) + 2) :] for game_id, tail in tails.items()
        }

    def facts(self, game: GameRecord) -> GameFacts:
        """The facts of the started `game` (built once)."""
        assert game.id is not None and game.state is not None
        if game.id not in self._facts:
            self._facts[game.id] = facts_of(game, self.recent[game.id], self.leagues.get(game.id))
        return self._facts[game.id]

    def take_talk(self, game: GameRecord, player: Player) -> list[Said]:
        """The table talk of `game` an email to `player` quotes: the messages they were not
        emailed yet, in the first email of the batch that asks (none in the later ones);
        the newest message is remembered as emailed (`stage`)."""
        assert game.id is not None and player.id is not None
        key = (game.id, player.id)
        if game.id not in self.talked or key in self._talk_taken:
            return []
        self._talk_taken.add(key)
        lines, newest = talk.unmailed(self.session, game.id, player)
        if newest:
            self.talk_marks.append((game.id, player.id, newest))
        return lines

    def hints(self, facts: GameFacts, player: Player) -> list[OfferedTurn]:
        """The turns a "your turn" email offers: those offered at this version already, or
        the engine's best (`HINTS`), remembered by `stage`."""
        assert player.id is not None
        key = (facts.id, player.id)
        if key not in self.offers:
            self.offers[key] = [
                OfferedTurn(turn=str(turn), points=points)
                for turn, points in facts.engine.best_turns(HINTS)
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

    def stage(self) -> None:
        """Write what rendering learnt in the session's transaction: the new offers, in one
        statement (an offer made meanwhile by a rival is kept: the same turns), and the
        newest message of table talk each reader was emailed."""
        if self.talk_marks:
            talk.mark_mailed(self.session, self.talk_marks)
            self.talk_marks = []
        if not self.new_offers:
            return
        dialect = self.session.get_bind().dialect.name
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        table = table_of(OfferedHints)
        # in key order: a rival worker inserting some of the same offers waits, never deadlocks
        offers = sorted(self.new_offers, key=lambda o: (o["game_id"], o["version"], o["player_id"]))
        self.session.execute(insert(table).on_conflict_do_nothing(), offers)
        self.new_offers = []

    def store(self) -> None:
        """Remember what rendering learnt (`stage`) and commit it."""
        if self.new_offers or self.talk_marks:
            self.stage()
            self.session.commit()

    def logged(self, facts: GameFacts, number: int | None) -> LoggedTurn:
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

    def seated(self, game_id: int) -> list[str]:
        """The names of the players seated in the game, in the order they joined."""
        return list(
            self.session.exec(
                select(Player.name)
                .join(GameSeat, col(GameSeat.player_id) == Player.id)
                .where(GameSeat.game_id == game_id)
                .order_by(col(GameSeat.join_order))
            )
        )

    def compose(
        self,
        kind: str,
        game: GameRecord,
        player: Player,
        *,
        turn: int | None = None,
        answering: str | None = None,
        talk: Sequence[Said] | None = None,
        **extra: Any,
    ) -> Composed:
        """Render the game email `kind` about `game` for `player`: the reply address of an
        email to a seated player names the game's version while the game runs (an email to
        the creator of an open game has none); that of an email of table talk names the
        game's table. A kind that quotes table talk quotes `talk`, or else what
        `take_talk` gives."""
        assert game.id is not None and player.id is not None
        email = EmailKind(kind)
        running = game.status != GameStatus.FINISHED and not email.rules.creator
        reply: ReplyAddress | TalkReplyAddress | None = (
            ReplyAddress(game.id, game.version, player.id) if running else None
        )
        if email is EmailKind.TABLE_TALK:
            reply = TalkReplyAddress(game.id, player.id)
        links = addresses.links(self.config, player_id=player.id, reply=reply)
        if talk is None:
            talk = self.take_talk(game, player) if email.rules.talk else []
        mail = GameMail(email, game, player, links, self, turn, extra, talk)
        return Composed(
            to=player.email,
            rendered=RENDERERS[email](mail),
            headers=outgoing.headers(
                self.config, links=links, game_id=game.id, answering=answering
            ),
        )

    def compose_reminders(self, player: Player, waiting: Sequence[GameRecord]) -> Composed:
        """Render one reminder about several games that wait for `player`."""
        games = []
        for each in waiting:
            facts = self.facts(each)
            best = self.hints(facts, player)
            games.append(DigestGame(game=facts, your_turn=True, best=best[0] if best else None))
        links = addresses.links(self.config, player_id=player.id)
        rendered = messages.reminders(recipient(player), games, links, utcnow())
        return Composed(player.email, rendered, outgoing.headers(self.config, links=links))
