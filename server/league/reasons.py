"""Why a member plays in their division and how a member left a season, in words: one
wording for the season page and the emails (the API gives the codes, `placed` and `left`,
and the CLI says them with the same words).
"""

from __future__ import annotations

from server.models import MemberLeft, Placement

#: How a member left the season, as tables mark it.
LEFT_WORDS = {
    MemberLeft.WITHDREW: "withdrew",
    MemberLeft.REMOVED: "removed by the organiser",
    MemberLeft.REMOVED_ON_TIME: "removed on time",
}

#: How a member left the season, told to them.
LEFT_YOU = {
    MemberLeft.WITHDREW: "you withdrew from the season",
    MemberLeft.REMOVED: "the organiser removed you from the season",
    MemberLeft.REMOVED_ON_TIME: "you were removed on time from every game you had left",
}

#: What the moves of a finished season's table are, said wherever they are announced:
#: of the moves, and of the reader's own.
AS_THINGS_STAND = "as things stand; refilling can change them when the next season starts"
AS_THINGS_STAND_YOU = (
    "as things stand; refilling the divisions in order (as players leave or join) can "
    "change that when the next season starts"
)


def left_text(left: str | None) -> str:
    """`withdrew`, `removed by the organiser`, `removed on time`; `` for a member still in."""
    return "" if left is None else LEFT_WORDS[MemberLeft(left)]


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
        return "placed by rating"
    if reason == Placement.NEW or placed_from is None:
        return "new this season"
    if division == placed_from:
        where = f"stayed in division {division}"
    else:
        where = f"moved {'up' if division < placed_from else 'down'} from division {placed_from}"
    if reason == Placement.FILLED:
        return f"{where} to fill a place"
    if reason == Placement.EVENED:
        return f"{where} as the divisions were evened out"
    return where
