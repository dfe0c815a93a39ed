"""Turns played by replying to an email (`cafe-server mail-in`).

A reply is tied to a player, a game and a version only by the signed reply address it was
sent to (`server.postbox.addresses`), never by its `From`. Its turn goes through the API's own
path (`server.games.turns.play_turn`: the same checks, the same transaction, the same
emails to the other players); the confirmation to the player and the record that this
message was handled are written in that very transaction (`play_turn(..., by_email=...)`). A reply
that is not played is answered with the precise reason, the game as it is now and, when it
is the player's turn, the best turns again. A reply to an invitation (its game still
open) that says `join` takes the seat, as `cafe join` would. A reply to a league season's
registration email (its own form of reply address) registers for the season:
`server.league.joining`. A reply to a running season's start email (the same form of
address) plays a turn in each of the replier's games of that season it names, one line
each: `GAME: TURN` (`_season_turns`).

Table talk (`server.games.talk`): the lines `say: …` of a reply to a game's email are one
message at the game's table, posted after the reply's turn (whatever became of it; a reply
of `say:` lines alone posts the message and plays nothing), and recorded as handled apart
from it (`_talk_key`): a process stopped between the two leaves the message to the
reply's next delivery, which finds the turn handled and posts the message alone, once.
The text of a reply to an email of table talk (its own form of address) is the message.
What the reading takes for the quoted email and the signature is never posted. A message
that is not posted (empty, too long, over the limits, not a player) is answered with the
reason.

Every message is handled once, by its Message-ID: a second delivery changes nothing and
is not answered again. Auto-responders, bounces and list mail are never answered. A reply
whose address we did not sign gets at most a short refusal, without a word about any game,
sent to its *envelope* sender (never to `From`), only if that is a registered player's
address, and at most once an hour per address: forged mail must not make the service
write to strangers, nor to a player again and again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass
from datetime import timedelta

from flask import Flask
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from cafe import CafeError
from cafe.i18n import Message, lazy_gettext
from server.accounts import find_player
from server.config import Settings, settings_of
from server.db import get_engine
from server.domain import DomainError, from_engine
from server.games import notify, store, talk, turns
from server.league import joining
from server.league import messages as league_messages
from server.league.emails import season_facts
from server.league.store import running_games_of
from server.mail import batch, reading, words
from server.mail.facts import EarlierTurn, LoggedTurn
from server.models import (
    GameRecord,
    InboundMail,
    League,
    OutboxMessage,
    Player,
    Season,
    SeasonMember,
    SeasonStatus,
    TurnKind,
    TurnRecord,
    TurnSource,
    utcnow,
)
from server.postbox import addresses, notices
from server.postbox.addresses import (
    ReplyAddress,
    is_reply_address,
    read_reply_address,
    read_talk_reply_address,
)
from server.postbox.kinds import EmailKind

log = logging.getLogger(__name__)

#: Refusals of a turn (`server.domain` codes) and what the answer calls them.
_PROBLEMS = {
    "stale_version": "moved_on",
    "not_your_turn": "not_your_turn",
    "game_finished": "finished",
    "unreadable_turn": "unreadable",
    "illegal_turn": "illegal",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a message: `applied`, `joined`, `refused`, `unrecognised`, `ignored`
    or `duplicate`, and a short note for the log."""

    kind: str
    note: str


def handle(
    app: Flask,
    raw: bytes,
    *,
    envelope_to: tuple[str, ...] = (),
    envelope_from: str = "",
    bounce: bool = False,
    size: int | None = None,
) -> Outcome:
    """Handle one incoming message of `size` bytes (`raw` may be cut short if it is too
    large) from `envelope_from` (`MAIL FROM`; empty for a bounce or when unknown). Database
    failures propagate, so that the mail server tries again later."""
    with app.app_context():
        config = settings_of(app)
        reply = reading.read(
            raw,
            envelope_to=envelope_to,
            bounce=bounce,
            size=len(raw) if size is None else size,
            limit=config.mail_in_max_bytes,
        )
        with Session(get_engine(app), expire_on_commit=False) as session:
            outcome = _handle(session, config, reply, envelope_from.strip().lower())
        log.info("mail-in %s: %s: %s", reply.message_key, outcome.kind, outcome.note)
        return outcome


