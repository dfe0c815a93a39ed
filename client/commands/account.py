"""Accounts: register, login, logout, whoami, and the email preferences."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

import re
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cafe.i18n import LANGUAGES
from cafe.i18n import gettext as _
from client.errors import (
    ApiError,
    CliError,
    NotSignedIn,
    Unreachable,
    UsageError,
    cli_wording,
)
from client.output import fail_line, joined, say, table

if TYPE_CHECKING:
    from client.api import ApiClient
    from client.session import Session

ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        help=_("The service's URL, remembered in the profile."),
        metavar="URL",
        show_default=False,
    ),
]


def register(
    ctx: typer.Context,
    name: Annotated[
        str, typer.Argument(help=_("Your player name, shown in games."), metavar="NAME")
    ],
    email: Annotated[
        str,
        typer.Argument(help=_("Where sign-in codes and your turns are mailed."), metavar="EMAIL"),
    ],
    server: ServerOption = None,
) -> None:
    """Register a new player; a sign-in code is mailed to you.

    Then sign in with `cafe login EMAIL`. The server keeps the language `cafe` speaks now as
    yours, for your emails too (`cafe prefs language=…` changes it).
    """
    session: Session = ctx.obj
    api = session.client(server)
    player = api.register(name, email)  # in this run's language (`Accept-Language`)
    profile = session.profile
    profile.server, profile.email, profile.player = api.base_url, player["email"], player["name"]
    profile.language = None  # the new player chose none: `cafe` goes on speaking the terminal's
    profile.token = profile.token_id = None
    profile.awaiting_code = True
    session.save()
    say(
        "\n".join(
            (
                _("Registered %(name)s at %(url)s.", name=player["name"], url=api.base_url),
                _("A sign-in code is on its way to %(email)s.", email=player["email"]),
                _("Sign in with: %(command)s", command=session.login_command()),
            )
        )
    )


def learnt_language(
    answer: dict[str, Any], stored: str | None, *, chose: bool = False
) -> str | None:
    """The language the profile keeps after the server's `answer` (the preferences): the
    player's, if they chose it (`language_chosen`, or `chose`: this run gave it) and it is
    one of ours; none if the server says they never chose one, so that `cafe` speaks the
    terminal's (client.language); else, from a server that does not say, what the profile
    stored."""
    told = answer.get("language")
    if chose or answer.get("language_chosen") is True:
        return told if told in LANGUAGES else stored
    return None if answer.get("language_chosen") is False else stored


#: Where a sign-in link points, before the code it carries (the service's `/signin/link/`).
LINK_PATH = "/signin/link/"


def code_of_link(typed: str) -> str:
    """What was typed for a code, as the code to send: a pasted sign-in link becomes the
    code at its end (the service takes it in place of the 10 digits)."""
    typed = typed.strip()
    return typed.rsplit(LINK_PATH, 1)[1].strip("/") if LINK_PATH in typed else typed


def login(
    ctx: typer.Context,
    email: Annotated[
        str, typer.Argument(help=_("The email you registered with."), metavar="EMAIL")
    ],
    code: Annotated[
        str | None,
        typer.Option(
            help=_(
                "The 10-digit code from the email, or its sign-in link; asked for when not given."
            ),
            metavar="CODE",
        ),
    ] = None,
    server: ServerOption = None,
) -> None:
    """Sign in with the code (or the sign-in link) mailed to you.

    The token is kept in your config dir, readable by you only (mode 0600). Without --code,
    a new code is mailed (unless `cafe register` just sent one) and you are asked for it.
    """
    import socket

    session: Session = ctx.obj
    api = session.client(server)
    profile = session.profile
    if code is None and not (
        profile.awaiting_code and (profile.email or "").lower() == email.lower()
    ):
        sent = api.request_code(email)
        say(_("A sign-in code was mailed to %(email)s.", email=sent.get("sent_to", email)))
        profile.awaiting_code = True
    # remembered now, so that after a mistyped code `cafe login EMAIL` is all it takes
    profile.server, profile.email = api.base_url, email
    session.save()
    if code is None:
        code = typer.prompt(_("Code (or sign-in link) from the email"))
    code = code_of_link(code)
    label = f"cafe on {socket.gethostname()}"[:64]
    try:
        token = api.create_token(email, code, label)
    except ApiError as error:
        if error.status not in (401, 429):
            raise
        again = session.login_command(email)
        raise NotSignedIn(
            _(
                "%(error)s (try again: %(command)s)",
                error=cli_wording(error.message),
                command=again,
            )
        ) from None
    signed_in = session.client(api.base_url, token["token"])
    player = signed_in.me()
    profile.server, profile.email, profile.player = api.base_url, player["email"], player["name"]
    profile.token, profile.token_id = token["token"], token["id"]
    profile.awaiting_code = False
    profile.language = learnt_language(_preferences_of(signed_in), profile.language)
    session.save()
    say(_("Signed in as %(name)s on %(url)s.", name=player["name"], url=api.base_url))
    if session.token_from_environment:
        fail_line(_("note: CAFE_TOKEN is set and wins over the token just stored"))


def _preferences_of(api: "ApiClient") -> dict[str, Any]:
    """The signed-in player's preferences (their `language` among them); none from a server
    without preferences."""
    try:
        return api.preferences()
    except ApiError:
        return {}


def logout(ctx: typer.Context) -> None:
    """Revoke your token on the server and forget it here."""
    session: Session = ctx.obj
    profile = session.profile
    if profile.token is None:
        raise NotSignedIn(
            _(
                "not signed in: there is no stored token to forget%(profile)s",
                profile=session.profile_note(),
            )
        )
    api = session.client(token=profile.token)
    try:
        if profile.token_id is not None:
            api.revoke_token(profile.token_id)
    except (ApiError, Unreachable) as error:
        fail_line(
            _(
                "the server did not revoke the token (%(error)s); forgetting it anyway",
                error=error.message,
            )
        )
    profile.token = profile.token_id = None
    session.save()
    say(_("Signed out%(profile)s.", profile=session.profile_note()))
    if session.token_from_environment:
        fail_line(_("note: CAFE_TOKEN is still set, so commands still act as its player"))


def whoami(ctx: typer.Context) -> None:
    """Who you are signed in as, on which server."""
    session: Session = ctx.obj
    player = session.api().me()
    who = _(
        "%(name)s <%(email)s> on %(url)s",
        name=player["name"],
        email=player["email"],
        url=session.server,
    )
    profile = (
        _("profile %(name)s (token from CAFE_TOKEN)", name=session.profile.name)
        if session.token_from_environment
        else _("profile %(name)s", name=session.profile.name)
    )
    say(joined([who, profile]))


def prefs(
    ctx: typer.Context,
    changes: Annotated[
        list[str] | None,
        typer.Argument(
            help=_(
                "KEY=VALUE settings to change (true/false, numbers and words are understood); "
                "none to show them all."
            ),
            metavar="KEY=VALUE…",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Show or change your preferences: emails, time zone, language.

    For example `cafe prefs turn_emails=digest` for one email a day instead of one a turn,
    `cafe prefs language=cs` for Czech (cs, de, ru or en) in emails, pages and here;
    `cafe prefs` shows the names and values the server uses.
    """
    session: Session = ctx.obj
    api = session.api()
    asked = _parse_changes(changes) if changes else {}
    try:
        settings = api.update_preferences(asked) if asked else api.preferences()
    except ApiError as error:
        if error.status == 404:  # a signed-in player exists: it is the route that does not
            raise CliError(
                _(
                    "this server (%(url)s) does not support email preferences yet",
                    url=api.base_url,
                )
            ) from None
        raise
    language = learnt_language(settings, session.profile.language, chose="language" in asked)
    if language != session.profile.language and not session.token_from_environment:
        session.profile.language = language  # what `cafe` speaks from the next run on
        session.save()
    shown = {key: value for key, value in settings.items() if key not in NOT_SETTINGS}
    rows = [(key, _value_text(value)) for key, value in sorted(shown.items())]
    say(table((_("preference"), _("value")), rows))


