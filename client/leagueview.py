"""Leagues, seasons, tables, schedules and ratings in words and 80-column tables
(LEAGUE.md §3–§4), from the API's answers. Text only: the commands fetch, this formats.

Every table marks the reader's own rows (`client.output.marked_table`): their line of a
division's table, their games in a schedule, their line of the rating list.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from client.gameview import clock_text, options_text
from client.output import NARROW, joined, marked_table, shorten

#: Room for the players of a game in a schedule row, so that it stays within 80 columns.
PLAYERS_WIDTH = 44


def number_text(value: float, places: int = 2) -> str:
    """`3`, `1.5`, `2.67`: league points and ratings without needless decimals."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def day(moment: str | None) -> str:
    """The date of an ISO 8601 UTC moment (`2026-03-05`), or `-`."""
    return moment[:10] if moment else "-"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def title(league: dict[str, Any]) -> str:
    """`Tuesday Club (tuesday)`, the name cut short only if the two overflow a line."""
    name, slug = league["name"], league["slug"]
    return f"{shorten(name, NARROW - len(slug) - 3)} ({slug})"


def settings_text(league: dict[str, Any]) -> str:
    """A league's settings in a few lines: who may join, the games, the divisions."""
    clock = league["clock"]
    timeouts = (
        f"removed after {plural(clock['max_timeouts'], 'time-out')} in a row"
        if clock["timeout"] == "autoplay"
        else "out at the first time-out"
    )
    vacation = "vacation pauses the clock" if clock.get("vacation", True) else "no vacation"
    entry = "open to anyone" if league["open"] else "by invitation"
    parts = [
        title(league),
        f"organised by {league['organiser']}",
        entry,
        f"games of {league['game_size']} players",
        clock_text(clock),
        timeouts,
        vacation,
        options_text(league.get("options")),
        f"divisions of {league['division_size']}",
        f"{league['promote']} up and {league['relegate']} down each season",
    ]
    text = joined(parts, width=NARROW)
    if not league["open"]:
        names = league["invited"] or ["nobody yet"]
        text += "\n" + joined([f"Invited: {names[0]}", *names[1:]], ", ", NARROW)
    return text


def league_rows(leagues: Sequence[dict[str, Any]], me: str | None, *, color: bool) -> str:
    """`cafe league list`: one line a league; the ones the reader organises are marked."""
    rows = [
        (
            league["organiser"] == me,
            (
                league["slug"],
                shorten(league["name"], 22),
                league["organiser"],
                str(league["game_size"]),
                "open" if league["open"] else "invited",
                season_text(league),
                str(league["players"]),
            ),
        )
        for league in leagues
    ]
    headers = ("slug", "name", "organiser", "size", "entry", "season", "players")
    return marked_table(headers, rows, right={3, 6}, color=color)


def season_text(league: dict[str, Any]) -> str:
    """A league's newest season in a list: `2 registration`, or `-` before the first."""
    if league["season"] is None:
        return "-"
    return f"{league['season']} {league['season_status']}"


def seasons_table(seasons: Sequence[dict[str, Any]]) -> str:
    """A league's seasons, oldest first."""
    rows = [
        (False, (str(s["number"]), s["status"], str(s["players"]), day(s["started_at"]),
                 day(s["finished_at"])))
        for s in seasons
    ]  # fmt: skip
    return marked_table(("season", "status", "players", "started", "finished"), rows, right={0, 2})


def season_heading(league: dict[str, Any], season: dict[str, Any]) -> str:
    """`Tuesday Club (tuesday) · season 1 · running · 9 players` (on two lines if need be)."""
    players = len(season["registered"]) + len(season["withdrawn"])
    parts = [title(league), f"season {season['number']}",
             season["status"], plural(players, "player")]  # fmt: skip
    return joined(parts, width=NARROW)


def division_heading(division: dict[str, Any]) -> str:
    """`Division 1 · 5 players · 2 games each`."""
    return (
        f"Division {division['number']} · {plural(len(division['players']), 'player')} · "
        f"{plural(division['rounds'], 'game')} each"
    )


def standings_table(
    division: dict[str, Any], moves: Sequence[dict[str, Any]] | None, me: str | None, *, color: bool
) -> str:
    """A division's table: place, player, league points, then the tiebreaks (score sum,
    wins), games played, and once the season is over who moves up or down."""
    moving = {
        m["player"]: f"{'↑' if m['direction'] == 'up' else '↓'} {m['to_division']}"
        for m in moves or []
        if m["from_division"] == division["number"]
    }
    rows = []
    for row in division["standings"]:
        player = row["player"] + (" (withdrawn)" if row["withdrawn"] else "")
        cells = [str(row["place"]), player, number_text(row["points"]), str(row["score_sum"]),
                 str(row["wins"]), f"{row['played']}/{division['rounds']}"]  # fmt: skip
        if moves is not None:
            cells.append(moving.get(row["player"], ""))
        rows.append((row["player"] == me, cells))
    headers = ["place", "player", "points", "score", "wins", "played"]
    if moves is not None:
        headers.append("next")
    return marked_table(headers, rows, right={0, 2, 3, 4, 5}, color=color)


