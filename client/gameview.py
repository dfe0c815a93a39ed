"""A game's public state in words, around the board picture: a header line (id, version,
deadline, who you are) and a league game's league, what to do next, why a finished game
ended and who left it how, and the lobby view of a game not started yet.

Text only: the picture itself needs the engine (`client.localgame`), which the commands
import when they draw one; the engine's wording of quantities and endings
(`cafe.render.quantities`, `cafe.endings`) is imported when a game is shown, not for
`cafe --help`.
"""

# ruff: noqa: PLC0415 (see the docstring)

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from client import timeview
from client.errors import ApiError
from client.output import joined

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from cafe import Game
    from client.api import ApiClient


#: The label of an answer for a player who is waiting for their turn (`hint`, `--dry-run`).
AS_IF = "Not your turn yet — as if it were ({mover} is to move):"


def options_text(options: dict[str, Any] | None) -> str:
    """`coffee klatsch, birthday table at 30 points`, or `no variants`."""
    options = options or {}
    parts = []
    if options.get("coffee_klatsch"):
        parts.append("coffee klatsch")
    if options.get("birthday") is not None:
        parts.append(f"birthday table at {options['birthday']} points")
    return ", ".join(parts) or "no variants"


def clock_text(clock: dict[str, Any] | None) -> str:
    """`3 days a turn, autoplay on time-out`, or `no clock`."""
    from cafe.render.quantities import count

    if not clock:
        return "no clock"
    return f"{count(clock['days_per_turn'], 'day')} a turn, {clock['timeout']} on time-out"


def league_text(league: dict[str, Any] | None, base_url: str, width: int = 80) -> str | None:
    """`League game: Spring League, season 2, division 1 · http://…/leagues/spring/seasons/2`
    (the season's page on the server at `base_url`), in lines of at most `width` columns;
    None for a game outside a league."""
    import textwrap

    from cafe.render.quantities import season_place

    if not league:
        return None
    place = season_place(league["name"], league["season"], league["division"])
    line = f"League game: {place} · {base_url.rstrip('/')}{league['url']}"
    return textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False)


def player_zone(api: ApiClient) -> ZoneInfo:
    """The zone the player chose (`cafe prefs timezone=…`); UTC on a server without one."""
    try:
        return timeview.zone(api.preferences().get("timezone"))
    except ApiError:
        return timeview.zone(None)


def me_in(state: dict[str, Any]) -> str | None:
    """The caller's name in this game, or None for a spectator."""
    seat = state.get("your_seat")
    return None if seat is None else str(state["players"][seat])


def header(state: dict[str, Any], where: ZoneInfo, now: datetime, width: int = 100) -> str:
    """The lines above a started game's picture (more if they would not fit in `width`
    columns): the deadline as time left at the server's time `now` and the moment in the
    player's zone `where`."""
    from cafe.render.quantities import count

    me = me_in(state)
    parts = [
        f"Game {state['id']}",
        f"{count(state.get('turns', 0), 'turn')} played",
        f"version {state['version']}",
        f"deadline {timeview.deadline_text(state.get('deadline'), where, now)}"
        if not state.get("clock_paused")
        else f"clocks paused by the league's organiser: {state['clock_paused']['reason']}",
        f"you are {me}" if me else "you are watching",
    ]
    away = [
        f"{name} on vacation until {timeview.local(timeview.parse(until), where)}"
        for name, until in zip(state["players"], state.get("vacation_until") or [], strict=False)
        if until
    ]
    return joined(parts + away, width=width)


def final_text(state: dict[str, Any], engine: Game, width: int = 80) -> str:
    """Why a finished game ended and how each player who left before the end did, in lines
    of at most `width` columns (the picture above it has the final standings with the
    penalties); `engine` is the game rebuilt from `state` (`client.localgame.load`)."""
    import textwrap

    from cafe.endings import Ending, departures_in

    left = departures_in(state.get("standings") or [])
    ending = Ending(state["ending"]) if state.get("ending") else None
    lines = [f"The game ended because {engine.why_over(ending, left)}."]
    if left:
        gone = "; ".join(f"{name} {how.words}" for name, how in left.items())
        lines.append(f"Left before the end: {gone}.")
    return "\n".join(
        textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False) for line in lines
    )


def next_step(state: dict[str, Any]) -> str:
    """What the caller can do now, as commands."""
    game_id = state["id"]
    if state["status"] == "finished":
        return (
            f"The game is over and its seed revealed; check every draw yourself:\n"
            f"  cafe record {game_id} > game-{game_id}.txt && cafe verify game-{game_id}.txt"
        )
    if state["to_move"] == me_in(state):
        mine = f"Your turn: `cafe hint {game_id}` suggests turns, `cafe move {game_id} TURN` plays."
        birthday = birthday_text(state)
        return f"{mine}\n{birthday}" if birthday else mine
    return f"Waiting for {state['to_move']}; `cafe watch {game_id}` waits for your turn."


def birthday_text(state: dict[str, Any]) -> str | None:
    """How the caller may name the birthday nation (rulebook §11), when they may: they
    reached the threshold first and no nation is named yet; or nobody has reached it."""
    threshold = (state.get("options") or {}).get("birthday")
    seat = state.get("your_seat")
    if threshold is None or seat is None or state.get("birthday_nation") is not None:
        return None
    holder = state.get("birthday_player")
    if holder == seat:
        return (
            f"You reached {threshold} points first: name the birthday nation by adding\n"
            "birthday=XX to any turn of yours (e.g. birthday=IT); its tables then score double."
        )
    if holder is None:
        return (
            f"Birthday table: the first to reach {threshold} points names its nation, on that\n"
            "turn or a later one, by adding birthday=XX to the turn."
        )
    return None


def open_text(state: dict[str, Any]) -> str:
    """A game that has not started: who is in, who is invited, and how it goes on."""
    game_id, players = state["id"], state["players"]
    lines = [
        f"Game {game_id} · open · {len(players)} of {state['seats']} seats taken"
        f" · {options_text(state.get('options'))}",
        "Players: " + ", ".join(f"{p} (creator)" if p == state["creator"] else p for p in players),
    ]
    if state.get("invited"):
        lines.append("Invited: " + ", ".join(state["invited"]))
    if me_in(state) is None:
        lines.append(f"Join it: cafe join {game_id}")
    elif len(players) >= 2 and me_in(state) == state["creator"]:
        lines.append(f"Start it when everyone is in: cafe start {game_id}")
    else:
        lines.append(f"Waiting for players; {state['creator']} starts it.")
    return "\n".join(lines)
