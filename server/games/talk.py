"""Table talk: the players of a game write to each other, and nobody else reads it.

**Who.** A game's players — everyone seated in it, also once it is over and also those who
resigned, timed out or were removed — may write (`post`); its players and its invitees
may read (`read`). Anyone else gets the 404 of a game that does not exist for a private
game, a 403 for a public one; no public list, page, record or feed shows a message.

**What.** A message is 1 to `TALK_LENGTH` characters once trimmed (`clean`): line breaks
are kept (any form of them becomes `\\n`), every other control character and the
direction overrides that could disguise a text are removed. It is stored with the game's
version when it was written; writing one changes nothing of the game's row, so neither the
version nor the ETag of its state moves. A player writes at most `PER_GAME_HOUR` messages
in one game within an hour and `PER_DAY` in all games within a day (429, with the seconds
to wait in `retry_after`).

**Mutes.** A player who mutes another (`mute`) no longer sees that player's messages in
any game, and none of them is emailed to them; `unmute` undoes it.

**Channels** (`server.postbox.pings`). Each other player who did not mute the writer
is pinged on each of their channels that takes `message`, in the message's transaction.

**Email** (`server.mail.batch`, `server.jobs.talk_mail`). The other players get the new
messages quoted in their next email about the game: each seat remembers the newest
message its player was emailed (`GameSeat.talk_mailed`). Their `talk_emails` preference
says how soon the messages not emailed yet go alone (`GameSeat.talk_due`): `each` after
`EACH_WAIT` (the messages written meanwhile come in the same email), `with_turns` after
`LONE_AFTER` if no other email of the game carried them by then, `off` never (nor quoted
in the game's other emails).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, or_, update
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from cafe.i18n import Text, lazy_gettext, lazy_ngettext
from server.db import insert_for, write_transaction
from server.domain import Forbidden, NotFound, RateLimited, Refused, Unreadable
from server.games import notify, store
from server.models import (
    TALK_LENGTH,
    GameRecord,
    GameSeat,
    Mute,
    Player,
    TableTalk,
    TalkEmails,
    aware,
    stored_id,
    table_of,
    utcnow,
)
from server.postbox import pings
from server.postbox.kinds import EmailKind, wants
from server.postbox.pings import ChannelEvent

#: At most this many messages by one player in one game within `HOUR`.
PER_GAME_HOUR = 30
#: At most this many messages by one player in all games within `DAY`.
PER_DAY = 200
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
#: `talk_emails = each`: how long an email waits for more messages to carry.
EACH_WAIT = timedelta(minutes=10)
#: `talk_emails = with_turns`: how long messages wait for another email of the game.
LONE_AFTER = timedelta(hours=24)

#: Every form of line break, made `\n`.
_BREAKS = re.compile(r"\r\n?|[\x85\u2028\u2029]")
#: What a message never holds: control characters but the line break, and the direction
#: overrides and isolates (a text that reads otherwise than it is).
_REMOVED = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: Spaces before a line break, and more than one empty line in a row.
_LINE_END = re.compile(r"[ \t\u00a0]+\n")
_EMPTY_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True, slots=True)
class Said:
    """One message as its readers see it: its id, who wrote it, its text, when, and the
    game's version then."""

    id: int
    player: str
    text: str
    at: datetime
    version: int


def clean(text: str) -> str:
    """`text` as a message keeps it (see the module's docstring), or the refusal of an
    empty or too long one (400)."""
    kept = _REMOVED.sub("", _BREAKS.sub("\n", text))
    kept = _EMPTY_LINES.sub("\n\n", _LINE_END.sub("\n", kept)).strip()
    if not kept:
        raise Unreadable(
            "empty_message",
            lazy_gettext("the message is empty; write 1 to %(most)s characters", most=TALK_LENGTH),
        )
    if len(kept) > TALK_LENGTH:
        raise Unreadable(
            "message_too_long",
            lazy_gettext(
                "the message has %(length)s characters; a message has at most %(most)s",
                length=len(kept),
                most=TALK_LENGTH,
            ),
        )
    return kept