def game_cells(game_id: int, game: dict[str, Any] | None) -> tuple[str, str, str]:
    """A scheduled game's status, players (with scores) and result: the scores so far and
    who is to move while it runs; the final scores in place order and the winner once over."""
    if game is None:
        return "?", "(not readable)", ""
    status = game["status"]
    standings = game.get("standings")
    if status == "finished" and standings:
        players = " · ".join(f"{s['player']} {s['final']}" for s in standings)
        winners = [s["player"] for s in standings if s["place"] == 1]
        result = f"won by {', '.join(winners)}"
    elif game.get("scores"):
        players = " · ".join(
            f"{name} {score}" for name, score in zip(game["players"], game["scores"], strict=True)
        )
        result = f"{game['to_move']} to move" if game.get("to_move") else ""
    else:
        players, result = " · ".join(game["players"]), ""
    return status, shorten(players, PLAYERS_WIDTH), result


def schedule_table(
    division: dict[str, Any], games: dict[int, dict[str, Any]], me: str | None, *, color: bool
) -> str:
    """A division's games: number, status, players and scores, and the result."""
    rows = []
    for game_id in division["games"]:
        game = games.get(game_id)
        status, players, result = game_cells(game_id, game)
        mine = game is not None and me in game["players"]
        rows.append((mine, (str(game_id), status, players, result)))
    return marked_table(("game", "status", "players and scores", "result"), rows, right={0},
                        color=color)  # fmt: skip


def rating_table(
    ratings: Sequence[dict[str, Any]], offset: int, me: str | None, *, color: bool
) -> str:
    """A page of the rating list, ranked from `offset` + 1: the ordinal (mu − 3·sigma)
    people are sorted on, mu, sigma and the rated games."""
    rows = [
        (r["player"] == me, (str(offset + i), r["player"], number_text(r["ordinal"]),
                             number_text(r["mu"]), number_text(r["sigma"]), str(r["games"])))
        for i, r in enumerate(ratings, 1)
    ]  # fmt: skip
    headers = ("rank", "player", "rating", "mu", "sigma", "games")
    return marked_table(headers, rows, right={0, 2, 3, 4, 5}, color=color)


def history_table(history: Sequence[dict[str, Any]], previous: dict[str, Any] | None) -> str:
    """Rating points, oldest first, each with its change of the ordinal (`previous`: the
    point before the first shown, if any)."""
    rows = []
    for point in history:
        change = "" if previous is None else f"{point['ordinal'] - previous['ordinal']:+.2f}"
        rows.append((False, (str(point["game"]), day(point["finished_at"]),
                             number_text(point["ordinal"]), change, number_text(point["mu"]),
                             number_text(point["sigma"]))))  # fmt: skip
        previous = point
    headers = ("game", "finished", "rating", "change", "mu", "sigma")
    return marked_table(headers, rows, right={0, 2, 3, 4, 5})


def recent_table(games: Sequence[dict[str, Any]]) -> str:
    """A player's recent finished games: players, the player's place and final score."""
    rows = [
        (False, (str(g["id"]), shorten(" ".join(g["players"]), 40),
                 "-" if g["place"] is None else str(g["place"]),
                 "-" if g["final"] is None else str(g["final"]), day(g["finished_at"])))
        for g in games
    ]  # fmt: skip
    return marked_table(("game", "players", "place", "final", "finished"), rows, right={0, 2, 3})


def log_text(log: dict[str, Any]) -> str:
    """`cafe league log`: the organiser's actions, oldest first, one to a line (its reason
    on the lines after it, wrapped to 80 columns): `2026-03-05 10:00  ann  paused every
    clock`."""
    if not log["entries"]:
        return (
            "Nothing yet: the organiser has removed no one, paused nothing and adjudicated\n"
            "no game."
        )
    lines = []
    for entry in log["entries"]:
        what = {
            "remove": f"removed {entry['player']}",
            "pause": "paused every clock",
            "resume": "resumed the clocks",
            "adjudicate": f"adjudicated game {entry['game']}",
        }.get(entry["action"], entry["action"])
        at = entry["at"][:16].replace("T", " ")
        lines.append(f"{at}  {entry['by']}  {what}")
        if entry["reason"]:
            lines.append(
                textwrap.fill(
                    entry["reason"], NARROW, initial_indent="  why: ", subsequent_indent="       "
                )
            )
    return "\n".join(lines)
