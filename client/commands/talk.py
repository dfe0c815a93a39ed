"""Table talk: `say` a message at a game's table, read its `talk`, `mute` and `unmute`
a player (docs/playing.md)."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from cafe.i18n import gettext as _
from client.commands.lobby import GameId
from client.errors import UsageError
from client.output import say as print_lines
from client.output import terminal_width

if TYPE_CHECKING:
    from client.session import Session

PlayerName = Annotated[str, typer.Argument(help=_("The player's name."), metavar="NAME")]
OptionalName = Annotated[
    str | None,
    typer.Argument(
        help=_("The player's name [default: list the players you muted]."),
        metavar="NAME",
        show_default=False,
    ),
]


def say(
    ctx: typer.Context,
    game_id: GameId,
    text: Annotated[
        list[str],
        typer.Argument(
            help=_("The message (its words are joined by spaces); - reads it from stdin."),
            metavar="TEXT",
            show_default=False,
        ),
    ],
) -> None:
    """Write a message at the table of a game you play in.

    Only the game's players and invitees read it, on the game's page, with `cafe talk`
    and in their emails. Up to 500 characters; at most 30 messages in one game within
    an hour.
    """
    message = sys.stdin.read() if text == ["-"] else " ".join(text)
    if not message.strip():
        raise UsageError(_("the message is empty: write the text after the game's number"))
    session: Session = ctx.obj
    said = session.api().say(game_id, message)
    print_lines(
        _("Written at the table of game %(game)s (message %(id)s).", game=game_id, id=said["id"])
    )


def talk(
    ctx: typer.Context,
    game_id: GameId,
    after: Annotated[
        int,
        typer.Option(
            min=0, metavar="N", help=_("Only the messages after message N."), show_default=False
        ),
    ] = 0,
) -> None:
    """The table talk of a game, oldest first.

    The messages of the players you muted are left out; times are in your time zone.
    """
    from client.gameview import player_zone
    from client.talkview import talk_text

    session: Session = ctx.obj
    api = session.api()
    messages = api.messages(game_id, after=after)
    if not messages:
        print_lines(_("No messages at the table of game %(game)s yet.", game=game_id))
        return
    print_lines(talk_text(messages, player_zone(api), terminal_width()))


def mute(ctx: typer.Context, name: OptionalName = None) -> None:
    """Hide a player's table talk from you in every game (and from your emails).

    Without NAME: the players you muted.
    """
    session: Session = ctx.obj
    api = session.api()
    if name is None:
        _say_muted(api.mutes())
        return
    api.mute(name)
    print_lines(
        _("You muted %(player)s: their messages are hidden from you in every game.", player=name)
    )


def unmute(ctx: typer.Context, name: PlayerName) -> None:
    """Read a muted player's table talk again."""
    session: Session = ctx.obj
    muted = session.api().unmute(name)
    print_lines(_("You hear %(player)s again.", player=name))
    _say_muted(muted)


def _say_muted(muted: list[str]) -> None:
    if muted:
        print_lines(_("Muted: %(players)s", players=", ".join(muted)))
    else:
        print_lines(_("You muted nobody."))
