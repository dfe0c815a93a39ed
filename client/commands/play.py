"""Playing: `move` (checked locally, then sent), `hint`, and `resign`."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

from typing import TYPE_CHECKING, Annotated, Any

import typer

from cafe.i18n import gettext as _
from client.commands.board import OptionalGameId, print_game
from client.errors import ApiError, CliError, TurnRefused, UsageError
from client.gameview import as_if, birthday_text, me_in, status_word
from client.output import color_wanted, command, confirm, say, scores_text
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
            help=_(
                "The game's number (optional when one game waits for you), then the turn in "
                "the notation (`cafe rules notation`); quotes are optional: %(example)s",
                example="12 USm@US1-US2 USf@DE2-US1",
            ),
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help=_("Check and preview the turn; send nothing (also while waiting for your turn)."),
        ),
    ] = False,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help=_("Do not ask before a bar turn that puts you out.")),
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
    state, _etag = api.game(game_id)
    assert state is not None
    waiting = _check_can_move(state, planning=dry_run)
    if waiting:
        say(as_if(state["to_move"]))
    preview = localgame.preview(state, text, me_in(state))
    say(
        _(
            "Game %(game)s, version %(version)s: %(turn)s scores %(points)s",
            game=game_id,
            version=state["version"],
            turn=preview["turn"],
            points=signed(preview["points"]),
        )
    )
    say("\n".join(detail_lines(preview, mine=True)))
    if dry_run:
        say(
            _(
                "Dry run: nothing was sent. To play it: %(command)s",
                command=command("move", game_id, preview["turn"]),
            )
        )
        return
    if preview["eliminated"] and not yes:
        confirm(
            _(
                "You cannot pay bar stool %(stool)s: this turn puts you out of game %(game)s "
                "for good. Play it?",
                stool=preview["stool"],
                game=game_id,
            )
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
        raise UsageError(
            _(
                "%(word)s is not a game number; e.g. %(example)s",
                word=first,
                example="cafe move 12 USm@US1-US2",
            )
        )
    text = " ".join(words[1:] if game_id is not None else words).strip()
    if not text:
        raise UsageError(
            _(
                "say which turn to play, e.g. %(example)s",
                example="cafe move 12 USm@US1-US2 USf@DE2-US1",
            )
        )
    return game_id, text


def _starts_turn(word: str) -> bool:
    """Whether `word` can begin a turn's text (a placement, `bar` or `swap`)."""
    return "@" in word or word.lower() in ("bar", "swap")


def _check_can_move(state: dict[str, Any], *, planning: bool = False) -> bool:
    """Refuse early (exit 4) when the game is not running or it is not the caller's turn;
    `planning` (a dry run) allows waiting for it. True when it is not the caller's turn."""
    game_id = state["id"]
    if state["status"] == "open":
        raise TurnRefused(_("game %(game)s has not started yet", game=game_id))
    if state["status"] == "finished":
        raise TurnRefused(game_over(game_id))
    me = me_in(state)
    if me is None:
        raise CliError(_("you do not play in game %(game)s", game=game_id))
    if state["to_move"] != me and not planning:
        raise TurnRefused(
            _(
                "it is %(player)s's turn in game %(game)s, not yours; `%(command)s` waits for "
                "yours (--dry-run plans one now)",
                player=state["to_move"],
                game=game_id,
                command=command("watch", game_id),
            )
        )
    return bool(state["to_move"] != me)


def _refusal(api: "ApiClient", game_id: int, error: ApiError) -> CliError:
    """What to report when the server refused the turn; a stale game is shown anew."""
    if error.status not in REFUSAL_STATUSES:
        return error
    if error.error not in ("stale_version", "not_your_turn"):
        return TurnRefused(error.message)
    fresh, _etag = api.game(game_id)
    assert fresh is not None
    print_game(fresh, color=color_wanted(), api=api)
    if fresh["status"] == "active":
        return TurnRefused(
            _(
                "the game moved on: it is now %(player)s's turn (version %(version)s); your "
                "turn was not played",
                player=fresh["to_move"],
                version=fresh["version"],
            )
        )
    return TurnRefused(
        _(
            "the game moved on: the game is %(status)s (version %(version)s); your turn was "
            "not played",
            status=status_word(fresh["status"]),
            version=fresh["version"],
        )
    )


