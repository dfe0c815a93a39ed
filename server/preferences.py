"""Email preferences: how often a player hears of their turns and whether of others' turns.

`turn_emails` is `each` (an email each turn, the default), `digest` (one email a day) or
`none`; `others_turns` (off by default) adds the other players' turns. The one-click
unsubscribe sets `none` and turns `others_turns` off. Sign-in codes and the answers to a
player's own emailed turns are sent whatever these say.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from server.errors import ApiError
from server.models import TURN_EMAILS, Player, utcnow

FIELDS = ("turn_emails", "others_turns")
_HINT = (
    "the preferences are `turn_emails` (each, digest or none) and `others_turns` (true or false)"
)


def preferences_json(player: Player) -> dict[str, Any]:
    """The player's preferences as the API shows them."""
    return {"turn_emails": player.turn_emails, "others_turns": player.others_turns}


def read_changes(data: dict[str, Any]) -> dict[str, Any]:
    """The changes a PATCH body asks for, or a 400 naming the field that is wrong."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ApiError(400, "invalid_request", f"unknown preference `{unknown[0]}`; {_HINT}")
    if "turn_emails" in data and data["turn_emails"] not in TURN_EMAILS:
        raise ApiError(400, "invalid_request", "`turn_emails` must be each, digest or none")
    if "others_turns" in data and not isinstance(data["others_turns"], bool):
        raise ApiError(400, "invalid_request", "`others_turns` must be true or false")
    return data


def update(session: Session, player: Player, changes: dict[str, Any]) -> Player:
    """Apply checked changes and commit; choosing the digest starts its first day now."""
    if changes.get("turn_emails") == "digest" and player.turn_emails != "digest":
        player.last_digest_at = utcnow()
    for name, value in changes.items():
        setattr(player, name, value)
    session.add(player)
    session.commit()
    return player


def unsubscribe(session: Session, player: Player) -> None:
    """Stop every game email to the player (sign-in codes still come)."""
    update(session, player, {"turn_emails": "none", "others_turns": False})
