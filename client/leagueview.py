"""Leagues, seasons, tables, schedules and ratings in words and 80-column tables
(docs/league.md), from the API's answers. Text only: the commands fetch, this formats.

Every table marks the reader's own rows (`client.output.marked_table`): their line of a
division's table, their games in a schedule, their line of the rating list.

Quantities are worded by the engine (`cafe.render.quantities`), imported when a table is
drawn rather than for `cafe --help`.
"""

# ruff: noqa: PLC0415 (see the docstring)

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from cafe.i18n import N_, ngettext
from cafe.i18n import gettext as _
from client.gameview import clock_text, options_text, status_word
from client.output import NARROW, display_width, joined, marked_table, padded, shorten
from client.timeview import parse, time_left

#: How a member left a season (the API's `left`), as the standings' note says it, and the
#: legend that says the short ones in full (the service's pages say the same words).
LEFT_NOTES = {
    "withdrew": N_("withdrew"),
    "removed": N_("removed"),
    "removed_on_time": N_("removed on time"),
}
LEFT_LEGEND = N_("removed: by the organiser; removed on time: from every game they had left")
#: A season's status (the API's word) as the views say it.
SEASON_STATUSES = {
    "registration": N_("registration"),
    "running": N_("running"),
    "finished": N_("finished"),
}


def points_text(value: float) -> str:
    """`3`, `1.5`, `2.33`: league points as every view writes them."""
    from cafe.render import quantities

    return quantities.league_points(value)


def rating_text(value: float) -> str:
    """`25.0`: a rating figure (ordinal, mu, sigma) to one decimal place, as everywhere."""
    from cafe.render import quantities

    return quantities.rating(value)


def day(moment: str | None) -> str:
    """The date of an ISO 8601 UTC moment (`2026-03-05`), or `-`."""
    return moment[:10] if moment else "-"


def season_status(status: str) -> str:
    """A season's status in the language in use (another as the API says it)."""
    return _(SEASON_STATUSES[status]) if status in SEASON_STATUSES else status


def players_text(count: int) -> str:
    """`1 player`, `8 players`."""
    return ngettext("%(num)s player", "%(num)s players", count)


def games_text(count: int) -> str:
    """`1 game`, `3 games`."""
    return ngettext("%(num)s game", "%(num)s games", count)


def timeouts_text(count: int) -> str:
    """`1 time-out`, `2 time-outs`."""
    return ngettext("%(num)s time-out", "%(num)s time-outs", count)


def count_text(players: int, left: int = 0) -> str:
    """`8 players`, `8 players; 1 has left`: a season's members still in it, and apart
    those who left it (withdrew or were removed), as the API counts them."""
    text = players_text(players)
    if left:
        text += "; " + ngettext("%(num)s has left", "%(num)s have left", left)
    return text


def time_left_text(deadline: str | None, now: datetime) -> str:
    """`2 days 4 hours left`, `time is up`, or `` without a deadline, at the server's time
    `now` (`ApiClient.now`): the one place the league's views say a game's time left."""
    return "" if deadline is None else time_left(parse(deadline), now)


def title(league: dict[str, Any]) -> str:
    """`Tuesday Club (tuesday)`, the name cut short only if the two overflow a line."""
    name, slug = league["name"], league["slug"]
    return f"{shorten(name, NARROW - len(slug) - 3)} ({slug})"


def settings_text(league: dict[str, Any]) -> str:
    """A league's settings in a few lines: who may join, the games, the divisions."""
    clock = league["clock"]
    timeouts = (
        ngettext(
            "removed after %(num)s time-out in a row",
            "removed after %(num)s time-outs in a row",
            clock["max_timeouts"],
        )
        if clock["timeout"] == "autoplay"
        else _("out at the first time-out")
    )
    vacation = _("vacation pauses the clock") if clock.get("vacation", True) else _("no vacation")
    entry = _("open to anyone") if league["open"] else _("by invitation")
    parts = [
        title(league),
        _("organised by %(player)s", player=league["organiser"]),
        entry,
        ngettext("games of %(num)s player", "games of %(num)s players", league["game_size"]),
        clock_text(clock),
        timeouts,
        vacation,
        options_text(league.get("options")),
        _(
            "divisions of about %(size)s (as equal as possible: sizes differ by at most one)",
            size=league["division_size"],
        ),
        _(
            "%(up)s up and %(down)s down each season",
            up=league["promote"],
            down=league["relegate"],
        ),
    ]
    text = joined(parts, width=NARROW)
    if not league["open"]:
        text += "\n" + names_line(N_("Invited: %(players)s"), league["invited"])
    return text


def names_line(message: str, names: Sequence[str], **values: Any) -> str:
    """`message` (a msgid marked `N_`, with `%(players)s`) in the language in use, naming
    `names` (or nobody yet), in lines of at most 80 columns broken after a comma."""
    first, *rest = names or [_("nobody yet")]
    return joined([_(message, players=first, **values), *rest], ", ", NARROW)