def _print_played(api: "ApiClient", state: dict[str, Any], played: dict[str, Any]) -> None:
    """The server's account of the turn, the new scores, and who moves next."""
    from cafe.render.quantities import points

    game_id = state["id"]
    say(
        _(
            "Played %(turn)s in game %(game)s for %(points)s.",
            turn=played["turn"],
            game=game_id,
            points=points(played["points"]),
        )
    )
    if played.get("eliminated"):
        say(
            _(
                "You could not pay bar stool %(stool)s: you are out of the game.",
                stool=played["stool"],
            )
        )
    drew = draw_line(played)
    if drew:
        say(drew)
    say(_("Scores: %(scores)s", scores=scores_text(state["players"], played["scores"])))
    if played["game_over"]:
        final, _etag = api.game(game_id)
        assert final is not None
        say(_("The game is over."))
        print_game(final, color=color_wanted(), api=api)
    elif played["to_move"] == me_in(state):
        say(_("Your turn again: %(command)s", command=command("show", game_id)))
    else:
        say(_("%(player)s moves next.", player=played["to_move"]))


def hint(
    ctx: typer.Context,
    game_id: OptionalGameId = None,
    n: Annotated[
        int,
        typer.Option("-n", min=1, max=50, metavar="N", help=_("How many turns to suggest.")),
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
    state, _etag = api.game(game_id)
    assert state is not None
    if state["status"] == "finished":
        raise CliError(game_over(game_id))
    found = api.hints(game_id, n)
    if found.get("as_if_your_turn"):
        say(as_if(state["to_move"]))
    say(_("Best turns in game %(game)s, best first:", game=game_id))
    for offered in found["hints"]:
        say("\n".join(hint_lines(game_id, offered, limit=_my_limit(state))))
    birthday = birthday_text(state)
    if birthday:
        say(birthday)


def hint_lines(game_id: int, offered: dict[str, Any], *, limit: int) -> list[str]:
    """A suggested turn as a command, with what it changes besides points: a lowered hand
    limit (and the `noshrink` command that keeps it), the right to name the birthday nation."""
    from cafe.render.quantities import signed

    move = command("move", game_id, offered["turn"])
    lines = [f"  {signed(offered['points']):>4}  {move}"]
    lowers = offered.get("lowers_limit") or 0
    if lowers:
        lines.append(
            "        "
            + _(
                "lowers your hand limit %(limit)s → %(lower)s; to keep %(limit)s: %(command)s",
                limit=limit,
                lower=limit - lowers,
                command=command("move", game_id, offered["turn"], "noshrink"),
            )
        )
    if offered.get("may_name_birthday"):
        lines.append(
            "        "
            + _(
                "may name the birthday nation: %(command)s",
                command=command("move", game_id, offered["turn"], "birthday=XX"),
            )
        )
    return lines


def _my_limit(state: dict[str, Any]) -> int:
    """The caller's hand limit now (5 for a spectator's view, which has no seat)."""
    seat = state.get("your_seat")
    return 5 if seat is None else int(state["hand_limits"][seat])


def resign(
    ctx: typer.Context,
    game_id: Annotated[
        int, typer.Argument(help=_("The game to leave for good."), min=1, metavar="ID")
    ],
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help=_("Do not ask for confirmation."))
    ] = False,
) -> None:
    """Leave a running game for good.

    You rank below everyone still playing.
    """
    api = ctx.obj.api()
    state, _etag = api.game(game_id)
    assert state is not None
    if state["status"] == "finished":
        raise CliError(game_over(game_id))
    if not yes:
        confirm(_("Resign from game %(game)s? This cannot be undone", game=game_id))
    state = api.resign(game_id)
    after = (
        _("The game is over.")
        if state["status"] == "finished"
        else _("%(player)s moves next.", player=state["to_move"])
    )
    say(_("You resigned from game %(game)s.", game=game_id) + " " + after)


def game_over(game_id: int) -> str:
    """Why a finished game takes no turn, hint or resignation."""
    return _("game %(game)s is over", game=game_id)