def _handle(
    session: Session, config: Settings, reply: reading.Reply, envelope_from: str
) -> Outcome:
    """Identify the reply by its signed address, then refuse it or play its turn."""
    if _handled(session, reply.message_key):
        left_over = _talk_left_over(session, config, reply)
        return left_over or Outcome("duplicate", "this message was handled before")
    ours = _our_addresses(config, reply)
    signed = _game_address(config, ours)
    if reply.automatic:
        _record(session, reply, None, "ignored")
        return Outcome("ignored", "an automatic message")
    talked = _talk_reply(session, config, reply, ours)  # an email of table talk's address
    if talked is not None:
        return talked
    played = _season_turns(session, config, reply, ours)  # a running season's address
    if played is not None:
        return played
    joined = joining.answer(session, config, reply, ours)  # a league season's address
    if joined is not None:
        return Outcome(*joined)
    found = _load(session, signed)
    if found is None:
        address = ours[0] if ours else (reply.recipients[0] if reply.recipients else "")
        answered = _answer_stranger(session, config, reply, address, envelope_from)
        # the log gets no address: a reply address is a credential for one turn
        return Outcome("unrecognised", f"no valid reply address; {answered}")
    player, game = found
    assert signed is not None and game.id is not None
    said = "\n".join(reply.said)
    if reply.said and not reply.lines and not reply.too_large:
        return _talk(session, config, reply, player, game.id, said, key=reply.message_key)
    outcome = _turn(session, config, reply, signed, player, game)
    if reply.said and outcome.kind != "duplicate" and not reply.too_large:
        talked = _talk(session, config, reply, player, game.id, said, key=_talk_key(reply))
        return dataclasses.replace(outcome, note=f"{outcome.note}; {talked.note}")
    return outcome


def _our_addresses(config: Settings, reply: reading.Reply) -> list[str]:
    """The reply's recipients that are reply addresses of ours (signed or not)."""
    return [a for a in reply.recipients if is_reply_address(a, config.mail_domain)]


def _game_address(config: Settings, ours: list[str]) -> ReplyAddress | None:
    """The first of `ours` that is a game's reply address we signed."""
    keys, domain = config.verifying_keys, config.mail_domain
    return next((r for a in ours if (r := read_reply_address(keys, domain, a))), None)


def _talk_key(reply: reading.Reply) -> str:
    """The key that records a reply's `say:` lines as handled apart from its turn (a
    digest: the Message-ID alone may take all of `InboundMail.message_key`)."""
    return f"say:sha256:{hashlib.sha256(reply.message_key.encode()).hexdigest()}"


def _talk_left_over(session: Session, config: Settings, reply: reading.Reply) -> Outcome | None:
    """The `say:` lines of a reply to a game's email whose turn was handled but whose
    message was not — the process stopped between the two transactions — posted now;
    None when nothing waits."""
    if not (reply.said and reply.lines) or reply.too_large or reply.automatic:
        return None
    key = _talk_key(reply)
    if _handled(session, key):
        return None
    found = _load(session, _game_address(config, _our_addresses(config, reply)))
    if found is None:
        return None
    player, game = found
    assert game.id is not None
    talked = _talk(session, config, reply, player, game.id, "\n".join(reply.said), key=key)
    return dataclasses.replace(talked, note=f"its turn was handled before; {talked.note}")


def _turn(
    session: Session,
    config: Settings,
    reply: reading.Reply,
    signed: ReplyAddress,
    player: Player,
    game: GameRecord,
) -> Outcome:
    """The turn of a reply to a game's email (the seat, for an invitation): played, or
    refused with the reason."""
    assert game.id is not None
    if game.state is None:
        return _join(session, config, reply, player, game.id)
    if reply.too_large:
        limit = config.mail_in_max_bytes
        over = lazy_gettext("over %(limit)s bytes", limit=limit)
        return _refuse(session, reply, player, game.id, "too_large", over, config=config)
    if game.version != signed.version:
        earlier = _played_from(session, game, player, signed.version)
        if earlier is not None:
            # the answer tells of the earlier turn itself; the note is the log's
            how = earlier.source or earlier.turn.kind
            return _refuse(
                session,
                reply,
                player,
                game.id,
                "already_played",
                None,
                earlier=earlier,
                note=f"turn {earlier.turn.number} was played ({how})",
                config=config,
            )
        note = f"version {signed.version}, the game is at {game.version}"
        return _refuse(session, reply, player, game.id, "moved_on", None, note=note, config=config)
    choice = reading.choose(reply.lines)
    if choice is None:
        nothing = lazy_gettext("no turn above the quote")
        return _refuse(session, reply, player, game.id, "no_turn", nothing, config=config)
    notation = choice.text
    if choice.hint is not None:
        notation = _offered(session, signed, choice.hint)
        if notation is None:
            number = str(choice.hint)
            return _refuse(
                session, reply, player, game.id, "no_such_hint", None, read=number, config=config
            )
    assert notation is not None
    return _play(session, reply, player, game.id, signed.version, notation, config=config)


