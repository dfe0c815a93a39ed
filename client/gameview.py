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

from cafe.i18n import N_, ngettext
from cafe.i18n import gettext as _
from client import timeview
from client.errors import ApiError
from client.output import command, joined

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from cafe import Game
    from client.api import ApiClient


def as_if(mover: str) -> str:
    """The label of an answer for a player who is waiting for their turn (`hint`,
    `--dry-run`)."""
    return _("Not your turn yet — as if it were (%(player)s is to move):", player=mover)


#: A game's status (the API's word) as a list shows it.
STATUS_WORDS = {"open": N_("open"), "active": N_("active"), "finished": N_("finished")}


def status_word(status: str) -> str:
    """`open`, `active`, `finished` in the language in use (another as the API says it)."""
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def options_text(options: dict[str, Any] | None) -> str:
    """`coffee klatsch, birthday table at 30 points`, or `no variants`."""
    options = options or {}
    parts = []
    if options.get("coffee_klatsch"):
        parts.append(_("coffee klatsch"))
    if options.get("birthday") is not None:
        parts.append(
            ngettext(
                "birthday table at %(num)s point",
                "birthday table at %(num)s points",
                options["birthday"],
            )
        )
    return ", ".join(parts) or _("no variants")


def clock_text(clock: dict[str, Any] | None) -> str:
    """`3 days a turn, autoplay on time-out`, or `no clock`."""
    if not clock:
        return _("no clock")
    days = clock["days_per_turn"]
    if clock["timeout"] == "resign":
        return ngettext(
            "%(num)s day a turn, resign on time-out",
            "%(num)s days a turn, resign on time-out",
            days,
        )
    return ngettext(
        "%(num)s day a turn, autoplay on time-out",
        "%(num)s days a turn, autoplay on time-out",
        days,
    )


def league_text(league: dict[str, Any] | None, base_url: str, width: int = 80) -> str | None:
    """`League game: Spring League, season 2, division 1 · http://…/leagues/spring/seasons/2`
    (the season's page on the server at `base_url`), in lines of at most `width` columns;
    None for a game outside a league."""
    import textwrap

    from cafe.render.quantities import season_place

    if not league:
        return None
    place = season_place(league["name"], league["season"], league["division"])
    line = _(
        "League game: %(place)s · %(url)s", place=place, url=base_url.rstrip("/") + league["url"]
    )
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
    me = me_in(state)
    parts = [
        _("Game %(game)s", game=state["id"]),
        ngettext("%(num)s turn played", "%(num)s turns played", state.get("turns", 0)),
        _("version %(version)s", version=state["version"]),
        _(
            "deadline %(deadline)s",
            deadline=timeview.deadline_text(state.get("deadline"), where, now),
        )
        if not state.get("clock_paused")
        else _(
            "clocks paused by the league's organiser: %(reason)s",
            reason=state["clock_paused"]["reason"],
        ),
        _("you are %(player)s", player=me) if me else _("you are watching"),
    ]
    away = [
        _(
            "%(player)s on vacation until %(moment)s",
            player=name,
            moment=timeview.local(timeview.parse(until), where),
        )
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
    lines = [_("The game ended because %(why)s.", why=engine.why_over(ending, left))]
    if left:
        gone = "; ".join(how.sentence(name) for name, how in left.items())
        lines.append(_("Left before the end: %(players)s.", players=gone))
    return "\n".join(
        textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False) for line in lines
    )


def next_step(state: dict[str, Any]) -> str:
    """What the caller can do now, as commands."""
    game_id = state["id"]
    if state["status"] == "finished":
        return (
            _("The game is over and its seed revealed; check every draw yourself:")
            + f"\n  cafe record {game_id} > game-{game_id}.txt && cafe verify game-{game_id}.txt"
        )
    if state["to_move"] == me_in(state):
        mine = _(
            "Your turn: `%(hint)s` suggests turns, `%(move)s` plays.",
            hint=command("hint", game_id),
            move=command("move", game_id, "TURN"),
        )
        birthday = birthday_text(state)
        return f"{mine}\n{birthday}" if birthday else mine
    return _(
        "Waiting for %(player)s; `%(command)s` waits for your turn.",
        player=state["to_move"],
        command=command("watch", game_id),
    )


def birthday_text(state: dict[str, Any]) -> str | None:
    """How the caller may name the birthday nation (rulebook §11), when they may: they
    reached the threshold first and no nation is named yet; or nobody has reached it."""
    threshold = (state.get("options") or {}).get("birthday")
    seat = state.get("your_seat")
    if threshold is None or seat is None or state.get("birthday_nation") is not None:
        return None
    holder = state.get("birthday_player")
    if holder == seat:
        text = ngettext(
            "You reached %(num)s point first: name the birthday nation by adding birthday=XX to "
            "any turn of yours (e.g. birthday=IT); its tables then score double.",
            "You reached %(num)s points first: name the birthday nation by adding birthday=XX "
            "to any turn of yours (e.g. birthday=IT); its tables then score double.",
            threshold,
        )
    elif holder is None:
        text = ngettext(
            "Birthday table: the first to reach %(num)s point names its nation, on that turn or "
            "a later one, by adding birthday=XX to the turn.",
            "Birthday table: the first to reach %(num)s points names its nation, on that turn "
            "or a later one, by adding birthday=XX to the turn.",
            threshold,
        )
    else:
        return None
    return text  # one sentence: `say` breaks it to the terminal's width


def open_text(state: dict[str, Any]) -> str:
    """A game that has not started: who is in, who is invited, and how it goes on."""
    game_id, players = state["id"], state["players"]
    names = ", ".join(
        _("%(player)s (creator)", player=p) if p == state["creator"] else p for p in players
    )
    lines = [
        ngettext(
            "Game %(game)s · open · %(taken)s of %(num)s seat taken · %(variants)s",
            "Game %(game)s · open · %(taken)s of %(num)s seats taken · %(variants)s",
            state["seats"],
            game=game_id,
            taken=len(players),
            variants=options_text(state.get("options")),
        ),
        _("Players: %(players)s", players=names),
    ]
    if state.get("invited"):
        lines.append(_("Invited: %(players)s", players=", ".join(state["invited"])))
    if me_in(state) is None:
        lines.append(_("Join it: %(command)s", command=command("join", game_id)))
    elif len(players) >= 2 and me_in(state) == state["creator"]:
        lines.append(
            _("Start it when everyone is in: %(command)s", command=command("start", game_id))
        )
    else:
        lines.append(_("Waiting for players; %(player)s starts it.", player=state["creator"]))
    return "\n".join(lines)
