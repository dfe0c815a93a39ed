"""Looking at a game: `show` now, `watch` until it is your turn."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cafe.i18n import gettext as _
from cafe.i18n import ngettext
from client.errors import ApiError, CliError, Unreachable
from client.gameview import (
    final_text,
    header,
    league_text,
    me_in,
    next_step,
    open_text,
    player_zone,
)
from client.output import color_wanted, note, say, terminal_width
from client.output import command as cafe_command
from client.timeview import zone

if TYPE_CHECKING:
    from client.api import ApiClient
    from client.session import Session

OptionalGameId = Annotated[
    int | None,
    typer.Argument(
        help=_("The game's number [default: the game waiting for you]."),
        min=1,
        metavar="ID",
        show_default=False,
    ),
]
Plain = Annotated[
    bool,
    typer.Option("--plain", help=_("No colour (also when not a terminal, or with NO_COLOR).")),
]
Layout = Annotated[
    bool | None,
    typer.Option(
        "--wide/--compact",
        help=_("The 93-column board, or the 80-column one [default: what the terminal fits]."),
        show_default=False,
    ),
]
#: The wide board's width: narrower terminals get the compact one.
WIDE_COLUMNS = 93
#: How many of the newest messages of table talk `cafe show` prints.
SHOWN_TALK = 3

#: What one look at the server found: the state to act on (None: keep waiting) and a line
#: saying what we are waiting for.
Look = tuple[dict[str, Any] | None, str]


def print_game(
    state: dict[str, Any],
    *,
    color: bool,
    api: "ApiClient | None" = None,
    wide: bool | None = None,
) -> None:
    """The game as `cafe show` prints it: the lobby view, or the board with header and footer
    (with a deadline, in the zone of the player `api` signs in as; else UTC), the last turn's
    guests standing out. `wide` None: the layout the terminal's width fits."""
    if state["status"] == "open":
        say(open_text(state))
        return
    from client import localgame

    if wide is None:
        wide = terminal_width() >= WIDE_COLUMNS
    where = player_zone(api) if api is not None and state.get("deadline") else zone(None)
    last = api.turns(state["id"])[-1] if api is not None and state.get("turns") else None
    width = 100 if wide else 80
    now = api.now() if api is not None else datetime.now(UTC)
    say(header(state, where, now, width))
    league = league_text(state.get("league"), api.base_url if api else "", width)
    if league:
        say(league)
    say(localgame.picture(state, color=color, compact=not wide, last=last), color=color, fit=False)
    if state["status"] == "finished":
        say(final_text(state, localgame.load(state), width))
    say(next_step(state))


def show(
    ctx: typer.Context,
    game_id: OptionalGameId = None,
    plain: Plain = False,
    wide: Layout = None,
    as_json: Annotated[
        bool, typer.Option("--json", help=_("The server's JSON state, as is."))
    ] = False,
) -> None:
    """The board, hands, scores and whose turn it is.

    In colour on a terminal: nations in their colours, ladies ♀ and gentlemen ♂, the last
    turn's guests reversed, the bar with its next value, the deadline. Plain text when piped,
    with --plain, or with NO_COLOR set (the last turn's guests marked ›). The board fits the
    terminal: 93 columns, or 80 (--wide / --compact choose). Under it, for the game's
    players and invitees, the last three messages of its table talk (all: `cafe talk`).
    """
    import json

    from client import picking

    session: Session = ctx.obj
    api = session.api()
    if game_id is None:
        game_id = picking.game_to_show(api, session.player_name(api))
    state, _etag = api.game(game_id)
    assert state is not None  # no ETag was sent, so the server answers with the state
    if as_json:
        say(json.dumps(state, indent=2, ensure_ascii=False), fit=False)
    else:
        print_game(state, color=color_wanted(plain), api=api, wide=wide)
        print_talk(api, game_id)


def print_talk(api: "ApiClient", game_id: int) -> None:
    """The newest `SHOWN_TALK` messages of the game's table talk, if it has any and the
    player reads it (a spectator does not: the server refuses, and nothing is printed)."""
    from client.talkview import talk_text

    try:
        messages = api.messages(game_id)
    except ApiError as error:
        if error.status in (403, 404):
            return
        raise
    if not messages:
        return
    say("")
    if len(messages) > SHOWN_TALK:
        say(
            ngettext(
                "At the table, the last %(num)s of %(all)s messages (all: %(command)s):",
                "At the table, the last %(num)s of %(all)s messages (all: %(command)s):",
                SHOWN_TALK,
                all=len(messages),
                command=cafe_command("talk", game_id),
            )
        )
    else:
        say(_("At the table:"))
    say(talk_text(messages[-SHOWN_TALK:], player_zone(api), terminal_width()))


