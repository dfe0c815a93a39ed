"""What a ping says (issue 26), in its reader's language: the game, the opponents, what to
do, and the link to the game's page; a message at the table, who wrote it and its words
(`QUOTE_LENGTH` of them at most), linking to the game; a season's start or end, linking to
the season's page. A ping never shows a hand: it is read where others may see it (a chat
room, a phone's lock screen). A league's shared channel is told of a game's events as an
onlooker (`about_league_game`: whose move it is, the result) and of its seasons without
"your".

Each text is messages of the catalogs (`cafe.i18n`), said in the language in use: the
worker says a ping inside `cafe.i18n.speaking(owner.language)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cafe.i18n import gettext as _
from cafe.render.quantities import season_path
from server.postbox.pings import ChannelEvent

#: The most characters of a message a ping quotes (with "…" when cut): a notice, well
#: within every format's limit in any script; the whole message is on the game's page.
QUOTE_LENGTH = 200


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


def season_link(base_url: str, slug: str, season: int) -> str:
    """The season's page."""
    return base_url.rstrip("/") + season_path(slug, season)


def quoted(text: str) -> str:
    """A message as a ping quotes it: on one line, cut to `QUOTE_LENGTH` characters."""
    line = " ".join(text.split())
    return line if len(line) <= QUOTE_LENGTH else line[: QUOTE_LENGTH - 1].rstrip() + "…"


def about_message(*, game_id: int, writer: str, said: str, link: str) -> Ping:
    """The ping of a message at the game's table for one of its other players."""
    title = _("Game %(game)s: %(writer)s wrote", game=game_id, writer=writer)
    text = _(
        "Game %(game)s: %(writer)s wrote: “%(words)s” Read and answer at %(link)s",
        game=game_id,
        writer=writer,
        words=quoted(said),
        link=link,
    )
    return Ping(title, text, link, ("speech_balloon",))


def about_season(
    *, started: bool, league: str, season: int, link: str, shared: bool = False
) -> Ping:
    """The ping of a season's start (`started`) or end for one of its members, or for the
    league's `shared` channel."""
    if started:
        title = _("%(league)s: season %(season)s has started", league=league, season=season)
        if shared:
            text = _(
                "Season %(season)s of %(league)s has started: see its divisions and games at"
                " %(link)s",
                season=season,
                league=league,
                link=link,
            )
        else:
            text = _(
                "Season %(season)s of %(league)s has started: see your division and games at"
                " %(link)s",
                season=season,
                league=league,
                link=link,
            )
        return Ping(title, text, link, ("date",))
    title = _("%(league)s: season %(season)s is over", league=league, season=season)
    text = _(
        "Season %(season)s of %(league)s is over: see the final tables at %(link)s",
        season=season,
        league=league,
        link=link,
    )
    return Ping(title, text, link, ("trophy",))


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


def about_league_game(
    event: ChannelEvent,
    *,
    game_id: int,
    players: Sequence[str],
    to_move: str,
    result: Sequence[tuple[str, int]],
    link: str,
) -> Ping:
    """The ping of a game's event for its league's shared channel: whose move it is
    (`to_move`), or the result (`result`: each player's final score, best first); never
    anyone's tiles."""
    if event is ChannelEvent.YOUR_TURN:
        title = _("Game %(game)s: %(player)s to move", game=game_id, player=to_move)
        text = _(
            "Game %(game)s (%(players)s): it is %(player)s's move. Follow it at %(link)s",
            game=game_id,
            players=", ".join(players),
            player=to_move,
            link=link,
        )
        return Ping(title, text, link, ("coffee",))
    if event is ChannelEvent.GAME_OVER:
        title = _("Game %(game)s is over", game=game_id)
        text = _(
            "Game %(game)s is over: %(result)s. See it at %(link)s",
            game=game_id,
            result=" · ".join(f"{name} {score}" for name, score in result),
            link=link,
        )
        return Ping(title, text, link, ("checkered_flag",))
    raise ValueError(f"{event} is not an event a league's channel hears of a game")


def test_message(base_url: str, *, league: bool = False) -> Ping:
    """The ping of "send a test" (to a `league`'s shared channel, or a player's own)."""
    link = base_url.rstrip("/")
    title = _("Café International: a test")
    if league:
        text = _(
            "This is a test of the league's channel: its games' turns and results and its"
            " seasons will be announced here. %(link)s",
            link=link,
        )
    else:
        text = _(
            "This is a test of your channel: your turns will be announced here. %(link)s",
            link=link,
        )
    return Ping(title, text, link, ("white_check_mark",))
