"""Registering for a league season by replying `join` to its registration email
(`league_registration`), handled by `cafe-server mail-in` (`server.mail.replies`).

The email's reply address names the season and the player it was sent to, signed
(`server.postbox.addresses.SeasonReplyAddress`); as for emailed turns, the `From` of the reply
counts for nothing. The reply's first own line must read `join` (or `cafe league join
SLUG`, or a join word of another language: `server.mail.words`). The registration goes
through the API's own rules (`server.league.store.add_member`, the season's row locked)
and, in the same transaction, the answer is queued and the message recorded as handled,
so a message delivered twice registers and answers once. Every reply
a person wrote is answered: `league_joined`, or `league_join_refused` with the reason
(registration closed, registered already, not invited, no `join` in it). Answers go out
whatever the player's email preferences: they answer the player's own email.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from cafe.i18n import Message, lazy_gettext
from server.config import Settings
from server.domain import DomainError
from server.games.notify import recipient
from server.league.emails import season_facts, season_links
from server.league.facts import SeasonFacts
from server.league.store import add_member
from server.mail import reading, words
from server.models import InboundMail, League, Player, Season, SeasonStatus
from server.postbox import notices
from server.postbox.addresses import SeasonReplyAddress, read_season_reply_address
from server.postbox.addresses import links as email_links  # `addresses` names replies' here
from server.postbox.facts import Links
from server.postbox.kinds import EmailKind


def season_address(config: Settings, addresses: Sequence[str]) -> SeasonReplyAddress | None:
    """The first of `addresses` that is a season reply address we signed."""
    keys, domain = config.verifying_keys, config.mail_domain
    for address in addresses:
        found = read_season_reply_address(keys, domain, address)
        if found is not None:
            return found
    return None


def answer(
    session: Session, config: Settings, reply: reading.Reply, addresses: Sequence[str]
) -> tuple[str, str] | None:
    """Handle a reply sent to a season reply address among `addresses`: register the player
    and confirm, or refuse and say why. The outcome (`joined`, `refused` or `duplicate`) and
    a note for the log; None if no such address names a season and player that exist."""
    signed = season_address(config, addresses)
    if signed is None:
        return None
    found = session.exec(
        select(Season, League)
        .join(League, col(League.id) == Season.league_id)
        .where(col(Season.id) == signed.season_id)
        .with_for_update(of=Season)
        .execution_options(populate_existing=True)
    ).first()
    player = session.get(Player, signed.player_id)
    if found is None or player is None:
        session.rollback()
        return None
    season, league = found
    first = reply.lines[0] if reply.lines else ""
    if reply.too_large or not words.is_join_line(first):
        session.rollback()
        return _refuse(session, config, reply, league, season, player, _not_join(reply, first))
    try:
        add_member(session, league=league, season=season, player=player)
    except DomainError as refusal:
        session.rollback()
        reason = refusal.lazy_message  # said in the reader's language when sent
        return _refuse(session, config, reply, league, season, player, reason)
    assert player.id is not None
    links = email_links(config, player_id=player.id)
    _queue(
        session, config, reply, EmailKind.LEAGUE_JOINED, player, season_facts(league, season), links
    )
    if _record(session, reply, player, "joined"):
        return "joined", f"{player.name} registered for {league.slug} season {season.number}"
    if _handled(session, reply.message_key):
        return "duplicate", "handled by another process meanwhile"
    already = lazy_gettext(
        "you are registered for season %(season)s of %(league)s",
        season=season.number,
        league=league.slug,
    )
    return _refuse(session, config, reply, league, season, player, already)


def _not_join(reply: reading.Reply, first: str) -> Message:
    """Why a reply to a registration email registered no one, when it was no `join`."""
    if reply.too_large:
        return lazy_gettext("your reply was too large to read")
    if first:
        return lazy_gettext(
            "we read only the word %(word)s in a reply to this email; yours said %(text)s",
            word="join",
            text=repr(first[:60]),
        )
    return lazy_gettext(
        "we read only the word %(word)s in a reply to this email; yours had no text of its own",
        word="join",
    )


def _refuse(
    session: Session,
    config: Settings,
    reply: reading.Reply,
    league: League,
    season: Season,
    player: Player,
    reason: Message,
) -> tuple[str, str]:
    """Answer with the reason (and, while registration is open, the season's reply address
    again, to reply `join` to) and record the message as handled."""
    assert player.id is not None and season.id is not None
    links = (
        season_links(config, season_id=season.id, player_id=player.id)
        if season.status == SeasonStatus.REGISTRATION
        else email_links(config, player_id=player.id)
    )
    facts = season_facts(league, season)
    _queue(
        session, config, reply, EmailKind.LEAGUE_JOIN_REFUSED, player, facts, links, reason=reason
    )
    if _record(session, reply, player, "join_refused"):
        return "refused", str(reason)
    return "duplicate", "handled by another process meanwhile"


def _queue(
    session: Session,
    config: Settings,
    reply: reading.Reply,
    kind: EmailKind,
    player: Player,
    season: SeasonFacts,
    links: Links,
    **facts: Any,
) -> None:
    """Queue the answer `kind` to the player's reply (`server.mail.notices`)."""
    notices.queue(
        session,
        config,
        kind,
        to=player.email,
        answering=reply.message_id,
        recipient=recipient(player),
        season=season,
        links=links,
        **facts,
    )


def _handled(session: Session, key: str) -> bool:
    found = session.exec(select(InboundMail.id).where(InboundMail.message_key == key)).first()
    return found is not None


def _record(session: Session, reply: reading.Reply, player: Player, outcome: str) -> bool:
    """Commit the message as handled with what is queued; False (nothing kept) if it was
    handled already or the transaction lost a race."""
    session.add(InboundMail(message_key=reply.message_key, player_id=player.id, outcome=outcome))
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        return False
    return True