def _talk_reply(
    session: Session, config: Settings, reply: reading.Reply, ours: list[str]
) -> Outcome | None:
    """A reply to an email of a game's table talk (its address names the game and the
    player): its text is the player's message (its `say:` lines', if it holds nothing
    else). None unless the address is such an address, signed, of a game and a player
    that exist."""
    keys, domain = config.verifying_keys, config.mail_domain
    signed = next((s for a in ours if (s := read_talk_reply_address(keys, domain, a))), None)
    if signed is None:
        return None
    player = session.get(Player, signed.player_id)
    game = session.get(GameRecord, signed.game_id)
    if player is None or game is None:
        return None
    if reply.too_large:
        over = lazy_gettext("over %(limit)s bytes", limit=config.mail_in_max_bytes)
        return _refuse_talk(session, config, reply, player, signed.game_id, over, "")
    text = "\n".join(reply.said) if reply.said and not reply.lines else reply.text
    return _talk(session, config, reply, player, signed.game_id, text, key=reply.message_key)


def _talk(
    session: Session,
    config: Settings,
    reply: reading.Reply,
    player: Player,
    game_id: int,
    text: str,
    *,
    key: str,
) -> Outcome:
    """Post `text` at the game's table as the player, as the API would, and record it as
    handled under `key` in that transaction (the reply's own key, or `_talk_key` beside
    its turn's); a refusal is answered with its reason, recorded alike."""
    assert player.id is not None
    by_email = notify.EmailTurn(message_key=key, message_id=reply.message_id, player_id=player.id)
    try:
        said = talk.post(session, game_id=game_id, player=player, text=text, by_email=by_email)
    except DomainError as error:
        session.rollback()
        reason = error.lazy_message  # said in the reader's language when the answer is sent
        return _refuse_talk(session, config, reply, player, game_id, reason, text, key=key)
    except IntegrityError:  # another process handled this reply meanwhile
        session.rollback()
        return Outcome("duplicate", "answered by another process meanwhile")
    return Outcome("applied", f"message {said.id} posted at the table of game {game_id}")


#: The characters of a refused message an answer quotes.
QUOTED_TALK = 200


def _refuse_talk(
    session: Session,
    config: Settings,
    reply: reading.Reply,
    player: Player,
    game_id: int,
    reason: Message,
    text: str,
    *,
    key: str | None = None,
) -> Outcome:
    """Answer that the reply's message was not posted, and why, and record it as handled
    under `key` (None: the reply's own)."""
    notices.queue(
        session,
        config,
        EmailKind.TALK_REFUSED,
        to=player.email,
        thread=game_id,
        answering=reply.message_id,
        recipient=notify.recipient(player),
        game_id=game_id,
        reason=reason,
        text=text[:QUOTED_TALK],
        links=addresses.links(config, player_id=player.id),
    )
    if not _record(session, reply, player, "talk_refused", game_id=game_id, key=key):
        return Outcome("duplicate", "answered by another process meanwhile")
    return Outcome("refused", f"table talk: {reason}")


def _season_turns(
    session: Session, config: Settings, reply: reading.Reply, ours: list[str]
) -> Outcome | None:
    """A reply to a running season's start email (its address names the season and the
    player): each `GAME: TURN` line plays the turn in that game, if it is one of the
    replier's games of the season, as a reply to a turn email would (confirmed, or refused
    with the game as it is); the other lines' games are refused in one answer. None unless
    the address names a running season and one of its members, and the reply is not a
    `join` (a registration's reply, answered by `joining`)."""
    signed = joining.season_address(config, ours)
    season = None if signed is None else session.get(Season, signed.season_id)
    player = None if signed is None else session.get(Player, signed.player_id)
    if season is None or player is None or season.status != SeasonStatus.RUNNING:
        return None
    if reply.lines and words.is_join_line(reply.lines[0]):
        return None
    member = session.exec(
        select(SeasonMember.id).where(
            SeasonMember.season_id == season.id, SeasonMember.player_id == player.id
        )
    ).first()
    if member is None:
        return None
    asked = [] if reply.too_large else [words.game_turn(line) for line in reply.lines]
    lines = [found for found in asked if found is not None]
    refusals: list[Message] = (
        [] if lines else [lazy_gettext("we found no line of the form GAME: TURN in your reply")]
    )
    played = []
    for game_id, notation in lines:
        game = session.get(GameRecord, game_id)
        if game is None or game.season_id != season.id or game.state is None:
            refusals.append(
                lazy_gettext(
                    "game %(game)s is not a game of season %(season)s",
                    game=game_id,
                    season=season.number,
                )
            )
        elif player.name not in game.state["players"]:
            refusals.append(lazy_gettext("you do not play in game %(game)s", game=game_id))
        else:  # each game's turn handled once, by a key of its own
            key = hashlib.sha256(reply.message_key.encode()).hexdigest()
            one = dataclasses.replace(reply, message_key=f"season-turn:{key}:{game_id}")
            played.append(
                _play(session, one, player, game_id, game.version, notation, config=config).kind
            )
    if refusals:
        league = session.get(League, season.league_id)
        assert league is not None and player.id is not None
        notices.queue(
            session,
            config,
            EmailKind.LEAGUE_TURNS_REFUSED,
            to=player.email,
            answering=reply.message_id,
            recipient=notify.recipient(player),
            season=season_facts(league, season),
            reason=refusals,
            example=f"{_example_game(session, season, player)}: {league_messages.TURN_EXAMPLE}",
            links=addresses.links(config, player_id=player.id),
        )
    _record(session, reply, player, "season_turns")
    return Outcome("applied" if "applied" in played else "refused", f"season turns: {played}")


