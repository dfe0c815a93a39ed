"""Playing: `move` (checked locally, then sent), `hint`, and `resign`."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

from typing import TYPE_CHECKING, Annotated, Any

import typer

from client.commands.board import OptionalGameId, print_game
from client.errors import ApiError, CliError, TurnRefused, UsageError
from client.gameview import AS_IF, birthday_text, me_in
from client.output import color_wanted, confirm, say, scores_text
from client.turnview import detail_lines, draw_line

if TYPE_CHECKING:
    from client.api import ApiClient
    from client.session import Session

#: Server refusals of a turn (unreadable, illegal, stale, not yours, game over) end with exit 4.
REFUSAL_STATUSES = frozenset({400, 409, 422})


def move(
    ctx: typer.Context,
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="[ID] TURN",
            help="The game's number (optional when one game waits for you), then the turn in "
            "the notation (`cafe rules notation`); quotes are optional: "
            "12 USm@US1-US2 USf@DE2-US1",
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Check and preview the turn; send nothing (also while waiting for your turn).",
        ),
    ] = False,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Do not ask before a bar turn that puts you out."),
    ] = False,
) -> None:
    """Play your turn (checked locally first).

    The engine checks and scores the turn on your machine (points per table); then it goes
    to the server with the game version you saw and an idempotency key, so a retry never
    plays it twice and a game that moved on meanwhile refuses it (exit 4).
    """
    import uuid

    from cafe.render.quantities import signed
    from client import localgame, picking

    session: Session = ctx.obj
    api = session.api()
    game_id, text = _split(words)
    if game_id is None:
        me = session.player_name(api)
        game_id = picking.waiting_game(api, me, f"cafe move ID {text}")
    state, _ = api.game(game_id)
    assert state is not None
    waiting = _check_can_move(state, planning=dry_run)
    if waiting:
        say(AS_IF.format(mover=state["to_move"]))
    preview = localgame.preview(state, text, me_in(state))
    points = signed(preview["points"])
    say(f"Game {game_id}, version {state['version']}: {preview['turn']} scores {points}")
    say("\n".join(detail_lines(preview, mine=True)))
    if dry_run:
        say(f"Dry run: nothing was sent. To play it: cafe move {game_id} {preview['turn']}")
        return
    if preview["eliminated"] and not yes:
        confirm(
            f"You cannot pay bar stool {preview['stool']}: this turn puts you out of game "
            f"{game_id} for good. Play it?"
        )
    try:
        played = api.play(game_id, text, state["version"], uuid.uuid4().hex)
    except ApiError as error:
        raise _refusal(api, game_id, error) from None
    _print_played(api, state, played)


def _split(words: list[str]) -> tuple[int | None, str]:
    """The game id (if the first word is a number) and the turn's text; a first word that
    is neither a number nor the start of a turn is a mistyped game number."""
    first = words[0]
    game_id = int(first) if first.isdigit() else None
    if game_id is None and len(words) > 1 and not _starts_turn(first):
        raise UsageError(f"{first} is not a game number; e.g. cafe move 12 USm@US1-US2")
    text = " ".join(words[1:] if game_id is not None else words).strip()
    if not text:
        raise UsageError("say which turn to play, e.g. cafe move 12 USm@US1-US2 USf@DE2-US1")
    return game_id, text


def _starts_turn(word: str) -> bool:
    """Whether `word` can begin a turn's text (a placement, `bar` or `swap`)."""
    return "@" in word or word.lower() in ("bar", "swap")


def _check_can_move(state: dict[str, Any], *, planning: bool = False) -> bool:
    """Refuse early (exit 4) when the game is not running or it is not the caller's turn;
    `planning` (a dry run) allows waiting for it. True when it is not the caller's turn."""
    game_id = state["id"]
    if state["status"] == "open":
        raise TurnRefused(f"game {game_id} has not started yet")
    if state["status"] == "finished":
        raise TurnRefused(f"game {game_id} is over")
    me = me_in(state)
    if me is None:
        raise CliError(f"you do not play in game {game_id}")
    if state["to_move"] != me and not planning:
        raise TurnRefused(
            f"it is {state['to_move']}'s turn in game {game_id}, not yours; "
            f"`cafe watch {game_id}` waits for yours (--dry-run plans one now)"
        )
    return bool(state["to_move"] != me)


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
    from cafe.render.quantities import points

    game_id = state["id"]
    say(f"Played {played['turn']} in game {game_id} for {points(played['points'])}.")
    if played.get("eliminated"):
        say(f"You could not pay bar stool {played['stool']}: you are out of the game.")
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
    """Your best turns now, each as a ready command.

    While you wait for your turn: the best for your hand against the current board, as if it
    were your turn (for planning). A turn that lowers your hand limit is offered with
    noshrink too; one that may name the birthday nation with birthday=XX.
    """
    from client import picking

    session: Session = ctx.obj
    api = session.api()
    if game_id is None:
        game_id = picking.waiting_game(api, session.player_name(api), "cafe hint ID")
    state, _ = api.game(game_id)
    assert state is not None
    if state["status"] == "finished":
        raise CliError(f"game {game_id} is over")
    found = api.hints(game_id, n)
    if found.get("as_if_your_turn"):
        say(AS_IF.format(mover=state["to_move"]))
    say(f"Best turns in game {game_id}, best first:")
    for offered in found["hints"]:
        say("\n".join(hint_lines(game_id, offered, limit=_my_limit(state))))
    birthday = birthday_text(state)
    if birthday:
        say(birthday)


def hint_lines(game_id: int, offered: dict[str, Any], *, limit: int) -> list[str]:
    """A suggested turn as a command, with what it changes besides points: a lowered hand
    limit (and the `noshrink` command that keeps it), the right to name the birthday nation."""
    from cafe.render.quantities import signed

    command = f"cafe move {game_id} {offered['turn']}"
    lines = [f"  {signed(offered['points']):>4}  {command}"]
    lowers = offered.get("lowers_limit") or 0
    if lowers:
        lines.append(
            f"        lowers your hand limit {limit} → {limit - lowers}; to keep {limit}: "
            f"{command} noshrink"
        )
    if offered.get("may_name_birthday"):
        lines.append(f"        may name the birthday nation: {command} birthday=XX")
    return lines


def _my_limit(state: dict[str, Any]) -> int:
    """The caller's hand limit now (5 for a spectator's view, which has no seat)."""
    seat = state.get("your_seat")
    return 5 if seat is None else int(state["hand_limits"][seat])


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
    api = ctx.obj.api()
    state, _ = api.game(game_id)
    assert state is not None
    if state["status"] == "finished":
        raise CliError(f"game {game_id} is over")
    if not yes:
        confirm(f"Resign from game {game_id}? This cannot be undone")
    state = api.resign(game_id)
    after = (
        "The game is over." if state["status"] == "finished" else f"{state['to_move']} moves next."
    )
    say(f"You resigned from game {game_id}. {after}")
