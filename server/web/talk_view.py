"""What the table talk of a game page shows (`templates/web/_talk.html`): the messages,
oldest first, each with its writer and time; the box to write one; the buttons to mute or
hear the other players again. Only the game's players and invitees see any of it
(`server.games.talk`): to anyone else the page has no talk at all.

A message is text: every character of it is escaped, and only the `http` and `https`
addresses in it become links, marked `rel="nofollow ugc noopener"` (written by a player,
never followed by the service, and given no hold on this page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from markupsafe import Markup, escape
from sqlmodel import Session

from server.games import store, talk
from server.models import TALK_LENGTH, GameRecord, Player, iso

#: An address a message may hold, up to the first space or quote; the punctuation that
#: ends a sentence after it is left out of the link.
_ADDRESS = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}"
#: How a message's link is marked.
LINK_REL = "nofollow ugc noopener"


@dataclass(frozen=True, slots=True)
class Message:
    """One message as the page shows it."""

    player: str
    at: datetime
    html: Markup
    mine: bool

    @property
    def iso(self) -> str:
        """Its time for the `<time>` element."""
        return iso(self.at) or ""


@dataclass(frozen=True, slots=True)
class Other:
    """Another player of the game, whom the viewer may mute (or hear again)."""

    name: str
    muted: bool


@dataclass(frozen=True, slots=True)
class TalkView:
    """The game's table talk as the viewer sees it; `problem` and `draft` after a message
    the page refused (the box keeps what was written)."""

    game_id: int
    messages: list[Message]
    may_write: bool
    others: list[Other]
    problem: str | None = None
    draft: str = ""
    most: int = TALK_LENGTH

    @property
    def muted_here(self) -> list[str]:
        """The players of the game the viewer muted (their messages are not shown)."""
        return [other.name for other in self.others if other.muted]


def as_html(text: str) -> Markup:
    """A message's text for the page: escaped, its web addresses made links (see the
    module's docstring)."""
    pieces: list[Markup] = []
    end = 0
    for found in _ADDRESS.finditer(text):
        address = found.group(0).rstrip(_TRAILING)
        pieces.append(escape(text[end : found.start()]))
        pieces.append(Markup('<a href="%s" rel="%s">%s</a>') % (address, LINK_REL, address))
        end = found.start() + len(address)
    pieces.append(escape(text[end:]))
    return Markup("").join(pieces)


def build(
    session: Session,
    game: GameRecord,
    viewer: Player | None,
    *,
    problem: str | None = None,
    draft: str = "",
) -> TalkView | None:
    """The talk of `game` for `viewer` (None: signed out), or None when they do not read it."""
    if viewer is None or not talk.may_read(session, game, viewer):
        return None
    assert game.id is not None
    said = talk.read(session, game, viewer)
    muted = set(talk.muted(session, viewer))
    others = [
        Other(name, name in muted) for name in store.names_of(session, game) if name != viewer.name
    ]
    return TalkView(
        game_id=game.id,
        messages=[
            Message(one.player, one.at, as_html(one.text), one.player == viewer.name)
            for one in said
        ],
        may_write=talk.seat_of(session, game, viewer) is not None,
        others=others,
        problem=problem,
        draft=draft,
    )