#: What the preferences tell that is not a setting to change (`cafe prefs` lists the rest).
NOT_SETTINGS = frozenset({"language_chosen"})


def _parse_changes(changes: list[str]) -> dict[str, Any]:
    """`{"turn_emails": "digest", "others_turns": True}` from
    `["turn_emails=digest", "others_turns=on"]`."""
    parsed: dict[str, Any] = {}
    for change in changes:
        key, equals, raw = change.partition("=")
        if not equals or not key:
            raise UsageError(
                _(
                    "%(change)s: write each change as KEY=VALUE, e.g. %(example)s",
                    change=repr(change),
                    example="turn_emails=digest",
                )
            )
        parsed[key] = _value(raw)
    return parsed


def _value(raw: str) -> Any:
    """A preference's value as JSON wants it: a boolean (`on`, `off` in the language in use
    too, as `cafe prefs` shows them), null, a whole number, or the text."""
    words = {"true": True, "on": True, "yes": True, "false": False, "off": False, "no": False}
    words |= {_("on").lower(): True, _("off").lower(): False}
    if raw.lower() in words:
        return words[raw.lower()]
    if raw.lower() in ("null", "none"):
        return None
    return int(raw) if re.fullmatch(r"-?\d+", raw) else raw


def _value_text(value: Any) -> str:
    """A preference's value as people read it."""
    if isinstance(value, bool):
        return _("on") if value else _("off")
    return "-" if value is None else str(value)