def league_rows(leagues: Sequence[dict[str, Any]], me: str | None, *, color: bool) -> str:
    """`cafe league list`: one line a league; the ones the reader organises are marked."""
    rows = [
        (
            league["organiser"] == me,
            (
                league["slug"],
                league["name"],
                league["organiser"],
                str(league["game_size"]),
                _("open") if league["open"] else _("invited"),
                season_text(league),
                str(league["players"]),
            ),
        )
        for league in leagues
    ]
    headers = (
        _("slug"), _("name"), _("organiser"), _("size"), _("entry"), _("season"), _("players")
    )  # fmt: skip
    return marked_table(headers, rows, right={3, 6}, color=color, cut={1, 2}, drop=(3, 4))


def season_text(league: dict[str, Any]) -> str:
    """A league's newest season in a list: `2 registration`, or `-` before the first."""
    if league["season"] is None:
        return "-"
    return f"{league['season']} {season_status(league['season_status'])}"


def seasons_table(seasons: Sequence[dict[str, Any]]) -> str:
    """A league's seasons, oldest first."""
    rows = [
        (False, (str(s["number"]), season_status(s["status"]), str(s["players"]), str(s["left"]),
                 day(s["started_at"]), day(s["finished_at"])))
        for s in seasons
    ]  # fmt: skip
    headers = (_("season"), _("status"), _("players"), _("left"), _("started"), _("finished"))
    return marked_table(headers, rows, right={0, 2, 3})


def season_heading(league: dict[str, Any], season: dict[str, Any]) -> str:
    """`Tuesday Club (tuesday) · season 1 · running · 8 players; 1 has left` (on two
    lines if need be)."""
    counted = count_text(len(season["registered"]), len(season["withdrawn"]))
    parts = [
        title(league),
        _("season %(number)s", number=season["number"]),
        season_status(season["status"]),
        counted,
    ]
    return joined(parts, width=NARROW)


def division_heading(division: dict[str, Any]) -> str:
    """`Division 1 · 4 players; 1 has left · 2 games each`."""
    gone = sum(1 for row in division["standings"] if row["withdrawn"])
    counted = count_text(len(division["standings"]) - gone, gone)
    return _(
        "Division %(number)s · %(players)s · %(games)s each",
        number=division["number"],
        players=counted,
        games=games_text(division["rounds"]),
    )


def standings_table(
    division: dict[str, Any], moves: Sequence[dict[str, Any]] | None, me: str | None, *, color: bool
) -> str:
    """A division's table: place, player, league points, then the tiebreaks (score sum,
    wins) and games played; a note says how a player who left did (listed last, without a
    place), their time-outs in the season's games (`2 time-outs`) and once the season is
    over where they move, as things stand (`↑ 1`, `↓ 3`). A legend follows when a note
    needs one."""
    moving = {
        m["player"]: f"{'↑' if m['direction'] == 'up' else '↓'} {m['to_division']}"
        for m in moves or []
        if m["from_division"] == division["number"]
    }
    rows, lefts = [], set()
    for row in division["standings"]:
        notes = []
        if row["left"]:
            notes.append(_(LEFT_NOTES[row["left"]]))
            lefts.add(row["left"])
        if row["timeouts"] and row["left"] != "removed_on_time":
            notes.append(timeouts_text(row["timeouts"]))
        if row["player"] in moving:
            notes.append(moving[row["player"]])
        place = "-" if row["place"] is None else str(row["place"])
        played = f"{row['played']}/{division['rounds']}"
        cells = [place, row["player"], points_text(row["points"]), str(row["score_sum"]),
                 str(row["wins"]), played, " ".join(notes)]  # fmt: skip
        rows.append((row["player"] == me, cells))
    headers = [_("place"), _("player"), _("points"), _("score"), _("wins"), _("played"), _("note")]
    if not any(cells[-1] for _, cells in rows):  # no note to make: no column for them
        headers, rows = headers[:-1], [(mine, cells[:-1]) for mine, cells in rows]
    text = marked_table(headers, rows, right={0, 2, 3, 4, 5}, color=color, cut={1, 6})
    legend = placed_lines(division)
    if lefts & {"removed", "removed_on_time"}:
        legend.append(_(LEFT_LEGEND))
    if moves:
        legend.append(_("↑ ↓ the moves as things stand; refilling can change them"))
    return "\n".join([text, *(shorten(line, NARROW) for line in legend)])


def placed_lines(division: dict[str, Any]) -> list[str]:
    """Why each member plays in the division, in the API's words (the season page's:
    `moved up from division 2`), under `Placed:`; nothing in a first season, where everyone
    is placed by rating (the heading's business), or where it is not known."""
    said = [(row["player"], row.get("placed_text", "")) for row in division["standings"]]
    if all(row.get("placed") in (None, "rating") for row in division["standings"]):
        return []
    width = max(display_width(name) for name, _why in said)
    return [_("Placed:"), *(f"  {padded(name, width)}  {why}" for name, why in said if why)]