def _example_game(session: Session, season: Season, player: Player) -> int:
    """The game an answer's example line names: the player's first running game of the
    season (123 when none runs)."""
    assert season.id is not None and player.id is not None
    games = running_games_of(session, season_id=season.id, player_id=player.id)
    return games[0].id if games and games[0].id is not None else 123


def _handled(session: Session, key: str) -> bool:
    """Whether a message with this key was handled already."""
    found = session.exec(select(InboundMail.id).where(InboundMail.message_key == key)).first()
    return found is not None


def _load(session: Session, signed: ReplyAddress | None) -> tuple[Player, GameRecord] | None:
    """The player and game a signed address names (None if either is gone)."""
    if signed is None:
        return None
    player = session.get(Player, signed.player_id)
    game = session.get(GameRecord, signed.game_id)
    if player is None or game is None:
        return None
    return player, game


def _join(
    session: Session, config: Settings, reply: reading.Reply, player: Player, game_id: int
) -> Outcome:
    """A reply to an invitation (the game is open): `join` takes the seat; anything else,
    or a seat that cannot be taken, is answered with what was wrong."""
    if reply.lines and words.means_join(reply.lines[0]):
        try:
            store.join_game(session, game_id=game_id, player=player, config=config)
        except DomainError as error:
            session.rollback()
            refusal = error.lazy_message  # said in the reader's language when sent
            return _answer_join(session, config, reply, player, game_id, refusal)
        return _answer_join(session, config, reply, player, game_id, None)
    why = (
        lazy_gettext(
            "your reply began %(text)s; to take the seat, reply with the word %(word)s",
            text=repr(reply.lines[0][:40]),
            word="join",
        )
        if reply.lines
        else lazy_gettext(
            "your reply was empty; to take the seat, reply with the word %(word)s", word="join"
        )
    )
    return _answer_join(session, config, reply, player, game_id, why)


def _answer_join(
    session: Session,
    config: Settings,
    reply: reading.Reply,
    player: Player,
    game_id: int,
    refusal: Message | None,
) -> Outcome:
    """Answer a reply to an invitation: the seat was taken, or why not (`refusal`)."""
    notices.queue(
        session,
        config,
        EmailKind.JOIN_ANSWER,
        to=player.email,
        thread=game_id,
        answering=reply.message_id,
        recipient=notify.recipient(player),
        game_id=game_id,
        refusal=refusal,
        links=addresses.links(config, player_id=player.id),
    )
    outcome = "refused" if refusal else "joined"
    if not _record(session, reply, player, outcome, game_id=game_id):
        return Outcome("duplicate", "answered by another process meanwhile")
    return Outcome(outcome, str(refusal) if refusal else f"took a seat in game {game_id}")


def _played_from(
    session: Session, game: GameRecord, player: Player, version: int
) -> EarlierTurn | None:
    """The player's own turn made at `version` — an email answered twice, or answered after
    the turn was played with `cafe`, on the web page or on time-out — with how and when it
    came in; None if the entry at that version was not theirs, or a resignation. A started
    game's version rises by one per log entry, so the entry made at `version` is
    `version - (game.version - game.turn_count) + 1`."""
    assert game.state is not None
    number = version - (game.version - game.turn_count) + 1
    names = game.state["players"]
    if number < 1 or player.name not in names:
        return None
    entry = session.exec(
        select(TurnRecord).where(TurnRecord.game_id == game.id, TurnRecord.number == number)
    ).first()
    if entry is None or entry.seat != names.index(player.name) or entry.kind == TurnKind.RESIGN:
        return None
    turn = LoggedTurn(number, player.name, entry.kind, entry.notation, entry.points, entry.detail)
    return EarlierTurn(turn=turn, source=entry.source, at=entry.created_at)


