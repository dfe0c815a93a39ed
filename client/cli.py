"""`cafe`: the command-line client players use (console script `cafe = client.cli:main`).

Parse → call the `ApiClient` → print. A `CliError` from any command ends it with one line
on stderr and its exit code (`client.errors.ExitCode`); only this module knows that. The
commands are registered here, in the order `cafe --help` lists them.
"""

import os
import textwrap
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from client.commands import (
    account,
    board,
    league,
    lobby,
    play,
    rating,
    records,
    rules,
    vacation,
)
from client.config import DEFAULT_PROFILE
from client.errors import EXIT_CODE_MEANINGS, ApiError, CliError, cli_wording
from client.output import fail_line

if TYPE_CHECKING:
    from client.session import Session

#: Keeps the words of one exit code's meaning on one line of the help's footer.
_NBSP = "\N{NO-BREAK SPACE}"
#: The help's footer, kept as written (`\\b`), in lines that fit 80 columns with its indent.
EPILOG = "\b\n" + "\n".join(
    (
        *textwrap.wrap(
            "Exit codes: "
            + " · ".join(
                f"{int(code)} {meaning}".replace(" ", _NBSP)
                for code, meaning in EXIT_CODE_MEANINGS.items()
            ),
            width=78,
        ),
        "Settings: CAFE_CONFIG_DIR (where profiles and tokens live), CAFE_SERVER,",
        "CAFE_TOKEN, CAFE_PROFILE and NO_COLOR override what is stored.",
        "The rules of the game: cafe rules",
    )
).replace(_NBSP, " ")


class CafeGroup(TyperGroup):
    """Ends a command that raised a `CliError` with its message on stderr and its exit code;
    takes `--profile` after the command too (`cafe show 4 --profile bob`)."""

    # Both ignores: typer hands these methods its typer.Context, a subclass of the Context
    # TyperGroup declares; narrowing the parameter to it is what mypy refuses (LSP).
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        return super().parse_args(ctx, profile_first(args))

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except CliError as error:
            fail_line(explain(error, ctx.obj))
            raise typer.Exit(error.code) from None


def profile_first(args: list[str]) -> list[str]:
    """The arguments with a `--profile NAME` (or `--profile=NAME`) written after the
    command moved before it, where the group's option is read. Nothing after `--` moves."""
    end = args.index("--") if "--" in args else len(args)
    head, tail = args[:end], args[end:]
    moved: list[str] = []
    rest: list[str] = []
    words = iter(enumerate(head))
    for i, word in words:
        if i > 0 and word == "--profile" and i + 1 < len(head):
            moved += [word, next(words)[1]]
        elif i > 0 and word.startswith("--profile="):
            moved.append(word)
        else:
            rest.append(word)
    return moved + rest + tail


def explain(error: CliError, session: "Session | None") -> str:
    """The error's line: the server's words for a `cafe` user, and for a refused token how
    to sign in again."""
    if not isinstance(error, ApiError):
        return error.message
    message = cli_wording(error.message)
    if error.status != 401 or session is None:
        return message
    if session.token_from_environment:
        return f"the server refused the token in CAFE_TOKEN: {message}"
    return f"{message} — sign in again: {session.login_command()}"


app = typer.Typer(
    name="cafe",
    cls=CafeGroup,
    help="Play Café International by correspondence: your games, the board, your turns.",
    epilog=EPILOG,
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: Rich would double the start-up time
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


@app.callback()
def options(
    ctx: typer.Context,
    profile: Annotated[
        str,
        typer.Option(
            envvar="CAFE_PROFILE", metavar="NAME", help="Which stored account and server to use."
        ),
    ] = DEFAULT_PROFILE,
) -> None:
    """Open the profile's settings for the command."""
    from client.session import Session  # noqa: PLC0415 (not needed by `cafe --help`)

    ctx.obj = Session.open(profile, os.environ)


for command in (
    account.register,
    account.login,
    account.logout,
    account.whoami,
    lobby.games,
    lobby.new,
    lobby.join,
    lobby.start,
    board.show,
    play.move,
    play.hint,
    board.watch,
    records.history,
    records.record,
    records.verify,
    play.resign,
    vacation.vacation,
    rating.rating,
    account.prefs,
    rules.rules,
):
    app.command()(command)
app.add_typer(league.app)


def main() -> None:
    """Console-script entry point."""
    app()