def game_cells(game_id: int, game: dict[str, Any] | None, now: datetime) -> tuple[str, str, str]:
    """A scheduled game's status, players (with scores) and result: the scores so far, who
    is to move and their time left (at the server's time `now`) while it runs; the final
    scores in place order and the winner once over."""
    if game is None:
        return "?", _("(not readable)"), ""
    status = game["status"]
    standings = game.get("standings")
    if status == "finished" and standings:
        players = " · ".join(f"{s['player']} {s['final']}" for s in standings)
        winners = [s["player"] for s in standings if s["place"] == 1]
        result = _("won by %(players)s", players=", ".join(winners))
    elif game.get("scores"):
        players = " · ".join(
            f"{name} {score}" for name, score in zip(game["players"], game["scores"], strict=True)
        )
        mover = _("%(player)s to move", player=game["to_move"]) if game.get("to_move") else ""
        left = mover and time_left_text(game.get("deadline"), now)
        result = ", ".join(filter(None, [mover, left]))
    else:
        players, result = " · ".join(game["players"]), ""
    return status_word(status), players, result


def schedule_table(
    division: dict[str, Any],
    games: dict[int, dict[str, Any]],
    me: str | None,
    now: datetime,
    *,
    color: bool,
) -> str:
    """A division's games: number, status, players and scores, and the result (who is to
    move and their time left at the server's time `now`, while it runs). The players'
    column takes the room the other columns leave in the terminal, cut with `…` where it
    must be (`client.output.table`)."""
    rows = []
    for game_id in division["games"]:
        game = games.get(game_id)
        status, players, result = game_cells(game_id, game, now)
        mine = game is not None and me in game["players"]
        rows.append((mine, (str(game_id), status, players, result)))
    headers = (_("game"), _("status"), _("players and scores"), _("result"))
    return marked_table(headers, rows, right={0}, color=color, cut={2, 3})


def rating_table(
    ratings: Sequence[dict[str, Any]], offset: int, me: str | None, *, color: bool
) -> str:
    """A page of the rating list, ranked from `offset` + 1: the ordinal (mu − 3·sigma)
    people are sorted on, mu, sigma and the rated games."""
    rows = [
        (r["player"] == me, (str(offset + i), r["player"], rating_text(r["ordinal"]),
                             rating_text(r["mu"]), rating_text(r["sigma"]), str(r["games"])))
        for i, r in enumerate(ratings, 1)
    ]  # fmt: skip
    headers = (_("rank"), _("player"), _("rating"), "mu", "sigma", _("games"))
    return marked_table(headers, rows, right={0, 2, 3, 4, 5}, color=color, cut={1})


def history_table(history: Sequence[dict[str, Any]], previous: dict[str, Any] | None) -> str:
    """Rating points, oldest first, each with its change of the ordinal (`previous`: the
    point before the first shown, if any)."""
    from cafe.render import quantities

    rows = []
    for point in history:
        change = (
            ""
            if previous is None
            else quantities.rating_change(point["ordinal"] - previous["ordinal"])
        )
        rows.append((False, (str(point["game"]), day(point["finished_at"]),
                             rating_text(point["ordinal"]), change, rating_text(point["mu"]),
                             rating_text(point["sigma"]))))  # fmt: skip
        previous = point
    headers = (_("game"), _("finished"), _("rating"), _("change"), "mu", "sigma")
    return marked_table(headers, rows, right={0, 2, 3, 4, 5})


def recent_table(games: Sequence[dict[str, Any]]) -> str:
    """A player's recent finished games: players, the player's place and final score."""
    rows = [
        (False, (str(g["id"]), " ".join(g["players"]),
                 "-" if g["place"] is None else str(g["place"]),
                 "-" if g["final"] is None else str(g["final"]), day(g["finished_at"])))
        for g in games
    ]  # fmt: skip
    headers = (_("game"), _("players"), _("place"), _("final"), _("finished"))
    return marked_table(headers, rows, right={0, 2, 3}, cut={1})


def action_text(entry: dict[str, Any]) -> str:
    """What one entry of a season's log did: `removed bob`, `paused every clock`."""
    match entry["action"]:
        case "remove":
            return _("removed %(player)s", player=entry["player"])
        case "pause":
            return _("paused every clock")
        case "resume":
            return _("resumed the clocks")
        case "adjudicate":
            return _("adjudicated game %(game)s", game=entry["game"])
    return str(entry["action"])


def log_text(log: dict[str, Any]) -> str:
    """`cafe league log`: the organiser's actions, oldest first, one to a line (its reason
    on the lines after it, wrapped to 80 columns): `2026-03-05 10:00  ann  paused every
    clock`."""
    if not log["entries"]:
        return textwrap.fill(
            _(
                "Nothing yet: the organiser has removed no one, paused nothing and adjudicated "
                "no game."
            ),
            NARROW,
        )
    lines = []
    for entry in log["entries"]:
        what = action_text(entry)
        at = entry["at"][:16].replace("T", " ")
        lines.append(f"{at}  {entry['by']}  {what}")
        if entry["reason"]:
            lines.append(
                textwrap.fill(
                    entry["reason"],
                    NARROW,
                    initial_indent="  " + _("why: "),
                    subsequent_indent=" " * (2 + display_width(_("why: "))),
                )
            )
    return "\n".join(lines)
