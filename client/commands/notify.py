"""`cafe notify …`: channels beyond email — Discord, Slack, Matrix, ntfy, signed webhooks —
that tell you of your turns (issue 26; docs/playing.md).

A channel's URL and tokens are secrets: the service shows them back only masked, and a
webhook's signing secret once, when it is added.
"""

from typing import Annotated, Any

import typer

from cafe.i18n import gettext as _
from client.errors import UsageError
from client.output import command, say

KINDS = ("discord", "slack", "matrix", "ntfy", "webhook")
EVENTS = ("your_turn", "reminder", "game_over", "message", "league")

app = typer.Typer(
    name="notify",
    help=_("Channels besides email: Discord, Slack, Matrix, ntfy or a signed webhook."),
    short_help=_("Channels besides email: Discord, Slack, Matrix, ntfy, webhooks."),
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)

ChannelId = Annotated[
    int,
    typer.Argument(
        help=_("The channel's number (see `cafe notify list`)."), min=1, metavar="CHANNEL"
    ),
]
Kind = Annotated[
    str, typer.Argument(help=_("discord, slack, matrix, ntfy or webhook"), metavar="KIND")
]
Url = Annotated[
    str,
    typer.Argument(
        help=_("The webhook's URL, or the Matrix or ntfy server's (https)."), metavar="URL"
    ),
]
Room = Annotated[
    str | None,
    typer.Option(help=_("Matrix: the room's id (!…:server)."), metavar="ROOM", show_default=False),
]
Topic = Annotated[
    str | None, typer.Option(help=_("ntfy: the topic."), metavar="TOPIC", show_default=False)
]
Token = Annotated[
    str | None,
    typer.Option(
        help=_("Matrix: the access token; ntfy: a bearer token."),
        metavar="TOKEN",
        show_default=False,
    ),
]


@app.command()
def add(
    ctx: typer.Context,
    kind: Kind,
    url: Url,
    events: Annotated[
        str | None,
        typer.Option(
            "--events",
            metavar="LIST",
            help=_(
                "Comma-separated: your_turn, reminder, game_over, message, league"
                " [default: your_turn,reminder,game_over]"
            ),
            show_default=False,
        ),
    ] = None,
    room: Room = None,
    topic: Topic = None,
    token: Token = None,
) -> None:
    """Add a channel (at most 5); it is told of your turns from now on."""
    body = channel_body(kind, url, events, EVENTS, room=room, topic=topic, token=token)
    say_added(ctx.obj.api().add_channel(body), "notify", "test")


def channel_body(
    kind: str,
    url: str,
    events: str | None,
    choosable: tuple[str, ...],
    *,
    room: str | None,
    topic: str | None,
    token: str | None,
) -> dict[str, Any]:
    """A new channel's request from the command line (a usage error for an unknown kind,
    or events outside `choosable`)."""
    if kind not in KINDS:
        raise UsageError(
            _(
                "%(kind)s is not a kind of channel: choose one of %(kinds)s",
                kind=repr(kind),
                kinds=", ".join(KINDS),
            )
        )
    body: dict[str, Any] = {"kind": kind, "url": url}
    if events is not None:
        chosen = [event.strip() for event in events.split(",") if event.strip()]
        unknown = [event for event in chosen if event not in choosable]
        if unknown or not chosen:
            raise UsageError(_("--events takes some of %(events)s", events=", ".join(choosable)))
        body["events"] = chosen
    for name, value in (("room", room), ("topic", topic), ("token", token)):
        if value is not None:
            body[name] = value
    return body


def say_added(made: dict[str, Any], *test_words: str) -> None:
    """What a new channel is told: its number and masked address, a webhook's secret (only
    now), and how to test it (`cafe` and `test_words`, then the channel's number)."""
    say(
        _(
            "Channel %(id)s added: %(kind)s, %(url)s.",
            id=made["id"],
            kind=made["kind"],
            url=made["url"],
        )
    )
    if made.get("secret"):
        say(_("Its signing secret, shown only now: %(secret)s", secret=made["secret"]))
    say(_("Send it a test: %(command)s", command=command(*test_words, made["id"])))


@app.command("list")
def list_channels(ctx: typer.Context) -> None:
    """Your channels: what each takes, its state and its last error."""
    say_channels(ctx.obj.api().channels(), command("notify", "add", "KIND URL"))


def say_channels(channels: list[dict[str, Any]], add_command: str) -> None:
    """Channels, a few lines each, or how to add one (`add_command`)."""
    if not channels:
        say(_("No channels yet; add one with `%(command)s`.", command=add_command))
        return
    for channel in channels:
        say(channel_text(channel))


def channel_text(channel: dict[str, Any]) -> str:
    """One channel in a few lines of at most 80 columns."""
    state = (
        _("active")
        if channel["state"] == "active"
        else _("disabled: %(reason)s", reason=channel.get("disabled_reason") or "")
    )
    lines = [f"{channel['id']:>3}  {channel['kind']:<8} {channel['url']}", "     " + state]
    lines.append("     " + _("events: %(events)s", events=", ".join(channel["events"])))
    if channel.get("last_error"):
        lines.append("     " + _("last error: %(error)s", error=channel["last_error"][:60]))
    return "\n".join(lines)


@app.command()
def remove(ctx: typer.Context, channel_id: ChannelId) -> None:
    """Remove a channel, with its secrets."""
    ctx.obj.api().remove_channel(channel_id)
    say(_("Channel %(id)s removed.", id=channel_id))


@app.command()
def test(ctx: typer.Context, channel_id: ChannelId) -> None:
    """Send a channel a test message now and show what its receiver answered."""
    say_answer(ctx.obj.api().test_channel(channel_id))


def say_answer(answer: dict[str, Any]) -> None:
    """What a channel's receiver answered a test message."""
    if answer["delivered"]:
        say(_("Delivered: the receiver answered %(status)s.", status=answer["status"]))
    elif answer["status"] is None:
        say(_("Not delivered: %(error)s", error=answer["error"]))
    else:
        say(_("Not delivered: the receiver answered %(status)s.", status=answer["status"]))
    if answer["body"]:
        say(answer["body"])