def seat_of(session: Session, game: GameRecord, player: Player) -> GameSeat | None:
    """The player's seat in the game (None: not a player of it)."""
    return session.exec(
        select(GameSeat).where(GameSeat.game_id == game.id, GameSeat.player_id == player.id)
    ).first()


def may_read(session: Session, game: GameRecord, player: Player | None) -> bool:
    """Whether `player` (None: signed out) reads the game's talk: a player or an invitee."""
    if player is None:
        return False
    return player.name in game.invited or seat_of(session, game, player) is not None


def readable_game(session: Session, game_id: int, player: Player) -> GameRecord:
    """The game whose talk `player` reads; else the 404 of a game that does not exist (a
    private game) or a 403 (a public one)."""
    game = store.visible_game(session, store.load_game(session, game_id), player)
    if not may_read(session, game, player):
        raise Forbidden(
            "talk_not_yours",
            lazy_gettext(
                "only the players and invitees of game %(game)s read its table talk", game=game_id
            ),
        )
    return game


def _written_at(session: Session, game_id: int, player: Player) -> GameRecord:
    """The game at whose table `player` writes: the refusals of `readable_game` for an
    outsider, a 403 for an invitee who has not taken a seat."""
    game = readable_game(session, game_id, player)
    if seat_of(session, game, player) is None:
        raise Forbidden(
            "not_a_player",
            lazy_gettext(
                "you are not playing in game %(game)s: only its players write at its table",
                game=game_id,
            ),
        )
    return game


def post(
    session: Session,
    *,
    game_id: int,
    player: Player,
    text: str,
    by_email: notify.EmailTurn | None = None,
) -> Said:
    """Write `text` at the game's table as `player` (in a transaction of its own): checked
    (`clean`), within the limits, and scheduled for the other players' email. A message
    from an emailed reply (`by_email`) records the reply as handled in that transaction."""
    said = clean(text)
    assert player.id is not None
    with write_transaction(session) as writer:
        # one player's messages are written one at a time (PostgreSQL's row lock; SQLite
        # has one writer anyway), so that two at once cannot both slip under a limit
        writer.exec(select(Player.id).where(Player.id == player.id).with_for_update()).one()
        game = _written_at(writer, game_id, player)
        now = utcnow()
        _within_limits(writer, game_id, player.id, now)
        message = TableTalk(
            game_id=game_id, player_id=player.id, text=said, version=game.version, created_at=now
        )
        writer.add(message)
        writer.flush()
        readers = _readers(writer, game_id, player.id)
        _schedule_emails(writer, readers, now)
        pings.queue_for_players(
            writer,
            [reader.id for _, reader in readers if reader.id is not None],
            ChannelEvent.MESSAGE,
            game_id=game_id,
            version=game.version,
            payload={"writer": player.name, "text": said},
        )
        if by_email is not None:
            notify.handled(writer, by_email, game_id=game_id)
    assert message.id is not None
    return Said(message.id, player.name, said, now, game.version)


def _within_limits(session: Session, game_id: int, player_id: int, now: datetime) -> None:
    """Refuse (429) a message over `PER_GAME_HOUR` in the game or `PER_DAY` in all games."""
    in_game = session.exec(
        select(TableTalk.created_at)
        .where(
            TableTalk.player_id == player_id,
            TableTalk.game_id == game_id,
            col(TableTalk.created_at) > now - HOUR,
        )
        .order_by(col(TableTalk.created_at).desc())
    ).all()
    if len(in_game) >= PER_GAME_HOUR:
        wait = aware(in_game[PER_GAME_HOUR - 1]) + HOUR - now
        raise _limited(
            lazy_ngettext(
                "you wrote %(num)s message in game %(game)s within the hour; write again in "
                "%(wait)s",
                "you wrote %(num)s messages in game %(game)s within the hour; write again in "
                "%(wait)s",
                PER_GAME_HOUR,
                game=game_id,
                wait=_wait_words(wait),
            ),
            wait,
        )
    today = session.exec(
        select(TableTalk.created_at)
        .where(TableTalk.player_id == player_id, col(TableTalk.created_at) > now - DAY)
        .order_by(col(TableTalk.created_at).desc())
    ).all()
    if len(today) >= PER_DAY:
        wait = aware(today[PER_DAY - 1]) + DAY - now
        raise _limited(
            lazy_ngettext(
                "you wrote %(num)s message within a day; write again in %(wait)s",
                "you wrote %(num)s messages within a day; write again in %(wait)s",
                PER_DAY,
                wait=_wait_words(wait),
            ),
            wait,
        )


