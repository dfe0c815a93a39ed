"""Exit codes and the errors a command ends with.

A `CliError` is a refusal the user can act on: `client.cli` prints its message as one line
on stderr (`cafe: …`) and exits with its code. Anything else that escapes is a bug and
keeps its traceback.
"""

from __future__ import annotations

import re
from enum import IntEnum

from cafe.i18n import N_


class ExitCode(IntEnum):
    """What `cafe` exits with (documented in `cafe --help` and docs/playing.md)."""

    OK = 0
    ERROR = 1  # the command was understood but could not be done
    USAGE = 2  # the command line itself is wrong (Typer's own usage errors too)
    UNREACHABLE = 3  # no answer from the server
    REFUSED = 4  # the turn was refused: unreadable, illegal, stale, not yours, no game
    NOT_SIGNED_IN = 5  # no token, or the server refused it


class CliError(Exception):
    """A one-line message for stderr and the exit code to end with."""

    def __init__(self, message: str, code: ExitCode = ExitCode.ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class UsageError(CliError):
    """The arguments make no sense together (exit 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.USAGE)


class TurnRefused(CliError):
    """The turn was not played: the engine or the server refused it (exit 4)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.REFUSED)


class NotSignedIn(CliError):
    """No token to send, or the server refused it (exit 5)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.NOT_SIGNED_IN)


class Unreachable(CliError):
    """The server did not answer (exit 3); the message names the URL."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.UNREACHABLE)


class ApiError(CliError):
    """The server answered with an error: its HTTP status, stable code and message."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message, ExitCode.NOT_SIGNED_IN if status == 401 else ExitCode.ERROR)
        self.status = status
        self.error = error


#: What each exit code means, for `cafe --help` (translated there) and docs/playing.md.
EXIT_CODE_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: N_("ok"),
    ExitCode.ERROR: N_("error"),
    ExitCode.USAGE: N_("usage"),
    ExitCode.UNREACHABLE: N_("server unreachable"),
    ExitCode.REFUSED: N_("turn refused"),
    ExitCode.NOT_SIGNED_IN: N_("not signed in"),
}


#: The server's messages point API users to routes; `cafe` users get the command instead:
#: the English sentence reworded, else (the server speaking another language) the route.
CLI_WORDING = (
    (re.compile(r"register with POST /api/players"), "register with `cafe register NAME EMAIL`"),
    (re.compile(r"(ask for|get) (a new one|a sign-in code) with POST /api/signin-codes"),
     "have a new code mailed with `cafe login EMAIL`"),
    (re.compile(r"see GET /api/games/(\d+)/turns"), r"see `cafe history \1`"),
    (re.compile(r"see GET /api/games\b"), "see `cafe games`"),
    (re.compile(r"see GET /api/leagues\b"), "see `cafe league list`"),
    (re.compile(r"POST /api/players\b"), "`cafe register NAME EMAIL`"),
    (re.compile(r"POST /api/signin-codes\b"), "`cafe login EMAIL`"),
    (re.compile(r"GET /api/games/(\d+)/turns\b"), r"`cafe history \1`"),
    (re.compile(r"GET /api/games\b"), "`cafe games`"),
    (re.compile(r"GET /api/leagues\b"), "`cafe league list`"),
)  # fmt: skip


def cli_wording(message: str) -> str:
    """`message` with the API routes it suggests replaced by the `cafe` commands for them."""
    for pattern, replacement in CLI_WORDING:
        message = pattern.sub(replacement, message)
    return message
