"""Email preferences: how often a player hears of their turns and whether of others' turns.

`turn_emails` is `each` (an email each turn, the default), `digest` (one email a day) or
`none`; `others_turns` (off by default) adds the other players' turns; `language` is the
one they read, theirs by choice once they gave one. The one-click
unsubscribe sets `none` and turns `others_turns` off. Sign-in codes and the answers to a
player's own emailed turns are sent whatever these say.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from server.models import Player, TurnEmails, utcnow


def update(session: Session, player: Player, changes: dict[str, Any]) -> Player:
    """Apply checked changes (`server.schemas.accounts.PreferencesUpdate`) and commit;
    choosing the digest starts its first day now, and a `language` given is the player's
    choice from now on (`Player.language_chosen`), even the one they read already."""
    if changes.get("turn_emails") == TurnEmails.DIGEST and player.turn_emails != TurnEmails.DIGEST:
        player.last_digest_at = utcnow()
    if changes.get("language") is not None:
        player.language_chosen = True
    for name, value in changes.items():
        setattr(player, name, value)
    session.add(player)
    session.commit()
    return player


def unsubscribe(session: Session, player: Player) -> None:
    """Stop every game email to the player (sign-in codes still come)."""
    update(session, player, {"turn_emails": TurnEmails.NONE, "others_turns": False})
