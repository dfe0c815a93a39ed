"""A player's rating history as an inline SVG line chart, drawn on the server so that it
shows without JavaScript: the ordinal (mu − 3·sigma, the figure the rating list sorts by)
after each rated game. The page carries the same figures as a table for screen readers and
for anyone who wants the numbers; the chart's title and description say what it shows, in
the reader's language.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

from cafe.i18n import gettext, ngettext
from cafe.render import quantities
from cafe.render.palette import FLOOR, FLOOR_EDGE, MUTED_TEXT, WOOD
from server.schemas.leagues import RatingPointPublic

WIDTH, HEIGHT = 400, 220
#: Room for the axis labels: left, right, top, bottom.
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 36


def _scale(low: float, high: float) -> tuple[float, float]:
    """The y range shown: the data's, widened to at least 2 ordinal points around it."""
    if high - low < 2:
        middle = (high + low) / 2
        return middle - 1, middle + 1
    margin = (high - low) * 0.08
    return low - margin, high + margin


def rating_chart(name: str, history: Sequence[RatingPointPublic]) -> Markup | None:
    """The chart of `name`'s ordinal over their rated games, or None without any."""
    if not history:
        return None
    values = [point.ordinal for point in history]
    low, high = _scale(min(values), max(values))
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = inner_w / max(len(values) - 1, 1)

    def x(index: int) -> float:
        return LEFT + (index * step if len(values) > 1 else inner_w / 2)

    def y(value: float) -> float:
        return TOP + (high - value) / (high - low) * inner_h

    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    first, last = values[0], values[-1]
    rating = quantities.rating
    summary = ngettext(
        "%(num)s rated game: the ordinal went from %(first)s to %(last)s (lowest %(lowest)s, "
        "highest %(highest)s).",
        "%(num)s rated games: the ordinal went from %(first)s to %(last)s (lowest %(lowest)s, "
        "highest %(highest)s).",
        len(values),
        first=rating(first),
        last=rating(last),
        lowest=rating(min(values)),
        highest=rating(max(values)),
    )
    title = gettext("Rating history of %(player)s", player=name)
    first_game, last_game = (gettext("game %(number)s", number=n) for n in (1, len(values)))
    parts = [
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<desc id="chart-desc">{escape(summary)}</desc>',
        f'<rect x="{LEFT}" y="{TOP}" width="{inner_w}" height="{inner_h}" '
        f'fill="none" stroke="{FLOOR_EDGE}"/>',
    ]
    for value in (high, (high + low) / 2, low):
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            f'stroke="{FLOOR}"/>'
            f'<text x="{LEFT - 6}" y="{y(value) + 5:.1f}" text-anchor="end" font-size="15" '
            f'fill="{MUTED_TEXT}">{rating(value)}</text>'
        )
    parts.append(
        f'<text x="{x(0):.1f}" y="{HEIGHT - 14}" text-anchor="middle" font-size="15" '
        f'fill="{MUTED_TEXT}">{escape(first_game)}</text>'
    )
    if len(values) > 1:
        parts.append(
            f'<text x="{x(len(values) - 1):.1f}" y="{HEIGHT - 14}" text-anchor="end" '
            f'font-size="15" fill="{MUTED_TEXT}">{escape(last_game)}</text>'
        )
    parts.append(
        f'<polyline points="{points}" fill="none" stroke="{WOOD}" stroke-width="3" '
        'stroke-linejoin="round"/>'
    )
    parts.extend(
        f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="4" fill="{WOOD}"/>'
        for i, v in enumerate(values)
    )
    parts.append("</svg>")
    return Markup("".join(parts))