def watch(
    ctx: typer.Context,
    game_id: Annotated[
        int | None,
        typer.Argument(
            help=_("The game to watch [default: all your running games]."),
            min=1,
            metavar="ID",
            show_default=False,
        ),
    ] = None,
    command: Annotated[
        str | None,
        typer.Option(
            "--exec",
            help=_(
                "Run CMD (with CAFE_GAME set to the game's number) instead of showing the "
                "board, and exit with its exit code."
            ),
            metavar="CMD",
            show_default=False,
        ),
    ] = None,
    interval: Annotated[
        float,
        typer.Option(
            min=0.01,
            metavar="SECONDS",
            help=_("Pause between the first looks; it grows while nothing changes."),
        ),
    ] = 2.0,
    max_interval: Annotated[
        float, typer.Option(min=0.01, metavar="SECONDS", help=_("The longest pause."))
    ] = 60.0,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=0,
            metavar="SECONDS",
            help=_("Give up after this long (exit 1)."),
            show_default=False,
        ),
    ] = None,
    plain: Plain = False,
) -> None:
    """Wait until it is your turn, then show the board (or run a command).

    Asks the server politely: conditional requests with the game's ETag, and pauses that
    grow by half each time nothing changed (back to --interval when something did).
    """
    import subprocess

    session: Session = ctx.obj
    api = session.api()
    me = session.player_name(api)
    look = _game_look(api, game_id) if game_id is not None else _list_look(api, me)
    state = _wait(look, interval=interval, max_interval=max_interval, timeout=timeout)
    if state["status"] == "finished":
        if command is not None:
            raise CliError(
                _(
                    "game %(game)s ended before your turn; %(command)s was not run",
                    game=state["id"],
                    command=repr(command),
                )
            )
        note(_("Game %(game)s is over.", game=state["id"]))
    elif command is not None:
        note(_("Your turn in game %(game)s: running %(command)s", game=state["id"],
               command=command))  # fmt: skip
        env = {**os.environ, "CAFE_GAME": str(state["id"])}
        raise typer.Exit(subprocess.run(command, shell=True, env=env, check=False).returncode)
    print_game(state, color=color_wanted(plain), api=api)


def _wait(
    look: Callable[[], Look], *, interval: float, max_interval: float, timeout: float | None
) -> dict[str, Any]:
    """Look until there is a state to act on, pausing longer while nothing changes."""
    give_up = None if timeout is None else time.monotonic() + timeout
    pause, last = interval, ""
    while True:
        try:
            state, waiting_for = look()
        except Unreachable as error:  # a server restart should not end a long watch
            state, waiting_for = None, _("%(error)s; trying again", error=error.message)
        if state is not None:
            return state
        if waiting_for != last:
            note(waiting_for)
            pause, last = interval, waiting_for
        else:
            pause = min(pause * 1.5, max_interval)
        if give_up is not None and time.monotonic() + pause > give_up:
            seconds = f"{timeout:g}"
            raise CliError(
                _("gave up after %(seconds)s s: it is still not your turn", seconds=seconds)
            )
        time.sleep(pause)


def _game_look(api: "ApiClient", game_id: int) -> Callable[[], Look]:
    """Looks at one game, with `If-None-Match` so that an unchanged game costs a 304."""
    etag: str | None = None
    state: dict[str, Any] = {}

    def look() -> Look:
        nonlocal etag, state
        fresh, etag = api.game(game_id, etag)
        state = fresh or state
        me = me_in(state)
        if state["status"] == "finished" or (state["to_move"] == me and me is not None):
            return state, ""
        if state["status"] == "open":
            return None, _("game %(game)s: waiting for it to start", game=game_id)
        return None, _(
            "game %(game)s: waiting for %(player)s (version %(version)s)",
            game=game_id,
            player=state["to_move"],
            version=state["version"],
        )

    return look


def _list_look(api: "ApiClient", me: str) -> Callable[[], Look]:
    """Looks at all the player's running games at once."""

    def look() -> Look:
        active = api.games(status="active")
        if not active:
            raise CliError(
                _("you have no running game to watch; see `%(command)s`", command="cafe games")
            )
        waiting = [game for game in active if game["to_move"] == me]
        if waiting:
            state, _etag = api.game(waiting[0]["id"])
            return state, ""
        others = ", ".join(
            _("%(player)s in game %(game)s", player=game["to_move"], game=game["id"])
            for game in active
        )
        return None, _("waiting for %(players)s", players=others)

    return look
