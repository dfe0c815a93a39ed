"""The league's emails (issue 12 §3): registration opened, season started, the weekly
league digest, season finished. Rendered when queued, in the transaction that makes them
true, like the vacation notices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session

from server.models import League, Player, Season


def registration_opened(
    session: Session,
    *,
    league: League,
    season: Season,
    registered: Sequence[Player],
    invited: Sequence[Player],
    config: Mapping[str, Any] | None = None,
) -> None:
    """Tell the returning members they are registered (and how to withdraw), and the
    invitees how to join (`cafe league join SLUG`, or reply `join`)."""


def season_started(
    session: Session, *, league: League, season: Season, config: Mapping[str, Any] | None = None
) -> None:
    """Tell every member their division, opponents and games (with links)."""


def season_finished(
    session: Session, *, league: League, season: Season, config: Mapping[str, Any] | None = None
) -> None:
    """Send every member the final table, who moves up and down, and their new rating."""
