"""Why a member plays in their division and how a member left a season, in words: one
wording for the season page and the emails (the API gives the codes, `placed` and `left`,
and the CLI says them with the same words), in the language in use where they are said.
"""

from __future__ import annotations

from cafe.i18n import N_, gettext
from server.models import MemberLeft, Placement

#: How a member left the season, as tables mark it.
LEFT_WORDS = {
    MemberLeft.WITHDREW: N_("withdrew"),
    MemberLeft.REMOVED: N_("removed by the organiser"),
    MemberLeft.REMOVED_ON_TIME: N_("removed on time"),
}

#: How a member left the season, told to them (a sentence's start).
LEFT_YOU = {
    MemberLeft.WITHDREW: N_("You withdrew from the season"),
    MemberLeft.REMOVED: N_("The organiser removed you from the season"),
    MemberLeft.REMOVED_ON_TIME: N_("You were removed on time from every game you had left"),
}

#: What the moves of a finished season's table are, said wherever they are announced:
#: of the moves, and of the reader's own.
AS_THINGS_STAND = N_("as things stand; refilling can change them when the next season starts")
AS_THINGS_STAND_YOU = N_(
    "as things stand; refilling the divisions in order (as players leave or join) can "
    "change that when the next season starts"
)


def left_text(left: str | None) -> str:
    """`withdrew`, `removed by the organiser`, `removed on time`; `` for a member still in."""
    return "" if left is None else gettext(LEFT_WORDS[MemberLeft(left)])


def left_you(left: str) -> str:
    """How the reader left the season, told to them: `You withdrew from the season`, …"""
    return gettext(LEFT_YOU[MemberLeft(left)])


def placement_text(placed: str | None, placed_from: int | None, division: int) -> str:
    """Why the member is in `division`: `placed by rating`, `new this season`, `moved up
    from division 2`, `moved down from division 1`, `stayed in division 1`, or — where the
    refilling of the divisions placed them elsewhere than the last table announced —
    `moved up from division 2 to fill a place`, `stayed in division 2 as the divisions were
    evened out` (and so on); `` when not known."""
    if placed is None:
        return ""
    reason = Placement(placed)
    if reason == Placement.RATING:
        return gettext("placed by rating")
    if reason == Placement.NEW or placed_from is None:
        return gettext("new this season")
    how = "stayed" if division == placed_from else "up" if division < placed_from else "down"
    filled, evened = reason == Placement.FILLED, reason == Placement.EVENED
    return gettext(_PLACED[how, filled, evened], division=division, source=placed_from)


#: Where a member was placed from, and whether the refilling of the divisions filled a place
#: with them or evened the divisions out.
_PLACED = {
    ("stayed", False, False): N_("stayed in division %(division)s"),
    ("stayed", True, False): N_("stayed in division %(division)s to fill a place"),
    ("stayed", False, True): N_("stayed in division %(division)s as the divisions were evened out"),
    ("up", False, False): N_("moved up from division %(source)s"),
    ("up", True, False): N_("moved up from division %(source)s to fill a place"),
    ("up", False, True): N_("moved up from division %(source)s as the divisions were evened out"),
    ("down", False, False): N_("moved down from division %(source)s"),
    ("down", True, False): N_("moved down from division %(source)s to fill a place"),
    ("down", False, True): N_(
        "moved down from division %(source)s as the divisions were evened out"
    ),
}