def _limited(message: Text, wait: timedelta) -> RateLimited:
    return RateLimited(
        "too_many_messages", message, retry_after=max(1, math.ceil(wait.total_seconds()))
    )


def _wait_words(wait: timedelta) -> Text:
    """How long to wait, in whole minutes up to two hours, in hours beyond (rounded up)."""
    minutes = max(1, math.ceil(wait.total_seconds() / 60))
    if minutes <= 120:
        return lazy_ngettext("%(num)s minute", "%(num)s minutes", minutes)
    return lazy_ngettext("%(num)s hour", "%(num)s hours", math.ceil(minutes / 60))


def email_wait(player: Player) -> timedelta | None:
    """How long a new message waits before it is emailed to `player` alone (None: never,
    by their preferences)."""
    if player.computer or not wants(player, EmailKind.TABLE_TALK):
        return None
    return EACH_WAIT if player.talk_emails == TalkEmails.EACH else LONE_AFTER


def _readers(session: Session, game_id: int, writer_id: int) -> list[tuple[int, Player]]:
    """The other players of the game who hear the writer (did not mute them), with their
    seats' ids: whom a new message is emailed and pinged to."""
    seated = session.exec(
        select(stored_id(GameSeat.id), Player)
        .join(Player, col(Player.id) == GameSeat.player_id)
        .where(GameSeat.game_id == game_id, GameSeat.player_id != writer_id)
    ).all()
    muting = set(session.exec(select(Mute.player_id).where(Mute.muted_id == writer_id)).all())
    return [(seat_id, reader) for seat_id, reader in seated if reader.id not in muting]


def _schedule_emails(
    session: Session, readers: Sequence[tuple[int, Player]], now: datetime
) -> None:
    """Bring forward, for each of the message's `readers` (`_readers`) who wants messages by
    email, the moment the messages not emailed yet go alone (`GameSeat.talk_due`)."""
    for seat_id, reader in readers:
        wait = email_wait(reader)
        if wait is None:
            continue
        due = now + wait
        session.execute(
            update(GameSeat)
            .where(
                col(GameSeat.id) == seat_id,
                or_(col(GameSeat.talk_due).is_(None), col(GameSeat.talk_due) > due),
            )
            .values(talk_due=due)
        )


def _muted_by(player_id: int) -> SelectOfScalar[int]:
    """The players `player_id` muted, as a subquery."""
    return select(Mute.muted_id).where(Mute.player_id == player_id)


def read(session: Session, game: GameRecord, reader: Player, *, after: int = 0) -> list[Said]:
    """The game's messages after the id `after`, oldest first, as `reader` sees them: those
    of the players they muted left out (`readable_game` decides whether they may read)."""
    assert reader.id is not None
    return _messages(session, game.id, reader.id, after)


