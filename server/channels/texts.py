"""What a ping says (issue 26), in its reader's language: the game, the opponents, what to
do, and the link to the game's page. A ping never shows a hand: it is read where others may
see it (a chat room, a phone's lock screen).

Each text is messages of the catalogs (`cafe.i18n`), said in the language in use: the
worker says a ping inside `cafe.i18n.speaking(owner.language)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cafe.i18n import gettext as _
from server.postbox.pings import ChannelEvent


@dataclass(frozen=True, slots=True)
class Ping:
    """A ping's words: a short `title`, the `text` (which ends with the link), the `link`
    itself and ntfy's `tags` (emoji short codes)."""

    title: str
    text: str
    link: str
    tags: tuple[str, ...] = ()


def game_link(base_url: str, game_id: int) -> str:
    """The game's page."""
    return f"{base_url.rstrip('/')}/games/{game_id}"


def about_game(event: ChannelEvent, *, game_id: int, opponents: Sequence[str], link: str) -> Ping:
    """The ping of a game's event for one of its players; `opponents` are the others'
    names."""
    against = ", ".join(opponents)
    if event is ChannelEvent.YOUR_TURN:
        title = _("Game %(game)s: your turn", game=game_id)
        text = _(
            "It is your turn in game %(game)s against %(opponents)s. Play it at %(link)s",
            game=game_id,
            opponents=against,
            link=link,
        )
        return Ping(title, text, link, ("coffee",))
    if event is ChannelEvent.REMINDER:
        title = _("Game %(game)s: a reminder", game=game_id)
        text = _(
            "Game %(game)s against %(opponents)s is still waiting for your turn; play it"
            " before the deadline at %(link)s",
            game=game_id,
            opponents=against,
            link=link,
        )
        return Ping(title, text, link, ("hourglass",))
    if event is ChannelEvent.GAME_OVER:
        title = _("Game %(game)s is over", game=game_id)
        text = _(
            "Game %(game)s against %(opponents)s is over. See the result at %(link)s",
            game=game_id,
            opponents=against,
            link=link,
        )
        return Ping(title, text, link, ("checkered_flag",))
    raise ValueError(f"{event} is not an event of a game")


def test_message(base_url: str) -> Ping:
    """The ping of "send a test"."""
    link = base_url.rstrip("/")
    title = _("Café International: a test")
    text = _(
        "This is a test of your channel: your turns will be announced here. %(link)s",
        link=link,
    )
    return Ping(title, text, link, ("white_check_mark",))
