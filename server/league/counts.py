"""How many: a season's players counted one way on every page, in the API, the CLI and the
emails (issue 20 §10), and the rule of the division size in words.

A season's `players` are its members still in it (registered, or placed in a division,
and not gone); those who left it — withdrew, or were removed by the organiser or on time —
are counted apart as `left`, never among the players. A division counts the same way over
its own members; its `players` list in the API stays everyone placed in it (its schedule
was drawn for them).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import case, func
from sqlmodel import Session, col, select

from cafe.i18n import N_, gettext, ngettext
from server.models import SeasonMember

#: What the counts count, as the API's description says it.
PLAYERS_COUNTED = "the members still in the season (registered or placed, not gone)"
LEFT_COUNTED = "the members who left it (withdrew, or were removed), counted apart"
#: The division size rule, in the API's description (English) and on the pages (in the
#: reader's language); `%(size)s` is the league's `division_size`.
DIVISION_SIZE_RULE = N_(
    "the players are cut into the fewest divisions of at most %(size)s, as equal as possible "
    "(sizes differ by at most one), and none under 4 unless it is the only one, so a "
    "division may then hold more"
)


@dataclass(frozen=True, slots=True)
class Count:
    """A season's (or a division's) members: still in, and gone."""

    players: int = 0
    left: int = 0


def season_counts(session: Session, season_ids: list[int]) -> dict[int, Count]:
    """Each season's count of players and of those who left, in one query."""
    gone = col(SeasonMember.withdrawn_at).is_not(None)
    rows = session.exec(
        select(
            SeasonMember.season_id,
            func.count(),
            func.coalesce(func.sum(case((gone, 1), else_=0)), 0),
        )
        .where(col(SeasonMember.season_id).in_(season_ids))
        .group_by(col(SeasonMember.season_id))
    ).all()
    counts = dict.fromkeys(season_ids, Count())
    counts.update({season: Count(total - left, left) for season, total, left in rows})
    return counts


def count_text(players: int, left: int = 0) -> str:
    """`8 players`, `8 players; 1 has left`, `7 players; 2 have left`, in the language in
    use (as `cafe` says them)."""
    text = ngettext("%(num)s player", "%(num)s players", players)
    if left:
        text += "; " + ngettext("%(num)s has left", "%(num)s have left", left)
    return text


def division_size_text(division_size: int) -> str:
    """What `division_size` does (docs/league.md), in a phrase in the language in use: it
    is a target, not a cap."""
    return gettext(
        "%(size)s as a target: %(rule)s",
        size=division_size,
        rule=gettext(DIVISION_SIZE_RULE, size=division_size),
    )