def _offered(session: Session, signed: ReplyAddress, number: int) -> str | None:
    """The turn with this number in the email the player answered (None if not offered)."""
    hints = batch.offered(
        session, game_id=signed.game_id, version=signed.version, player_id=signed.player_id
    )
    return hints[number - 1].turn if 1 <= number <= len(hints) else None


def _play(
    session: Session,
    reply: reading.Reply,
    player: Player,
    game_id: int,
    version: int,
    notation: str,
    *,
    config: Settings,
) -> Outcome:
    """Play the turn as the API would; the confirmation is queued in its transaction."""
    assert player.id is not None
    by_email = notify.EmailTurn(
        message_key=reply.message_key, message_id=reply.message_id, player_id=player.id
    )
    try:
        result = turns.play_turn(
            session,
            game_id=game_id,
            player=player,
            notation=notation,
            version=version,
            idem=None,
            source=TurnSource.EMAIL,
            by_email=by_email,
            config=config,
        )
    except (DomainError, CafeError) as error:
        session.rollback()
        refusal = from_engine(error) if isinstance(error, CafeError) else error
        problem = _PROBLEMS.get(refusal.code, "refused")
        reason = refusal.lazy_message  # said in the reader's language when the answer is sent
        return _refuse(
            session, reply, player, game_id, problem, reason, read=notation, config=config
        )
    return Outcome("applied", str(result["summary"]))


def _refuse(
    session: Session,
    reply: reading.Reply,
    player: Player,
    game_id: int,
    problem: str,
    reason: Message | None,
    *,
    read: str | None = None,
    earlier: EarlierTurn | None = None,
    note: str | None = None,
    config: Settings,
) -> Outcome:
    """Answer with the reason (a `Text`, kept as its parts and said in the reader's
    language when the answer is rendered; None where the answer says it all: a game that
    moved on, a turn played already, a hint not offered) and the game now (for
    `already_played`, the `earlier` turn), and record the message as handled; `note` is
    the log's, where there is no reason."""
    notices.queue_about_game(  # rendered when sent, from the game as it is then
        session,
        config,
        EmailKind.TURN_REFUSED,
        game_id=game_id,
        player=player,
        answering=reply.message_id,
        problem=problem,
        reason=reason,
        read=read,
        earlier=earlier,
    )
    if _record(session, reply, player, problem, game_id=game_id):
        return Outcome("refused", f"{problem}: {reason if reason is not None else note}")
    return Outcome("duplicate", "answered by another process meanwhile")


#: How often one address may be told that its reply was not recognised.
STRANGER_ANSWER_EVERY = timedelta(hours=1)


def _answer_stranger(
    session: Session, config: Settings, reply: reading.Reply, address: str, envelope_from: str
) -> str:
    """Tell the envelope sender, if a registered player, that their reply matched nothing;
    once an hour at most. `From` is never used: it is whatever the sender typed."""
    player = find_player(session, email=envelope_from) if envelope_from else None
    if player is not None and _answered_lately(session, player.email):
        _record(session, reply, player, "unrecognised")
        return "not answered: answered within the hour"
    if player is not None:
        notices.queue(
            session,
            config,
            EmailKind.REPLY_UNRECOGNISED,
            to=player.email,
            answering=reply.message_id,
            address=address,
            links=addresses.links(config),
        )
    _record(session, reply, player, "unrecognised")
    return "answered" if player is not None else "not answered: the sender is not a player"


def _answered_lately(session: Session, email: str) -> bool:
    """Whether `email` was sent a "not recognised" answer within `STRANGER_ANSWER_EVERY`."""
    since = utcnow() - STRANGER_ANSWER_EVERY
    found = session.exec(
        select(OutboxMessage.id).where(
            OutboxMessage.kind == EmailKind.REPLY_UNRECOGNISED,
            OutboxMessage.to_addr == email,
            OutboxMessage.created_at > since,
        )
    ).first()
    return found is not None


def _record(
    session: Session,
    reply: reading.Reply,
    player: Player | None,
    outcome: str,
    *,
    game_id: int | None = None,
    key: str | None = None,
) -> bool:
    """Commit the message as handled (under `key`; None: the reply's own) with what is
    queued; False if it was handled already (or the transaction lost a race), in which
    case nothing is kept."""
    session.add(
        InboundMail(
            message_key=reply.message_key if key is None else key,
            player_id=None if player is None else player.id,
            game_id=game_id,
            outcome=outcome,
        )
    )
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        return False
    return True