def _messages(
    session: Session, game_id: int | None, reader_id: int, after: int, *, others: bool = False
) -> list[Said]:
    """The messages of the game after `after` that `reader_id` did not mute, oldest first;
    `others`: only those of the other players."""
    query = (
        select(TableTalk, Player.name)
        .join(Player, col(Player.id) == TableTalk.player_id)
        .where(
            TableTalk.game_id == game_id,
            col(TableTalk.id) > after,
            col(TableTalk.player_id).not_in(_muted_by(reader_id)),
        )
        .order_by(col(TableTalk.id))
    )
    if others:
        query = query.where(TableTalk.player_id != reader_id)
    return [
        Said(message.id or 0, name, message.text, aware(message.created_at), message.version)
        for message, name in session.exec(query)
    ]


def newest_ids(session: Session, game_ids: Sequence[int]) -> dict[int, int]:
    """The id of the newest message of each of these games that has any."""
    rows = session.exec(
        select(TableTalk.game_id, func.max(stored_id(TableTalk.id)))
        .where(col(TableTalk.game_id).in_(game_ids))
        .group_by(col(TableTalk.game_id))
    ).all()
    return dict(rows)


def unmailed(session: Session, game_id: int, reader: Player) -> tuple[list[Said], int]:
    """What an email about the game would quote to `reader`: the other players' messages
    newer than the last one emailed to them, but those of the players they muted (none
    for a player who chose `talk_emails = off`); and the newest message's id now, which
    the email passes over (`mark_mailed`). (0 for a reader without a seat.)"""
    assert reader.id is not None
    seat = session.exec(
        select(GameSeat.talk_mailed).where(
            GameSeat.game_id == game_id, GameSeat.player_id == reader.id
        )
    ).first()
    newest = newest_ids(session, [game_id]).get(game_id, 0)
    if seat is None or newest <= seat:
        return [], 0
    if not wants(reader, EmailKind.TABLE_TALK):
        return [], 0
    return _messages(session, game_id, reader.id, seat, others=True), newest


def mark_mailed(session: Session, marks: Sequence[tuple[int, int, int]]) -> None:
    """Remember, in the caller's transaction, the newest message each (game, player) of
    `marks` was emailed: never moving a seat's mark back."""
    for game_id, player_id, newest in sorted(marks):
        session.execute(
            update(GameSeat)
            .where(
                col(GameSeat.game_id) == game_id,
                col(GameSeat.player_id) == player_id,
                col(GameSeat.talk_mailed) < newest,
            )
            .values(talk_mailed=newest)
        )


# --- mutes ----------------------------------------------------------------------------


def _named(session: Session, name: str) -> Player:
    """The player called `name` (in any case), or a 404."""
    found = session.exec(select(Player).where(func.lower(Player.name) == name.lower())).first()
    if found is None:
        raise NotFound(
            "player_not_found", lazy_gettext("there is no player called %(name)s", name=name)
        )
    return found


def muted(session: Session, player: Player) -> list[str]:
    """The names of the players `player` muted, alphabetically."""
    assert player.id is not None
    return sorted(
        session.exec(
            select(Player.name)
            .join(Mute, col(Mute.muted_id) == Player.id)
            .where(Mute.player_id == player.id)
        ).all(),
        key=str.lower,
    )


def mute(session: Session, player: Player, name: str) -> list[str]:
    """Mute the player called `name` for `player` (again: nothing changes); the names
    muted now."""
    with write_transaction(session) as writer:
        other = _named(writer, name)
        if other.id == player.id:
            raise Refused("cannot_mute_yourself", lazy_gettext("you cannot mute yourself"))
        # a mute made meanwhile (another device) is the same mute
        writer.execute(
            insert_for(writer)(table_of(Mute))
            .values(player_id=player.id, muted_id=other.id, created_at=utcnow())
            .on_conflict_do_nothing()
        )
    return muted(session, player)


def unmute(session: Session, player: Player, name: str) -> list[str]:
    """Hear the player called `name` again (not muted: nothing changes); the names muted
    now."""
    with write_transaction(session) as writer:
        other = _named(writer, name)
        found = writer.exec(
            select(Mute).where(Mute.player_id == player.id, Mute.muted_id == other.id)
        ).first()
        if found is not None:
            writer.delete(found)
    return muted(session, player)
