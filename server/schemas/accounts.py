"""Players, sign-in codes, tokens and preferences: what clients send and receive."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from cafe import i18n
from cafe.i18n import N_
from server.models import TalkEmails, TurnEmails
from server.schemas.clock import TimeZoneName
from server.schemas.fields import (
    Email,
    Label,
    PlayerName,
    PublicModel,
    RequestModel,
    Timestamp,
    rule,
)
from server.signin import CODE_DIGITS, LINK_CODE_LENGTH, LINK_CODE_PATTERN


def _our_language(code: str) -> str:
    if code not in i18n.LANGUAGES:
        raise ValueError("not one of our languages")
    return code


#: A language the service speaks (`cafe.i18n.LANGUAGES`), by its code.
LanguageCode = Annotated[
    str,
    Field(
        description="one of the codes "
        + ", ".join(f"{code} ({name})" for code, name in i18n.NAMES.items()),
        json_schema_extra={"enum": list(i18n.LANGUAGES)},
    ),
    AfterValidator(_our_language),
]

SignInCode = Annotated[
    str,
    Field(
        pattern=rf"^([0-9]{{{CODE_DIGITS}}}|{LINK_CODE_PATTERN})$",
        description=rule(
            N_(
                "the %(digits)s digits mailed to you, or the last part of the "
                "email's sign-in link (%(length)s letters, digits, '-' or '_')"
            ),
            digits=CODE_DIGITS,
            length=LINK_CODE_LENGTH,
        ),
    ),
]


class PlayerCreate(RequestModel):
    """Register: a sign-in code is mailed to `email`."""

    name: PlayerName
    email: Email


class Registration(PublicModel):
    """A registration received: the same answer whether or not the email had an account."""

    name: str
    email: str
    message: str


class PlayerPublic(PublicModel):
    """A player as they see themselves."""

    id: int
    name: str
    email: str
    created_at: Timestamp


class EmailStatus(PublicModel):
    """Whether mail reaches the player's address: `ok`, `retrying` or `failing`."""

    state: Literal["ok", "retrying", "failing"]
    last_error: str | None
    since: Timestamp | None


class Me(PlayerPublic):
    """The caller, with the state of their email address."""

    email_status: EmailStatus


class SignInCodeCreate(RequestModel):
    """Ask for a sign-in code by mail."""

    email: Email


class SignInCodeSent(PublicModel):
    """Where a code goes if the address is registered (the answer does not say whether)."""

    sent_to: str
    message: str


class TokenCreate(RequestModel):
    """Exchange an email and its sign-in code for an API token."""

    email: Email
    code: SignInCode
    label: Label = ""


class TokenIssued(PublicModel):
    """A new token: its secret is shown this once and never stored."""

    id: int
    token: str
    label: str
    created_at: Timestamp


class TokenPublic(PublicModel):
    """A token's metadata (never its secret)."""

    id: int
    label: str
    created_at: Timestamp
    revoked: bool
    current: bool


class TokenList(PublicModel):
    """The caller's tokens, newest first."""

    tokens: list[TokenPublic]


class Preferences(PublicModel):
    """How a player hears of games: `turn_emails` each turn, a daily digest or none,
    whether also of the other players' turns, whether `reminders` of deadlines come, the
    `timezone` times are shown in, the `language` emails and pages are written in, and how
    the games' table talk comes by email (`talk_emails`); `language_chosen`: whether the
    player chose that language (else it is the one that registered them), so that `cafe`
    keeps only a chosen one and otherwise speaks the terminal's."""

    turn_emails: TurnEmails
    others_turns: bool
    reminders: bool
    timezone: str
    language: str
    talk_emails: TalkEmails = Field(
        description="each (an email per message; those written within 10 minutes come "
        "together), with_turns (quoted in the game's other emails, alone after a day at "
        "the latest) or off"
    )
    language_chosen: bool


class PreferencesUpdate(RequestModel):
    """Some preferences to change; the others stay."""

    model_config = RequestModel.model_config | {"use_enum_values": True}

    # The ignores: None is "not given", never a value to send, so the schema stays non-null.
    turn_emails: TurnEmails = Field(  # type: ignore[assignment]  # None: not given
        default=None, strict=False, description=N_("each, digest or none")
    )
    others_turns: bool = Field(  # type: ignore[assignment]  # None: not given
        default=None, description=N_("true or false")
    )
    reminders: bool = Field(  # type: ignore[assignment]  # None: not given
        default=None, description=N_("true or false")
    )
    timezone: TimeZoneName = Field(default=None)  # type: ignore[assignment]  # None: not given
    language: LanguageCode = Field(default=None)  # type: ignore[assignment]  # None: not given
    talk_emails: TalkEmails = Field(  # type: ignore[assignment]  # None: not given
        default=None, strict=False, description=N_("each, with_turns or off")
    )
