"""Table talk and mutes: what clients send to write at a game's table, and what they read
(`server.games.talk`)."""

from __future__ import annotations

from pydantic import Field

from cafe.i18n import N_
from server.models import TALK_LENGTH
from server.schemas.fields import (
    MAX_INT,
    PublicModel,
    QueryInt,
    QueryModel,
    RequestModel,
    Timestamp,
    rule,
)


class TalkCreate(RequestModel):
    """A message for the game's table."""

    text: str = Field(
        min_length=1,
        max_length=TALK_LENGTH,
        # something to read: a character that is neither a space nor a control character
        pattern=r"[^\s\x00-\x1f\x7f-\x9f]",
        description=rule(
            N_(
                "1 to %(most)s characters, not only spaces; line breaks are kept, other "
                "control characters removed"
            ),
            most=TALK_LENGTH,
        ),
    )


class TalkQuery(QueryModel):
    """Which messages: those after a message's id."""

    after: QueryInt = Field(
        default=0,
        ge=0,
        le=MAX_INT,
        description=N_("the id of a message: only the later ones are listed (0: all)"),
    )


class TalkMessage(PublicModel):
    """One message of a game's table talk."""

    id: int
    player: str = Field(description="who wrote it")
    text: str = Field(description="as written: line breaks are `\\n`; no markup")
    at: Timestamp = Field(description="when it was written")
    version: int = Field(description="the game's version when it was written")


class TalkList(PublicModel):
    """A game's table talk, oldest first (the messages of players the caller muted left
    out)."""

    messages: list[TalkMessage]


class MuteList(PublicModel):
    """The players whose table talk the caller does not see, alphabetically."""

    muted: list[str]
