"""`cafe rating [NAME]`: the rating list, or one player's rating and its history
(docs/league.md; OpenSkill, sorted and shown by the ordinal mu − 3·sigma)."""

import math
from typing import Annotated, Any

import typer

from cafe.i18n import gettext as _
from cafe.i18n import ngettext
from client import leagueview as view
from client.commands.league import reader
from client.errors import UsageError
from client.output import NARROW, color_wanted, command, joined, say


def rating(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(
            help=_("A player: their rating, its history and their recent games."),
            metavar="NAME",
        ),
    ] = None,
    page: Annotated[int, typer.Option(min=1, metavar="N", help=_("Which page of the list."))] = 1,
    per_page: Annotated[
        int, typer.Option(min=1, max=200, metavar="N", help=_("Players on a page, 1 to 200."))
    ] = 20,
    history: Annotated[
        int, typer.Option(min=1, metavar="N", help=_("Rated games shown in a player's history."))
    ] = 10,
) -> None:
    """The rating list (→ marks you), or one player's rating and history.

    Every league game and every game opened with `cafe new --rated` rates its players with
    OpenSkill (Plackett–Luce): a rating is mu ± sigma, and the number shown and sorted on
    is mu − 3·sigma, which rises as you win and as the system grows sure of you.
    """
    api, me = reader(ctx.obj)
    if name is not None:
        if page != 1 or per_page != 20:
            raise UsageError(_("--page and --per-page page the list: drop them with a NAME"))
        say(profile_text(api.player(name), history))
        return
    offset = (page - 1) * per_page
    found = api.ratings(per_page, offset)
    total, rows = found["total"], found["ratings"]
    if not total:
        say(
            _(
                "Nobody is rated yet: league games and games opened with `%(command)s` are.",
                command="cafe new --rated",
            )
        )
        return
    pages = math.ceil(total / per_page)
    if not rows:
        raise UsageError(
            ngettext(
                "there is %(num)s page of %(size)s; ask for it",
                "there are %(num)s pages of %(size)s; ask for one of them",
                pages,
                size=per_page,
            )
        )
    color = color_wanted()
    say(view.rating_table(rows, offset, me, color=color), color=color)
    footer = " · ".join(
        (
            _("Page %(page)s of %(pages)s", page=page, pages=pages),
            ngettext("%(num)s rated player", "%(num)s rated players", total),
            *([_("next: %(command)s", command=command("rating", "--page", page + 1))]
              if page < pages else []),
        )
    )  # fmt: skip
    if me is not None and all(row["player"] != me for row in rows):
        footer += "\n" + where_you_stand(api.player(me), per_page)
    say(footer + "\n" + _("One player's history: %(command)s", command="cafe rating NAME"))


def where_you_stand(profile: dict[str, Any], per_page: int) -> str:
    """The reader's own line when their row is on another page of the list."""
    rank = profile["rank"]
    if rank is None:
        return _("You are not rated yet: league games and games opened with --rated are.")
    page = (rank - 1) // per_page + 1
    return _(
        "You: rank %(rank)s, rating %(rating)s · %(command)s",
        rank=rank,
        rating=view.rating_text(profile["rating"]["ordinal"]),
        command=command("rating", "--page", page),
    )


def profile_text(profile: dict[str, Any], shown: int) -> str:
    """A player's rating, leagues, the last `shown` points of their rating history and
    their recent finished games."""
    rated = profile["rating"]
    if rated["games"]:
        headline = ngettext(
            "%(player)s · rating %(rating)s (mu %(mu)s, sigma %(sigma)s) · %(num)s rated game",
            "%(player)s · rating %(rating)s (mu %(mu)s, sigma %(sigma)s) · %(num)s rated games",
            rated["games"],
            player=profile["name"],
            rating=view.rating_text(rated["ordinal"]),
            mu=view.rating_text(rated["mu"]),
            sigma=view.rating_text(rated["sigma"]),
        )
    else:
        headline = _("%(player)s · not rated yet (no rated game finished)", player=profile["name"])
    lines = [headline]
    for league in profile["leagues"]:
        parts = [
            _("League %(league)s", league=league["slug"]),
            league["name"],
            _("season %(number)s", number=league["season"]),
        ]
        if league["division"] is not None:
            parts.append(_("division %(number)s", number=league["division"]))
        lines.append(joined(parts, width=NARROW))
    points = profile["history"]
    if points:
        start = max(0, len(points) - shown)
        lines += [
            "",
            _(
                "Rating history (the last %(shown)s of %(all)s):",
                shown=len(points) - start,
                all=len(points),
            ),
        ]
        lines.append(view.history_table(points[start:], points[start - 1] if start else None))
    if profile["recent_games"]:
        lines += ["", _("Recent games:"), view.recent_table(profile["recent_games"])]
    return "\n".join(lines)
