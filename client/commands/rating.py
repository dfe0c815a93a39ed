"""`cafe rating [NAME]`: the rating list, or one player's rating and its history
(docs/league.md; OpenSkill, sorted and shown by the ordinal mu − 3·sigma)."""

import math
from typing import Annotated, Any

import typer

from client import leagueview as view
from client.commands.league import reader
from client.errors import UsageError
from client.output import NARROW, color_wanted, joined, say


def rating(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(
            help="A player: their rating, its history and their recent games.", metavar="NAME"
        ),
    ] = None,
    page: Annotated[int, typer.Option(min=1, metavar="N", help="Which page of the list.")] = 1,
    per_page: Annotated[
        int, typer.Option(min=1, max=200, metavar="N", help="Players on a page, 1 to 200.")
    ] = 20,
    history: Annotated[
        int, typer.Option(min=1, metavar="N", help="Rated games shown in a player's history.")
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
            raise UsageError("--page and --per-page page the list: drop them with a NAME")
        say(profile_text(api.player(name), history))
        return
    offset = (page - 1) * per_page
    found = api.ratings(per_page, offset)
    total, rows = found["total"], found["ratings"]
    if not total:
        say("Nobody is rated yet: league games and games opened with `cafe new --rated` are.")
        return
    pages = math.ceil(total / per_page)
    if not rows:
        raise UsageError(f"there are {pages} pages of {per_page}; ask for one of them")
    color = color_wanted()
    say(view.rating_table(rows, offset, me, color=color), color=color)
    footer = f"Page {page} of {pages} · {view.plural(total, 'rated player')}"
    if page < pages:
        footer += f" · next: cafe rating --page {page + 1}"
    if me is not None and all(row["player"] != me for row in rows):
        footer += "\n" + where_you_stand(api.player(me), per_page)
    say(footer + "\nOne player's history: cafe rating NAME")


def where_you_stand(profile: dict[str, Any], per_page: int) -> str:
    """The reader's own line when their row is on another page of the list."""
    rank = profile["rank"]
    if rank is None:
        return "You are not rated yet: league games and games opened with --rated are."
    page = (rank - 1) // per_page + 1
    rating = view.rating_text(profile["rating"]["ordinal"])
    return f"You: rank {rank}, rating {rating} · cafe rating --page {page}"


def profile_text(profile: dict[str, Any], shown: int) -> str:
    """A player's rating, leagues, the last `shown` points of their rating history and
    their recent finished games."""
    rated = profile["rating"]
    if rated["games"]:
        headline = (
            f"{profile['name']} · rating {view.rating_text(rated['ordinal'])} (mu "
            f"{view.rating_text(rated['mu'])}, sigma {view.rating_text(rated['sigma'])}) · "
            f"{view.plural(rated['games'], 'rated game')}"
        )
    else:
        headline = f"{profile['name']} · not rated yet (no rated game finished)"
    lines = [headline]
    for league in profile["leagues"]:
        parts = [f"League {league['slug']}", league["name"], f"season {league['season']}"]
        if league["division"] is not None:
            parts.append(f"division {league['division']}")
        lines.append(joined(parts, width=NARROW))
    points = profile["history"]
    if points:
        start = max(0, len(points) - shown)
        lines += ["", f"Rating history (the last {len(points) - start} of {len(points)}):"]
        lines.append(view.history_table(points[start:], points[start - 1] if start else None))
    if profile["recent_games"]:
        lines += ["", "Recent games:", view.recent_table(profile["recent_games"])]
    return "\n".join(lines)
