"""The `cafe` Typer app: its global options, the commands in the order `cafe --help` lists
them, and the one place that turns a `CliError` into a line on stderr and an exit code
(`client.errors.ExitCode`). `client.cli` decides the run's language before importing it:
the help of every command is translated here, as it is defined.
"""

import os
import textwrap
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from cafe.i18n import LANGUAGES, negotiate, speaking
from cafe.i18n import gettext as _
from client import helptext
from client.commands import (
    account,
    board,
    league,
    lobby,
    notify,
    play,
    rating,
    records,
    rules,
    talk,
    vacation,
)
from client.config import DEFAULT_PROFILE
from client.errors import EXIT_CODE_MEANINGS, ApiError, CliError, cli_wording
from client.language import VARIABLE, chosen
from client.output import fail_line

if TYPE_CHECKING:
    from client.session import Session

#: Keeps the words of one exit code's meaning on one line of the help's footer.
_NBSP = "\N{NO-BREAK SPACE}"


def epilog() -> str:
    """The help's footer, kept as written (`\\b`), in lines that fit 80 columns with its
    indent: the exit codes, the settings, where the rules are."""
    codes = " · ".join(
        f"{int(code)} {_(meaning)}".replace(" ", _NBSP)
        for code, meaning in EXIT_CODE_MEANINGS.items()
    )
    paragraphs = (
        _("Exit codes: %(codes)s", codes=codes),
        _(
            "Settings: CAFE_CONFIG_DIR (where profiles and tokens live), CAFE_SERVER, "
            "CAFE_TOKEN, CAFE_PROFILE, CAFE_LANG and NO_COLOR override what is stored."
        ),
        _("The rules of the game: %(command)s", command="cafe rules"),
    )
    lines = [line for text in paragraphs for line in textwrap.wrap(text, width=78)]
    return "\b\n" + "\n".join(lines).replace(_NBSP, " ")


#: The options of `cafe` itself that may also be written after the command.
GLOBAL_OPTIONS = ("--profile", "--lang")


class CafeGroup(TyperGroup):
    """Ends a command that raised a `CliError` with its message on stderr and its exit code;
    takes `--profile` and `--lang` after the command too (`cafe show 4 --profile bob`)."""

    # Both ignores: typer hands these methods its typer.Context, a subclass of the Context
    # TyperGroup declares; narrowing the parameter to it is what mypy refuses (LSP).
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        return super().parse_args(ctx, options_first(args))

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except CliError as error:
            fail_line(explain(error, ctx.obj))
            raise typer.Exit(error.code) from None


def options_first(args: list[str]) -> list[str]:
    """The arguments with each of `GLOBAL_OPTIONS` written after the command (`--profile
    NAME` or `--profile=NAME`) moved before it, where the group's options are read.
    Nothing after `--` moves."""
    end = args.index("--") if "--" in args else len(args)
    head, tail = args[:end], args[end:]
    moved: list[str] = []
    rest: list[str] = []
    words = iter(enumerate(head))
    for i, word in words:
        if i > 0 and word in GLOBAL_OPTIONS and i + 1 < len(head):
            moved += [word, next(words)[1]]
        elif i > 0 and word.startswith(tuple(f"{option}=" for option in GLOBAL_OPTIONS)):
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
        return _("the server refused the token in CAFE_TOKEN: %(error)s", error=message)
    return _(
        "%(error)s — sign in again: %(command)s",
        error=message,
        command=session.login_command(),
    )


app = typer.Typer(
    name="cafe",
    cls=CafeGroup,
    help=_("Play Café International by correspondence: your games, the board, your turns."),
    epilog=epilog(),
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
            envvar="CAFE_PROFILE",
            metavar="NAME",
            help=_("Which stored account and server to use."),
        ),
    ] = DEFAULT_PROFILE,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            envvar=VARIABLE,
            metavar="CODE",
            help=_(
                "The language to speak: %(codes)s [default: the profile's, else the terminal's]",
                codes=", ".join(LANGUAGES),
            ),
            show_default=False,
        ),
    ] = None,
) -> None:
    """Open the profile's settings for the command, and speak the run's language
    (`client.language`) until it ends."""
    from client.session import Session  # noqa: PLC0415 (not needed by `cafe --help`)

    if lang is not None and negotiate([lang]) is None:
        raise typer.BadParameter(
            _(
                "%(code)s is not a language of cafe: choose one of %(codes)s",
                code=repr(lang),
                codes=", ".join(LANGUAGES),
            ),
            param_hint="--lang / CAFE_LANG",
        )
    session = Session.open(profile, os.environ)
    ctx.obj = session
    ctx.with_resource(speaking(chosen(lang, lambda: session.profile.language, os.environ)))


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
    talk.say,
    talk.talk,
    talk.mute,
    talk.unmute,
    vacation.vacation,
    rating.rating,
    account.prefs,
    rules.rules,
):
    app.command()(command)
app.add_typer(league.app)
app.add_typer(notify.app)
helptext.translate(app)
