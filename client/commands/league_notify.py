"""`cafe league notify …`: a league's shared channels (issue 26; docs/channels.md), for its
organiser. A league's channel is told once of each game event of the league's seasons —
whose move it is, a game's result, never anyone's tiles — and of its seasons' starts and
ends; a reminder and table talk are each player's own (`cafe notify`).
"""

from typing import Annotated

import typer

from cafe.i18n import gettext as _
from client.commands.notify import (
    Kind,
    Room,
    Token,
    Topic,
    Url,
    channel_body,
    say_added,
    say_answer,
    say_channels,
)
from client.output import command, say

#: The events a league's channel may take (all three unless told).
EVENTS = ("your_turn", "game_over", "league")

app = typer.Typer(
    name="notify",
    help=_(
        "A league's channels (the organiser): Discord, Slack, Matrix, ntfy or a signed webhook"
        " told of every game and season of the league, once each."
    ),
    short_help=_("A league's channels: its games and seasons on Discord, Slack, …"),
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)

Slug = Annotated[
    str,
    typer.Argument(help=_("The league's short name (see `cafe league list`)."), metavar="SLUG"),
]
ChannelId = Annotated[
    int,
    typer.Argument(
        help=_("The channel's number (see `cafe league notify list SLUG`)."),
        min=1,
        metavar="CHANNEL",
    ),
]


@app.command()
def add(
    ctx: typer.Context,
    slug: Slug,
    kind: Kind,
    url: Url,
    events: Annotated[
        str | None,
        typer.Option(
            "--events",
            metavar="LIST",
            help=_(
                "Comma-separated: your_turn, game_over, league"
                " [default: your_turn,game_over,league]"
            ),
            show_default=False,
        ),
    ] = None,
    room: Room = None,
    topic: Topic = None,
    token: Token = None,
) -> None:
    """Add a channel to a league you organise (at most 5): each turn and result of its
    games, and its seasons, once each."""
    body = channel_body(kind, url, events, EVENTS, room=room, topic=topic, token=token)
    say_added(ctx.obj.api().add_channel(body, league=slug), "league", "notify", "test", slug)


@app.command("list")
def list_channels(ctx: typer.Context, slug: Slug) -> None:
    """A league's channels: what each takes, its state and its last error."""
    say_channels(
        ctx.obj.api().channels(league=slug),
        command("league", "notify", "add", slug, "KIND URL"),
    )


@app.command()
def remove(ctx: typer.Context, slug: Slug, channel_id: ChannelId) -> None:
    """Remove a league's channel, with its secrets."""
    ctx.obj.api().remove_channel(channel_id, league=slug)
    say(_("Channel %(id)s removed.", id=channel_id))


@app.command()
def test(ctx: typer.Context, slug: Slug, channel_id: ChannelId) -> None:
    """Send a league's channel a test message now and show what its receiver answered."""
    say_answer(ctx.obj.api().test_channel(channel_id, league=slug))
