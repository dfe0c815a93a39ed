"""Playing: `move` (checked locally, then sent), `hint`, and `resign`."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

from typing import TYPE_CHECKING, Annotated, Any

import typer

from client.commands.board import OptionalGameId, print_game
from client.errors import ApiError, CliError, TurnRefused, UsageError
from client.gameview import me_in
from client.output import color_wanted, say, scores_text, signed
from client.session import Session
from client.turnview import detail_lines, draw_line

if TYPE_CHECKING:
    from client.api import ApiClient

#: Server refusals of a turn (unreadable, illegal, stale, not yours, game over) end with exit 4.
REFUSAL_STATUSES = frozenset({400, 409, 422})


def move(
    ctx: typer.Context,
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="[ID] TURN",
            help="The game's number (optional when one game waits for you), then the turn in "
            "the notation of RULES.md §13; quotes are optional: 12 USm@US1-US2 USf@DE2-US1",
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check and preview the turn; send nothing.")
    ] = False,
) -> None:
    """Play your turn (checked locally first).

    The engine checks and scores the turn on your machine (points per table); then it goes
    to the server with the game version you saw and an idempotency key, so a retry never
    plays it twice and a game that moved on meanwhile refuses it (exit 4).
    """
    import uuid

    from client import localgame, picking

    session: Session = ctx.obj
    api = session.api()
    game_id, text = _split(words)
    if game_id is None:
        me = session.player_name(api)
        game_id = picking.waiting_game(api, me, f"cafe move ID {text}")
    state, _ = api.game(game_id)
    assert state is not None
    _check_can_move(state)
    preview = localgame.preview(state, text)
    points = signed(preview["points"])
    say(f"Game {game_id}, version {state['version']}: {preview['turn']} scores {points}")
    say("\n".join(detail_lines(preview, mine=True)))
    if dry_run:
        say(f"Dry run: nothing was sent. To play it: cafe move {game_id} {preview['turn']}")
        return
    try:
        played = api.play(game_id, text, state["version"], uuid.uuid4().hex)
    except ApiError as error:
        raise _refusal(api, game_id, error) from None
    _print_played(api, state, played)


def _split(words: list[str]) -> tuple[int | None, str]:
    """The game id (if the first word is a number) and the turn's text."""
    game_id = int(words[0]) if words[0].isdigit() else None
    text = " ".join(words[1:] if game_id is not None else words).strip()
    if not text:
        raise UsageError("say which turn to play, e.g. cafe move 12 USm@US1-US2 USf@DE2-US1")
    return game_id, text


def _check_can_move(state: dict[str, Any]) -> None:
    """Refuse early (exit 4) when the game is not running or it is not the caller's turn."""
    game_id = state["id"]
    if state["status"] == "open":
        raise TurnRefused(f"game {game_id} has not started yet")
    if state["status"] == "finished":
        raise TurnRefused(f"game {game_id} is over")
    me = me_in(state)
    if me is None:
        raise CliError(f"you do not play in game {game_id}")
    if state["to_move"] != me:
        raise TurnRefused(
            f"it is {state['to_move']}'s turn in game {game_id}, not yours; "
            f"`cafe watch {game_id}` waits for yours"
        )


def _refusal(api: "ApiClient", game_id: int, error: ApiError) -> CliError:
    """What to report when the server refused the turn; a stale game is shown anew."""
    if error.status not in REFUSAL_STATUSES:
        return error
    if error.error not in ("stale_version", "not_your_turn"):
        return TurnRefused(error.message)
    fresh, _ = api.game(game_id)
    assert fresh is not None
    print_game(fresh, color=color_wanted(), api=api)
    now = (
        f"it is now {fresh['to_move']}'s turn"
        if fresh["status"] == "active"
        else f"the game is {fresh['status']}"
    )
    return TurnRefused(
        f"the game moved on: {now} (version {fresh['version']}); your turn was not played"
    )


def _print_played(api: "ApiClient", state: dict[str, Any], played: dict[str, Any]) -> None:
    """The server's account of the turn, the new scores, and who moves next."""
    game_id = state["id"]
    say(f"Played {played['turn']} in game {game_id} for {signed(played['points'])} points.")
    drew = draw_line(played)
    if drew:
        say(drew)
    say(f"Scores: {scores_text(state['players'], played['scores'])}")
    if played["game_over"]:
        final, _ = api.game(game_id)
        assert final is not None
        say("The game is over.")
        print_game(final, color=color_wanted(), api=api)
    elif played["to_move"] == me_in(state):
        say(f"Your turn again: cafe show {game_id}")
    else:
        say(f"{played['to_move']} moves next.")


def hint(
    ctx: typer.Context,
    game_id: OptionalGameId = None,
    n: Annotated[
        int, typer.Option("-n", min=1, max=50, metavar="N", help="How many turns to suggest.")
    ] = 5,
) -> None:
    """Your best turns now, each as a ready command."""
    from client import picking

    session: Session = ctx.obj
    api = session.api()
    if game_id is None:
        game_id = picking.waiting_game(api, session.player_name(api), "cafe hint ID")
    hints = api.hints(game_id, n)
    say(f"Best turns in game {game_id}, best first:")
    for found in hints:
        say(f"  {signed(found['points']):>4}  cafe move {game_id} {found['turn']}")


def resign(
    ctx: typer.Context,
    game_id: Annotated[
        int, typer.Argument(help="The game to leave for good.", min=1, metavar="ID")
    ],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Leave a running game for good.

    You rank below everyone still playing.
    """
    if not yes:
        typer.confirm(f"Resign from game {game_id}? This cannot be undone", abort=True)
    state = ctx.obj.api().resign(game_id)
    after = (
        "The game is over." if state["status"] == "finished" else f"{state['to_move']} moves next."
    )
    say(f"You resigned from game {game_id}. {after}")
