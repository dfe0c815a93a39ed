"""A played (or previewed) turn in words: the points per table, the bar, the draw.

Works on the turn as the API describes it (`POST …/turns` answers and `GET …/turns`
entries: `turn`, `points`, `tables`, `drawn`, `completed`, `hand_limit`, `stool`,
`eliminated`), so a local preview and the server's answer read the same. Points are
signed as every view signs them (`cafe.render.quantities`, imported when a turn is shown,
not for `cafe --help`).
"""

# ruff: noqa: PLC0415 (see the docstring)

from __future__ import annotations

from itertools import groupby
from typing import Any

from cafe.i18n import gettext as _
from cafe.i18n import ngettext
from client.output import padded


def detail_lines(turn: dict[str, Any], *, mine: bool) -> list[str]:
    """Indented lines: each guest with the points of its tables, or the bar, or the swap."""
    from cafe.render.quantities import signed

    text = str(turn.get("turn", ""))
    if text.startswith("bar "):
        return ["  " + _bar_text(turn, mine)]
    if text.startswith("swap "):
        return ["  " + _("the joker goes to the hand: no points, no draw")]
    lines = []
    for (tile, chair), scores in groupby(turn.get("tables", []), _placement):
        where = _("%(tile)s on #%(chair)s", tile=tile, chair=chair) if tile else _("coffee klatsch")
        parts = [f"{s['table']} {signed(s['points'])} ({_why(s)})" for s in scores]
        lines.append(f"  {padded(where, 11)} " + "   ".join(parts))
    completed = turn.get("completed", [])
    after = int(turn.get("hand_limit") or 0)
    if " noshrink" in f" {text}":
        lines.extend(
            "  "
            + _(
                "completes %(table)s: hand limit stays %(limit)s (noshrink)",
                table=table,
                limit=after,
            )
            for table in completed
        )
        return lines
    for left, table in enumerate(completed, 1):
        lines.append(
            "  "
            + _(
                "completes %(table)s: hand limit %(limit)s (add noshrink to the turn to keep "
                "the old limit)",
                table=table,
                limit=after + len(completed) - left,
            )
        )
    return lines


def draw_line(turn: dict[str, Any]) -> str | None:
    """`  drew DEf ITm`, or None when nothing was drawn."""
    drawn = turn.get("drawn") or []
    return "  " + _("drew %(tiles)s", tiles=" ".join(drawn)) if drawn else None


def _placement(score: dict[str, Any]) -> tuple[str, int]:
    return score.get("tile") or "", score.get("chair") or 0


def _why(score: dict[str, Any]) -> str:
    guests = score["guests"]
    parts = [_("alone") if guests == 1 else ngettext("%(num)s guest", "%(num)s guests", guests)]
    if guests > 1 and score.get("single_nation"):
        parts.append(_("one nation ×2"))
    if score.get("birthday"):
        parts.append(_("birthday ×2"))
    return ", ".join(parts)


def _bar_text(turn: dict[str, Any], mine: bool) -> str:
    from cafe.render.quantities import signed

    stool = turn.get("stool")
    if turn.get("eliminated") and mine:
        return _("bar stool %(stool)s: could not pay, so you are out of the game", stool=stool)
    if turn.get("eliminated"):
        return _(
            "bar stool %(stool)s: could not pay, so the player is out of the game", stool=stool
        )
    return _("bar stool %(stool)s: %(points)s", stool=stool, points=signed(int(turn["points"])))
